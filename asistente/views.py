"""Página del chat (servida por el servidor; el texto llega por websocket)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from asistente.models import Conversacion
from asistente.selectors import chat_contexto, conversaciones_de
from config.validacion import entero_de_parametro
from proyectos.roles import puede_consultar


@login_required
def chat(request: HttpRequest) -> HttpResponse:
    """Conversaciones del usuario y la seleccionada (`?c=`), con el proyecto activo (`?proyecto=`)."""
    if not puede_consultar(request.user):
        raise PermissionDenied("Su usuario no tiene un rol asignado.")
    actual = None
    if request.GET.get("c"):
        try:
            actual = conversaciones_de(usuario=request.user).get(pk=request.GET["c"])
        except (Conversacion.DoesNotExist, ValidationError, ValueError) as error:
            raise Http404("Conversación no encontrada.") from error
    proyecto = request.GET.get("proyecto", "")
    contexto = chat_contexto(
        usuario=request.user,
        conversacion=actual,
        proyecto_id=entero_de_parametro(proyecto),
        vista=request.GET.get("vista", "chat"),
    )
    contexto["conversaciones"] = conversaciones_de(usuario=request.user)[:50]
    return render(request, "asistente/chat.html", contexto)
