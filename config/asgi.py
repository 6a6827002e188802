"""Aplicación ASGI: HTTP (Django) y websockets (Channels) en un solo proceso daphne."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
# Django debe inicializarse antes de importar consumidores que usan modelos.
aplicacion_http = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from config.daphne import ajustar_daphne  # noqa: E402
from config.recolector import congelar_lo_cargado  # noqa: E402
from config.routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": aplicacion_http,
        "websocket": AllowedHostsOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns))),
    }
)
ajustar_daphne()
congelar_lo_cargado()
