"""Aplicación Celery: broker y resultados en Redis, serialización JSON, beat en la base de datos."""

import os

from celery import Celery
from celery.signals import task_failure, worker_process_init, worker_ready

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

app = Celery("prefactibilidad")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_ready.connect
@worker_process_init.connect
def _congelar_lo_cargado(**_: object) -> None:
    """Con el worker listo (o cada proceso hijo del pool prefork, al iniciarse): ver `config.recolector`."""
    from config.recolector import congelar_lo_cargado

    congelar_lo_cargado()


@task_failure.connect
def _contar_falla(sender: object = None, **_: object) -> None:
    """Cada tarea que falla suma en `celery_tareas_fallidas_total`, con su nombre."""
    from config.metricas import tareas_fallidas_total

    tareas_fallidas_total.labels(tarea=getattr(sender, "name", "desconocida")).inc()


@app.task(name="config.ping")
def ping() -> str:
    """Responde «pong»: lo usa /api/health/ para saber si hay un worker atendiendo."""
    return "pong"
