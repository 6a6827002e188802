"""Turnos desacoplados del socket y reanudables: los eventos de cada turno se guardan en un stream de
Redis (uno por turno, con el id del evento), y quien se conecte —o se reconecte con su último id—
los recibe desde ahí. El turno corre en un hilo propio: cerrar la pestaña no pierde la respuesta.

La secuencia de eventos es la de `services.turno_eventos` (la misma del SSE): aquí solo se guardan
y se leen.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import redis
import redis.asyncio as redis_asincrono
import structlog
from django.conf import settings
from django.db import connection as conexion_bd

from asistente.services import Turno, turno_eventos

registro = structlog.get_logger(__name__)

VIGENCIA_S = 3600
FINALES = ("done", "error")
_EJECUTOR = ThreadPoolExecutor(max_workers=settings.ASISTENTE_TURNOS_SIMULTANEOS, thread_name_prefix="turno")


def _ejecutor_nuevo_en_hijo() -> None:
    """Un proceso hijo (fork) no hereda los hilos del ejecutor: sin esto, sus turnos nunca correrían."""
    global _EJECUTOR
    _EJECUTOR = ThreadPoolExecutor(
        max_workers=settings.ASISTENTE_TURNOS_SIMULTANEOS, thread_name_prefix="turno"
    )


os.register_at_fork(after_in_child=_ejecutor_nuevo_en_hijo)


def clave_turno(turno_id: str) -> str:
    return f"asistente:flujo:{turno_id}"


def clave_ultimo(conversacion_id: str) -> str:
    return f"asistente:flujo:ultimo:{conversacion_id}"


def turno_lanzar(turno: Turno) -> str:
    """Publica los eventos del turno en su stream desde un hilo propio; devuelve el id del turno."""
    turno_id = str(turno.mensaje.pk)
    conexion = redis.Redis.from_url(settings.REDIS_URL)
    conexion.set(clave_ultimo(str(turno.conversacion.pk)), turno_id, ex=VIGENCIA_S)
    conexion.close()
    _EJECUTOR.submit(_publicar, turno, turno_id)
    return turno_id


async def eventos_desde(
    turno_id: str, *, despues_de: int = 0, espera_ms: int = 15000, paciencia_s: float = 60.0
) -> AsyncIterator[dict[str, Any]]:
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
                    yield {
                        "evento": "error",
                        "id": 0,
                        "datos": {"mensaje": "El turno no avanzó; reintente.", "reanudable": True},
                    }
                    return
                continue
            sin_avance_desde = time.monotonic()
            for id_stream, campos in respuesta[0][1]:
                ultimo_stream = id_stream
                evento = _decodificar(campos)
                if evento["id"] > despues_de:
                    yield evento
                if evento["evento"] in FINALES:
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


def _publicar(turno: Turno, turno_id: str) -> None:
    conexion = redis.Redis.from_url(settings.REDIS_URL)
    clave = clave_turno(turno_id)
    try:
        for evento in turno_eventos(turno):
            datos = json.dumps(evento.datos, ensure_ascii=False, default=str)
            conexion.xadd(clave, {"id": evento.id, "evento": evento.tipo, "datos": datos})
            if evento.id == 1:
                conexion.expire(clave, VIGENCIA_S)
    except Exception:
        registro.exception("flujo_fallo", turno=turno_id)
        conexion.xadd(
            clave, {"id": 999_999, "evento": "error", "datos": json.dumps({"mensaje": "Falló el turno."})}
        )
    finally:
        conexion.close()
        conexion_bd.close()  # la conexión del hilo no debe quedar abierta


def _decodificar(campos: dict[bytes, bytes]) -> dict[str, Any]:
    return {
        "evento": campos[b"evento"].decode(),
        "id": int(campos[b"id"]),
        "datos": json.loads(campos[b"datos"]),
    }
