"""Lo que la búsqueda lee de cada texto (una oración, un epígrafe, un título, la pregunta): sus raíces en
orden, su forma sin tildes, si trae una expresión de tiempo; y el peso IDF de las palabras de la pregunta.

Lo que depende solo del texto se calcula una vez por proceso (`analizar` lo recuerda); por pregunta
quedan operaciones de conjuntos sobre eso, independientes del tamaño del corpus.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Iterable
from dataclasses import dataclass

from django.db import connection

from config.texto import sin_tildes
from normativa.busqueda.familias import ASPECTOS, tiene_tiempo
from normativa.oraciones import LARGO_RAIZ, continua_la_anterior, raices_en_orden, raiz
from normativa.selectors import estadisticas_de_lo_buscado, estado_del_corpus, por_estado_del_corpus


def idf_de(lexemas: list[str]) -> dict[str, float]:
    return idf_y_conocidos(lexemas)[0]


def idf_y_conocidos(lexemas: list[str]) -> tuple[dict[str, float], set[str]]:
    """IDF de cada lexema de la pregunta (uno que no está en el corpus pesa como el más raro) y los
    que sí están en el corpus."""
    if not lexemas:
        return {}, set()
    documentos, conocidos = frecuencias_documentales(lexemas)
    maximo = math.log(1 + (documentos + 0.5) / 0.5)
    idf = {
        lex: math.log(1 + (documentos - conocidos[lex] + 0.5) / (conocidos[lex] + 0.5))
        if lex in conocidos
        else maximo
        for lex in lexemas
    }
    return idf, set(conocidos)


def frecuencias_documentales(lexemas: list[str]) -> tuple[float, dict[str, int]]:
    """Cuántos fragmentos tiene el corpus y en cuántos aparece cada lexema (solo los que aparecen).
    Se recuerdan por estado del corpus: los lexemas de las preguntas se repiten."""
    estadisticas = estadisticas_de_lo_buscado()
    sabidas = _frecuencias_sabidas().setdefault(estadisticas.vista, {})
    if faltan := [lexema for lexema in dict.fromkeys(lexemas) if lexema not in sabidas]:
        if len(sabidas) + len(faltan) > MAXIMO_FRECUENCIAS:
            sabidas.clear()
        sabidas.update(dict.fromkeys(faltan, 0))
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT lexema, documentos FROM {estadisticas.vista} WHERE lexema = ANY(%s)", [faltan]
            )
            sabidas.update(cursor.fetchall())
    estado = estado_del_corpus()
    documentos = estadisticas.documentos(estado) if estado.refrescado is not None else 1.0
    return documentos, {lexema: sabidas[lexema] for lexema in lexemas if sabidas.get(lexema)}


@por_estado_del_corpus
def _frecuencias_sabidas() -> dict[str, dict[str, int]]:
    """Vista de estadísticas → lexema → en cuántos fragmentos vigentes aparece (0: en ninguno)."""
    return {}


MAXIMO_FRECUENCIAS = 100_000


def idf_por_raiz(idf: dict[str, float]) -> dict[str, float]:
    raices: dict[str, float] = {}
    for lexema, valor in idf.items():
        raices[raiz(lexema)] = max(valor, raices.get(raiz(lexema), 0.0))
    return raices


@dataclass(frozen=True)
class Texto:
    """Lo que la búsqueda mira de un texto (una oración, un epígrafe, un título, la pregunta)."""

    secuencia: tuple[str, ...]  # sus raíces en orden
    raices: frozenset[str]
    plegado: str  # en minúsculas y sin tildes
    tiempo: bool  # trae una expresión de tiempo («quince días»)

    @classmethod
    def de(cls, texto: str, secuencia: list[str]) -> Texto:
        plegado = sin_tildes(texto)
        return cls(tuple(secuencia), frozenset(secuencia), plegado, tiene_tiempo(plegado))

    # Lo que solo algunas preguntas miran se calcula la primera vez que una lo mira.
    @functools.cached_property
    def prefijos(self) -> frozenset[str]:
        """Los comienzos de sus raíces: ahí calza una raíz corta de la pregunta («min» en «miner»)."""
        return frozenset(r[:k] for r in self.raices for k in range(1, min(len(r), LARGO_RAIZ - 1) + 1))

    @functools.cached_property
    def aspectos(self) -> frozenset[str]:
        """Los aspectos (`familias.ASPECTOS`) que responde: el órgano, la consecuencia, la condición…"""
        return frozenset(a.nombre for a in ASPECTOS if a.responde(self.plegado))

    @functools.cached_property
    def continua(self) -> bool:
        """Depende de la oración anterior («Vencido este plazo, …»)."""
        return continua_la_anterior(self.plegado)

    @functools.cached_property
    def pares(self) -> frozenset[tuple[str, str]]:
        """Pares de raíces seguidas."""
        return frozenset(itertools.pairwise(self.secuencia))


VACIO = Texto.de("", [])


def analizar(textos: list[str], *, analizados: Iterable[tuple[str, str]] = ()) -> dict[str, Texto]:
    """El análisis de cada texto no vacío (raíces en español, sin tildes ni palabras vacías).

    `analizados` trae pares (texto, sus raíces separadas por espacios) ya calculados (las oraciones
    que la ingesta guardó con su fragmento); se leen solo si algo falta en la memoria del proceso. Lo
    que falta y no viene ahí sale de una sola consulta (`oraciones.raices_en_orden`). Las oraciones
    de los artículos más citados vuelven en casi todas las preguntas; recordarlas ahorra la mayor
    parte del reordenamiento.
    """
    unicos = list(dict.fromkeys(t for t in textos if t))
    faltan = [t for t in unicos if t not in _TEXTOS]
    if faltan:
        if len(_TEXTOS) + len(faltan) > MAXIMO_TEXTOS:
            _TEXTOS.clear()
        conocidas = dict(analizados)
        for texto in faltan:
            if texto in conocidas:
                _TEXTOS[texto] = Texto.de(texto, conocidas[texto].split())
        sin_analizar = [t for t in faltan if t not in conocidas]
        for texto, raices in zip(sin_analizar, raices_en_orden(sin_analizar), strict=True):
            _TEXTOS[texto] = Texto.de(texto, raices)
    return {texto: _TEXTOS[texto] for texto in unicos}


# Texto → su análisis. Depende solo del texto y de la configuración `spanish` de PostgreSQL.
_TEXTOS: dict[str, Texto] = {}
MAXIMO_TEXTOS = 200_000


def pares_de(secuencia: list[str]) -> set[tuple[str, str]]:
    """Pares de palabras seguidas (sin contar las vacías): «Consejo de Ministros» → (conse, minis)."""
    return {(a, b) for a, b in itertools.pairwise(secuencia) if a != b}
