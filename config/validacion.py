"""Revisión de entradas que ningún adaptador acepta, común a API, páginas y websockets.

Lo que un texto no puede traer (el carácter nulo, que PostgreSQL rechaza; otros caracteres de control;
un sustituto UTF-16 suelto como «\ud800», que no es texto y hacía fallar la escritura en la base), lo
que el JSON no puede traer (enteros que no caben en una columna; anidación que agotaría la pila) y los
números de un parámetro de URL.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from django.conf import settings

PROFUNDIDAD_MAXIMA = 32
_MB = f"{settings.DATA_UPLOAD_MAX_MEMORY_SIZE / 1_048_576:.1f}".replace(".", ",")
MENSAJE_DEMASIADO_GRANDE = (
    f"El cuerpo del pedido supera el máximo de {_MB} MB (sin contar los archivos subidos)."
)
ENTERO_MAXIMO = 2**63 - 1
_ENTERO_ASCII = re.compile(r"[0-9]{1,18}")
# Los de control (categoría Cc) salvo tabulador y saltos de línea, y los sustitutos sueltos.
_NO_PERMITIDO = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")


def problema_de_texto(texto: str) -> str:
    """Qué carácter no admite este texto (vacío si ninguno), dicho para una persona."""
    encontrado = _NO_PERMITIDO.search(texto)
    if encontrado is None:
        return ""
    caracter = encontrado.group()
    codigo = f"U+{ord(caracter):04X}"
    if caracter == "\x00":
        return "contiene el carácter nulo (\\u0000)"
    if "\ud800" <= caracter <= "\udfff":
        return f"contiene un sustituto UTF-16 suelto ({codigo}), que no es un carácter válido"
    return f"contiene un carácter de control ({codigo}); solo se admiten tabulador y saltos de línea"


def problema_de_formulario(campos: Any, archivos: Any = None) -> str:
    """Qué texto no se admite en un formulario (vacío si nada), nombrando el campo. `campos` y
    `archivos` son los `MultiValueDict` de Django (`request.POST`/`request.FILES`, o lo que leen los
    parsers de formulario de DRF)."""
    for clave, valores in campos.lists():
        for texto in (clave, *valores):
            if isinstance(texto, str) and (problema := problema_de_texto(texto)):
                return f"El campo «{nombre_visible(clave)}» {problema}."
    for archivo in archivos.values() if archivos is not None else ():
        if problema := problema_de_texto(getattr(archivo, "name", "") or ""):
            return f"El nombre del archivo {problema}."
    return ""


def nombre_visible(clave: str) -> str:
    """El nombre de un campo sin los caracteres que no se pueden mostrar, para nombrarlo en un mensaje."""
    return "".join("?" if _NO_PERMITIDO.match(c) else c for c in clave)[:60]


def problema_json(datos: Any, *, numeros: bool = True) -> str:
    """Qué impide aceptar este JSON ya leído (vacío si nada): anidación, un texto con un carácter no
    permitido (dice en qué campo) o un número fuera de rango. Recorre sin recursión; la ruta de cada
    valor se arma solo si hace falta nombrarla (un polígono trae decenas de miles de números).
    Con `numeros=False` no revisa los números (una capa descarta por su cuenta cada elemento con
    coordenadas que no son finitas, y sigue con los demás)."""
    pendientes: list[tuple[Any, int, Any]] = [(datos, 1, None)]
    while pendientes:
        valor, nivel, ruta = pendientes.pop()
        if nivel > PROFUNDIDAD_MAXIMA:
            return f"El JSON está anidado a demasiada profundidad (máximo {PROFUNDIDAD_MAXIMA} niveles)."
        if isinstance(valor, str):
            if problema := problema_de_texto(valor):
                campo = _nombre_de(ruta)
                return f"El texto {f'del campo «{campo}» ' if campo else ''}{problema}."
        elif isinstance(valor, bool) or (not numeros and isinstance(valor, int | float)):
            continue
        elif isinstance(valor, int):
            if abs(valor) > ENTERO_MAXIMO:
                return f"Número entero fuera de rango: el máximo es {ENTERO_MAXIMO}."
        elif isinstance(valor, float):
            if not math.isfinite(valor):
                return "Los números deben ser finitos."
        elif isinstance(valor, Mapping):
            for clave, hijo in valor.items():
                if isinstance(clave, str) and (problema := problema_de_texto(clave)):
                    return f"El nombre de un campo {problema}."
                pendientes.append((hijo, nivel + 1, (ruta, clave)))
        elif isinstance(valor, list):
            if _son_coordenadas(valor) and not numeros:
                continue
            if _son_coordenadas(valor):
                # Camino corto para un anillo de un polígono (miles de pares de números): sin apilar cada
                # par ni cada número, que era la mayor parte del costo de revisar una geometría grande.
                if not all(math.isfinite(x) for par in valor for x in par):
                    return "Los números deben ser finitos."
                continue
            pendientes.extend((hijo, nivel + 1, (ruta, i)) for i, hijo in enumerate(valor))
    return ""


def _son_coordenadas(valores: list[Any]) -> bool:
    """Si es una lista no vacía de listas de números decimales (pares o tríos de coordenadas)."""
    return bool(valores) and all(type(par) is list and all(type(x) is float for x in par) for par in valores)


def _nombre_de(ruta: Any) -> str:
    """«geometria.coordinates.0» a partir de la cadena (padre, clave) que arma `problema_json`."""
    partes: list[str] = []
    while ruta is not None:
        ruta, clave = ruta
        partes.append(str(clave))
    return ".".join(reversed(partes))


def entero_de_parametro(texto: str | None) -> int | None:
    """El entero de un parámetro de URL escrito con dígitos ASCII (no «²» ni «①», que `isdigit`
    acepta y `int` no); si no lo es, None."""
    if texto is None or not _ENTERO_ASCII.fullmatch(texto):
        return None
    return int(texto)
