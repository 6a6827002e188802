"""Desarrollo local (`make run`): servicios embebidos si no hay URLs configuradas."""

import os

from config.servicios import preparar_entorno
from config.settings import entorno

preparar_entorno()
os.environ.setdefault("DJANGO_SECRET_KEY", "solo-desarrollo-local-no-usar-en-produccion")
os.environ.setdefault("DJANGO_DEBUG", "true")
# /metrics desde esta misma máquina (un Prometheus local), sin token.
os.environ.setdefault("METRICAS_IPS", "127.0.0.1,::1")

from config.settings.base import *  # noqa: E402,F403

# Sin collectstatic en desarrollo: whitenoise sirve directamente desde static/.
WHITENOISE_USE_FINDERS = True
STORAGES["staticfiles"] = {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}  # noqa: F405
PERMITIR_USUARIO_DEMO = True
DATOS_DEMO = entorno.booleano("DATOS_DEMO", defecto=True)
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # noqa: F405  (whitenoise avisa si no existe)
