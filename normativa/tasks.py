"""Tareas de Celery del corpus: adaptadores delgados que cargan por id y llaman a un servicio."""

from celery import shared_task

from normativa.ingesta.cargas import TAREA_CARGA
from normativa.ingesta.cargas import carga_procesar as procesar
from normativa.models import CargaDocumento


@shared_task(name=TAREA_CARGA, soft_time_limit=1800, time_limit=1900)
def carga_procesar(carga_id: int) -> str:
    """Ingiere un documento subido en el admin (embeber una guía nueva puede tardar minutos)."""
    carga = CargaDocumento.objects.filter(pk=carga_id).first()
    if carga is None:
        return "inexistente"
    return procesar(carga=carga).estado
