"""Límites de uso por usuario (mensajes, acciones, búsquedas externas) en ventanas deslizantes."""

from __future__ import annotations

import functools
import time
from typing import Any
from uuid import uuid4

import redis
import structlog

from config import metricas
from config.errores import LimiteExcedido, NoDisponible
from config.redis_clientes import cliente_redis
from proyectos.roles import Usuario, id_de

registro = structlog.get_logger(__name__)

REINTENTAR_SIN_REDIS_S = 5
LIMITES = {
    "mensajes_minuto": (10, 60),
    "mensajes_hora": (100, 3600),
    "acciones_hora": (20, 3600),
    "busquedas_externas_hora": (30, 3600),
}


def limites_consumir(*, usuario: Usuario, limites: tuple[str, ...]) -> None:
    """Cuenta un uso de cada límite en una ventana deslizante; si alguno está lleno, `LimiteExcedido`
    con los segundos que faltan para que se libere un cupo. Si Redis no responde, `NoDisponible`: el mensaje
    se rechaza explícitamente (no se guarda ni se pierde en silencio) y el cliente puede reintentarlo.

    Cada límite es un conjunto ordenado con la hora de cada uso; un script de Lua descarta los usos
    fuera de la ventana, revisa todos los límites y solo si hay cupo en todos anota el uso: atómico,
    y un intento rechazado no consume cupo. Una ventana fija dejaba pasar el doble en el cambio de
    minuto (10 al final de uno y 10 al comienzo del siguiente).
    """
    ahora_ms = int(time.time() * 1000)
    claves = [f"asistente:limite:{limite}:{id_de(usuario)}" for limite in limites]
    argumentos: list[int | str] = [ahora_ms, uuid4().hex]
    for limite in limites:
        maximo, ventana = LIMITES[limite]
        argumentos += [maximo, ventana * 1000]
    try:
        lleno, espera_ms = _script_limites()(keys=claves, args=argumentos)
    except redis.exceptions.RedisError as error:
        registro.warning("limites_sin_redis", error=str(error)[:200])
        raise NoDisponible(
            "El servicio no está disponible en este momento; su mensaje no se guardó. Reintente en "
            f"{REINTENTAR_SIN_REDIS_S} s.",
            reintentar_en=REINTENTAR_SIN_REDIS_S,
        ) from None
    if lleno:
        metricas.limitados_total.labels(origen="limite").inc()
        limite = limites[int(lleno) - 1]
        maximo, ventana = LIMITES[limite]
        restante = max(1, -(-int(espera_ms) // 1000))
        raise LimiteExcedido(
            f"Superó el límite de {maximo} por {'minuto' if ventana == 60 else 'hora'} "
            f"({limite.replace('_', ' ')}). "
            f"Intente en {restante} s.",
            reintentar_en=restante,
        )


_LIMITES_LUA = """
local ahora = tonumber(ARGV[1])
for i, clave in ipairs(KEYS) do
  local maximo = tonumber(ARGV[1 + 2 * i])
  local ventana = tonumber(ARGV[2 + 2 * i])
  redis.call('ZREMRANGEBYSCORE', clave, '-inf', ahora - ventana)
  if redis.call('ZCARD', clave) >= maximo then
    local primero = redis.call('ZRANGE', clave, 0, 0, 'WITHSCORES')
    return {i, tonumber(primero[2]) + ventana - ahora}
  end
end
for i, clave in ipairs(KEYS) do
  redis.call('ZADD', clave, ahora, ARGV[2])
  redis.call('PEXPIRE', clave, tonumber(ARGV[2 + 2 * i]))
end
return {0, 0}
"""


@functools.cache
def _script_limites() -> Any:
    return cliente_redis().register_script(_LIMITES_LUA)
