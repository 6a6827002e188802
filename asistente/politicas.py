"""Las políticas de los dominios: quién puede usar cada uno y la de recuperación (RAG) que rige un
turno, la del entorno (`RAG_ENABLED`, `RAG_MIN_CONFIDENCE`, `RAG_MAX_DOCUMENTS`) y, si es más estricta,
la de su dominio. La aplican los dos motores: las herramientas que recuperan normativa no se ofrecen ni
se ejecutan si está apagada, y la búsqueda entrega a lo más `maximo_documentos` fragmentos con al menos
`similitud_minima`."""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.db.models import Q, QuerySet

from asistente.models import Dominio
from proyectos.roles import Usuario, id_de


@dataclass(frozen=True)
class PoliticaRag:
    habilitado: bool
    similitud_minima: float
    maximo_documentos: int
    motivo: str = ""  # por qué está apagada, dicho al usuario y al modelo


def politica_rag(dominio: Dominio | None) -> PoliticaRag:
    """Lo más estricto entre el entorno y el dominio (sin dominio, el entorno)."""
    habilitado, motivo = settings.RAG_ENABLED, ""
    if not habilitado:
        motivo = "La búsqueda en la normativa está desactivada en este servidor (RAG_ENABLED)."
    elif dominio is not None and not dominio.rag_habilitado:
        habilitado = False
        motivo = f"La búsqueda en la normativa está desactivada en el dominio «{dominio.nombre}»."
    maximo = settings.RAG_MAX_DOCUMENTS
    minima = settings.RAG_MIN_CONFIDENCE
    if dominio is not None:
        maximo = min(maximo, dominio.top_k or maximo)
        minima = max(minima, dominio.similitud_minima or 0.0)
    return PoliticaRag(habilitado, minima, maximo, motivo)


def dominios_disponibles(*, usuario: Usuario) -> QuerySet[Dominio]:
    """Los dominios activos que el usuario puede usar: los abiertos (sin grupos) y los de sus grupos;
    el personal, todos."""
    activos = Dominio.objects.filter(activo=True)
    if getattr(usuario, "is_staff", False):
        return activos
    return activos.filter(Q(grupos__isnull=True) | Q(grupos__user=id_de(usuario))).distinct()
