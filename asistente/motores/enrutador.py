"""Enrutador antes del modelo (semilla 001): lo que se responde igual sin modelo —un saludo, un
agradecimiento, «ayuda», «¿quién eres?», «lista mis proyectos» y la consulta explícita de un artículo—
no llama a Claude. Lo responde el motor de reglas y el turno queda registrado con el motor «enrutador»
(en el mensaje, el log y las métricas). Todo lo demás va al modelo.

Las rutas calzan el mensaje entero (sin tildes, mayúsculas ni puntuación): «hola» se enruta, «hola,
¿qué plazo tiene una DIA?» no, porque trae una pregunta que el modelo debe responder.
"""

from __future__ import annotations

import re

from asistente.motores.reglas import MotorReglas
from asistente.turno.tipos import Respuesta, Turno
from config.texto import sin_tildes

NOMBRE = "enrutador"
_NORMA = (
    r"(de la |del )?(ley|ds|decreto supremo|decreto|reglamento del seia|reglamento)( n[o°º]?)? ?[\d.]+(/\d+)?"
)
RUTAS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("saludo", re.compile(r"^(hola|buen[oa]s?( dias| tardes| noches)?|saludos|hey)( [a-z]+)?$")),
    (
        "gracias",
        re.compile(
            r"^((ok|perfecto|excelente|genial|listo|muy bien) )?((muchas|mil) )?gracias( [a-z]+){0,2}$"
            r"|^te agradezco( [a-z]+){0,2}$"
        ),
    ),
    ("ayuda", re.compile(r"^(ayuda|necesito ayuda|que puedes hacer|que sabes hacer|como te uso|que haces)$")),
    ("identidad", re.compile(r"^(quien eres|que eres|como te llamas|eres un (bot|robot|humano))$")),
    (
        "listar_proyectos",
        re.compile(
            r"^(lista(me)?|muestra(me)?|mostrar|ver|cuales son)( todos)? (mis|los)( [a-z]+)? proyectos"
            r"( (analizados|archivados|en borrador|(de|en)( la)?( region( de)?)? [a-z ]{3,30}))?$"
        ),
    ),
    (
        "articulo",
        re.compile(
            r"^(que dice|muestra(me)?|cita(me)?|dame|texto del?|lee(me)?)( el| la)? (art(iculo)?) ?"
            r"\d+( ?bis)?( (letra|literal) [a-z0-9.]+)? " + _NORMA + "$"
        ),
    ),
)


def ruta_de(texto: str) -> str | None:
    """La ruta del mensaje si se responde sin modelo; None si va al modelo."""
    normal = " ".join(re.sub(r"[¿?¡!,;:«»\"()]", " ", sin_tildes(texto)).replace("art.", "art ").split())
    normal = normal.rstrip(".")
    for nombre, patron in RUTAS:
        if patron.match(normal):
            return nombre
    return None


class MotorEnrutado:
    """El motor de reglas respondiendo una ruta del enrutador, registrado como tal."""

    nombre = NOMBRE

    def __init__(self, ruta: str) -> None:
        self.ruta = ruta

    def responder(self, turno: Turno) -> Respuesta:
        respuesta = MotorReglas().responder(turno)
        respuesta.motor = NOMBRE
        return respuesta
