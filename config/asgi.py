"""Aplicación ASGI: HTTP (Django) y websockets (Channels) en un solo proceso daphne."""

import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
# Django debe inicializarse antes de importar consumidores que usan modelos (lo mismo que hace
# `get_asgi_application`, con el manejador que responde en JSON lo que la API rechaza antes de armar
# el pedido).
django.setup(set_prefix=False)

from config.manejador_asgi import ManejadorAsgi  # noqa: E402

aplicacion_http = ManejadorAsgi()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from config.consumers import SaludoSinBase  # noqa: E402
from config.daphne import ajustar_daphne  # noqa: E402
from config.recolector import congelar_lo_cargado  # noqa: E402
from config.routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": aplicacion_http,
        "websocket": SaludoSinBase(
            AllowedHostsOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns)))
        ),
    }
)
ajustar_daphne()
congelar_lo_cargado()
