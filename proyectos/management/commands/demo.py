"""python manage.py demo [--borrar | --primera-vez]: datos de demostración (un cliente y sus proyectos)."""

from argparse import ArgumentParser
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from proyectos.demo import CLIENTE_DEMO, demo_borrar, demo_cargar, demo_cargar_primera_vez


class Command(BaseCommand):
    help = "Carga (o con --borrar, quita) el cliente y los proyectos de demostración, ya analizados."

    def add_arguments(self, parser: ArgumentParser) -> None:
        grupo = parser.add_mutually_exclusive_group()
        grupo.add_argument("--borrar", action="store_true", help="Quita los datos de demostración.")
        grupo.add_argument(
            "--primera-vez", action="store_true", help="Solo si nunca se cargaron aquí (lo que usa make run)."
        )

    def handle(self, *args: Any, **opciones: Any) -> None:
        if opciones["borrar"]:
            cantidad = demo_borrar()
            self.stdout.write(f"Datos de demostración borrados: {cantidad} proyectos.")
            return
        if not settings.DATOS_DEMO:
            raise CommandError(
                "Esta configuración no carga datos de demostración (DATOS_DEMO=0 o producción)."
            )
        creados = demo_cargar_primera_vez() if opciones["primera_vez"] else demo_cargar()
        if creados is None:
            self.stdout.write("Datos de demostración: ya se cargaron antes en esta instalación.")
        elif creados:
            self.stdout.write(
                f"Datos de demostración: {len(creados)} proyectos de «{CLIENTE_DEMO}», analizados."
            )
        else:
            self.stdout.write("Datos de demostración: ya estaban.")
