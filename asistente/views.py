"""Página del chat (servida por el servidor; el texto llega por websocket)."""

from __future__ import annotations

from typing import Any

import markdown  # type: ignore[import-untyped]
import nh3
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.safestring import mark_safe

from asistente.models import Conversacion
from proyectos.roles import puede_consultar, puede_escribir

ETIQUETAS_PERMITIDAS = {"p", "strong", "em", "ul", "ol", "li", "a", "code", "pre", "br", "blockquote"}


@login_required
def chat(request: HttpRequest) -> HttpResponse:
    """Conversaciones del usuario y la seleccionada (`?c=`), con el proyecto activo (`?proyecto=`)."""
    if not puede_consultar(request.user):
        raise PermissionDenied("Su usuario no tiene un rol asignado.")
    conversaciones = Conversacion.objects.filter(usuario_id=request.user.pk, eliminada_at__isnull=True)[:50]
    actual = None
    if request.GET.get("c"):
        try:
            actual = Conversacion.objects.get(
                pk=request.GET["c"], usuario_id=request.user.pk, eliminada_at__isnull=True
            )
        except (Conversacion.DoesNotExist, ValueError) as error:
            raise Http404("Conversación no encontrada.") from error
    mensajes = [
        {"m": m, "html": markdown_seguro(m.contenido)}
        for m in (actual.mensajes.filter(rol__in=["user", "assistant"]) if actual else [])
    ]
    proyecto = request.GET.get("proyecto", "")
    contexto: dict[str, Any] = {
        "conversaciones": conversaciones,
        "actual": actual,
        "mensajes": mensajes,
        "puede_escribir": puede_escribir(request.user),
        "config_chat": {
            "ws": "/ws/asistente/",
            "conversacion_id": str(actual.pk) if actual else None,
            "proyecto_id": int(proyecto) if proyecto.isdigit() else (actual.proyecto_id if actual else None),
            "vista": request.GET.get("vista", "chat"),
        },
    }
    return render(request, "asistente/chat.html", contexto)


def markdown_seguro(texto: str) -> str:
    """Markdown → HTML saneado (el texto se guarda tal cual; se escapa solo al mostrarlo)."""
    html = markdown.markdown(texto, extensions=["sane_lists"])
    return mark_safe(nh3.clean(html, tags=ETIQUETAS_PERMITIDAS, attributes={"a": {"href"}}))
