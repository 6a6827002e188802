"""Turnos desacoplados del socket y reanudables: los eventos de cada turno se guardan en un stream de
Redis (uno por turno, con el id del evento), y quien se conecte —o se reconecte con su último id—
los recibe desde ahí. El turno corre en un hilo propio —del proceso web, o de un worker de Celery
aparte con `ASISTENTE_TURNOS_EN=worker`—: cerrar la pestaña no pierde la respuesta.

La secuencia de eventos es la de `services.turno_eventos` (la misma del SSE): aquí solo se guardan
y se leen.
"""

from __future__ import annotations

import functools
import json
import os
import queue
import threading
import time
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import redis
import redis.asyncio as redis_asincrono
import structlog
from django.conf import settings
from django.db import connection as conexion_bd
from redis.typing import EncodableT, FieldT

from asistente.services import Turno, turno_eventos

registro = structlog.get_logger(__name__)

VIGENCIA_S = 3600
FINALES = ("done", "error")
COLA_TURNOS = "turnos"
_EJECUTOR = ThreadPoolExecutor(max_workers=settings.ASISTENTE_TURNOS_SIMULTANEOS, thread_name_prefix="turno")


def _ejecutor_nuevo_en_hijo() -> None:
    """Un proceso hijo (fork) no hereda los hilos del ejecutor ni del escritor: sin esto, sus turnos
    nunca correrían ni se publicarían."""
    global _EJECUTOR, _ESCRITOR
    _EJECUTOR = ThreadPoolExecutor(
        max_workers=settings.ASISTENTE_TURNOS_SIMULTANEOS, thread_name_prefix="turno"
    )
    _ESCRITOR = _Escritor()


os.register_at_fork(after_in_child=_ejecutor_nuevo_en_hijo)


def clave_turno(turno_id: str) -> str:
    return f"asistente:flujo:{turno_id}"


def clave_ultimo(conversacion_id: str) -> str:
    return f"asistente:flujo:ultimo:{conversacion_id}"


@functools.cache
def _redis() -> redis.Redis:
    """Un cliente por proceso (su pool de conexiones es seguro entre hilos y se renueva tras un fork):
    abrir una conexión por turno costaba una ida y vuelta más a cada inicio."""
    return redis.Redis.from_url(settings.REDIS_URL)


def turno_lanzar(turno: Turno) -> str:
    """Publica los eventos del turno en su stream desde un hilo propio; devuelve el id del turno."""
    turno_id = str(turno.mensaje.pk)
    _redis().set(clave_ultimo(str(turno.conversacion.pk)), turno_id, ex=VIGENCIA_S)
    if settings.ASISTENTE_TURNOS_EN == "worker":
        from asistente.tasks import publicar_turno

        publicar_turno.apply_async((turno_id, turno.vista), queue=COLA_TURNOS)
    else:
        _EJECUTOR.submit(publicar, turno, turno_id)
    return turno_id


async def eventos_desde(
    turno_id: str, *, despues_de: int = 0, espera_ms: int = 15000, paciencia_s: float = 60.0
) -> AsyncIterator[Marco]:
    """Eventos del turno con id mayor que `despues_de`, esperando los que falten hasta el final.

    Si el turno no avanza en `paciencia_s`, un marco de error (id 0: no es parte del turno, y el
    cliente puede reanudar). Un plazo de lectura de Redis vencido —p. ej. con el proceso muy
    cargado— se reintenta desde el último evento leído: no se pierde nada.
    """
    # La lectura bloquea hasta `espera_ms`: el plazo del socket (5 s por omisión en redis-py 8) debe
    # ser mayor, o un turno que tarda en emitir su primer evento cortaría la retransmisión.
    conexion = redis_asincrono.Redis.from_url(settings.REDIS_URL, socket_timeout=espera_ms / 1000 + 10)
    clave = clave_turno(turno_id)
    ultimo_stream: Any = "0-0"
    sin_avance_desde = time.monotonic()
    try:
        while True:
            try:
                respuesta: Any = await conexion.xread({clave: ultimo_stream}, block=espera_ms, count=500)
            except redis.exceptions.TimeoutError:
                respuesta = None
            if not respuesta:
                if time.monotonic() - sin_avance_desde >= paciencia_s:
                    datos = {"mensaje": "El turno no avanzó; reintente.", "reanudable": True}
                    yield Marco(0, "error", json.dumps({"evento": "error", "id": 0, "datos": datos}))
                    return
                continue
            sin_avance_desde = time.monotonic()
            for id_stream, campos in respuesta[0][1]:
                ultimo_stream = id_stream
                marco = _decodificar(campos)
                if marco.id > despues_de:
                    yield marco
                if marco.evento in FINALES:
                    return
    finally:
        await conexion.aclose()


async def ultimo_turno(conversacion_id: str) -> str | None:
    conexion = redis_asincrono.Redis.from_url(settings.REDIS_URL)
    try:
        valor = await conexion.get(clave_ultimo(conversacion_id))
    finally:
        await conexion.aclose()
    if isinstance(valor, bytes):
        return valor.decode()
    return valor or None


@dataclass(frozen=True)
class Marco:
    """Un evento del turno tal como se guardó: `texto` es el marco JSON listo para el socket."""

    id: int
    evento: str
    texto: str

    def datos(self) -> dict[str, Any]:
        return dict(json.loads(self.texto)["datos"])


def publicar(turno: Turno, turno_id: str) -> None:
    """Ejecuta el turno y encola sus eventos para el stream (en un hilo de turnos o en el worker)."""
    clave = clave_turno(turno_id)
    try:
        for evento in turno_eventos(turno):
            marco = json.dumps(
                {"evento": evento.tipo, "id": evento.id, "datos": evento.datos},
                ensure_ascii=False,
                default=str,
            )
            _ESCRITOR.poner(clave, {"id": evento.id, "evento": evento.tipo, "marco": marco}, evento.id == 1)
    except Exception:
        registro.exception("flujo_fallo", turno=turno_id)
        marco = json.dumps({"evento": "error", "id": 999_999, "datos": {"mensaje": "Falló el turno."}})
        _ESCRITOR.poner(clave, {"id": 999_999, "evento": "error", "marco": marco}, False)
    finally:
        conexion_bd.close()  # la conexión del hilo no debe quedar abierta


def _decodificar(campos: dict[bytes, bytes]) -> Marco:
    return Marco(int(campos[b"id"]), campos[b"evento"].decode(), campos[b"marco"].decode())


class _Escritor:
    """Un hilo escribe en Redis los eventos de todos los turnos del proceso, en lotes (pipeline).

    Los hilos de turno solo encolan: con 100 turnos a la vez, 100 idas y vueltas a Redis por trozo
    se vuelven una por lote, y los turnos no compiten por el GIL con el bucle que retransmite. El
    orden por turno se conserva (una sola cola). Si Redis falla, el lote se reintenta: no se pierde.
    """

    MAXIMO_LOTE = 1000

    def __init__(self) -> None:
        self.cola: queue.SimpleQueue[tuple[str, dict[FieldT, EncodableT], bool]] = queue.SimpleQueue()
        self.hilo: threading.Thread | None = None
        self.candado = threading.Lock()

    def poner(self, clave: str, campos: dict[FieldT, EncodableT], primero: bool) -> None:
        if self.hilo is None:  # se inicia con el primer turno: los demás procesos no lo necesitan
            with self.candado:
                if self.hilo is None:
                    self.hilo = threading.Thread(target=self._escribir, name="flujos-escritor", daemon=True)
                    self.hilo.start()
        self.cola.put((clave, campos, primero))

    def _escribir(self) -> None:
        conexion = redis.Redis.from_url(settings.REDIS_URL)
        while True:
            lote = [self.cola.get()]
            while len(lote) < self.MAXIMO_LOTE:
                try:
                    lote.append(self.cola.get_nowait())
                except queue.Empty:
                    break
            for intento in range(1, 8):
                try:
                    tuberia = conexion.pipeline(transaction=False)
                    for clave, campos, primero in lote:
                        tuberia.xadd(clave, campos)
                        if primero:
                            tuberia.expire(clave, VIGENCIA_S)
                    tuberia.execute()
                    break
                except redis.exceptions.RedisError:
                    registro.exception("flujo_escritura_fallo", eventos=len(lote), intento=intento)
                    time.sleep(min(0.1 * 2**intento, 5))


_ESCRITOR = _Escritor()
