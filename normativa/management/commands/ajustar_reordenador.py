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
from normativa.evaluacion import coincide, leer_preguntas_con_citas
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
        leidas = leer_preguntas_con_citas(ruta)
    except OSError as error:
        raise CommandError(f"No se pudo leer {ruta}: {error.strerror}.") from None
    except ValueError as error:
        raise CommandError(str(error)) from None
    return [(p.id, p.pregunta, _acierta(p.esperados)) for p in leidas if p.esperados]


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
