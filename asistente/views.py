"""Páginas del asistente: el chat (servido por el servidor; el texto llega por websocket) y «Mi memoria»."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from asistente.memoria import memoria_olvidar
from asistente.models import Conversacion
from asistente.selectors import chat_contexto, conversaciones_de, memoria_de
from config.errores import NoEncontrado
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


@login_required
@require_http_methods(["GET", "POST"])
def memoria(request: HttpRequest) -> HttpResponse:
    """Lo que el asistente recuerda del usuario; cada elemento se borra con su botón (POST `tipo` y
    `clave`), y «Olvidar todo» lo borra todo."""
    if request.method == "POST":
        tipo, clave = request.POST.get("tipo", ""), request.POST.get("clave", "")
        try:
            memoria_olvidar(usuario=request.user, tipo=tipo, clave=clave)
        except NoEncontrado as error:
            messages.error(request, f"No se borró: {error}")
        else:
            messages.success(
                request, "Listo: olvidé todo lo que recordaba." if tipo == "todo" else "Listo: lo olvidé."
            )
        return redirect("asistente:memoria")
    return render(request, "asistente/memoria.html", memoria_de(usuario=request.user))
