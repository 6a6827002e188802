"""Declara en un solo lugar todas las tareas periódicas (django-celery-beat, DatabaseScheduler)."""

from typing import Any

from django.core.management.base import BaseCommand
from django.db import transaction

from fuentes_externas.periodicas import TAREAS_PERIODICAS, tareas_periodicas_sincronizar


class Command(BaseCommand):
    help = "Crea o actualiza las tareas periódicas declaradas y desactiva las que ya no existen."

    @transaction.atomic
    def handle(self, *args: Any, **opciones: Any) -> None:
        resumen = tareas_periodicas_sincronizar(tareas=TAREAS_PERIODICAS)
        self.stdout.write(
            f"Tareas periódicas: {resumen.declaradas} declaradas, {resumen.desactivadas} desactivadas."
        )
