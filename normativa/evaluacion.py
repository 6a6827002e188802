"""Evaluación de la búsqueda: hit@1, hit@5 y MRR@10 por modo sobre preguntas con respuesta esperada.

Formato (JSONL, como `shared/eval/dev_normativa.jsonl`): `{"id", "pregunta", "esperado": [{"norma",
"articulo", "letra"?}]}`. Un acierto es cualquier fragmento de los primeros k que coincide con una
expectativa: misma norma y artículo, y misma letra si la expectativa la indica (un numeral «i.1»
cuenta para la letra «i»).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from normativa.busqueda import MODOS, Resultado, buscar_normativa
from normativa.parsers.base import normalizar_articulo


def leer_preguntas(ruta: Path) -> list[dict[str, Any]]:
    """Lee el JSONL de preguntas; una línea inválida es un error con su número de línea."""
    preguntas = []
    for numero, linea in enumerate(ruta.read_text(encoding="utf-8").splitlines(), start=1):
        if not linea.strip():
            continue
        try:
            pregunta = json.loads(linea)
            assert pregunta["pregunta"] and pregunta["esperado"]
        except (json.JSONDecodeError, KeyError, AssertionError):
            raise ValueError(f"Línea {numero} inválida: se espera {{pregunta, esperado: [...]}}.") from None
        preguntas.append(pregunta)
    return preguntas


def evaluar(
    preguntas: list[dict[str, Any]], *, modos: tuple[str, ...] = MODOS
) -> dict[str, dict[str, float]]:
    """Devuelve {modo: {hit1, hit5, mrr10}} calculados en la misma ejecución."""
    metricas: dict[str, dict[str, float]] = {}
    for modo in modos:
        hit1 = hit5 = mrr = 0.0
        for pregunta in preguntas:
            resultados = buscar_normativa(consulta=pregunta["pregunta"], top_k=10, modo=modo).resultados
            rango = posicion_del_acierto(resultados, pregunta["esperado"])
            hit1 += rango == 1
            hit5 += rango is not None and rango <= 5
            mrr += 1.0 / rango if rango else 0.0
        total = len(preguntas) or 1
        metricas[modo] = {"hit1": hit1 / total, "hit5": hit5 / total, "mrr10": mrr / total}
    return metricas


def posicion_del_acierto(resultados: list[Resultado], esperados: list[dict[str, str]]) -> int | None:
    for posicion, resultado in enumerate(resultados[:10], start=1):
        if any(_coincide(resultado, esperado) for esperado in esperados):
            return posicion
    return None


def _coincide(resultado: Resultado, esperado: dict[str, str]) -> bool:
    return coincide(
        norma=resultado.norma, articulo=resultado.articulo, letra=resultado.letra, esperado=esperado
    )


def coincide(*, norma: str, articulo: str, letra: str, esperado: dict[str, str]) -> bool:
    """Misma norma y artículo, y misma letra si la expectativa la indica («i.1» cuenta para «i»)."""
    if norma != esperado["norma"] or articulo != normalizar_articulo(esperado["articulo"]):
        return False
    buscada = esperado.get("letra")
    return not buscada or letra == buscada or letra.startswith(f"{buscada}.")
