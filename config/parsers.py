"""Parser JSON de la API: el de DRF, más lo que `config.validacion` rechaza, con un 400 en castellano.

Módulo aparte de `config.api`: DRF lo importa al armar `APIView`, que `config.api` a su vez importa.
"""

from __future__ import annotations

from typing import Any

from rest_framework import exceptions
from rest_framework.parsers import JSONParser

from config.validacion import PROFUNDIDAD_MAXIMA, problema_json


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
