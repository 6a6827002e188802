"""Rutas de websockets de todo el proyecto."""

from django.conf import settings
from django.urls import path

from asistente.consumers import AsistenteConsumer
from config.consumers import EcoConsumer

websocket_urlpatterns = [path("ws/asistente/", AsistenteConsumer.as_asgi())]
if settings.WEBSOCKET_ECO:  # solo en pruebas: no autentica
    websocket_urlpatterns.append(path("ws/eco/", EcoConsumer.as_asgi()))
