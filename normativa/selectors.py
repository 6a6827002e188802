"""Lecturas simples del corpus: qué hay cargado y cómo se cita y enlaza un fragmento.

La búsqueda vive en `normativa/busqueda/`."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime
from typing import TypeVar

from django.db import connection
from django.db.models import Exists, OuterRef

from normativa.models import FragmentoLegal, Norma


@dataclass(frozen=True)
class EstadoDelCorpus:
    """La fila de `normativa_estadistica_corpus`, que la ingesta refresca: cuántos fragmentos vigentes
    hay, el último y cuándo se refrescó. Lo que se calcula una vez por corpus se guarda con ella."""

    documentos: float  # de la normativa (la documentación del sistema se cuenta aparte)
    ultimo: int
    refrescado: datetime | None
    documentos_documentacion: float = 0.0


def estado_del_corpus() -> EstadoDelCorpus:
    """Una lectura de una fila (la vista está vacía solo antes de la primera migración de datos); dentro
    de `con_estado_fijo`, el estado leído al entrar."""
    if (fijo := _ESTADO_FIJO.get()) is not None:
        return fijo
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT documentos, ultimo, refrescada, documentos_documentacion"
            " FROM normativa_estadistica_corpus"
        )
        fila = cursor.fetchone()
    return EstadoDelCorpus(*fila) if fila else EstadoDelCorpus(0.0, 0, None)


@contextmanager
def con_estado_fijo() -> Iterator[EstadoDelCorpus]:
    """Una búsqueda ve un solo estado del corpus: se lee una vez al empezar y cada pieza que guarda algo
    por estado (anclas, artículos, frecuencias) lo toma de aquí en vez de volver a leerlo."""
    marca = _ESTADO_FIJO.set(None)
    try:
        estado = estado_del_corpus()
        _ESTADO_FIJO.set(estado)
        yield estado
    finally:
        _ESTADO_FIJO.reset(marca)


_ESTADO_FIJO: ContextVar[EstadoDelCorpus | None] = ContextVar("estado_del_corpus_fijo", default=None)


@dataclass(frozen=True)
class Estadisticas:
    """Las frecuencias de lexemas con que BM25 pesa una palabra: las de la normativa o, al buscar en la
    documentación del sistema, las de esta. Separadas para que un párrafo nuevo del README no cambie el
    peso de una palabra (ni si «es del corpus») en una pregunta de ley."""

    vista: str  # lexema → en cuántos fragmentos del grupo está
    columna: str  # cuántos fragmentos tiene el grupo: columna de `normativa_estadistica_corpus`
    documentacion: bool

    def documentos(self, estado: EstadoDelCorpus) -> float:
        return float(getattr(estado, self.columna))  # `EstadoDelCorpus` lleva las columnas con su nombre


DE_LA_NORMATIVA = Estadisticas("normativa_estadistica_lexema", "documentos", documentacion=False)
DE_LA_DOCUMENTACION = Estadisticas(
    "normativa_estadistica_documentacion", "documentos_documentacion", documentacion=True
)
_ESTADISTICAS: ContextVar[Estadisticas] = ContextVar("estadisticas_de_lo_buscado", default=DE_LA_NORMATIVA)


@contextmanager
def con_estadisticas(estadisticas: Estadisticas) -> Iterator[Estadisticas]:
    """Dentro, la búsqueda pesa las palabras con `estadisticas` (ver `estadisticas_de_lo_buscado`)."""
    marca = _ESTADISTICAS.set(estadisticas)
    try:
        yield estadisticas
    finally:
        _ESTADISTICAS.reset(marca)


def estadisticas_de_lo_buscado() -> Estadisticas:
    return _ESTADISTICAS.get()


T = TypeVar("T")


def por_estado_del_corpus(calcular: Callable[[], T]) -> Callable[[], T]:
    """Decorador: lo que calcula la función se recuerda en el proceso mientras el estado del corpus no
    cambie (lo refresca la ingesta); con otro estado se calcula de nuevo y lo anterior se olvida."""
    recordado: dict[EstadoDelCorpus, T] = {}

    @functools.wraps(calcular)
    def del_estado() -> T:
        estado = estado_del_corpus()
        if estado not in recordado:
            valor = calcular()
            recordado.clear()
            recordado[estado] = valor
        return recordado[estado]

    return del_estado


def tipos_con_fragmentos() -> set[str]:
    """Tipos de norma (ley, guía, documentación…) que tienen fragmentos cargados, en una consulta."""
    con_fragmentos = Exists(FragmentoLegal.objects.filter(norma=OuterRef("pk")))
    return set(Norma.objects.filter(con_fragmentos).values_list("tipo", flat=True).distinct())


def normas_disponibles() -> list[str]:
    """Siglas de las normas con versión vigente (para validar filtros y mostrar opciones)."""
    return list(Norma.objects.filter(versiones__vigente=True).values_list("sigla", flat=True).distinct())


def cita_de(fragmento: FragmentoLegal) -> str:
    """«Ley 19.300, Art. 11, letra d)»; «DS 40, Art. 3, literal i.1»; guía: título, sección y página."""
    norma = fragmento.norma
    if not fragmento.articulo:
        seccion = fragmento.jerarquia[-1] if fragmento.jerarquia else ""
        partes = [f"{norma.nombre} ({norma.anio})" if norma.anio else norma.nombre]
        if seccion:
            partes.append(f"sección «{seccion}»")
        if fragmento.pagina:
            partes.append(f"p. {fragmento.pagina}")
        return ", ".join(partes)
    cita = f"{norma.sigla}, Art. {fragmento.articulo}{' transitorio' if fragmento.transitorio else ''}"
    if fragmento.letra:
        cita += f", {nombre_de_la_division(fragmento.letra)}"
    return cita


def nombre_de_la_division(letra: str, *, punto: str = "literal") -> str:
    """Cómo se nombra una parte del artículo: «letra i)», «número 2)» o, con `punto`, «literal i.1»."""
    if "." in letra:
        return f"{punto} {letra}"
    return f"número {letra})" if letra.isdigit() else f"letra {letra})"


def url_de(fragmento: FragmentoLegal) -> str:
    """Enlace profundo a LeyChile (idNorma + idParte) o a la página de la guía."""
    norma = fragmento.norma
    if norma.id_norma_bcn:
        url = f"https://www.bcn.cl/leychile/navegar?idNorma={norma.id_norma_bcn}"
        return f"{url}&idParte={fragmento.id_parte}" if fragmento.id_parte else url
    if norma.url and fragmento.pagina:
        return f"{norma.url}#page={fragmento.pagina}"
    return norma.url
