"""Tareas programadas de las fuentes externas (adaptadores delgados, idempotentes, con tiempo límite).

Dos ejecuciones simultáneas no chocan: la revisión toma un candado en Redis y la segunda termina sin
hacer nada («ocupada»).
"""

from celery import shared_task
from django.conf import settings

from fuentes_externas import bcn, eseia, sea
from fuentes_externas.cache import FuenteOcupada
from proyectos.models import Proyecto


@shared_task(name="fuentes_externas.bcn_revisar", soft_time_limit=3300, time_limit=3600)
def revisar_bcn() -> str:
    """Compara cada norma del corpus con su versión en LeyChile e ingiere los cambios."""
    try:
        revisiones = bcn.normas_revisar()
    except FuenteOcupada:
        return "ocupada"
    return ", ".join(f"{r.sigla}: {'cambió' if r.cambio else 'sin cambios'}" for r in revisiones)


@shared_task(name="fuentes_externas.eseia_actualizar", soft_time_limit=1700, time_limit=1800)
def actualizar_eseia() -> str:
    """Proyectos mineros del e-SEIA de las regiones donde hay proyectos en el sistema, y las fichas de los
    calificados que aún no la tienen (`ESEIA_FICHAS_POR_EJECUCION`)."""
    regiones = sorted(set(Proyecto.objects.values_list("region__nombre", flat=True)))
    try:
        total = eseia.mineros_actualizar(regiones=regiones, detalles=settings.ESEIA_FICHAS_POR_EJECUCION)
        return f"{total} proyectos"
    except FuenteOcupada:
        return "ocupada"


@shared_task(name="fuentes_externas.sea_revisar", soft_time_limit=3300, time_limit=3600)
def revisar_sea() -> str:
    """Noticias y guías del sitio del SEA; las guías nuevas o cambiadas quedan encoladas para ingerir."""
    try:
        return sea.sitio_revisar().resumen()
    except FuenteOcupada:
        return "ocupada"
