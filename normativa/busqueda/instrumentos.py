"""El instrumento del que habla una pregunta o un fragmento: la Declaración («dia») o el Estudio («eia»).

«La Declaración» y «el Estudio» tienen procedimientos paralelos, con plazos distintos: el del otro es
una respuesta equivocada que se parece mucho. Un artículo que no nombra ninguno es del instrumento de su
párrafo, si los artículos del párrafo nombran solo a ese.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

from django.db.models import Q

from config.texto import sin_tildes
from normativa.busqueda.articulos import Fila
from normativa.models import FragmentoLegal
from normativa.selectors import por_estado_del_corpus

# Los instrumentos se nombran con mayúscula en la ley y el reglamento («la Declaración», «el Estudio»).
_DECLARACION = re.compile(r"\bDeclaraci[oó]n(es)?\b")
_ESTUDIO = re.compile(r"\bEstudios?\b")

OTRO = {"dia": "eia", "eia": "dia"}


# Nombrar el instrumento es decir «Declaración» o «Estudio» (las siglas ya vienen expandidas: «DIA
# (Declaración de Impacto Ambiental)»): «un edificio declarado patrimonio» no es la Declaración, ni «el
# estudio de ruido» o «el estudio hidrogeológico» son el Estudio.
_NOMBRA_DECLARACION = re.compile(r"\bdeclaracion(es)?\b(?! jurada)")
_NOMBRA_ESTUDIO = re.compile(r"\bestudios?\b(?! del? (?!impacto))(?! [a-z]+ic[oa]s?\b)")


def instrumento_de(raices: set[str], consulta: str = "") -> str:
    """El instrumento del que habla la pregunta, si nombra uno solo: «dia», «eia» o «». Sin el texto
    de la consulta, por las raíces de sus palabras; «día» de plazo no cuenta."""
    if consulta:
        plano = sin_tildes(consulta).lower()
        dia, eia = bool(_NOMBRA_DECLARACION.search(plano)), bool(_NOMBRA_ESTUDIO.search(plano))
    else:
        dia, eia = "decla" in raices, "estud" in raices
    return "dia" if dia and not eia else "eia" if eia and not dia else ""


MINIMO_DEL_PARRAFO = 3  # artículos que nombran solo un instrumento para que el párrafo sea de ese


def instrumento_del_fragmento(fragmento: Fila) -> str:
    """«dia» o «eia» si el fragmento trata de uno solo: el que nombra o, si no nombra ninguno, el de su
    párrafo («Ampliación del plazo de evaluación» no dice de qué, pero está entre los artículos del
    procedimiento del Estudio; ver `leer_instrumentos_de_parrafos`); «» si no se sabe."""
    propios = _instrumentos(fragmento.texto)
    if propios:
        return next(iter(propios)) if len(propios) == 1 else ""
    return _instrumentos_de_parrafos().get(_parrafo(fragmento), "")


def _parrafo(fragmento: Fila) -> tuple[int, tuple[str, ...]]:
    return (fragmento.norma_id, tuple(fragmento.jerarquia))


@por_estado_del_corpus
def _instrumentos_de_parrafos() -> dict[tuple[int, tuple[str, ...]], str]:
    """(norma, jerarquía) → instrumento de los párrafos ya leídos, mientras el corpus no cambie."""
    return {}


ARTICULOS_DEL_PARRAFO = 200  # los que se leen de cada párrafo para saber de qué instrumento es


def leer_instrumentos_de_parrafos(fragmentos: Iterable[Fila]) -> None:
    """Lee, en una consulta, el instrumento de los párrafos de `fragmentos` que no nombran ninguno y
    que aún no se conocen: el único que nombran los artículos del párrafo, si al menos
    `MINIMO_DEL_PARRAFO` lo nombran solo a él y ninguno nombra solo al otro. Sale del corpus cargado."""
    conocidos = _instrumentos_de_parrafos()
    faltan = {
        _parrafo(f) for f in fragmentos if f.jerarquia and not _instrumentos(f.texto)
    } - conocidos.keys()
    if not faltan:
        return
    filtro = Q()
    for norma_id, jerarquia in faltan:
        filtro |= Q(norma_id=norma_id, jerarquia=list(jerarquia))
    cuentas = {parrafo: {"dia": 0, "eia": 0} for parrafo in faltan}
    filas = (
        FragmentoLegal.objects.filter(filtro, version__vigente=True, derogado=False)
        .order_by()
        .values_list("norma_id", "jerarquia", "texto")[: ARTICULOS_DEL_PARRAFO * len(faltan)]
    )
    for norma_id, jerarquia, texto in filas:
        instrumentos = _instrumentos(texto)
        if len(instrumentos) == 1 and (cuenta := cuentas.get((norma_id, tuple(jerarquia)))):
            cuenta[next(iter(instrumentos))] += 1
    for parrafo, cuenta in cuentas.items():
        conocidos[parrafo] = next(
            (n for n in ("dia", "eia") if cuenta[n] >= MINIMO_DEL_PARRAFO and not cuenta[OTRO[n]]), ""
        )


@functools.lru_cache(maxsize=20_000)
def _instrumentos(texto: str) -> frozenset[str]:
    return frozenset(
        nombre for nombre, patron in (("dia", _DECLARACION), ("eia", _ESTUDIO)) if patron.search(texto)
    )
