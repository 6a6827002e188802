"""Lecturas del asistente para las páginas: las conversaciones del usuario y lo que el chat necesita."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from asistente.markdown import ETIQUETAS_PERMITIDAS, markdown_seguro
from asistente.models import Conversacion
from proyectos.roles import Usuario, puede_escribir


def conversaciones_de(*, usuario: Usuario) -> QuerySet[Conversacion]:
    return Conversacion.objects.filter(usuario_id=usuario.pk, eliminada_at__isnull=True)


def chat_contexto(
    *, usuario: Usuario, conversacion: Conversacion | None, proyecto_id: int | None, vista: str
) -> dict[str, Any]:
    """Mensajes ya guardados (Markdown saneado) y la configuración del websocket para `chat.js`."""
    mensajes = [
        {"m": m, "html": markdown_seguro(m.contenido, fuentes_de=str(m.pk), fuentes=len(m.fuentes or []))}
        for m in (conversacion.mensajes.all() if conversacion else [])
        if m.contenido.strip()
    ]
    return {
        "actual": conversacion,
        "mensajes": mensajes,
        "puede_escribir": puede_escribir(usuario),
        "config_chat": {
            "ws": "/ws/asistente/",
            "conversacion_id": str(conversacion.pk) if conversacion else None,
            "proyecto_id": proyecto_id
            if proyecto_id is not None
            else getattr(conversacion, "proyecto_id", None),
            "vista": vista,
            "etiquetas_markdown": sorted(ETIQUETAS_PERMITIDAS),
        },
    }


def ultima_conversacion_del_proyecto(*, usuario: Usuario, proyecto_id: int) -> Conversacion | None:
    """La conversación más reciente del usuario sobre ese proyecto (el panel lateral la continúa)."""
    return (
        conversaciones_de(usuario=usuario).filter(proyecto_id=proyecto_id).order_by("-actualizada_at").first()
    )
