"""Evaluación de la búsqueda: hit@1, hit@5 y MRR@10 por modo sobre preguntas con respuesta esperada.

Formato (JSONL, como `shared/eval/dev_normativa.jsonl`): `{"id", "pregunta", "esperado": [{"norma",
"articulo", "letra"?}]}`. Un acierto es cualquier fragmento de los primeros k que coincide con una
expectativa: misma norma y artículo, y misma letra si la expectativa la indica (un numeral «i.1»
cuenta para la letra «i»).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from normativa.busqueda import MODOS, Resultado, buscar_normativa
from normativa.models import FragmentoLegal, Norma
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


@dataclass(frozen=True)
class PreguntaConCitas:
    id: str
    pregunta: str
    esperados: list[dict[str, str]]
    tipo: str = ""  # el del conjunto de respuestas («normativa», «proyecto», «fuera_de_corpus»), si lo trae


def leer_preguntas_con_citas(ruta: Path) -> list[PreguntaConCitas]:
    """Lee los dos formatos de evaluación: el de búsqueda (`esperado`) y el de respuestas (`citas`).
    Los ítems sin citas (fuera del corpus) quedan con `esperados` vacío. Una línea inválida es un
    `ValueError` con el archivo y el número de línea; un archivo que no se lee, `OSError`."""
    preguntas = []
    for numero, linea in enumerate(ruta.read_text(encoding="utf-8").splitlines(), start=1):
        if not linea.strip():
            continue
        try:
            datos = json.loads(linea)
            esperados = list(datos.get("esperado") or datos.get("citas") or [])
            texto = str(datos["pregunta"])
        except (json.JSONDecodeError, KeyError, TypeError, AttributeError):
            raise ValueError(f"{ruta.name}, línea {numero}: no es una pregunta válida.") from None
        preguntas.append(
            PreguntaConCitas(
                f"{ruta.stem}:{datos.get('id', numero)}", texto, esperados, str(datos.get("tipo") or "")
            )
        )
    return preguntas


_EPIGRAFE = re.compile(r"^\s*art[ií]culo\s+[^\n]{1,40}?\.?-\s*\n([^\n]{3,140}?)\.?\s*(\n|$)", re.IGNORECASE)


def preguntas_de_epigrafes() -> list[PreguntaConCitas]:
    """Una consulta por cada epígrafe de artículo de ley o reglamento («Reserva de información»),
    con su artículo como respuesta: un conjunto amplio de temas distintos, sacado del corpus y no
    de las preguntas de evaluación."""
    filas = (
        FragmentoLegal.objects.filter(
            version__vigente=True, letra="", norma__tipo__in=(Norma.Tipo.LEY, Norma.Tipo.DECRETO)
        )
        .exclude(articulo="")
        .values_list("texto", "norma__sigla", "articulo")
        .order_by("pk")
    )
    preguntas = []
    for texto, sigla, articulo in filas:
        if m := _EPIGRAFE.match(texto[:300]):
            preguntas.append(
                PreguntaConCitas(
                    f"epigrafe:{sigla} {articulo}",
                    m.group(1).strip(),
                    [{"norma": sigla, "articulo": articulo}],
                )
            )
    return preguntas


def imanes(preguntas: list[PreguntaConCitas], *, k: int = 5) -> list[tuple[str, int]]:
    """Los fragmentos que más veces quedan entre los primeros `k` de preguntas de las que no son la
    respuesta esperada (un «imán»: aparece sea cual sea la pregunta), de más a menos veces."""
    veces: Counter[str] = Counter()
    for pregunta in preguntas:
        for resultado in buscar_normativa(consulta=pregunta.pregunta, top_k=k).resultados[:k]:
            if not any(
                _coincide(resultado, esperado) or _contiene(resultado, esperado)
                for esperado in pregunta.esperados
            ):
                veces[resultado.cita] += 1
    return veces.most_common()


def _contiene(resultado: Resultado, esperado: dict[str, str]) -> bool:
    """Si el resultado es el artículo o la letra que contiene el literal esperado (la letra i) del Art. 3
    del DS 40 para una pregunta por su literal i.2): no es ajeno a la pregunta, no es un imán."""
    buscada = esperado.get("letra") or ""
    if resultado.norma != esperado["norma"] or resultado.articulo != normalizar_articulo(
        esperado["articulo"]
    ):
        return False
    return bool(buscada) and (not resultado.letra or buscada.startswith(f"{resultado.letra}."))
