"""python manage.py ajustar_reordenador ARCHIVO.jsonl [...]: ajusta los pesos del reordenador.

Acepta los dos formatos de evaluación: el de búsqueda (`esperado`) y el de respuestas (`citas`; los
ítems sin citas, como los de fuera del corpus, no cuentan). Imprime el MRR@10 con los pesos vigentes
y con los ajustados, y los pesos para copiar a `normativa/busqueda/reordenar.py` si convienen: el
ajuste no se aplica solo, para que cada cambio de pesos quede revisado en el repositorio.
"""

import json
from argparse import ArgumentParser
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from normativa.busqueda.ajuste import ajustar, mrr, muestras
from normativa.busqueda.reordenar import PESOS
from normativa.evaluacion import coincide
from normativa.models import FragmentoLegal

Pregunta = tuple[str, str, Callable[[FragmentoLegal], bool]]


class Command(BaseCommand):
    help = "Ajusta los pesos del reordenador de la búsqueda sobre conjuntos con respuesta esperada."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("archivos", type=Path, nargs="+")
        parser.add_argument("--json", action="store_true")

    def handle(self, *args: Any, **opciones: Any) -> None:
        preguntas: list[Pregunta] = []
        for ruta in opciones["archivos"]:
            preguntas.extend(_preguntas(ruta))
        if not preguntas:
            raise CommandError("Ninguna pregunta con respuesta esperada en los archivos dados.")
        conjunto = muestras(preguntas)
        ajustados = ajustar(conjunto)
        informe = {
            "preguntas": len(conjunto),
            "mrr10_vigente": round(mrr(conjunto, PESOS), 4),
            "mrr10_ajustado": round(mrr(conjunto, ajustados), 4),
            "pesos_vigentes": PESOS,
            "pesos_ajustados": ajustados,
        }
        if opciones["json"]:
            self.stdout.write(json.dumps(informe, indent=1, ensure_ascii=False))
            return
        self.stdout.write(
            f"{informe['preguntas']} preguntas · MRR@10 vigente {informe['mrr10_vigente']:.3f}"
            f" → ajustado {informe['mrr10_ajustado']:.3f}"
        )
        for nombre, valor in ajustados.items():
            marca = "" if valor == PESOS.get(nombre) else f"   (vigente {PESOS.get(nombre)})"
            self.stdout.write(f"  {nombre:14s} {valor:6.2f}{marca}")


def _preguntas(ruta: Path) -> list[Pregunta]:
    try:
        lineas = ruta.read_text(encoding="utf-8").splitlines()
    except OSError as error:
        raise CommandError(f"No se pudo leer {ruta}: {error.strerror}.") from None
    preguntas: list[Pregunta] = []
    for numero, linea in enumerate(lineas, start=1):
        if not linea.strip():
            continue
        try:
            datos = json.loads(linea)
            esperados = list(datos.get("esperado") or datos.get("citas") or [])
            texto = str(datos["pregunta"])
        except (json.JSONDecodeError, KeyError, TypeError, AttributeError):
            raise CommandError(f"{ruta.name}, línea {numero}: no es una pregunta válida.") from None
        if esperados:
            preguntas.append((f"{ruta.stem}:{datos.get('id', numero)}", texto, _acierta(esperados)))
    return preguntas


def _acierta(esperados: list[dict[str, str]]) -> Callable[[FragmentoLegal], bool]:
    def acierta(fragmento: FragmentoLegal) -> bool:
        return any(
            coincide(
                norma=fragmento.norma.sigla,
                articulo=fragmento.articulo,
                letra=fragmento.letra,
                esperado=esperado,
            )
            for esperado in esperados
        )

    return acierta
