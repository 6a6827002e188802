"""python manage.py buscar_normativa "PREGUNTA" --top-k 5 --modo hibrido --json"""

import json
from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from normativa.busqueda import MODOS, ErrorDeBusqueda, buscar_normativa


class Command(BaseCommand):
    help = "Busca en el corpus normativo y muestra los fragmentos con su cita, puntaje y confianza."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("pregunta")
        parser.add_argument("--top-k", type=int, default=5)
        parser.add_argument("--modo", choices=MODOS, default="hibrido")
        parser.add_argument("--norma", action="append", help="Filtra por sigla («Ley 19.300»); repetible.")
        parser.add_argument("--tipo", action="append", help="ley, decreto o guia; repetible.")
        parser.add_argument("--incluir-derogados", action="store_true")
        parser.add_argument("--json", action="store_true", help="Imprime una lista JSON.")

    def handle(self, *args: Any, **opciones: Any) -> None:
        try:
            busqueda = buscar_normativa(
                consulta=opciones["pregunta"],
                top_k=opciones["top_k"],
                modo=opciones["modo"],
                normas=opciones["norma"],
                tipos_documento=opciones["tipo"],
                incluir_derogados=opciones["incluir_derogados"],
            )
        except ErrorDeBusqueda as error:
            raise CommandError(str(error)) from None
        filas = [
            {**resultado.como_dict(), "confianza": busqueda.confianza} for resultado in busqueda.resultados
        ]
        if opciones["json"]:
            self.stdout.write(json.dumps(filas, ensure_ascii=False, indent=1))
            return
        self.stdout.write(f"Confianza: {busqueda.confianza} ({len(filas)} resultados, modo {busqueda.modo})")
        for posicion, fila in enumerate(filas, start=1):
            self.stdout.write(f"\n{posicion}. {fila['cita']}  [score {fila['score']:.4f}]\n   {fila['url']}")
            self.stdout.write("   " + str(fila["texto"])[:300].replace("\n", " "))
