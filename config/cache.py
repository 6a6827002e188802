"""La caché de Django para el trabajo accesorio: si Redis no responde, se sigue sin caché.

Lo que una caché solo acelera (resultados de herramientas, respuestas de fuentes externas, contadores)
no debe tumbar lo que acompaña: con Redis caído, leer da «no está» y escribir no hace nada, con un
aviso en el log y en las métricas. Los candados y las marcas que deciden si algo se hace (`cache.add`
de una revisión) siguen usando `cache` directamente: ahí la falla sí debe notarse.
"""

from __future__ import annotations

from typing import Any

import redis
import structlog
from django.core.cache import cache

from config import metricas

registro = structlog.get_logger(__name__)

FALLAS_DE_CACHE = (redis.exceptions.RedisError, OSError)


def leer(clave: str, defecto: Any = None) -> Any:
    try:
        return cache.get(clave, defecto)
    except FALLAS_DE_CACHE as error:
        _sin_cache("leer", error)
        return defecto


def guardar(clave: str, valor: Any, vigencia_s: int | None) -> None:
    try:
        cache.set(clave, valor, vigencia_s)
    except FALLAS_DE_CACHE as error:
        _sin_cache("guardar", error)


def contar(clave: str) -> None:
    """Suma uno al contador `clave` (lo crea sin vencimiento)."""
    try:
        if not cache.add(clave, 1, timeout=None):
            cache.incr(clave)
    except ValueError:  # venció entre `add` e `incr`
        guardar(clave, 1, None)
    except FALLAS_DE_CACHE as error:
        _sin_cache("contar", error)


def _sin_cache(operacion: str, error: Exception) -> None:
    metricas.cache_fallas_total.labels(operacion=operacion).inc()
    registro.warning("cache_sin_redis", operacion=operacion, error=str(error)[:200])
