"""python manage.py medir_imanes [ARCHIVO.jsonl ...] [--epigrafes] [--top 10] [--json]

Cuenta cuántas veces cada fragmento queda entre los 5 primeros resultados de preguntas de las que no
es la respuesta (un «imán» de la búsqueda) y muestra los peores. Las preguntas salen de los archivos
de evaluación (cualquiera de los dos formatos) y, con `--epigrafes`, de los epígrafes de los
artículos de ley y reglamento del corpus: cientos de temas distintos. Las preguntas de proyecto no
cuentan: las responde el motor con sus reglas, y lo que la búsqueda trae para ellas son, por diseño, las
letras del Art. 3 del DS 40.
"""

import json
from argparse import ArgumentParser
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from normativa.evaluacion import PreguntaConCitas, imanes, leer_preguntas_con_citas, preguntas_de_epigrafes


class Command(BaseCommand):
    help = (
        "Mide los «imanes» de la búsqueda: fragmentos que aparecen entre los primeros sin ser la respuesta."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("archivos", type=Path, nargs="*")
        parser.add_argument("--epigrafes", action="store_true", help="Agrega los epígrafes del corpus.")
        parser.add_argument("--top", type=int, default=10)
        parser.add_argument("--json", action="store_true")

    def handle(self, *args: Any, **opciones: Any) -> None:
        preguntas: list[PreguntaConCitas] = []
        for ruta in opciones["archivos"]:
            try:
                preguntas.extend(p for p in leer_preguntas_con_citas(ruta) if p.tipo != "proyecto")
            except OSError as error:
                raise CommandError(f"No se pudo leer {ruta}: {error.strerror}.") from None
            except ValueError as error:
                raise CommandError(str(error)) from None
        if opciones["epigrafes"]:
            preguntas.extend(preguntas_de_epigrafes())
        if not preguntas:
            raise CommandError("No hay preguntas: indique archivos de evaluación o --epigrafes.")
        peores = imanes(preguntas)[: opciones["top"]]
        if opciones["json"]:
            self.stdout.write(json.dumps({"preguntas": len(preguntas), "imanes": peores}, ensure_ascii=False))
            return
        self.stdout.write(f"{len(preguntas)} preguntas · veces entre los 5 primeros sin ser la respuesta")
        for cita, veces in peores:
            self.stdout.write(f"  {veces:4d}  {100 * veces / len(preguntas):5.1f} %  {cita}")
