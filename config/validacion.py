"""Revisión de entradas que ningún adaptador acepta, común a API, páginas y websockets.

Lo que el JSON no puede traer (el carácter nulo, que PostgreSQL rechaza; enteros que no caben en una
columna; anidación que agotaría la pila) y los números de un parámetro de URL.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

PROFUNDIDAD_MAXIMA = 32
ENTERO_MAXIMO = 2**63 - 1
_ENTERO_ASCII = re.compile(r"[0-9]{1,18}")


def problema_json(datos: Any) -> str:
    """Qué impide aceptar este JSON ya leído (vacío si nada): anidación, carácter nulo o un número
    fuera de rango. Recorre sin recursión."""
    pendientes: list[tuple[Any, int]] = [(datos, 1)]
    while pendientes:
        valor, nivel = pendientes.pop()
        if nivel > PROFUNDIDAD_MAXIMA:
            return f"El JSON está anidado a demasiada profundidad (máximo {PROFUNDIDAD_MAXIMA} niveles)."
        if isinstance(valor, str):
            if "\x00" in valor:
                return "El texto no puede contener el carácter nulo (\\u0000)."
        elif isinstance(valor, bool):
            continue
        elif isinstance(valor, int):
            if abs(valor) > ENTERO_MAXIMO:
                return f"Número entero fuera de rango: el máximo es {ENTERO_MAXIMO}."
        elif isinstance(valor, float):
            if not math.isfinite(valor):
                return "Los números deben ser finitos."
        elif isinstance(valor, Mapping):
            pendientes.extend((clave, nivel + 1) for clave in valor)
            pendientes.extend((hijo, nivel + 1) for hijo in valor.values())
        elif isinstance(valor, list):
            pendientes.extend((hijo, nivel + 1) for hijo in valor)
    return ""


def entero_de_parametro(texto: str | None) -> int | None:
    """El entero de un parámetro de URL escrito con dígitos ASCII (no «²» ni «①», que `isdigit`
    acepta y `int` no); si no lo es, None."""
    if texto is None or not _ENTERO_ASCII.fullmatch(texto):
        return None
    return int(texto)
