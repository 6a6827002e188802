"""Turnos desacoplados del socket y reanudables: los eventos de cada turno se guardan en un stream de
Redis (uno por turno, con el id del evento), y quien se conecte —o se reconecte con su último id—
los recibe desde ahí. El turno corre en un hilo propio: cerrar la pestaña no pierde la respuesta.

La secuencia de eventos es la de `services.turno_eventos` (la misma del SSE): aquí solo se guardan
y se leen.
"""

from __future__ import annotations

import json
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
_EJECUTOR = ThreadPoolExecutor(max_workers=8, thread_name_prefix="turno")


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


def turno_publicar(turno: Turno) -> str:
    """Como `turno_lanzar`, pero en el hilo actual (pruebas y benchmark)."""
    turno_id = str(turno.mensaje.pk)
    _publicar(turno, turno_id)
    return turno_id


async def eventos_desde(
    turno_id: str, *, despues_de: int = 0, espera_ms: int = 15000
) -> AsyncIterator[dict[str, Any]]:
    """Eventos del turno con id mayor que `despues_de`, esperando los que falten hasta el final."""
    conexion = redis_asincrono.Redis.from_url(settings.REDIS_URL)
    clave = clave_turno(turno_id)
    ultimo_stream: Any = "0-0"
    try:
        while True:
            respuesta: Any = await conexion.xread({clave: ultimo_stream}, block=espera_ms, count=100)
            if not respuesta:
                yield {
                    "evento": "error",
                    "id": despues_de + 1,
                    "datos": {"mensaje": "El turno no avanzó; reintente."},
                }
                return
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
