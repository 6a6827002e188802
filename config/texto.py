"""Plegado de texto para comparar lo que escribe una persona: una sola definición para todo el proyecto."""

from __future__ import annotations

import hashlib
import re
import unicodedata


def sin_tildes(texto: str) -> str:
    """Minúsculas y sin tildes ni diéresis, conservando la puntuación («#12», «8.000 t/mes»)."""
    minusculas = texto.lower()
    return minusculas if minusculas.isascii() else minusculas.translate(_SIN_MARCAS)


class _SinMarcas(dict[int, str]):
    """Tabla de `str.translate` que se llena al usarse: cada carácter, descompuesto (NFD) y sin sus
    marcas combinantes («á» → «a», «ñ» → «n»). Recorrer el texto carácter a carácter en Python
    costaba un cuarto de la búsqueda híbrida; `translate` lo hace en C y cada carácter se calcula una
    vez por proceso."""

    def __missing__(self, codigo: int) -> str:
        base = "".join(
            c for c in unicodedata.normalize("NFD", chr(codigo)) if unicodedata.category(c) != "Mn"
        )
        self[codigo] = base
        return base


_SIN_MARCAS = _SinMarcas()


def normalizar(texto: str) -> str:
    """Minúsculas, sin tildes ni diéresis (la ñ queda como n), sin apóstrofos ni guiones."""
    return " ".join(re.sub(r"[^a-z0-9]+", " ", sin_tildes(texto)).split())


def texto_comparable(texto: str) -> str:
    """Forma canónica para comparar dos fuentes del mismo texto (espacios y comillas)."""
    texto = unicodedata.normalize("NFC", texto)
    texto = texto.replace("“", '"').replace("”", '"').replace("’", "'")
    # Marcas de LeyChile que la versión XML omite.
    texto = re.sub(r"\bINCISO (DEROGADO|ELIMINADO)\.", "", texto)
    return re.sub(r"\s+", " ", texto).strip()


def hash_de_texto(texto: str) -> str:
    """Huella de un texto legal sin diferencias de formato (espacios, comillas): 16 hex de SHA-256. Con
    ella, lo que se escribió leyendo un texto (una regla del motor, una entrada del catálogo de permisos)
    sabe si el texto vigente sigue siendo ese."""
    return hashlib.sha256(texto_comparable(texto).encode()).hexdigest()[:16]


def texto_del(fecha_iso: str | None) -> str:
    """La fecha de la versión de un texto citado, como se muestra junto a la cita: «texto del 06-10-2014»
    («» si no se conoce)."""
    if not fecha_iso:
        return ""
    anio, mes, dia = fecha_iso[:10].split("-")
    return f"texto del {dia}-{mes}-{anio}"
