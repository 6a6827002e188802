"""Plegado de texto para comparar lo que escribe una persona: una sola definición para todo el proyecto."""

from __future__ import annotations

import re
import unicodedata


def sin_tildes(texto: str) -> str:
    """Minúsculas y sin tildes ni diéresis, conservando la puntuación («#12», «8.000 t/mes»)."""
    return "".join(c for c in unicodedata.normalize("NFD", texto.lower()) if unicodedata.category(c) != "Mn")


def normalizar(texto: str) -> str:
    """Minúsculas, sin tildes ni diéresis (la ñ queda como n), sin apóstrofos ni guiones."""
    return " ".join(re.sub(r"[^a-z0-9]+", " ", sin_tildes(texto)).split())
