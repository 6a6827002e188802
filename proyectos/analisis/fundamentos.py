"""Fundamento legal de cada conclusión: referencias a fragmentos reales del corpus normativo.

Una referencia nombra norma, artículo y letra tal como quedan en el corpus; al resolverla se
adjunta el id del fragmento vigente, un extracto textual y el enlace a LeyChile. Si el corpus no
está cargado, la referencia queda sin id y el motor lo advierte.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypedDict

from django.conf import settings
from django.utils.module_loading import import_string

from config.seia import ARTICULO_REGLAMENTO, LEY, REGLAMENTO, SOLO_LEY
from proyectos.analisis.resultado import Fundamento


class PermisoDelCatalogo(TypedDict, total=False):
    """Lo que el catálogo de permisos (`CATALOGO_PERMISOS`) dice de un PAS; lo que el motor lee de él."""

    nombre: str
    tipo: str
    tipo_nombre: str
    requisito: str
    organo: str
    guia: str
    guia_url: str
    estado: str
    fecha_texto: str | None


@dataclass(frozen=True)
class Referencia:
    norma: str
    articulo: str
    letra: str = ""
    # Palabra que elige la oración citada de un artículo largo («glaciar», «sitios prioritarios»).
    clave: str = ""


def de_tipologia(literal: str) -> list[Referencia]:
    """Art. 10 de la ley y literal del Art. 3 del Reglamento que hacen ingresar al proyecto."""
    letra = literal.split(".")[0]
    if letra in SOLO_LEY:
        return [Referencia(LEY, "10", letra)]
    referencias = [Referencia(LEY, "10", letra), Referencia(REGLAMENTO, "3", literal)]
    return referencias if "." in literal else [referencias[0], Referencia(REGLAMENTO, "3", letra)]


def de_efecto(letra: str, *, clave: str = "", extra: tuple[Referencia, ...] = ()) -> list[Referencia]:
    """Letra del Art. 11 de la ley y el artículo del Reglamento que la desarrolla."""
    return [
        Referencia(LEY, "11", letra),
        Referencia(REGLAMENTO, ARTICULO_REGLAMENTO[letra], clave=clave),
        *extra,
    ]


PERTINENCIA = [Referencia(REGLAMENTO, "26")]
# DS 40, Art. 4: se ingresa «presentando una Declaración de Impacto Ambiental, salvo que» haya efectos
# del Art. 11 de la ley.
PRESENTA_DIA = [Referencia(REGLAMENTO, "4")]
EFECTOS_OBLIGAN_EIA = [Referencia(LEY, "11")]


def resolver(referencias: list[Referencia]) -> list[Fundamento]:
    """Devuelve las referencias con fragmento, extracto y enlace (una consulta a la base).

    Quien resuelve es el corpus normativo, nombrado en `RESOLVER_CITAS`: este paquete no importa
    otra app (ver el mapa de importaciones en CONTRIBUTING).
    """
    return _resolutor()(referencias)


@functools.cache
def _resolutor() -> Callable[[list[Referencia]], list[Fundamento]]:
    resolutor: Callable[[list[Referencia]], list[Fundamento]] = import_string(settings.RESOLVER_CITAS)
    return resolutor


def catalogo_de_permisos(numeros: list[int]) -> dict[int, PermisoDelCatalogo]:
    """Lo que el catálogo de permisos leído del corpus dice de cada PAS (número → entrada; falta la que el
    catálogo no tiene). Como `resolver`, sin importar la app normativa: la nombra `CATALOGO_PERMISOS`."""
    return _catalogo()(numeros)


@functools.cache
def _catalogo() -> Callable[[list[int]], dict[int, PermisoDelCatalogo]]:
    catalogo: Callable[[list[int]], dict[int, PermisoDelCatalogo]] = import_string(settings.CATALOGO_PERMISOS)
    return catalogo
