"""Rutas de websockets de todo el proyecto."""

from django.urls import path

from config.consumers import EcoConsumer

websocket_urlpatterns = [
    path("ws/eco/", EcoConsumer.as_asgi()),
]
