"""Citas del corpus: de «norma, artículo, letra» al fragmento vigente, su extracto y su enlace.

Quien cita (el motor de prefactibilidad) no importa esta app: la alcanza por `RESOLVER_CITAS` en
settings. Basta con que sus referencias tengan `norma`, `articulo`, `letra` y `clave`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol, TypedDict

from django.db.models import Q

from normativa.models import FragmentoLegal
from normativa.selectors import url_de

LARGO_CITA = 420
# Lo necesario para citar y enlazar (sin el embedding ni los textos de búsqueda).
CAMPOS_FRAGMENTO = (
    "articulo", "letra", "texto", "id_parte", "pagina", "norma__sigla", "norma__id_norma_bcn", "norma__url",
    "version__advertencia", "version__fecha_version",
)  # fmt: skip


class PedidoDeCita(Protocol):
    @property
    def norma(self) -> str: ...
    @property
    def articulo(self) -> str: ...
    @property
    def letra(self) -> str: ...
    @property
    def clave(self) -> str: ...  # palabra que elige la oración citada de un artículo largo


class Cita(TypedDict):
    norma: str
    articulo: str
    letra: str | None
    fragmento_id: int | None  # None: el corpus no tiene ese artículo cargado
    cita: str
    url: str
    fecha_version: str | None  # fecha (ISO) de la versión del texto citado, si se conoce
    advertencia_vigencia: str  # aviso de la versión citada («texto de 2014 …»), vacío si no hay


class TextoVigente(TypedDict):
    texto: str
    fecha_version: str | None


def resolver_citas(pedidos: Sequence[PedidoDeCita]) -> list[Cita]:
    """Devuelve cada pedido con fragmento, extracto y enlace, en el mismo orden (una consulta)."""
    fragmentos = _vigentes(pedidos)
    citas: list[Cita] = []
    for p in pedidos:
        fragmento = fragmentos.get((p.norma, p.articulo, p.letra))
        citas.append(
            {
                "norma": p.norma,
                "articulo": p.articulo,
                "letra": p.letra or None,
                "fragmento_id": fragmento.pk if fragmento else None,
                "cita": _cita(fragmento.texto, p.clave) if fragmento else "",
                "url": url_de(fragmento) if fragmento else "",
                "fecha_version": _fecha(fragmento),
                "advertencia_vigencia": fragmento.version.advertencia if fragmento else "",
            }
        )
    return citas


def textos_vigentes(pedidos: Sequence[PedidoDeCita]) -> list[TextoVigente | None]:
    """El texto completo vigente de cada pedido y la fecha de su versión (None: el corpus no lo trae);
    lo usa el motor para saber si sus reglas siguen atadas al texto que las funda."""
    fragmentos = _vigentes(pedidos)
    textos: list[TextoVigente | None] = []
    for p in pedidos:
        fragmento = fragmentos.get((p.norma, p.articulo, p.letra))
        textos.append({"texto": fragmento.texto, "fecha_version": _fecha(fragmento)} if fragmento else None)
    return textos


def _vigentes(pedidos: Sequence[PedidoDeCita]) -> dict[tuple[str, str, str], FragmentoLegal]:
    if not pedidos:
        return {}
    # Una condición por artículo distinto: un análisis con cientos de elementos cita cientos de veces
    # los mismos pocos artículos, y armar el filtro con todos costaba más que la consulta.
    filtro = Q()
    for norma, articulo, letra in dict.fromkeys((p.norma, p.articulo, p.letra) for p in pedidos):
        filtro |= Q(norma__sigla=norma, articulo=articulo, letra=letra)
    return {
        (f.norma.sigla, f.articulo, f.letra): f
        for f in FragmentoLegal.objects.filter(
            filtro, transitorio=False, derogado=False, version__vigente=True
        )
        .select_related("norma", "version")
        .only(*CAMPOS_FRAGMENTO)
    }


def _fecha(fragmento: FragmentoLegal | None) -> str | None:
    fecha = fragmento.version.fecha_version if fragmento else None
    return fecha.isoformat() if fecha else None


def _cita(texto: str, clave: str) -> str:
    """Extracto literal: la oración que contiene `clave`, o el comienzo del texto."""
    texto = " ".join(texto.split())
    if clave:
        for oracion in re.split(r"(?<=[.;:])\s+", texto):
            if clave.lower() in oracion.lower():
                return _recortar(oracion)
    return _recortar(texto)


def _recortar(texto: str) -> str:
    if len(texto) <= LARGO_CITA:
        return texto
    corte = texto.rfind(" ", 0, LARGO_CITA)
    return texto[: corte if corte > 0 else LARGO_CITA] + " …"
