"""Parser JSON de la API: el de DRF, más lo que `config.validacion` rechaza, con un 400 en castellano.

Módulo aparte de `config.api`: DRF lo importa al armar `APIView`, que `config.api` a su vez importa.
"""

from __future__ import annotations

from typing import Any

from rest_framework import exceptions
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser

from config.validacion import PROFUNDIDAD_MAXIMA, problema_de_formulario, problema_json


class ParserJson(JSONParser):
    """JSONParser de DRF que además rechaza, con un 400 en castellano, lo que ninguna vista acepta."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        try:
            datos = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise exceptions.ParseError(
                f"El JSON está anidado a demasiada profundidad (máximo {PROFUNDIDAD_MAXIMA} niveles)."
            ) from None
        except exceptions.ParseError as error:
            raise exceptions.ParseError(f"El cuerpo no es JSON válido ({_sin_prefijo(error)}).") from None
        problema = problema_json(datos)
        if problema:
            raise exceptions.ParseError(problema)
        return datos


def _sin_prefijo(error: exceptions.ParseError) -> str:
    return str(error.detail).removeprefix("JSON parse error - ")


class ParserMultipart(MultiPartParser):
    """MultiPartParser de DRF con sus errores en castellano y la misma revisión de textos que el JSON."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        try:
            leido = super().parse(stream, media_type, parser_context)
        except exceptions.ParseError as error:
            detalle = str(error.detail).removeprefix("Multipart form parse error - ")
            raise exceptions.ParseError(f"El cuerpo multipart no es válido ({detalle}).") from None
        if problema := problema_de_formulario(leido.data, leido.files):
            raise exceptions.ParseError(problema)
        return leido


class ParserFormulario(FormParser):
    """FormParser de DRF con la misma revisión de textos que el JSON (un PATCH con formulario no pasa
    por `request.POST`, que Django solo lee en un POST)."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        datos = super().parse(stream, media_type, parser_context)
        if problema := problema_de_formulario(datos):
            raise exceptions.ParseError(problema)
        return datos
