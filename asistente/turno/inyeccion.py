"""Inyección de instrucciones en el mensaje del usuario: se detecta y se bloquea (el mensaje se guarda
marcado, ningún motor lo procesa y el usuario sabe por qué). Los patrones, en castellano y en inglés,
se agrupan por lo que intentan —eso es lo que se le dice al usuario— y se comparan sobre el texto como lo
leería una persona: sin tildes, ancho completo ni caracteres invisibles, en minúsculas. Incluyen los de
la especificación (semilla 000 §8: «ignore all previous», «new instructions:», «system prompt:»…).
"""

from __future__ import annotations

import re
import unicodedata

from config.texto import sin_tildes

_IGNORAR = (
    "pide ignorar u olvidar las instrucciones del asistente o le da instrucciones nuevas",
    [
        r"ignor\w* (todas |las |tus |mis |estas |esas |las anteriores |sus )*"
        r"(instrucciones|reglas|indicaciones)",
        r"olvid\w* (todas |las |tus |lo )*(instrucciones|reglas|anterior)",
        r"(ignora|olvida|descarta)\w* (todo )?lo (anterior|previo|que te (dijeron|indicaron))",
        r"(ignore|disregard|forget|override)\w* (all |any |the |your |my |previous |prior |above |earlier )*"
        r"(instructions|rules|prompts?|directions|guidelines)",
        r"(ignore|disregard|forget)\w* (all |everything )+(the )?"
        r"(previous|prior|above|earlier|before|you were)",
        r"(ignore|disregard|forget)\w* (all )?(previous|prior|above|earlier)\b",
        r"\b(new|updated) (instructions|rules)\s*:",
        r"\b(nuevas? (instrucciones|reglas)|(instrucciones|reglas) nuevas)\s*:",
    ],
)
_CONFIRMACION = (
    "pide omitir la confirmación que exigen las acciones que modifican datos",
    [
        r"sin (pedir |pedirme |solicitar |necesidad de |esperar )?(mi |la )?confirma",
        r"no (me )?(pidas|pida|solicites|esperes) (la |mi )?confirma",
        r"(salta|omite|omitir|saltar|evita|evitar)\w* (la |las |el )?(paso de )?confirma",
        r"confirma\w* (automaticamente|por mi|tu mismo|de inmediato)",
        r"(auto|automatically|auto-?) ?confirm",
        r"ejecuta\w* directamente",
        r"without (asking (for )?|requiring |needing |waiting for )?(my |any |user )?confirmation",
        r"(skip|bypass|disable)\w* (the |any )?confirmation",
        r"confirm\w* (every|all|each) (action|step)s? (yourself|automatically)",
        r"(you will|you must|you'll) confirm",
    ],
)
_PAPEL = (
    "intenta darle al asistente otro papel o un «modo» sin reglas",
    [
        r"modo (desarrollador|dios|administrador|sin restricciones)",
        r"ahora eres|actua como (si fueras )?(un |el )?(administrador|root|otro)",
        r"you are now|from now on you|act as (an? )?(admin|administrator|root|system)",
        r"(developer|god|jailbreak|dan) mode",
    ],
)
_REVELAR = (
    "pide revelar las instrucciones internas del asistente",
    [
        r"(system|sistema) ?prompt",
        r"(revela|muestra)\w* (tus|las) (instrucciones|reglas)",
        r"(reveal|print|show)\w* (your|the) (system )?(instructions|prompt|rules)",
    ],
)
_IMITA = (
    "imita un mensaje del sistema o una llamada a una herramienta",
    [
        r"(^|\n)\s*(\[|<|#+ ?)?(system|assistant|sistema)(\]|>)?\s*:",
        r"[\[<]\s*/?\s*(sistema|system)\s*[\]>]",
        r"<\s*/?\s*(system|tool_use|tool_result|function_calls?|invoke)\b",
        r"\"type\"\s*:\s*\"(tool_use|tool_result)\"",
        r"\"(tool|name|herramienta)\"\s*:\s*\"(crear_proyecto|actualizar_proyecto|ejecutar_analisis)\"",
    ],
)
CATEGORIAS: list[tuple[str, list[re.Pattern[str]]]] = [
    (motivo, [re.compile(p) for p in patrones])
    for motivo, patrones in (_IGNORAR, _CONFIRMACION, _PAPEL, _REVELAR, _IMITA)
]


def motivo_de_bloqueo(texto: str) -> str | None:
    """Qué intenta el mensaje («pide omitir la confirmación…»), o None si es un mensaje común."""
    plano = texto_comparable(texto)
    for motivo, patrones in CATEGORIAS:
        if any(p.search(plano) for p in patrones):
            return motivo
    return None


def mensaje_sospechoso(texto: str) -> bool:
    """Indica si el texto intenta cambiar las reglas del asistente (inyección de instrucciones)."""
    return motivo_de_bloqueo(texto) is not None


def texto_comparable(texto: str) -> str:
    """El texto como lo leería una persona: NFKC (ancho completo «ｉｇｎｏｒａ» → «ignora»), sin
    caracteres invisibles (de ancho cero, de formato) que parten palabras, sin tildes, en minúsculas y
    con los espacios de cada línea reducidos a uno."""
    compatible = unicodedata.normalize("NFKC", texto)
    visible = "".join(c for c in compatible if unicodedata.category(c) != "Cf")
    lineas = sin_tildes(visible).splitlines()
    return "\n".join(" ".join(linea.split()) for linea in lineas)
