"""Tareas del asistente (adaptadores delgados)."""

from celery import shared_task

from asistente.avisos import avisos_evaluar_activos
from asistente.services import acciones_expirar


@shared_task(name="asistente.acciones_expirar")
def expirar_acciones() -> int:
    """Marca como expiradas las acciones pendientes vencidas."""
    return acciones_expirar()


@shared_task(name="asistente.avisos_evaluar")
def evaluar_avisos() -> int | None:
    """Revisa los proyectos de los usuarios con actividad reciente y crea los avisos que falten
    (None si según la frecuencia configurada aún no tocaba)."""
    return avisos_evaluar_activos()
