"""Middleware propio: rechaza antes de cualquier vista lo que ninguna puede procesar."""

from __future__ import annotations

import asyncio
import contextlib
import sys
import threading
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote_to_bytes

from asgiref.sync import iscoroutinefunction
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.http.multipartparser import MultiPartParserError
from django.utils.decorators import sync_and_async_middleware

from config.concurrencia import abandono_del_pedido, conexiones_devolver
from config.validacion import (
    MENSAJE_DEMASIADO_GRANDE,
    nombre_visible,
    problema_de_formulario,
    problema_de_texto,
)

MENSAJE_FORMULARIO_INVALIDO = (
    "El formulario no es válido: demasiados campos o archivos, o un multipart mal formado."
)
_FORMULARIOS = ("multipart/form-data", "application/x-www-form-urlencoded")
NO_UTF8 = "trae bytes que no son UTF-8 válido; envíelo codificado en UTF-8"
MENSAJE_SIN_BASE = "La base de datos no responde en este momento; nada se guardó. Reintente en unos segundos."
REINTENTAR_SIN_BASE_S = 5
ATRIBUTO_EXCEPCION = "_excepcion_del_pedido"
MENSAJES_POR_ESTADO = {
    400: "La solicitud no es válida.",
    401: "Se requiere autenticación.",
    403: "No tiene permiso para hacer esto.",
    404: "No existe lo pedido.",
    405: "Método no permitido para esta dirección.",
    408: "La solicitud tardó demasiado en llegar.",
    413: MENSAJE_DEMASIADO_GRANDE,
    415: "Tipo de contenido no admitido: use application/json.",
    429: "Demasiadas solicitudes; espere antes de reintentar.",
    500: "Error interno del servidor: quedó registrado. Intente nuevamente.",
    502: "Un servicio del que dependemos respondió mal; intente nuevamente.",
    503: "El servicio no está disponible en este momento; reintente en unos segundos.",
    504: "Un servicio del que dependemos no respondió a tiempo; intente nuevamente.",
}


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
            # En su propia tarea (que hereda la marca) y con `shield`: asgiref no entrega la cancelación
            # hasta que el hilo de la vista termina, y aquí se necesita en el acto, para que ese hilo
            # la vea mientras espera.
            tarea = asyncio.ensure_future(siguiente(request))
            try:
                respuesta: HttpResponse = await asyncio.shield(tarea)
                return respuesta
            except asyncio.CancelledError:
                evento.set()
                tarea.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await tarea
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


class RechazarTextoNoPermitido:
    """La única revisión en el borde de los textos que llegan fuera de un JSON: la ruta, los parámetros
    de la URL y los campos de un formulario (páginas, admin y la API con `multipart` o
    `x-www-form-urlencoded`) con el carácter nulo u otros de control: 400 en castellano. Los cuerpos
    JSON los revisa su parser (`config.parsers`) y los marcos del websocket su consumidor, con la misma
    regla (`config.validacion.problema_de_texto`).

    PostgreSQL no admite el carácter nulo en un texto; sin esto, un filtro `?region=%00` llegaba a la
    consulta y respondía 500, y un nombre de cliente podía guardar caracteres de control. Un cuerpo
    de formulario demasiado grande recibe aquí su 413 (la API en JSON, como todo error suyo).
    """

    def __init__(self, siguiente: Callable[[HttpRequest], HttpResponse]) -> None:
        self.siguiente = siguiente

    def __call__(self, request: HttpRequest) -> HttpResponse:
        try:
            problema = _problema_en_el_pedido(request)
        except RequestDataTooBig:
            return _error(request, MENSAJE_DEMASIADO_GRANDE, 413)
        except (TooManyFieldsSent, TooManyFilesSent, MultiPartParserError):
            return _error(request, MENSAJE_FORMULARIO_INVALIDO, 400)
        if problema:
            return _error(request, problema, 400)
        return self.siguiente(request)


def _problema_en_el_pedido(request: HttpRequest) -> str:
    if problema := problema_de_texto(request.path):
        return f"La dirección {problema}."
    # Django decodifica la dirección y los formularios reemplazando lo que no es UTF-8 por «�»: se
    # guardaría un texto distinto del enviado. Se revisan los bytes antes.
    if not _es_utf8(request.META.get("QUERY_STRING", "")):
        return f"Los parámetros de la dirección {NO_UTF8}."
    urlencoded = request.content_type == "application/x-www-form-urlencoded"
    if request.method == "POST" and urlencoded and not _es_utf8(request.body.decode("latin-1")):
        return f"El formulario {NO_UTF8}."
    for clave, valores in request.GET.lists():
        for texto in (clave, *valores):
            if problema := problema_de_texto(texto):
                return f"El parámetro «{nombre_visible(clave)}» de la dirección {problema}."
    # Django lee el formulario solo en un POST; en PUT/PATCH lo lee el parser de DRF (`config.parsers`).
    if request.method == "POST" and request.content_type in _FORMULARIOS:
        if request.content_type == "multipart/form-data":
            # Aquí los bytes ya no están: un «�» en un campo es lo que dejó un byte que no era UTF-8.
            for clave, valores in request.POST.lists():
                if any("\ufffd" in v for v in valores):
                    return f"El campo «{nombre_visible(clave)}» {NO_UTF8} (se leyeron como «�»)."
        return problema_de_formulario(request.POST, request.FILES)
    return ""


def _es_utf8(codificado: str) -> bool:
    """Si un texto «x-www-form-urlencoded» (`a=%C3%B1&b=…`) trae solo UTF-8 válido."""
    try:
        unquote_to_bytes(codificado.replace("+", " ")).decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _error(request: HttpRequest, mensaje: str, estado: int) -> HttpResponse:
    if request.path.startswith("/api/"):
        return _json(mensaje, estado)
    return HttpResponse(mensaje, status=estado, content_type="text/plain; charset=utf-8")


class ErroresDeLaApiEnJson:
    """Todo error de la API sale en JSON (`{"error": …}` en castellano), lo produzca quien lo produzca.

    Las vistas de la API ya responden así; esta capa cubre lo que ocurre fuera de ellas: un 500 de
    Django, el 400 de un cuerpo que Django rechaza antes de la vista (demasiado grande: 413), una
    página de error en HTML. Conserva el estado y encabezados como `Retry-After` y `Allow`.
    """

    def __init__(self, siguiente: Callable[[HttpRequest], HttpResponse]) -> None:
        self.siguiente = siguiente

    def __call__(self, request: HttpRequest) -> HttpResponse:
        respuesta = self.siguiente(request)
        if (
            not request.path.startswith("/api/")
            or respuesta.status_code < 400
            or respuesta.get("Content-Type", "").startswith(("application/json", "text/event-stream"))
        ):
            return respuesta
        excepcion = getattr(request, ATRIBUTO_EXCEPCION, None)
        estado = 413 if isinstance(excepcion, RequestDataTooBig) else respuesta.status_code
        mensaje = MENSAJE_DEMASIADO_GRANDE if estado == 413 else MENSAJES_POR_ESTADO.get(estado, "")
        en_json = _json(mensaje or f"Error {estado}.", estado)
        for encabezado in ("Retry-After", "Allow", "WWW-Authenticate"):
            if encabezado in respuesta:
                en_json[encabezado] = respuesta[encabezado]
        return en_json


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
        if respuesta.status_code >= 500 and isinstance(
            getattr(request, ATRIBUTO_EXCEPCION, None), (OperationalError, InterfaceError)
        ):
            return _respuesta_sin_base(request)
        return respuesta

    def process_exception(self, request: HttpRequest, excepcion: Exception) -> HttpResponse | None:
        if isinstance(excepcion, (OperationalError, InterfaceError)):
            return _respuesta_sin_base(request)
        return None


def anotar_excepcion(sender: Any, request: HttpRequest | None = None, **kwargs: Any) -> None:
    """Receptor de `got_request_exception`: anota en el pedido la excepción que Django convirtió en
    respuesta de error, para que las capas de más afuera sepan qué pasó (`BaseDeDatosNoDisponible`,
    `ErroresDeLaApiEnJson`)."""
    if request is not None:
        setattr(request, ATRIBUTO_EXCEPCION, sys.exc_info()[1])


def _respuesta_sin_base(request: HttpRequest) -> HttpResponse:
    respuesta: HttpResponse
    if request.path.startswith("/api/"):
        respuesta = _json(MENSAJE_SIN_BASE, 503)
    else:
        respuesta = HttpResponse(MENSAJE_SIN_BASE, status=503, content_type="text/plain; charset=utf-8")
    respuesta["Retry-After"] = str(REINTENTAR_SIN_BASE_S)
    return respuesta


def _json(mensaje: str, estado: int) -> JsonResponse:
    """`{"error": mensaje}` con las tildes tal cual (como las respuestas de DRF)."""
    return JsonResponse({"error": mensaje}, status=estado, json_dumps_params={"ensure_ascii": False})
