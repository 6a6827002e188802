"""Middleware propio: rechaza antes de cualquier vista lo que ninguna puede procesar."""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import unquote

from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest, JsonResponse

MENSAJE_NULO = "La dirección no puede contener el carácter nulo (%00)."
MENSAJE_SIN_BASE = "La base de datos no responde en este momento; nada se guardó. Reintente en unos segundos."
REINTENTAR_SIN_BASE_S = 5


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

    Una escritura a medias no queda: la transacción del pedido no llegó a confirmarse. Al volver la
    base, el pool descarta las conexiones muertas (CONN_HEALTH_CHECKS) y todo sigue sin
    reiniciar la aplicación.
    """

    def __init__(self, siguiente: Callable[[HttpRequest], HttpResponse]) -> None:
        self.siguiente = siguiente

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.siguiente(request)

    def process_exception(self, request: HttpRequest, excepcion: Exception) -> HttpResponse | None:
        if not isinstance(excepcion, (OperationalError, InterfaceError)):
            return None
        respuesta: HttpResponse
        if request.path.startswith("/api/"):
            respuesta = JsonResponse({"error": MENSAJE_SIN_BASE}, status=503)
        else:
            respuesta = HttpResponse(MENSAJE_SIN_BASE, status=503, content_type="text/plain; charset=utf-8")
        respuesta["Retry-After"] = str(REINTENTAR_SIN_BASE_S)
        return respuesta
