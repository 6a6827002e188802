"""Rutas de websockets de todo el proyecto."""

from django.urls import path

from asistente.consumers import AsistenteConsumer
from config.consumers import EcoConsumer

websocket_urlpatterns = [
    path("ws/eco/", EcoConsumer.as_asgi()),
    path("ws/asistente/", AsistenteConsumer.as_asgi()),
]
