"""Websocket de eco: prueba de extremo a extremo de la capa de canales sobre Redis."""

from typing import Any

from channels.generic.websocket import AsyncJsonWebsocketConsumer


class EcoConsumer(AsyncJsonWebsocketConsumer):
    """Devuelve cada mensaje después de hacerlo pasar por la capa de canales (Redis)."""

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        # El mensaje viaja por Redis hacia el propio canal; si la capa falla no hay eco.
        await self.channel_layer.send(self.channel_name, {"type": "eco.respuesta", "contenido": content})

    async def eco_respuesta(self, evento: dict[str, Any]) -> None:
        await self.send_json({"eco": evento["contenido"], "via": "capa_de_canales"})
