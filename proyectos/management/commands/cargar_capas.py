"""python manage.py cargar_capas: capas geográficas incluidas en el repositorio (idempotente)."""

from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from tqdm import tqdm

from proyectos.capas import CAPAS_INCLUIDAS, capas_cargar


class Command(BaseCommand):
    help = "Carga categorías, límites de regiones y comunas y las capas de proyectos/datos/capas/."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--forzar", action="store_true", help="Recarga aunque los archivos no cambien.")

    def handle(self, *args: Any, **opciones: Any) -> None:
        silencioso = opciones["verbosity"] == 0
        barra = tqdm(total=sum(len(c.archivos) for c in CAPAS_INCLUIDAS), unit="archivo", disable=silencioso)
        hechos: dict[str, int] = {}

        def progreso(codigo: str, hecho: int, total: int) -> None:
            barra.set_description(codigo)
            barra.update(hecho - hechos.get(codigo, 0))
            hechos[codigo] = hecho

        resumenes = capas_cargar(progreso=progreso, forzar=opciones["forzar"])
        barra.close()
        for r in resumenes:
            estado = "cargada" if r.cargada else "sin cambios"
            self.stdout.write(f"{r.codigo}: {r.elementos} elementos ({estado})")
            for descartado in r.descartados[:10]:
                self.stdout.write(f"  descartado: {descartado}")
