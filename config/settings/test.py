"""Pruebas (pytest-django): PostgreSQL+pgvector y Redis reales, embebidos o desde las URLs."""

import os
import tempfile
from urllib.parse import urlsplit, urlunsplit

from config.servicios import preparar_entorno

preparar_entorno()
os.environ.setdefault("DJANGO_SECRET_KEY", "solo-pruebas-no-usar-en-produccion")
os.environ.setdefault("DJANGO_DEBUG", "false")
# Las métricas de cada sesión de pruebas, aparte de las de `make run`.
os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="metricas-pruebas-")

from config.settings.base import *  # noqa: E402,F403


def _otra_base_redis(url: str, numero: int) -> str:
    """Devuelve la misma URL de Redis con otra base lógica, para no mezclar datos con `make run`."""
    partes = urlsplit(url)
    return urlunsplit(partes._replace(path=f"/{numero}"))


# Con pytest-xdist, cada proceso de pruebas usa su propia base lógica (gw0 → 1, gw1 → 2…).
_PROCESO = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw") or 0)
REDIS_URL = _otra_base_redis(REDIS_URL, 1 + _PROCESO)  # noqa: F405
CACHES["default"]["LOCATION"] = REDIS_URL  # noqa: F405
CACHES["default"]["KEY_PREFIX"] = "pruebas"  # noqa: F405
CHANNEL_LAYERS["default"]["CONFIG"] = {  # noqa: F405
    "hosts": [{"address": REDIS_URL, "socket_timeout": 30}],
    "prefix": "pruebas",
}
CELERY_BROKER_URL = CELERY_RESULT_BACKEND = REDIS_URL
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
WHITENOISE_USE_FINDERS = True
STORAGES["staticfiles"] = {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}  # noqa: F405
SALUD_ESPERA_CELERY_S = 2
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # noqa: F405  (whitenoise avisa si no existe)
# Las pruebas no salen a internet: el mapa se dibuja sin teselas de fondo.
MAPA_TESELAS_URL = ""
WEBSOCKET_ECO = True
