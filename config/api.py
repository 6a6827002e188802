"""Lo común a las API de todas las apps: una sola forma de error.

Todo error de la API sale como `{"error": "mensaje en castellano"}`, y uno de validación además con
`"errores": [{"campo", "mensaje"}, …]` (la forma de `EntradaInvalida` del motor).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.core.exceptions import RequestDataTooBig
from django.db import DataError
from drf_spectacular.utils import inline_serializer
from rest_framework import exceptions, serializers, status
from rest_framework.response import Response
from rest_framework.views import exception_handler

from config.errores import ErrorDeAplicacion, estado_http
from config.validacion import MENSAJE_DEMASIADO_GRANDE

ERROR = inline_serializer("Error", {"error": serializers.CharField()})
ERROR_ENTRADA = inline_serializer(
    "ErrorDeEntrada",
    {
        "error": serializers.CharField(),
        "errores": serializers.ListField(
            child=inline_serializer(
                "ProblemaDeEntrada", {"campo": serializers.CharField(), "mensaje": serializers.CharField()}
            ),
            required=False,
        ),
    },
)


def manejar_excepcion(exc: Exception, context: dict[str, Any]) -> Response | None:
    """Manejador de excepciones de DRF: toda respuesta de error con la forma `{"error", "errores"?}`.

    Los errores del dominio (`ErrorDeAplicacion`) se traducen aquí a su estado HTTP, con
    `Retry-After` si dicen cuándo reintentar: las vistas no los capturan una por una.
    """
    if isinstance(exc, ErrorDeAplicacion):
        respuesta_dominio = Response(exc.como_json(), status=estado_http(exc))
        if exc.reintentar_en:
            respuesta_dominio["Retry-After"] = str(exc.reintentar_en)
        return respuesta_dominio
    if isinstance(exc, RequestDataTooBig):
        return Response({"error": MENSAJE_DEMASIADO_GRANDE}, status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE)
    if isinstance(exc, DataError):
        # Red de seguridad: la validación de cada vista debería haberlo detenido antes.
        exc = exceptions.ValidationError(
            {"error": "Un valor no cabe en la base de datos (demasiado largo o fuera de rango)."}
        )
    respuesta = exception_handler(exc, context)
    if respuesta is None:
        return None
    respuesta.data = forma_de_error(respuesta.data)
    return respuesta


def forma_de_error(datos: Any) -> dict[str, Any]:
    """Convierte el detalle de un error de DRF a `{"error", "errores"?}`."""
    if isinstance(datos, Mapping) and set(datos) <= {"error", "errores"} and "error" in datos:
        return {"error": str(datos["error"]), **({"errores": datos["errores"]} if "errores" in datos else {})}
    if isinstance(datos, Mapping) and set(datos) == {"detail"}:
        return {"error": str(datos["detail"])}
    errores = _problemas(datos)
    return {"error": "La solicitud no es válida; corrija lo siguiente.", "errores": errores}


def _problemas(datos: Any, prefijo: str = "") -> list[dict[str, str]]:
    if isinstance(datos, Mapping):
        return [
            problema
            for campo, detalle in datos.items()
            for problema in _problemas(detalle, f"{prefijo}.{campo}" if prefijo else str(campo))
        ]
    if isinstance(datos, list) and datos and all(isinstance(d, str) for d in datos):
        return [{"campo": prefijo or "entrada", "mensaje": " ".join(str(d) for d in datos)}]
    if isinstance(datos, list):
        return [
            p for i, d in enumerate(datos) for p in _problemas(d, f"{prefijo}.{i}" if prefijo else str(i))
        ]
    return [{"campo": prefijo or "entrada", "mensaje": str(datos)}]


def errores_comunes_en_esquema(
    result: dict[str, Any], generator: Any, request: Any, public: bool
) -> dict[str, Any]:
    """Hook de drf-spectacular: documenta en cada operación los errores que toda vista puede devolver
    con la forma de error de la API: 403 (sin sesión, sin token o sin el rol), 404 si la ruta lleva
    un id (inexistente, ajeno o mal formado) y 400 si recibe un cuerpo o parámetros."""
    referencia = {"$ref": "#/components/schemas/Error"}
    result.setdefault("components", {}).setdefault("schemas", {}).setdefault(
        "Error",
        {"type": "object", "properties": {"error": {"type": "string"}}, "required": ["error"]},
    )
    for ruta, operaciones in result.get("paths", {}).items():
        for metodo, operacion in operaciones.items():
            if not isinstance(operacion, dict) or "responses" not in operacion:
                continue
            codigos = ["403"]
            if "{" in ruta:
                codigos.append("404")
            if (
                "requestBody" in operacion
                or operacion.get("parameters")
                or metodo in ("post", "put", "patch")
            ):
                codigos.append("400")
            for codigo in codigos:
                operacion["responses"].setdefault(
                    codigo,
                    {"description": "Error", "content": {"application/json": {"schema": referencia}}},
                )
    return result
