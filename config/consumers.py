"""Lo común a los websockets: el de eco (prueba de extremo a extremo de la capa de canales sobre Redis)
y el saludo que, sin base, cierra con «reintente» en vez de fallar."""

from typing import Any

import psycopg
import structlog
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.db import DatabaseError

registro = structlog.get_logger(__name__)


class EcoConsumer(AsyncJsonWebsocketConsumer):
    """Devuelve cada mensaje después de hacerlo pasar por la capa de canales (Redis)."""

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        # El mensaje viaja por Redis hacia el propio canal; si la capa falla no hay eco.
        await self.channel_layer.send(self.channel_name, {"type": "eco.respuesta", "contenido": content})

    async def eco_respuesta(self, evento: dict[str, Any]) -> None:
        await self.send_json({"eco": evento["contenido"], "via": "capa_de_canales"})


# Las aplicaciones cierran con 1000 o 3000–4999: 4503 es «no disponible, reintente» (como un 503).
CIERRE_REINTENTAR = 4503


class SaludoSinBase:
    """Envuelve los websockets: si el saludo falla porque PostgreSQL no responde (la sesión y el usuario
    se leen de la base antes de llegar al consumidor), el socket se acepta y se cierra con 4503, lo mismo
    que la API responde con 503, en vez de un HTTP 500 que el navegador ve como un corte cualquiera.
    chat.js reconecta solo con esperas crecientes."""

    def __init__(self, aplicacion: Any) -> None:
        self.aplicacion = aplicacion

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        respondido = False

        async def enviar(mensaje: dict[str, Any]) -> None:
            nonlocal respondido
            respondido = respondido or mensaje["type"] in ("websocket.accept", "websocket.close")
            await send(mensaje)

        try:
            await self.aplicacion(scope, receive, enviar)
        except (DatabaseError, psycopg.Error) as error:
            if respondido:
                raise
            registro.warning("websocket_sin_base", error=str(error)[:200])
            await send({"type": "websocket.accept"})
            await send({"type": "websocket.close", "code": CIERRE_REINTENTAR})
