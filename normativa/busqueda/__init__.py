"""Búsqueda en el corpus normativo (híbrida: densa + BM25, con realce de referencias explícitas)."""

from normativa.busqueda.hibrida import (
    MAXIMO_TOP_K,
    MODOS,
    ErrorDeBusqueda,
    Resultado,
    ResultadoBusqueda,
    buscar_documentacion,
    buscar_normativa,
)

__all__ = [
    "MAXIMO_TOP_K",
    "MODOS",
    "ErrorDeBusqueda",
    "Resultado",
    "ResultadoBusqueda",
    "buscar_documentacion",
    "buscar_normativa",
]
