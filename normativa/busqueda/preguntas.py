"""Lo que una consulta pregunta, separado de la situación que la rodea.

Un consultor cuenta primero su caso («La faena está en Atacama, el modelo dice…») y al final pregunta
(«¿Quién decide eso?»); a veces pregunta dos cosas en una oración («¿Ante quién se reclama y en qué
plazo?»). La búsqueda acerca su vector a lo preguntado, la abstención mira el tema de lo preguntado y el
reordenador busca una oración de la ley para cada pregunta.
"""

from __future__ import annotations

import re

from config.texto import sin_tildes

# Fin de oración: tras «?» o «!», o tras un punto que no abre un número («Art. 11», «12. 000»).
# Cómo empieza una pregunta escrita sin «¿»: un interrogativo o un verbo de los que preguntan.
_ABRE_PREGUNTA = re.compile(
    r"\W*(y |pero |entonces |igual |ademas )?(que|cual|cuales|cuanto|cuanta|cuantos|cuantas|como|donde"
    r"|cuando|quien|quienes|por que|se puede|puedo|podemos|hay|existe|es|son|debo|debemos|tengo|tenemos"
    r"|corresponde)\b"
)
_ORACION = re.compile(r"(?<=[?!])\s+|(?<=\w\.)\s+(?!\d)")
# «Si …, ¿…?» / «¿Si …, …?»: la condición hasta la primera coma (o el «¿» que abre la pregunta).
_CONDICION = re.compile(r"^\W*(?:y |pero |entonces )?si\b[^,¿?]{3,200}(?:,|(?=¿))\s*", re.IGNORECASE)


def nucleo_de_la_pregunta(consulta: str) -> str:
    """Lo que la consulta pregunta, sin la situación que la rodea: las oraciones interrogativas (o, si
    ninguna lo es, la última: la búsqueda recibe la consulta sin su «?»), cada una sin la condición
    que la abre («si el relave rebalsa, ¿…?»). El tema de una consulta
    es lo que pregunta; la historia que la antecede («años atrás se filtró el tranque…») describe
    la faena con palabras que el corpus no usa y no cambia de qué rama del derecho es la pregunta."""
    return " ".join(_preguntas(consulta)) or consulta


def _preguntas(consulta: str) -> list[str]:
    oraciones = [o for o in _ORACION.split(consulta.strip()) if o.strip()]
    if not oraciones:
        return []
    preguntas = [o for o in oraciones[:-1] if "?" in o or "¿" in o]
    # La última oración es la pregunta (la búsqueda la recibe sin su «?») salvo que la pregunta ya se
    # haya hecho antes y la última solo agregue un dato («…¿qué permiso necesito? la faena es chica»).
    if not preguntas or "¿" in oraciones[-1] or _ABRE_PREGUNTA.match(sin_tildes(oraciones[-1])):
        preguntas += oraciones[-1:]
    return [_CONDICION.sub("", o) for o in preguntas]


# Dos preguntas en una oración («¿Ante quién se reclama y en qué plazo?»): cada una pide su respuesta.
_OTRA_PREGUNTA = re.compile(
    r",?\s+(?:y|o)\s+(?=(?:que|quien|quienes|cual|cuales|cuanto|cuanta|cuantos|cuantas|como|donde|cuando"
    r"|ante quien|en que|por que)\b)"
)


def lo_que_pregunta(consulta: str) -> list[str]:
    """Cada cosa que la consulta pregunta (en minúsculas y sin tildes), sin la situación que la rodea:
    sus oraciones interrogativas y, dentro de una, cada pregunta unida por «y» («¿ante quién se
    reclama y en qué plazo?» son dos). Cada una necesita una oración de la ley que la responda."""
    partes = [p for o in _preguntas(consulta) for p in _OTRA_PREGUNTA.split(sin_tildes(o).lower())]
    return [p.strip(" ¿?") for p in partes if p.strip(" ¿?")]


def preguntas_de(consulta: str) -> list[str]:
    """Las oraciones interrogativas de la consulta («¿En qué plazo…?», «¿Hay rebaja…?»), en su orden."""
    return [o for o in _ORACION.split(consulta.strip()) if "?" in o or "¿" in o]
