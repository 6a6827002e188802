"""Las advertencias que una respuesta lleva por lo que su búsqueda trajo, iguales con cualquier motor:
sin base en el corpus, o con una confianza bajo el mínimo del dominio. Las que salen de las búsquedas
ya hechas se conocen antes del primer trozo de texto (llegan antes que él); la de una respuesta del
modelo que habla de la ley sin ninguna fuente, recién al terminar."""

from __future__ import annotations

import re
from typing import Any

from asistente.registro import REGISTRO

SIN_BASE = "Sin base suficiente en el corpus."
CONFIANZA_BAJA = "Confianza baja de la búsqueda: verifique las citas antes de usarlas."
# Una respuesta que nombra un artículo, una ley o un decreto habla de la ley.
_HABLA_DE_LA_LEY = re.compile(
    r"\b(art(?:[íi]culo|s?\.)\s*\d|ley\s+(?:n[°º.]?\s*)?\d|d\.?\s?s\.?\s+\d|decreto)", re.I
)


def advertencias_de_la_busqueda(llamadas: list[dict[str, Any]], *, hay_fuentes: bool) -> list[str]:
    """Si el turno buscó en la normativa: sin base, si ninguna búsqueda trajo fragmentos (o no se pudo
    buscar) y el turno no tiene otras fuentes (`hay_fuentes`: las de un análisis, p. ej.); confianza
    baja, si ninguna de las que trajeron alcanzó el mínimo del dominio."""
    busquedas = [
        llamada
        for llamada in llamadas
        if (definicion := REGISTRO.get(str(llamada.get("herramienta")))) is not None and definicion.recupera
    ]
    if not busquedas:
        return []
    con_fuentes = [b["resultado"] for b in busquedas if (b.get("resultado") or {}).get("fuentes")]
    if not con_fuentes:
        return [] if hay_fuentes else [SIN_BASE]
    if not any(r.get("confianza_suficiente", True) for r in con_fuentes):
        return [CONFIANZA_BAJA]
    return []


def advertencias_al_terminar(
    *, texto: str, fuentes: list[Any], llamadas: list[dict[str, Any]], del_modelo: bool
) -> list[str]:
    """Las de la búsqueda y, si el modelo respondió sobre la ley sin ninguna fuente del turno (no buscó,
    o no citó lo que encontró), la misma de sin base que da el motor sin conexión."""
    advertencias = advertencias_de_la_busqueda(llamadas, hay_fuentes=bool(fuentes))
    if del_modelo and not fuentes and SIN_BASE not in advertencias and _HABLA_DE_LA_LEY.search(texto):
        advertencias.append(SIN_BASE)
    return advertencias


def advertencia_de_reparo(reparo: dict[str, Any] | None) -> list[str]:
    """Si el usuario dijo que no le sirvió la respuesta a una pregunta parecida: qué respondí entonces y
    qué me dijo, para que revise esta con ese ojo."""
    if reparo is None:
        return []
    comentario = f" Su comentario: «{reparo['comentario']}»." if reparo["comentario"] else ""
    return [
        f"A una pregunta parecida («{reparo['pregunta']}», {reparo['fecha']}) le respondí algo que usted "
        f"calificó como que no le sirvió.{comentario} Revise esta respuesta con eso en mente."
    ]
