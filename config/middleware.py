"""Middleware propio: rechaza antes de cualquier vista lo que ninguna puede procesar."""

from __future__ import annotations

import asyncio
import sys
import threading
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote

from asgiref.sync import iscoroutinefunction
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest, JsonResponse
from django.utils.decorators import sync_and_async_middleware

from config.concurrencia import abandono_del_pedido, conexiones_devolver

MENSAJE_NULO = "La dirección no puede contener el carácter nulo (%00)."
MENSAJE_SIN_BASE = "La base de datos no responde en este momento; nada se guardó. Reintente en unos segundos."
REINTENTAR_SIN_BASE_S = 5
ATRIBUTO_SIN_BASE = "_base_no_disponible"


@sync_and_async_middleware
def marcar_abandono(
    siguiente: Callable[[HttpRequest], Any],
) -> Callable[[HttpRequest], Any]:
    """Marca el pedido como abandonado cuando Django lo cancela porque el cliente se desconectó.

    El hilo que lo atiende sigue corriendo (un hilo no se puede cancelar), pero ve la marca
    (`config.concurrencia.pedido_abandonado`) y no empieza un cálculo que nadie recibirá. Va primero
    en MIDDLEWARE: bajo ASGI es la única capa asíncrona, la que se entera de la cancelación. Bajo WSGI
    (el cliente de pruebas) no hay cancelación y no hace nada.
    """
    if not iscoroutinefunction(siguiente):
        return siguiente

    async def atender(request: HttpRequest) -> HttpResponse:
        evento = threading.Event()
        marca = abandono_del_pedido.set(evento)
        try:
            respuesta: HttpResponse = await siguiente(request)
            return respuesta
        except asyncio.CancelledError:
            evento.set()
            raise
        finally:
            abandono_del_pedido.reset(marca)

    return atender


class DevolverConexiones:
    """La parte síncrona de cada pedido devuelve sus conexiones al pool antes de dejar su hilo.

    Bajo ASGI, Django guarda la conexión en el contexto del hilo que corre las vistas y la devuelve al
    terminar el pedido (`request_finished`) desde el contexto de la petición. Si el cliente se va a
    mitad de camino, Django cancela la petición: el hilo termina su trabajo, pero su contexto ya no
    vuelve a la petición y la conexión quedaba fuera del pool para siempre (doce abandonos agotaban
    el pool del proceso). Va justo después de `marcar_abandono`: todo el trabajo síncrono del pedido
    queda dentro.
    """

    def __init__(self, siguiente: Callable[[HttpRequest], HttpResponse]) -> None:
        self.siguiente = siguiente

    def __call__(self, request: HttpRequest) -> HttpResponse:
        try:
            return self.siguiente(request)
        finally:
            conexiones_devolver()


class RechazarCaracterNulo:
    """Un carácter nulo en la ruta o en los parámetros de la URL: 400 en castellano.

    PostgreSQL no admite el carácter nulo en un texto; sin esto, un filtro `?region=%00` llegaba a la
    consulta y respondía 500.
    """

    def __init__(self, siguiente: Callable[[HttpRequest], HttpResponse]) -> None:
        self.siguiente = siguiente

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if "\x00" in request.path or "\x00" in unquote(request.META.get("QUERY_STRING", "")):
            if request.path.startswith("/api/"):
                return JsonResponse({"error": MENSAJE_NULO}, status=400)
            return HttpResponseBadRequest(MENSAJE_NULO, content_type="text/plain; charset=utf-8")
        return self.siguiente(request)


class BaseDeDatosNoDisponible:
    """PostgreSQL caído o reiniciándose: 503 en castellano con `Retry-After`, no un 500.

    Vale para la falla donde ocurra: en la vista (`process_exception`) o en otra capa que toca la base
    (la sesión, el usuario del registro, los mensajes). Django convierte en 500 la excepción de una capa
    interna antes de que llegue aquí, pero avisa con `got_request_exception`: `marcar_falla_de_base`
    lo anota en el pedido y esta capa cambia ese 500 por el 503. Una escritura a medias no queda: la
    transacción del pedido no llegó a confirmarse.
    """

    def __init__(self, siguiente: Callable[[HttpRequest], HttpResponse]) -> None:
        self.siguiente = siguiente

    def __call__(self, request: HttpRequest) -> HttpResponse:
        respuesta = self.siguiente(request)
        if respuesta.status_code >= 500 and getattr(request, ATRIBUTO_SIN_BASE, False):
            return _respuesta_sin_base(request)
        return respuesta

    def process_exception(self, request: HttpRequest, excepcion: Exception) -> HttpResponse | None:
        if isinstance(excepcion, (OperationalError, InterfaceError)):
            return _respuesta_sin_base(request)
        return None


def marcar_falla_de_base(sender: Any, request: HttpRequest | None = None, **kwargs: Any) -> None:
    """Receptor de `got_request_exception`: anota en el pedido que falló por la base de datos."""
    if request is not None and isinstance(sys.exc_info()[1], (OperationalError, InterfaceError)):
        setattr(request, ATRIBUTO_SIN_BASE, True)


def _respuesta_sin_base(request: HttpRequest) -> HttpResponse:
    respuesta: HttpResponse
    if request.path.startswith("/api/"):
        respuesta = JsonResponse({"error": MENSAJE_SIN_BASE}, status=503)
    else:
        respuesta = HttpResponse(MENSAJE_SIN_BASE, status=503, content_type="text/plain; charset=utf-8")
    respuesta["Retry-After"] = str(REINTENTAR_SIN_BASE_S)
    return respuesta
