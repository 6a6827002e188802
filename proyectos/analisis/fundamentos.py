"""Fundamento legal de cada conclusión: referencias a fragmentos reales del corpus normativo.

Una referencia nombra norma, artículo y letra tal como quedan en `FragmentoLegal`; al resolverla se
adjunta el id del fragmento vigente, un extracto textual y el enlace a LeyChile. Si el corpus no
está cargado, la referencia queda sin id y el motor lo advierte.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from django.db.models import Q

from normativa.models import FragmentoLegal
from normativa.selectors import url_de

LARGO_CITA = 420
# Lo necesario para citar y enlazar (sin el embedding ni los textos de búsqueda).
CAMPOS_FRAGMENTO = (
    "articulo", "letra", "texto", "id_parte", "pagina", "norma__sigla", "norma__id_norma_bcn", "norma__url",
)  # fmt: skip


@dataclass(frozen=True)
class Referencia:
    norma: str
    articulo: str
    letra: str = ""
    # Palabra que elige la oración citada de un artículo largo («glaciar», «sitios prioritarios»).
    clave: str = ""


LEY = "Ley 19.300"
REGLAMENTO = "DS 40"

# Letra del Art. 11 de la Ley 19.300 → artículo del Reglamento (DS 40) que la desarrolla.
ARTICULO_REGLAMENTO = {"a": "5", "b": "6", "c": "7", "d": "8", "e": "9", "f": "10"}


def de_tipologia(literal: str) -> list[Referencia]:
    """Art. 10 de la ley y literal del Art. 3 del Reglamento que hacen ingresar al proyecto."""
    letra = literal.split(".")[0]
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
EFECTOS_OBLIGAN_EIA = [Referencia(LEY, "11")]


def resolver(referencias: list[Referencia]) -> list[dict[str, Any]]:
    """Devuelve las referencias con fragmento, extracto y enlace (una consulta a la base)."""
    if not referencias:
        return []
    filtro = Q()
    for r in referencias:
        filtro |= Q(norma__sigla=r.norma, articulo=r.articulo, letra=r.letra)
    fragmentos = {
        (f.norma.sigla, f.articulo, f.letra): f
        for f in FragmentoLegal.objects.filter(filtro, transitorio=False, derogado=False)
        .select_related("norma")
        .only(*CAMPOS_FRAGMENTO)
    }
    resueltas = []
    for r in referencias:
        fragmento = fragmentos.get((r.norma, r.articulo, r.letra))
        resueltas.append(
            {
                "norma": r.norma,
                "articulo": r.articulo,
                "letra": r.letra or None,
                "fragmento_id": fragmento.pk if fragmento else None,
                "cita": _cita(fragmento.texto, r.clave) if fragmento else "",
                "url": url_de(fragmento) if fragmento else "",
            }
        )
    return resueltas


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
