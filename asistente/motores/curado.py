"""La respuesta curada por el personal, servida tal cual con sus fuentes (sin búsqueda ni modelo)."""

from __future__ import annotations

from asistente.curadas import fuentes_de
from asistente.models import RespuestaCurada
from asistente.turno.tipos import Respuesta, Turno

NOMBRE = "curada"


class MotorCurado:
    nombre = NOMBRE

    def __init__(self, respuesta: RespuestaCurada) -> None:
        self.respuesta = respuesta

    def responder(self, turno: Turno) -> Respuesta:
        turno.contexto.fuentes[:] = fuentes_de(self.respuesta)
        fecha = self.respuesta.actualizado_at.strftime("%d-%m-%Y")
        return Respuesta(
            self.respuesta.texto,
            advertencias=[f"Respuesta revisada por el equipo (última revisión: {fecha})."],
            motor=NOMBRE,
        )
