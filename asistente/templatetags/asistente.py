"""`{% panel_asistente proyecto %}`: el chat como panel lateral de una página, con el proyecto como
contexto (continúa la última conversación del usuario sobre ese proyecto)."""

from __future__ import annotations

from typing import Any

from django import template

from asistente.selectors import chat_contexto, ultima_conversacion_del_proyecto
from proyectos.models import Proyecto

register = template.Library()


@register.inclusion_tag("asistente/_panel.html", takes_context=True)
def panel_asistente(context: template.Context, proyecto: Proyecto) -> dict[str, Any]:
    usuario = context["request"].user
    contexto = chat_contexto(
        usuario=usuario,
        conversacion=ultima_conversacion_del_proyecto(usuario=usuario, proyecto_id=proyecto.pk),
        proyecto_id=proyecto.pk,
        vista=f"detalle del proyecto #{proyecto.pk} «{proyecto.nombre}»",
    )
    contexto["config_chat"]["panel"] = True
    return contexto
