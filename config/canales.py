"""La capa de canales: la de channels_redis, que espera a Redis en vez de derribar los websockets.

Con la original, un corte de Redis hacía fallar la espera de mensajes de cada consumidor: channels
cerraba cada websocket abierto con 1011 y el navegador reconectaba con esperas crecientes, de modo
que el chat seguía sin funcionar un rato después de que Redis volvía. Aquí la espera se reintenta cada
`REINTENTO_S`: el socket sigue abierto, el turno en curso termina con su error reanudable
(`asistente/flujos.py`) y se reanuda por el mismo socket. Como un Redis reiniciado puede volver sin los
grupos (no se guardan en disco a cada cambio), la capa recuerda los grupos de este proceso y los vuelve
a inscribir al recuperarse.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from typing import Any

import redis
import structlog
from channels_redis.core import RedisChannelLayer

registro = structlog.get_logger(__name__)

REINTENTO_S = 1.0
FALLAS_DE_REDIS = (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, OSError)


class CapaDeCanalesRedis(RedisChannelLayer):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.grupos_del_proceso: dict[str, set[str]] = defaultdict(set)
        self.sin_redis = False

    async def group_add(self, group: str, channel: str) -> None:
        await super().group_add(group, channel)
        self.grupos_del_proceso[group].add(channel)

    async def group_discard(self, group: str, channel: str) -> None:
        canales = self.grupos_del_proceso.get(group)
        if canales is not None:
            canales.discard(channel)
            if not canales:
                del self.grupos_del_proceso[group]
        await super().group_discard(group, channel)

    async def receive(self, channel: str) -> dict[str, Any]:
        while True:
            try:
                mensaje: dict[str, Any] = await super().receive(channel)
            except FALLAS_DE_REDIS as error:
                if not self.sin_redis:
                    registro.warning("canales_sin_redis", error=str(error)[:200])
                self.sin_redis = True
                await asyncio.sleep(REINTENTO_S)
                await self._reinscribir_si_volvio()
                continue
            return mensaje

    async def _reinscribir_si_volvio(self) -> None:
        """Con Redis de vuelta, inscribe otra vez los grupos de este proceso (idempotente)."""
        if not self.sin_redis:
            return
        try:
            for grupo, canales in list(self.grupos_del_proceso.items()):
                for canal in list(canales):
                    await super().group_add(grupo, canal)
        except FALLAS_DE_REDIS:
            return
        if self.sin_redis:
            registro.info("canales_redis_de_vuelta", grupos=len(self.grupos_del_proceso))
        self.sin_redis = False
