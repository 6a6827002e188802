"""El mensaje que intenta cambiar las reglas del asistente no lo procesa ningún motor: se responde
que no se procesó y por qué, sin modelo ni herramientas."""

from __future__ import annotations

from asistente.turno.inyeccion import motivo_de_bloqueo
from asistente.turno.tipos import Respuesta, Turno

NOMBRE = "bloqueo"
ADVERTENCIA = "El mensaje intentaba cambiar las reglas del asistente; no se procesó ni se ejecutó nada."


class MotorBloqueo:
    nombre = NOMBRE

    def responder(self, turno: Turno) -> Respuesta:
        motivo = motivo_de_bloqueo(turno.texto) or "intenta cambiar las reglas del asistente"
        return Respuesta(
            f"No procesé su mensaje: {motivo}. Mis reglas no cambian por lo que diga un mensaje, y las "
            "acciones que modifican datos siempre esperan su confirmación. Si tenía una pregunta, "
            "envíela de nuevo sin esa parte.",
            advertencias=[ADVERTENCIA],
            motor=NOMBRE,
        )
