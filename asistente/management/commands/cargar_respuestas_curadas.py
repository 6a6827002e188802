"""python manage.py cargar_respuestas_curadas: crea las respuestas curadas que trae el repositorio."""

from typing import Any

from django.core.management.base import BaseCommand

from asistente.curadas import respuestas_curadas_cargar


class Command(BaseCommand):
    help = "Crea (idempotente) las respuestas curadas incluidas; nunca sobrescribe las editadas."

    def handle(self, *args: Any, **opciones: Any) -> None:
        creadas, omitidas = respuestas_curadas_cargar()
        if opciones["verbosity"]:
            self.stdout.write(f"Respuestas curadas: {creadas} nuevas.")
        for pregunta in omitidas:
            self.stderr.write(f"AVISO: sin cargar («{pregunta}»): el corpus no tiene una de sus fuentes.")
