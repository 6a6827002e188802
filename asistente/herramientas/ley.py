"""Herramientas de la ley: la búsqueda en el corpus normativo."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from asistente.herramientas.comunes import TTL_NORMATIVA, fuente_de_resultado, hay_corpus
from asistente.registro import Contexto, herramienta
from normativa import busqueda as corpus
from proyectos.roles import puede_consultar

CONFIANZAS = ["NONE", "LOW", "MEDIUM", "HIGH"]


class BuscarNormativa(BaseModel):
    consulta: str = Field(min_length=2, max_length=500, description="Pregunta o términos en español.")
    top_k: int = Field(default=5, ge=1, le=20)
    normas: list[str] = Field(default_factory=list, description="Siglas para acotar, p. ej. «Ley 19.300».")
    temas: list[str] = Field(default_factory=list, description="Temas para acotar (curados en el admin).")


def _acotar_al_dominio(entrada: BuscarNormativa, ctx: Contexto) -> BuscarNormativa:
    """Las políticas del dominio valen con cualquier motor: a lo más `top_k` resultados, solo las
    normas y los temas en alcance (lo pedido se intersecta con ellos; sin intersección, el alcance)."""
    dominio = ctx.conversacion.dominio if ctx.conversacion is not None else None
    if dominio is None:
        return entrada
    cambios: dict[str, Any] = {"top_k": min(entrada.top_k, dominio.top_k or entrada.top_k)}
    for campo in ("normas", "temas"):
        alcance = list(getattr(dominio, campo) or [])
        if alcance:
            pedidas = [v for v in getattr(entrada, campo) if v in alcance]
            cambios[campo] = pedidas or alcance
    return entrada.model_copy(update=cambios)


@herramienta(
    permiso=puede_consultar,
    ttl_s=TTL_NORMATIVA,
    disponible=hay_corpus,
    actividad="Buscando en la normativa…",
    acotar=_acotar_al_dominio,
)
def buscar_normativa(entrada: BuscarNormativa, ctx: Contexto) -> dict[str, Any]:
    """Busca en el corpus normativo (Ley 19.300, DS 40/2012, leyes relacionadas y guías del SEA) y
    devuelve los fragmentos reordenados (el primero es el que mejor responde), cada uno con su cita,
    enlace a LeyChile y la oración que responde; la familia de la pregunta (plazo, sanción,
    definición…) y la confianza (HIGH, MEDIUM, LOW o NONE). `confianza_suficiente` es falso si está
    bajo el mínimo del dominio: advierta que la base es débil. Con NONE no hay base: dígalo y no cite.
    Úsela antes de afirmar algo sobre la ley."""
    busqueda = corpus.buscar_normativa(
        consulta=entrada.consulta,
        top_k=entrada.top_k,
        normas=entrada.normas or None,
        temas=entrada.temas or None,
    )
    fuentes = [fuente_de_resultado(r) for r in busqueda.resultados] if busqueda.confianza != "NONE" else []
    dominio = ctx.conversacion.dominio if ctx.conversacion is not None else None
    minima = dominio.confianza_minima if dominio is not None else "LOW"
    return {
        "confianza": busqueda.confianza,
        "confianza_suficiente": CONFIANZAS.index(busqueda.confianza) >= CONFIANZAS.index(minima),
        "familias": list(busqueda.familias),
        "fuentes": fuentes,
    }
