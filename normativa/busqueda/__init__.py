"""Búsqueda en el corpus normativo (híbrida: densa + BM25, con realce de referencias explícitas)."""

from normativa.busqueda.abstencion import (
    COBERTURA_MINIMA,
    PUNTOS_PARA_ABSTENERSE,
    SIMILITUD_MINIMA,
    SenalesDeAbstencion,
)
from normativa.busqueda.hibrida import (
    MAXIMO_TOP_K,
    MODOS,
    ResultadoBusqueda,
    buscar_documentacion,
    buscar_normativa,
)
from normativa.busqueda.seguridad import Seguridad, seguridad_de
from normativa.busqueda.tipos import ErrorDeBusqueda, Resultado

__all__ = [
    "COBERTURA_MINIMA",
    "MAXIMO_TOP_K",
    "MODOS",
    "PUNTOS_PARA_ABSTENERSE",
    "SIMILITUD_MINIMA",
    "ErrorDeBusqueda",
    "Resultado",
    "ResultadoBusqueda",
    "Seguridad",
    "SenalesDeAbstencion",
    "buscar_documentacion",
    "buscar_normativa",
    "seguridad_de",
]
