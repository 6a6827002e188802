"""Estado de los servicios de los que depende la aplicación (para /api/health/)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, TypedDict

from asgiref.sync import async_to_sync
from celery.exceptions import TimeoutError as CeleryTimeout
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import connection

from config.redis_clientes import cliente_redis

ESENCIALES = ("base_de_datos", "pgvector", "redis", "canales")
ESPERA_S = 2.0

# Revisiones que agregan las apps (en su `ready()`): config no importa ninguna app de más arriba.
_REVISIONES_DE_APPS: dict[str, Callable[[], str]] = {}


class EstadoSistema(TypedDict):
    estado: str
    fallas: list[str]
    componentes: dict[str, Any]


def estado_del_sistema(*, solo_esenciales: bool = False) -> EstadoSistema:
    """Devuelve el estado de cada componente y qué componentes esenciales fallan.

    Con `solo_esenciales` (lo que pide un balanceador: ¿atiende esta réplica?) no revisa Celery ni lo
    que agregan las apps: un worker detenido no saca de servicio la web, y su revisión esperaba hasta
    `SALUD_ESPERA_CELERY_S` en cada sondeo.
    """
    componentes: dict[str, Any] = {
        "base_de_datos": _revisar(_base_de_datos),
        "pgvector": _revisar(_pgvector),
        "redis": _revisar(_redis),
    }
    componentes["canales"] = _revisar(_canales)
    if solo_esenciales:
        fallas = [nombre for nombre in ESENCIALES if not componentes[nombre]["ok"]]
        return {"estado": "ok" if not fallas else "falla", "fallas": fallas, "componentes": componentes}
    componentes["celery"] = (
        _revisar(_celery) if componentes["redis"]["ok"] else {"ok": False, "detalle": "broker no disponible"}
    )
    if componentes["celery"]["detalle"] == "sin_worker":
        componentes["celery"]["ok"] = False
    for nombre, revision in _REVISIONES_DE_APPS.items():
        componentes[nombre] = _revisar(revision)
    fallas = [nombre for nombre in ESENCIALES if not componentes[nombre]["ok"]]
    return {"estado": "ok" if not fallas else "falla", "fallas": fallas, "componentes": componentes}


def registrar_revision(nombre: str, revision: Callable[[], str]) -> None:
    """Agrega un componente no esencial al estado (su detalle es lo que devuelve `revision`)."""
    _REVISIONES_DE_APPS[nombre] = revision


def _revisar(revision: Any) -> dict[str, Any]:
    try:
        return {"ok": True, "detalle": revision()}
    except Exception as error:  # cualquier falla de un servicio se informa, no se propaga
        return {"ok": False, "detalle": f"{type(error).__name__}: {error}"}


def _base_de_datos() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_setting('server_version')")
        return f"PostgreSQL {cursor.fetchone()[0]}"


def _pgvector() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
        fila = cursor.fetchone()
    if fila is None:
        raise RuntimeError("la extensión vector no está instalada (¿faltan migraciones?)")
    return f"vector {fila[0]}"


def _redis() -> str:
    cliente = cliente_redis(espera_s=ESPERA_S)
    cliente.ping()
    return f"Redis {cliente.info('server')['redis_version']}"


def _canales() -> str:
    return async_to_sync(_ida_y_vuelta_canales)()


async def _ida_y_vuelta_canales() -> str:
    capa = get_channel_layer()
    if capa is None:
        raise RuntimeError("CHANNEL_LAYERS no está configurado")
    canal = await capa.new_channel()
    await asyncio.wait_for(capa.send(canal, {"type": "salud.ping"}), ESPERA_S)
    mensaje = await asyncio.wait_for(capa.receive(canal), ESPERA_S)
    if mensaje.get("type") != "salud.ping":
        raise RuntimeError("la capa de canales devolvió otro mensaje")
    return "ida y vuelta por Redis"


def _celery() -> str:
    from config.celery import ping

    resultado = ping.apply_async(expires=settings.SALUD_ESPERA_CELERY_S, retry=False)
    try:
        return f"worker respondió {resultado.get(timeout=settings.SALUD_ESPERA_CELERY_S)}"
    except CeleryTimeout:
        resultado.forget()
        return "sin_worker"
