"""Aplicación Celery: broker y resultados en Redis, serialización JSON, beat en la base de datos."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

app = Celery("prefactibilidad")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@app.task(name="config.ping")
def ping() -> str:
    """Responde «pong»: lo usa /api/health/ para saber si hay un worker atendiendo."""
    return "pong"
