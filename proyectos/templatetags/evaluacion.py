"""`{% formulario_evaluacion %}`: la pregunta de la evaluación rápida en cualquier página (la portada)."""

from __future__ import annotations

from typing import Any

from django import template

from proyectos.forms import EvaluacionForm
from proyectos.views import config_mapa_de_evaluacion, nombres_de_comunas

register = template.Library()


@register.inclusion_tag("proyectos/_evaluacion_form.html", takes_context=True)
def formulario_evaluacion(context: template.Context) -> dict[str, Any]:
    return {
        "formulario": EvaluacionForm(),
        "csrf_token": context.get("csrf_token"),
        "comunas": nombres_de_comunas(),
        "config_mapa": config_mapa_de_evaluacion(None),
    }
