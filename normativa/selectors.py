"""Lecturas simples del corpus: qué hay cargado y cómo se cita y enlaza un fragmento.

La búsqueda vive en `normativa/busqueda/`."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db import connection
from django.db.models import Exists, OuterRef

from normativa.models import FragmentoLegal, Norma


@dataclass(frozen=True)
class EstadoDelCorpus:
    """La fila de `normativa_estadistica_corpus`, que la ingesta refresca: cuántos fragmentos vigentes
    hay, el último y cuándo se refrescó. Lo que se calcula una vez por corpus se guarda con ella."""

    documentos: float
    ultimo: int
    refrescado: datetime | None


def estado_del_corpus() -> EstadoDelCorpus:
    """Una lectura de una fila (la vista está vacía solo antes de la primera migración de datos)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT documentos, ultimo, refrescada FROM normativa_estadistica_corpus")
        fila = cursor.fetchone()
    return EstadoDelCorpus(*fila) if fila else EstadoDelCorpus(0.0, 0, None)


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
        cita += f", literal {fragmento.letra}" if "." in fragmento.letra else f", letra {fragmento.letra})"
    return cita


def url_de(fragmento: FragmentoLegal) -> str:
    """Enlace profundo a LeyChile (idNorma + idParte) o a la página de la guía."""
    norma = fragmento.norma
    if norma.id_norma_bcn:
        url = f"https://www.bcn.cl/leychile/navegar?idNorma={norma.id_norma_bcn}"
        return f"{url}&idParte={fragmento.id_parte}" if fragmento.id_parte else url
    if norma.url and fragmento.pagina:
        return f"{norma.url}#page={fragmento.pagina}"
    return norma.url
