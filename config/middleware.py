"""Middleware propio: rechaza antes de cualquier vista lo que ninguna puede procesar."""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import unquote

from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest, JsonResponse

MENSAJE_NULO = "La dirección no puede contener el carácter nulo (%00)."


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
