"""Siglas del derecho ambiental chileno: la pregunta coloquial las usa, la norma escribe el nombre.

«Me rechazaron la DIA» no comparte palabras con «Declaración de Impacto Ambiental»: se agrega el
nombre completo a la consulta (sin quitar la sigla) para la búsqueda densa y la de texto completo.
"""

from __future__ import annotations

import re

SIGLAS: dict[str, str] = {
    "DIA": "Declaración de Impacto Ambiental",
    "EIA": "Estudio de Impacto Ambiental",
    "RCA": "resolución de calificación ambiental",
    "SEA": "Servicio de Evaluación Ambiental",
    "SEIA": "Sistema de Evaluación de Impacto Ambiental",
    "SMA": "Superintendencia del Medio Ambiente",
    "MMA": "Ministerio del Medio Ambiente",
    "PAS": "permiso ambiental sectorial",
    "SNASPE": "Sistema Nacional de Áreas Silvestres Protegidas del Estado",
    "SBAP": "Servicio de Biodiversidad y Áreas Protegidas",
    "SINIA": "Sistema Nacional de Información Ambiental",
    "LOSMA": "Ley Orgánica de la Superintendencia del Medio Ambiente",
    "ADI": "área de desarrollo indígena",
    "DGA": "Dirección General de Aguas",
    "CONAF": "Corporación Nacional Forestal",
    "SERNAGEOMIN": "Servicio Nacional de Geología y Minería",
    "CMN": "Consejo de Monumentos Nacionales",
}

_SIGLA = re.compile(r"\b(" + "|".join(sorted(SIGLAS, key=len, reverse=True)) + r")s?\b")


def expandir_siglas(consulta: str) -> str:
    """«Me rechazaron la DIA» → «Me rechazaron la DIA (Declaración de Impacto Ambiental)».

    Solo siglas en mayúsculas (así se escriben); «sea» o «día» en minúsculas son palabras comunes.
    """
    return _SIGLA.sub(lambda m: f"{m.group(0)} ({SIGLAS[m.group(1)]})", consulta)
