"""python manage.py preparar: migraciones, tareas periódicas y usuario de demostración."""

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand

from config.services import sistema_preparar, usuario_demo_asegurar


class Command(BaseCommand):
    help = "Deja la base lista para servir (idempotente)."

    def handle(self, *args: Any, **opciones: Any) -> None:
        sistema_preparar(verbosidad=opciones["verbosity"])
        if settings.PERMITIR_USUARIO_DEMO:
            demo = usuario_demo_asegurar()
            self.stdout.write(f"Superusuario de demostración: {demo.usuario} / {demo.password}")
