"""Herramientas del sistema: su documentación, cómo funciona y propuestas de implementación."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from django.conf import settings
from pydantic import BaseModel, Field

from asistente.herramientas.comunes import TTL_NORMATIVA, hay_documentacion, seccion_de
from asistente.registro import Contexto, herramienta
from normativa import busqueda as corpus
from proyectos.roles import puede_administrar, puede_consultar


class BuscarDocumentacion(BaseModel):
    consulta: str = Field(min_length=2, max_length=500)
    top_k: int = Field(default=5, ge=1, le=20, description="Cuántas secciones devolver.")


@herramienta(
    permiso=puede_consultar,
    ttl_s=TTL_NORMATIVA,
    disponible=hay_documentacion,
    actividad="Buscando en la documentación del sistema…",
)
def buscar_documentacion(entrada: BuscarDocumentacion, ctx: Contexto) -> dict[str, Any]:
    """Busca en la documentación del sistema (README, guía de contribución, documentos técnicos): cómo
    funciona el motor de prefactibilidad, la búsqueda, la API o cómo se agrega algo."""
    busqueda = corpus.buscar_documentacion(consulta=entrada.consulta, top_k=entrada.top_k)
    return {"confianza": busqueda.confianza, "secciones": [seccion_de(r) for r in busqueda.resultados]}


class ExplicarSistema(BaseModel):
    tema: str = Field(min_length=2, max_length=300, description="Qué parte del sistema explicar.")


@herramienta(
    permiso=puede_consultar,
    ttl_s=TTL_NORMATIVA,
    disponible=hay_documentacion,
    actividad="Revisando la documentación del sistema…",
)
def explicar_sistema(entrada: ExplicarSistema, ctx: Contexto) -> dict[str, Any]:
    """Explica cómo funciona una parte del sistema a partir de su documentación (secciones con su
    título y extracto)."""
    busqueda = corpus.buscar_documentacion(consulta=entrada.tema)
    return {"tema": entrada.tema, "secciones": [seccion_de(r) for r in busqueda.resultados]}


class ProponerImplementacion(BaseModel):
    objetivo: str = Field(min_length=5, max_length=2000, description="Qué se quiere agregar o cambiar.")
    contexto: str = Field(default="", max_length=2000, description="Restricciones o detalles, si los hay.")


@herramienta(
    permiso=puede_administrar,
    disponible=hay_documentacion,
    actividad="Revisando la documentación del sistema…",
)
def proponer_implementacion(entrada: ProponerImplementacion, ctx: Contexto) -> dict[str, Any]:
    """(Administradores) Propuesta técnica para una funcionalidad nueva, armada con la documentación del
    sistema: arquitectura (las secciones que aplican), archivos que tocaría (los que la documentación
    nombra y existen), pasos (las listas de verificación que aplican) y una estimación por tamaño. Es un
    borrador para revisar: no modifica nada."""
    busqueda = corpus.buscar_documentacion(consulta=f"{entrada.objetivo} {entrada.contexto}".strip(), top_k=8)
    archivos = _archivos_nombrados(busqueda.resultados)
    return {
        "objetivo": entrada.objetivo,
        "contexto": entrada.contexto,
        "arquitectura": [seccion_de(r) for r in busqueda.resultados[:4]],
        "archivos": archivos,
        "pasos": _pasos_de(busqueda.resultados),
        "estimacion": _estimacion(len(archivos)),
        "secciones": [seccion_de(r) for r in busqueda.resultados],
    }


_RUTA_NOMBRADA = re.compile(
    r"\b((?:asistente|normativa|proyectos|fuentes_externas|config|templates|static)/[\w./-]*\w)"
)
_PASO = re.compile(r"^\s*(?:[-*]\s*\[[ x]\]|\d+[.)])\s+(.{10,200})$", re.MULTILINE)


def _archivos_nombrados(resultados: list[corpus.Resultado]) -> list[str]:
    """Las rutas del código que las secciones nombran y existen en el repositorio, sin repetir."""
    raiz = Path(settings.BASE_DIR)
    rutas = dict.fromkeys(m.rstrip(".") for r in resultados for m in _RUTA_NOMBRADA.findall(r.texto))
    return [ruta for ruta in rutas if (raiz / ruta).exists()][:12]


def _pasos_de(resultados: list[corpus.Resultado]) -> list[str]:
    """Los ítems de listas de verificación o numeradas de las secciones que aplican."""
    pasos = dict.fromkeys(" ".join(m.split()) for r in resultados for m in _PASO.findall(r.texto))
    return list(pasos)[:10]


def _estimacion(archivos: int) -> dict[str, Any]:
    """Tamaño aproximado por la cantidad de archivos que la documentación relaciona (más sus pruebas)."""
    tamano = "pequeña" if archivos <= 2 else "mediana" if archivos <= 5 else "grande"
    return {
        "tamano": tamano,
        "archivos": archivos,
        "nota": "Estimación por la cantidad de archivos que nombra la documentación; cada uno con su prueba "
        "en `tests/` (la misma ruta). Revísela: no reemplaza el análisis de quien la implemente.",
    }
