"""Turnos desacoplados del socket y reanudables: los eventos de cada turno se guardan en un stream de
Redis (uno por turno, con el id del evento), y quien se conecte —o se reconecte con su último id—
los recibe desde ahí. El turno corre en un hilo propio —del proceso web, o de un worker de Celery
aparte con `ASISTENTE_TURNOS_EN=worker`—: cerrar la pestaña no pierde la respuesta.

La secuencia de eventos es la de `services.turno_eventos` (la misma del SSE): aquí solo se guardan
y se leen.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import queue
import threading
import time
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any
from uuid import uuid4

import kombu.exceptions
import redis
import structlog
from celery import current_app as celery
from channels.db import database_sync_to_async
from django.conf import settings
from django.db import connection as conexion_bd
from redis.typing import EncodableT, FieldT

from asistente.limites import REINTENTAR_SIN_REDIS_S
from asistente.selectors import mensaje_de_usuario_existe, turno_ultimo_de
from asistente.services import (
    FALLA_DEL_TURNO,
    turno_de_mensaje,
    turno_eventos,
    turno_final_guardado,
    turno_registrar_perdido,
)
from asistente.turno import vigilia
from asistente.turno.tipos import Turno
from config.errores import NoDisponible
from config.redis_clientes import cliente_redis, cliente_redis_asincrono

registro = structlog.get_logger(__name__)

VIGENCIA_S = 3600
MENSAJE_SIN_REDIS = (
    "Se cortó la transmisión: el servicio de mensajería (Redis) no responde. Su turno sigue y la "
    "respuesta queda guardada: se reanuda sola desde el último evento recibido cuando vuelva, o "
    "recargue la conversación. Por la API: GET /api/asistente/conversaciones/<id>/eventos con "
    "Last-Event-ID."
)
MENSAJE_REINICIO = (
    "Se detuvo el proceso que preparaba su respuesta; la retomo desde el inicio (su mensaje sigue guardado)."
)
FINALES = ("done", "error")
# Cada cuánto, si el turno calla, se mira si alguien lo corre; y cuántas veces se retoma uno perdido.
VIGILAR_S = 1.0
RELANZAMIENTOS = 2
COLA_TURNOS = "turnos"
TAREA_PUBLICAR = "asistente.turno_publicar"


class _PorProceso:
    """Los hilos de turnos de este proceso, creados al primer uso. Un hijo (fork) no hereda hilos: al
    ver otro pid crea los suyos (sin esto, sus turnos nunca correrían). Nada se arma al importar."""

    def __init__(self) -> None:
        self.pid = 0
        self.candado = threading.Lock()
        self.ejecutor: ThreadPoolExecutor | None = None

    def __call__(self) -> ThreadPoolExecutor:
        if self.ejecutor is None or self.pid != os.getpid():
            with self.candado:
                if self.ejecutor is None or self.pid != os.getpid():
                    self.ejecutor = ThreadPoolExecutor(
                        max_workers=settings.ASISTENTE_TURNOS_SIMULTANEOS, thread_name_prefix="turno"
                    )
                    self.pid = os.getpid()
        return self.ejecutor


ejecutor_de_turnos = _PorProceso()


def clave_turno(turno_id: str) -> str:
    return f"asistente:flujo:{turno_id}"


def turno_lanzar(turno: Turno) -> str:
    """Publica los eventos del turno en su stream desde un hilo propio; devuelve el id del turno.
    Un mensaje repetido (el cliente lo reenvió) no lanza otro turno: se retransmite el suyo."""
    turno_id = str(turno.mensaje.pk)
    if turno.repetido:  # si su ejecución se perdió, quien lo retransmite lo retoma (`_vigilar`)
        return turno_id
    try:
        _ejecutar(turno, turno_id)
    except (redis.exceptions.RedisError, kombu.exceptions.OperationalError) as error:
        # Redis cayó entre guardar el mensaje y lanzar su turno: el mensaje queda guardado y el
        # usuario lo sabe; no se pierde en silencio.
        registro.warning("turno_sin_redis", turno=turno_id, error=str(error)[:200])
        raise NoDisponible(
            "Su mensaje quedó guardado, pero el servicio no está disponible para responderlo ahora. "
            f"Reintente en {REINTENTAR_SIN_REDIS_S} s.",
            reintentar_en=REINTENTAR_SIN_REDIS_S,
        ) from None
    return turno_id


def publicar_mensaje(mensaje_id: str, vista: str = "") -> None:
    """Lo que corre el worker de «turnos»: arma el turno desde el mensaje guardado y lo publica.

    Si no se puede armar (con carga, la base no dio conexión a tiempo), el turno no queda «esperando»
    en la cola hasta `vigilia.ARRANQUE_S`: quien lo retransmite lo ve perdido en el siguiente segundo y
    lo relanza, o, agotados los relanzamientos, le dice al usuario que lo reenvíe.
    """
    try:
        turno = turno_de_mensaje(mensaje_id=mensaje_id, vista=vista)
    except Exception:
        vigilia.anotar_no_empezo(mensaje_id, vista)
        raise
    publicar(turno, mensaje_id)


def _ejecutar(turno: Turno, turno_id: str) -> None:
    vigilia.anotar_lanzado(turno_id, turno.vista)
    if settings.ASISTENTE_TURNOS_EN == "worker":
        # Por nombre: la tarea (asistente/tasks.py) es un adaptador que depende de este módulo.
        celery.send_task(TAREA_PUBLICAR, (turno_id, turno.vista), queue=COLA_TURNOS)
    else:
        ejecutor_de_turnos().submit(publicar, turno, turno_id)


def relanzar(turno_id: str) -> str:
    """Retoma un turno que nadie corre (su proceso murió, o su mensaje en la cola se perdió) y no tiene
    respuesta guardada. Devuelve «relanzado», «ya» (otro lo acaba de retomar) o «agotado»: tras
    `RELANZAMIENTOS` intentos se guarda como fallido y el usuario puede reenviarlo."""
    if not mensaje_de_usuario_existe(turno_id):
        return "ya"  # nada que retomar (un stream sin mensaje guardado)
    intento = vigilia.tomar_relanzamiento(turno_id, maximo=RELANZAMIENTOS)
    if intento is None:
        return "ya"
    if intento > RELANZAMIENTOS:
        turno_registrar_perdido(turno_id)
        return "agotado"
    registro.warning("turno_relanzado", turno=turno_id, intento=intento)
    _ejecutar(turno_de_mensaje(mensaje_id=turno_id, vista=vigilia.vista_lanzada(turno_id)), turno_id)
    return "relanzado"


async def eventos_desde(
    turno_id: str, *, despues_de: int = 0, paciencia_s: float = 60.0
) -> AsyncIterator[Marco]:
    """Eventos del turno con id mayor que `despues_de`, esperando los que falten hasta el final.

    Los lee el lector común del proceso (`_Difusor`). Siempre termina con un marco final:
    - `done` o `error` del turno;
    - si el stream ya no está (venció, o Redis se reinició sin él) y la respuesta está guardada, un
      `done` armado desde la base: el turno no se pierde aunque se pierdan sus eventos en vivo;
    - si Redis se cae, en el acto, un `error` reanudable que dice que el turno sigue y se guarda, y
      desde qué evento reanudar;
    - si nadie corre el turno (su proceso murió: la vigilia venció), se retoma y llega un `reinicio`
      en segundos; si ya se retomó `RELANZAMIENTOS` veces, un `error` final que invita a reenviarlo;
    - si el turno, vivo, no avanza en `paciencia_s`, un `error` reanudable.
    Los marcos que no son del turno llevan id 0: no cambian el último id que el cliente vio.
    """
    difusor = _difusor()
    ultimo = despues_de
    try:
        if not await difusor.redis.exists(clave_turno(turno_id)):
            guardado = await database_sync_to_async(turno_final_guardado, thread_sensitive=False)(turno_id)
            # Si el stream apareció mientras se miraba la base (un turno corto que el worker empezó y
            # terminó entre ambas consultas), o su vigilia sigue tomada (el turno ya guardó, pero sus
            # eventos aún van camino a Redis: con carga, el hilo escritor va atrasado), se retransmite
            # en vivo desde su primer evento: el `done` de la base llegaría sin el texto.
            if (
                guardado is not None
                and not await difusor.redis.exists(clave_turno(turno_id))
                and not await difusor.redis.exists(vigilia.clave_vigilia(turno_id))
            ):
                evento, datos = guardado
                yield _marco(despues_de + 1, evento, datos)
                return
    except redis.exceptions.RedisError as error:
        registro.warning("retransmision_sin_redis", turno=turno_id, error=repr(error)[:300])
        yield _marco_sin_redis(ultimo)
        return
    suscripcion = difusor.suscribir(clave_turno(turno_id))
    quieto_s = 0.0
    try:
        while True:
            try:
                async with asyncio.timeout(min(VIGILAR_S, paciencia_s)):
                    lote = await suscripcion.cola.get()
            except TimeoutError:
                quieto_s += min(VIGILAR_S, paciencia_s)
                if (aviso := await _vigilar(difusor, turno_id, ultimo)) is not None:
                    yield aviso
                    if aviso.evento in FINALES:
                        return
                    quieto_s = 0.0
                elif quieto_s >= paciencia_s:
                    datos = {
                        "mensaje": "El turno no avanzó; reintente.",
                        "reanudable": True,
                        "ultimo_evento": ultimo,
                    }
                    yield _marco(0, "error", datos)
                    return
                continue
            quieto_s = 0.0
            if isinstance(lote, redis.exceptions.RedisError):
                registro.warning("retransmision_sin_redis", turno=turno_id, error=repr(lote)[:300])
                yield _marco_sin_redis(ultimo)
                return
            if isinstance(lote, BaseException):
                raise lote
            for campos in lote:
                marco = _decodificar(campos)
                if marco.id > despues_de:
                    yield marco
                    ultimo = max(ultimo, marco.id)
                if marco.evento in FINALES:
                    return
    finally:
        difusor.retirar(suscripcion)


async def _vigilar(difusor: _Difusor, turno_id: str, ultimo: int) -> Marco | None:
    """Tras un silencio del turno: si nadie lo corre, su respuesta guardada o su relanzamiento."""
    try:
        if await vigilia.estado(difusor.redis, turno_id) != "perdido":
            return None
        if await _eventos_despues_de(difusor.redis, turno_id, ultimo):
            # Nadie lo corre porque ya terminó (o avanzó antes de morir): sus eventos están en el
            # stream y el lector, atrasado por la carga, aún no los entrega. El `done` de la base
            # dejaría al cliente con el texto a medias.
            return None
    except redis.exceptions.RedisError:
        return None  # el lector común lo informa
    guardado = await database_sync_to_async(turno_final_guardado, thread_sensitive=False)(turno_id)
    if guardado is None:
        try:
            resultado = await database_sync_to_async(relanzar, thread_sensitive=False)(turno_id)
        except (redis.exceptions.RedisError, kombu.exceptions.OperationalError):
            return None
        if resultado == "relanzado":
            return _marco(0, "reinicio", {"mensaje": MENSAJE_REINICIO})
        if resultado == "ya":
            return None
        guardado = await database_sync_to_async(turno_final_guardado, thread_sensitive=False)(turno_id)
        if guardado is None:
            return None
    evento, datos = guardado
    return _marco(ultimo + 1, evento, datos)


async def _eventos_despues_de(conexion: Any, turno_id: str, ultimo: int) -> bool:
    """Si el stream del turno tiene eventos posteriores al último que recibió quien retransmite."""
    return _id_del_ultimo(await conexion.xrevrange(clave_turno(turno_id), count=1)) > ultimo


def _marco(id_evento: int, evento: str, datos: dict[str, Any]) -> Marco:
    return Marco(
        id_evento,
        evento,
        json.dumps({"evento": evento, "id": id_evento, "datos": datos}, ensure_ascii=False, default=str),
    )


def _marco_sin_redis(ultimo: int) -> Marco:
    """El final de una retransmisión que perdió Redis: el turno sigue en su worker y se guarda."""
    datos = {
        "mensaje": MENSAJE_SIN_REDIS,
        "codigo": 503,
        "reanudable": True,
        "ultimo_evento": ultimo,
        "reintentar_en": REINTENTAR_SIN_REDIS_S,
    }
    return _marco(0, "error", datos)


@dataclass(eq=False)
class _Suscripcion:
    clave: str
    ultimo: tuple[int, int] = (0, 0)
    cola: asyncio.Queue[list[dict[bytes, bytes]] | BaseException] = field(default_factory=asyncio.Queue)


class _Difusor:
    """Un lector por bucle de eventos para los streams de todos los turnos que el proceso retransmite.

    Un solo XREAD bloqueante pide lo nuevo de todos a la vez y reparte las entradas a la cola de cada
    suscripción: con cien chats, una ida y vuelta a Redis por ronda en vez de una por chat, y bajo
    carga cada ronda trae más entradas. Una suscripción nueva despierta al lector con una entrada en
    el stream «despertador» del proceso (que el XREAD siempre incluye), para que su stream entre en la
    ronda siguiente sin esperar a que venza el bloqueo.
    """

    ESPERA_MS = 15000
    MAXIMO_POR_STREAM = 500

    def __init__(self) -> None:
        # El plazo del socket debe superar el bloqueo del XREAD (5 s por omisión en redis-py 8). Un solo
        # reintento, inmediato: una conexión vieja (de antes de un reinicio de Redis) se repone, y si
        # Redis está caído cada retransmisión termina en el acto con un error reanudable, en vez de
        # esperar reintentos y quedar aguardando eventos que el Redis nuevo quizá ya no tiene.
        self.redis = cliente_redis_asincrono(espera_s=self.ESPERA_MS / 1000 + 10, reintentos_inmediatos=1)
        self.despertador = f"asistente:flujo:despertar:{uuid4().hex}"
        self.suscripciones: dict[str, set[_Suscripcion]] = {}  # por stream
        self.visto_despertador: Any = "0-0"
        self.tarea: asyncio.Task[None] | None = None
        self.despertares: set[asyncio.Task[Any]] = set()
        # Desde dónde lee cada stream el XREAD en curso.
        self.en_ronda: dict[str, tuple[int, int]] = {}
        self.despertado = False

    def suscribir(self, clave: str) -> _Suscripcion:
        suscripcion = _Suscripcion(clave)
        self.suscripciones.setdefault(clave, set()).add(suscripcion)
        if self.tarea is None or self.tarea.done():
            self.tarea = asyncio.ensure_future(self._leer())
        elif self.en_ronda.get(clave, (1, 0)) > suscripcion.ultimo and not self.despertado:
            # La ronda en curso no lee este stream, o lo lee desde más adelante que lo que esta
            # suscripción necesita (reanudar un turno ya terminado que otro cliente retransmite): sin
            # despertar, esperaría el bloqueo entero del XREAD. Un despertar por ronda basta: la
            # ronda siguiente incluye a todas las suscripciones nuevas.
            self.despertado = True
            despertar = asyncio.ensure_future(self._despertar())
            self.despertares.add(despertar)
            despertar.add_done_callback(self.despertares.discard)
        return suscripcion

    def retirar(self, suscripcion: _Suscripcion) -> None:
        del_turno = self.suscripciones.get(suscripcion.clave, set())
        del_turno.discard(suscripcion)
        if not del_turno:
            self.suscripciones.pop(suscripcion.clave, None)
        if not self.suscripciones and self.tarea is not None:
            # Sin nadie que escuche, el lector no espera el bloqueo entero del XREAD (15 s): se
            # cancela, y la próxima suscripción arranca otro. Así el bucle de una petición que
            # termina (el cliente de pruebas, un `asyncio.run`) no queda esperándolo al cerrar.
            self.tarea.cancel()
            self.tarea = None

    async def _despertar(self) -> None:
        with contextlib.suppress(redis.exceptions.RedisError):
            tuberia = self.redis.pipeline(transaction=False)
            tuberia.xadd(self.despertador, {"s": 1}, maxlen=1)
            tuberia.expire(self.despertador, VIGENCIA_S)
            await tuberia.execute()

    async def _leer(self) -> None:
        # El despertador se lee desde su último id visto (no con «$»): un despertar que llegue a Redis
        # antes que el XREAD de la ronda igual la interrumpe.
        while self.suscripciones:
            posiciones: dict[Any, Any] = {self.despertador: self.visto_despertador}
            self.en_ronda = {
                clave: min(s.ultimo for s in del_turno) for clave, del_turno in self.suscripciones.items()
            }
            for clave, (ms, secuencia) in self.en_ronda.items():
                posiciones[clave] = f"{ms}-{secuencia}"
            self.despertado = False
            try:
                respuesta: Any = await self.redis.xread(
                    posiciones, block=self.ESPERA_MS, count=self.MAXIMO_POR_STREAM
                )
            except redis.exceptions.TimeoutError:
                continue  # plazo del socket vencido con el proceso muy cargado: se reintenta
            except redis.exceptions.RedisError as error:
                # Cada retransmisión lo informa (el cliente reanuda desde su último evento).
                for del_turno in self.suscripciones.values():
                    for suscripcion in del_turno:
                        suscripcion.cola.put_nowait(error)
                self.suscripciones.clear()
                return
            for clave, entradas in respuesta or ():
                nombre = clave.decode()
                if nombre == self.despertador:
                    self.visto_despertador = entradas[-1][0]
                    continue
                ids = [_id_stream(id_stream) for id_stream, _ in entradas]
                for suscripcion in self.suscripciones.get(nombre, ()):
                    nuevas = [c for i, (_, c) in zip(ids, entradas, strict=True) if i > suscripcion.ultimo]
                    if nuevas:
                        suscripcion.ultimo = ids[-1]
                        suscripcion.cola.put_nowait(nuevas)


_DIFUSORES: dict[asyncio.AbstractEventLoop, _Difusor] = {}


def _difusor() -> _Difusor:
    """El difusor del bucle de eventos en curso (daphne tiene uno; cada `asyncio.run` de las pruebas,
    el suyo: los de bucles ya cerrados se descartan)."""
    bucle = asyncio.get_running_loop()
    if bucle not in _DIFUSORES:
        for cerrado in [b for b in _DIFUSORES if b.is_closed()]:
            del _DIFUSORES[cerrado]
        _DIFUSORES[bucle] = _Difusor()
    return _DIFUSORES[bucle]


def _id_stream(id_stream: bytes) -> tuple[int, int]:
    ms, _, secuencia = id_stream.partition(b"-")
    return int(ms), int(secuencia)


def ultimo_turno(conversacion_id: str) -> str | None:
    """El turno más reciente de la conversación: el id del último mensaje del usuario (desde la base,
    que sobrevive a un reinicio de Redis)."""
    return turno_ultimo_de(conversacion_id)


@dataclass(frozen=True)
class Marco:
    """Un evento del turno tal como se guardó: `texto` es el marco JSON listo para el socket."""

    id: int
    evento: str
    texto: str

    def datos(self) -> dict[str, Any]:
        return dict(json.loads(self.texto)["datos"])

    def sse(self) -> str:
        """El marco como evento SSE. Un marco fuera del turno (id 0) va sin `id:`: no reemplaza el
        último id que el cliente vio, con el que reanuda (`Last-Event-ID`)."""
        linea_id = f"id: {self.id}\n" if self.id else ""
        return f"{linea_id}event: {self.evento}\ndata: {json.dumps(self.datos(), ensure_ascii=False)}\n\n"


def publicar(turno: Turno, turno_id: str) -> None:
    """Ejecuta el turno y encola sus eventos para el stream (en un hilo de turnos o en el worker).

    Una sola ejecución a la vez por turno (su vigilia), y ninguna si ya tiene respuesta guardada: una
    entrega repetida no hace nada. Si el stream ya tiene eventos (el proceso que lo corría murió), la
    ejecución nueva empieza con `reinicio` y sigue la numeración: los clientes descartan lo recibido.
    """
    clave = clave_turno(turno_id)
    try:
        with vigilia.ejecucion(turno_id, al_terminar=_ESCRITOR.despues) as guardia:
            if guardia is None or turno_final_guardado(turno_id) is not None:
                return
            if previo := _ultimo_evento(clave):
                datos = {"mensaje": MENSAJE_REINICIO}
                marco = json.dumps(
                    {"evento": "reinicio", "id": previo + 1, "datos": datos}, ensure_ascii=False
                )
                _ESCRITOR.poner(clave, {"id": previo + 1, "evento": "reinicio", "marco": marco}, False)
                turno.primer_evento = previo + 2
            for evento in turno_eventos(turno):
                if guardia.perdida:  # otra ejecución la tomó (esta se creyó muerta): sigue aquella
                    registro.warning("turno_tomado_por_otra_ejecucion", turno=turno_id)
                    return
                marco = json.dumps(
                    {"evento": evento.tipo, "id": evento.id, "datos": evento.datos},
                    ensure_ascii=False,
                    default=str,
                )
                primero = evento.id == turno.primer_evento
                _ESCRITOR.poner(clave, {"id": evento.id, "evento": evento.tipo, "marco": marco}, primero)
    except Exception:
        registro.exception("flujo_fallo", turno=turno_id)
        # El final que el cliente recibe (chat.js ofrece reenviarlo). Con su vencimiento, como el primer
        # evento de un stream: si el turno falló antes de escribir otro, el stream no queda para siempre.
        marco = json.dumps(
            {"evento": "error", "id": 999_999, "datos": {"mensaje": FALLA_DEL_TURNO}}, ensure_ascii=False
        )
        _ESCRITOR.poner(clave, {"id": 999_999, "evento": "error", "marco": marco}, True)
    finally:
        conexion_bd.close()  # la conexión del hilo no debe quedar abierta


def _ultimo_evento(clave: str) -> int:
    """El id del último evento del stream (0 si no hay); sin Redis, 0."""
    try:
        ultimos = cliente_redis().xrevrange(clave, count=1)
    except redis.exceptions.RedisError:
        return 0
    return _id_del_ultimo(ultimos)


def _id_del_ultimo(ultimos: Any) -> int:
    """El id de evento de la respuesta de un `XREVRANGE … COUNT 1` (0 si el stream está vacío)."""
    return int(ultimos[0][1][b"id"]) if ultimos else 0


def _decodificar(campos: dict[bytes, bytes]) -> Marco:
    return Marco(int(campos[b"id"]), campos[b"evento"].decode(), campos[b"marco"].decode())


class _Escritor:
    """Un hilo escribe en Redis los eventos de todos los turnos del proceso, en lotes (pipeline).

    Los hilos de turno solo encolan: con 100 turnos a la vez, 100 idas y vueltas a Redis por trozo
    se vuelven una por lote, y los turnos no compiten por el GIL con el bucle que retransmite. El
    orden por turno se conserva (una sola cola). Si Redis falla, el lote se reintenta 7 veces (unos
    12 s en total); si sigue caído, esos eventos en vivo se descartan (queda registrado). La respuesta
    no se pierde: el turno la guarda en PostgreSQL y se ve al recargar la conversación.
    """

    MAXIMO_LOTE = 1000

    def __init__(self) -> None:
        # (stream, campos, primero) de un evento, o una acción para después de escribir lo anterior.
        self.cola: queue.SimpleQueue[tuple[str, dict[FieldT, EncodableT], bool] | Callable[[], None]] = (
            queue.SimpleQueue()
        )
        self.hilo: threading.Thread | None = None
        self.pid = 0
        self.candado = threading.Lock()

    def despues(self, accion: Callable[[], None]) -> None:
        """Ejecuta `accion` en el hilo escritor cuando todo lo encolado antes ya se escribió (o se
        descartó): soltar la vigilia de un turno solo cuando sus eventos están en Redis."""
        self._encolar(accion)

    def poner(self, clave: str, campos: dict[FieldT, EncodableT], primero: bool) -> None:
        self._encolar((clave, campos, primero))

    def _encolar(self, item: tuple[str, dict[FieldT, EncodableT], bool] | Callable[[], None]) -> None:
        # Se inicia con el primer turno (los demás procesos no lo necesitan); un hijo (fork) no hereda
        # el hilo: con otro pid arranca el suyo, con su propia cola.
        if self.hilo is None or self.pid != os.getpid():
            with self.candado:
                if self.hilo is None or self.pid != os.getpid():
                    self.cola = queue.SimpleQueue()
                    self.hilo = threading.Thread(target=self._escribir, name="flujos-escritor", daemon=True)
                    self.hilo.start()
                    self.pid = os.getpid()
        self.cola.put(item)

    def _escribir(self) -> None:
        conexion = cliente_redis()
        while True:
            lote = [self.cola.get()]
            while len(lote) < self.MAXIMO_LOTE:
                try:
                    lote.append(self.cola.get_nowait())
                except queue.Empty:
                    break
            eventos = [item for item in lote if isinstance(item, tuple)]
            for intento in range(1, 8):
                if not eventos:
                    break
                try:
                    tuberia = conexion.pipeline(transaction=False)
                    for clave, campos, primero in eventos:
                        tuberia.xadd(clave, campos)
                        if primero:
                            tuberia.expire(clave, VIGENCIA_S)
                    tuberia.execute()
                    break
                except redis.exceptions.RedisError:
                    registro.exception("flujo_escritura_fallo", eventos=len(eventos), intento=intento)
                    time.sleep(min(0.1 * 2**intento, 5))
            else:
                registro.error("flujo_lote_descartado", eventos=len(eventos))
            # Lo que esperaba a estos eventos (soltar la vigilia de su turno), ya escritos: en orden.
            for item in lote:
                if not isinstance(item, tuple):
                    try:
                        item()
                    except Exception:
                        registro.exception("flujo_despues_fallo")


_ESCRITOR = _Escritor()
