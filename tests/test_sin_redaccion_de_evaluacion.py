"""Ninguna redacción de una pregunta de evaluación en el código del producto.

Una racha de cinco palabras seguidas (minúsculas, sin tildes) de cualquier pregunta de cualquier
conjunto de evaluación —los de `tests/fixtures/eval/` y, si está al lado, los de `../shared/eval/`—
no puede aparecer en el código fuera de `tests/`, salvo que esa racha también esté en el texto del
propio corpus (las frases de la ley son legítimas). Las preguntas miden; no se leen dentro del código.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from config.texto import normalizar
from normativa.models import FragmentoLegal

RAIZ = Path(__file__).resolve().parent.parent
CONJUNTOS = [RAIZ / "tests" / "fixtures" / "eval", RAIZ.parent / "shared" / "eval"]
CODIGO = ["asistente", "config", "normativa", "proyectos", "fuentes_externas", "templates", "static/js"]
EXTENSIONES = {".py", ".js", ".html", ".json", ".txt", ".md"}
EXCLUIDOS = [RAIZ / "normativa" / "corpus", RAIZ / "static" / "vendor"]
LARGO = 5

pytestmark = pytest.mark.django_db


def _rachas(texto: str) -> set[str]:
    palabras = normalizar(texto).split()
    return {" ".join(palabras[i : i + LARGO]) for i in range(len(palabras) - LARGO + 1)}


def _preguntas() -> list[str]:
    preguntas = []
    for carpeta in CONJUNTOS:
        for archivo in sorted(carpeta.glob("*.jsonl")) if carpeta.is_dir() else []:
            for linea in archivo.read_text(encoding="utf-8").splitlines():
                if linea.strip():
                    item = json.loads(linea)
                    preguntas.append(item.get("pregunta") or item.get("consulta") or "")
    return preguntas


def _archivos_de_codigo() -> list[Path]:
    archivos = []
    for carpeta in CODIGO:
        for archivo in (RAIZ / carpeta).rglob("*"):
            if (
                archivo.suffix in EXTENSIONES
                and archivo.is_file()
                and not any(archivo.is_relative_to(excluido) for excluido in EXCLUIDOS)
            ):
                archivos.append(archivo)
    return archivos


def test_el_codigo_no_contiene_rachas_de_cinco_palabras_de_las_preguntas_de_evaluacion(corpus):
    preguntas = _preguntas()
    assert len(preguntas) >= 150, "no se encontraron los conjuntos de evaluación"
    del_corpus: set[str] = set()
    for texto in FragmentoLegal.objects.values_list("texto", flat=True):
        del_corpus |= _rachas(texto)
    prohibidas = set().union(*(_rachas(p) for p in preguntas)) - del_corpus
    halladas = []
    for archivo in _archivos_de_codigo():
        comunes = _rachas(archivo.read_text(encoding="utf-8", errors="ignore")) & prohibidas
        halladas += [f"{archivo.relative_to(RAIZ)}: «{racha}»" for racha in sorted(comunes)]
    assert not halladas, "Redacción de preguntas de evaluación en el código:\n" + "\n".join(halladas)


def test_una_racha_copiada_de_una_pregunta_se_detecta():
    pregunta = next(p for p in _preguntas() if len(normalizar(p).split()) >= LARGO)
    assert _rachas(pregunta) & _rachas(f"x = '{pregunta.upper()}'")
