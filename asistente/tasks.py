"""Tareas del asistente (adaptadores delgados)."""

from celery import shared_task

from asistente.services import acciones_expirar


@shared_task(name="asistente.acciones_expirar")
def expirar_acciones() -> int:
    """Marca como expiradas las acciones pendientes vencidas."""
    return acciones_expirar()
