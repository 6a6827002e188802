"""La única fábrica de clientes Redis del proyecto (fuera de la caché de Django y de la capa de canales,
que se configuran en settings).

Un cliente por proceso, por URL y por plazo: su pool de conexiones es seguro entre hilos y redis-py lo
renueva tras un fork. Abrir una conexión por operación costaba una ida y vuelta más cada vez. La URL
entra en la clave: una prueba que apunta `REDIS_URL` a otro puerto recibe otro cliente.
"""

from __future__ import annotations

import functools
from typing import Any

import redis
import redis.asyncio as redis_asincrono
from django.conf import settings
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff


def cliente_redis(*, espera_s: float | None = None) -> redis.Redis:
    """El cliente compartido de `REDIS_URL`; `espera_s` acota conectar y cada operación."""
    return _cliente(settings.REDIS_URL, espera_s)


def cliente_redis_asincrono(
    *, espera_s: float | None = None, reintentos_inmediatos: int | None = None
) -> redis_asincrono.Redis:
    """Un cliente asíncrono nuevo: vive en el bucle de eventos que lo usa (no se comparte entre bucles).

    Con `reintentos_inmediatos`, una conexión caída se reintenta esas veces sin esperar (redis-py
    reintenta 3 veces con esperas crecientes por omisión): una conexión vieja del pool, de antes de un
    reinicio de Redis, se repone en el acto, y un Redis caído se informa enseguida.
    """
    opciones: dict[str, Any] = {}
    if reintentos_inmediatos is not None:
        opciones["retry"] = Retry(NoBackoff(), reintentos_inmediatos)
    return redis_asincrono.Redis.from_url(
        settings.REDIS_URL, socket_timeout=espera_s, socket_connect_timeout=espera_s, **opciones
    )


@functools.cache
def _cliente(url: str, espera_s: float | None) -> redis.Redis:
    return redis.Redis.from_url(url, socket_timeout=espera_s, socket_connect_timeout=espera_s)
