"""python manage.py analizar_proyecto --json ARCHIVO: evalúa una entrada del motor e imprime el JSON."""

import json
import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from proyectos.analisis.entrada import EntradaInvalida
from proyectos.analisis.motor import evaluar


class Command(BaseCommand):
    help = "Evalúa el proyecto descrito en un archivo JSON (o «-» para la entrada estándar)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--json", dest="archivo", required=True, metavar="ARCHIVO", help="Entrada del motor."
        )
        parser.add_argument("--rapido", action="store_true", help="Sin capas geográficas.")

    def handle(self, *args: Any, **opciones: Any) -> None:
        archivo = opciones["archivo"]
        try:
            texto = sys.stdin.read() if archivo == "-" else Path(archivo).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            self._fallar({"error": f"No se pudo leer «{archivo}»: {error}", "errores": []})
        try:
            datos = json.loads(texto)
        except json.JSONDecodeError as error:
            self._fallar(
                {"error": f"«{archivo}» no es JSON válido (línea {error.lineno}): {error.msg}", "errores": []}
            )
        try:
            resultado = evaluar(datos, espacial=not opciones["rapido"])
        except EntradaInvalida as error:
            self._fallar(error.como_json())
        self.stdout.write(json.dumps(resultado, ensure_ascii=False, indent=2))

    def _fallar(self, cuerpo: dict[str, Any]) -> None:
        self.stdout.write(json.dumps(cuerpo, ensure_ascii=False, indent=2))
        raise CommandError(cuerpo["error"], returncode=2)
