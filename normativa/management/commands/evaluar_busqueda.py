"""python manage.py evaluar_busqueda ARCHIVO.jsonl [--json]: hit@1, hit@5 y MRR@10 por modo."""

import json
from argparse import ArgumentParser
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from normativa.evaluacion import evaluar, leer_preguntas


class Command(BaseCommand):
    help = "Mide la búsqueda en los modos hibrido, denso y texto sobre un conjunto de preguntas."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("archivo", type=Path)
        parser.add_argument("--json", action="store_true")

    def handle(self, *args: Any, **opciones: Any) -> None:
        try:
            preguntas = leer_preguntas(opciones["archivo"])
        except OSError as error:
            raise CommandError(f"No se pudo leer {opciones['archivo']}: {error.strerror}.") from None
        except ValueError as error:
            raise CommandError(str(error)) from None
        metricas = evaluar(preguntas)
        if opciones["json"]:
            self.stdout.write(json.dumps(metricas, indent=1))
            return
        self.stdout.write(
            f"{len(preguntas)} preguntas\n{'modo':10s} {'hit@1':>7s} {'hit@5':>7s} {'MRR@10':>7s}"
        )
        for modo, valores in metricas.items():
            self.stdout.write(
                f"{modo:10s} {valores['hit1']:7.3f} {valores['hit5']:7.3f} {valores['mrr10']:7.3f}"
            )
