"""Producción: PostgreSQL con pgvector y Redis reales (`DATABASE_URL`, `REDIS_URL`), HTTPS.

Nunca arranca servicios embebidos ni crea usuarios de demostración. Con las variables
requeridas definidas pasa `manage.py check --deploy`.
"""

from django.core.exceptions import ImproperlyConfigured

from config.settings import entorno
from config.settings.base import *  # noqa: F403

DEBUG = False
if len(SECRET_KEY) < 50 or SECRET_KEY.startswith("solo-"):  # noqa: F405
    raise ImproperlyConfigured(
        "Variable de entorno DJANGO_SECRET_KEY inválida: use un secreto aleatorio de 50+ caracteres."
    )
ALLOWED_HOSTS = entorno.lista("DJANGO_ALLOWED_HOSTS", defecto=[])
if not ALLOWED_HOSTS:
    raise ImproperlyConfigured("Falta la variable de entorno DJANGO_ALLOWED_HOSTS.")

# Con el pool de psycopg (base: `BD_CONEXIONES_POR_PROCESO` > 0) las conexiones ya persisten en el
# pool y Django rechaza además CONN_MAX_AGE; sin pool, conexiones persistentes por hilo.
# https://docs.djangoproject.com/en/5.2/ref/databases/#connection-pool
if "pool" not in DATABASES["default"].get("OPTIONS", {}):  # noqa: F405
    DATABASES["default"]["CONN_MAX_AGE"] = entorno.entero("DB_CONN_MAX_AGE", defecto=60)  # noqa: F405

# https://docs.djangoproject.com/en/5.2/howto/deployment/checklist/
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = entorno.booleano("DJANGO_SECURE_SSL_REDIRECT", defecto=True)
SECURE_HSTS_SECONDS = entorno.entero("DJANGO_SECURE_HSTS_SECONDS", defecto=31536000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = True
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
SECURE_CONTENT_TYPE_NOSNIFF = True
PERMITIR_USUARIO_DEMO = False
DATOS_DEMO = False  # nunca en producción, aunque el entorno diga otra cosa
