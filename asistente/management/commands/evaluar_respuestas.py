"""python manage.py evaluar_respuestas ARCHIVO.jsonl [ARCHIVO.jsonl …] [--json] [--solo-busqueda].

Con varios archivos, los puntúa juntos (la curva de abstención sobre todos los conjuntos públicos).
"""

import json
from argparse import ArgumentParser
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from asistente.evaluacion import RECALL_BUSQUEDA, ConjuntoInvalido, evaluar, leer_items, resumen


class Command(BaseCommand):
    help = (
        "Puntúa la respuesta completa del asistente sin conexión (cita@1, cita@3, hechos, clasificación, "
        "abstención) sobre un conjunto JSONL; con --solo-busqueda, solo las tres primeras fuentes de la "
        "búsqueda."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("archivos", type=Path, nargs="+")
        parser.add_argument("--json", action="store_true", help="Resultado completo en JSON.")
        parser.add_argument(
            "--solo-busqueda",
            action="store_true",
            help="Puntúa la búsqueda sola (sin redactar la respuesta).",
        )

    def handle(self, *args: Any, **opciones: Any) -> None:
        items = []
        for archivo in opciones["archivos"]:
            try:
                items += leer_items(archivo)
            except OSError as error:
                raise CommandError(f"No se pudo leer {archivo}: {error.strerror}.") from None
            except ConjuntoInvalido as error:
                raise CommandError(str(error)) from None
        total = resumen(evaluar(items, solo_busqueda=opciones["solo_busqueda"]))
        if opciones["json"]:
            self.stdout.write(json.dumps(total, indent=1, ensure_ascii=False))
            return
        self.stdout.write(f"{'id':6s} {'tipo':16s} ok  c@1 c@3 hech clas abst  fuentes")
        for p in total["items"]:
            marcas = " ".join(
                _marca(p[clave]) for clave in ("cita1", "cita3", "hechos", "clasificacion", "abstencion")
            )
            self.stdout.write(
                f"{p['id']:6s} {p['tipo']:16s} {_marca(p['correcto'])}  {marcas}  {'; '.join(p['fuentes'])}"
            )
        por_tipo = ", ".join(f"{t} {v['correctos']}/{v['total']}" for t, v in total["por_tipo"].items())
        self.stdout.write(
            f"\nCorrectos: {total['correctos']}/{total['total']} ({por_tipo})\n"
            f"cita@1 {_tasa(total['cita1'])}  cita@3 {_tasa(total['cita3'])}  "
            f"hechos {_tasa(total['hechos'])}  clasificación {_tasa(total['clasificacion'])}  "
            f"abstención correcta {_tasa(total['abstencion'])}\n"
            f"abstención: precisión {_tasa(total['abstencion_precision'])}, "
            f"recall {_tasa(total['abstencion_recall'])}; falsas {total['falsas_abstenciones']}/"
            f"{total['del_corpus']} del corpus, omitidas {total['abstenciones_omitidas']}/"
            f"{total['fuera_de_corpus']} fuera de corpus\n"
            f"recall@{RECALL_BUSQUEDA} de buscar_normativa (preguntas del corpus): "
            f"{_tasa(total['recall_busqueda'])}"
        )
        niveles = "; ".join(
            f"{nivel} {v['correctos']}/{v['total']} ({_tasa(v['precision'])})"
            for nivel, v in total["por_seguridad"].items()
        )
        self.stdout.write(
            f"«Qué tan seguro estoy» (correctas/total, precisión): {niveles}\n"
            f"correctas con «bastante»: {_tasa(total['correctas_con_bastante'])}; mediana de palabras "
            f"{total['mediana_palabras']}; hecho preguntado en los primeros 400 caracteres de las correctas: "
            f"{_tasa(total['hechos_al_inicio'])}"
        )
        self.stdout.write(
            "\nCurva de abstención (falsas / omitidas) por puntos y cobertura mínima (filas) y "
            "similitud mínima (columnas; 0 = sin esa señal):"
        )
        similitudes = sorted({p["similitud_minima"] for p in total["curva_abstencion"]})
        self.stdout.write("  pts  cob  " + "".join(f"{s:>12.3f}" for s in similitudes))
        filas: dict[tuple[int, float], list[str]] = {}
        for punto in total["curva_abstencion"]:
            celda = f"{punto['falsas']:3d} / {punto['omitidas']:3d}{'*' if punto['en_uso'] else ' '}"
            filas.setdefault((punto["puntos"], punto["cobertura_minima"]), []).append(f"{celda:>12s}")
        for (minimo, cobertura), celdas in filas.items():
            self.stdout.write(f"  {minimo:3d}  {cobertura:.2f}" + "".join(celdas))
        self.stdout.write("  (* = en uso)")


def _marca(valor: bool | None) -> str:
    return " - " if valor is None else (" sí" if valor else " no")


def _tasa(valor: float | None) -> str:
    return "—" if valor is None else f"{valor:.2f}"
