"""Motores del asistente detrás de una interfaz: `responder(turno) -> Respuesta`."""

from __future__ import annotations

from typing import Protocol

from asistente.services import Respuesta, Turno
from config.salud import motor_llm_configurado


class Motor(Protocol):
    nombre: str

    def responder(self, turno: Turno) -> Respuesta: ...


def motor_para(turno: Turno) -> Motor:
    """El motor configurado (`ASISTENTE_MOTOR`): Claude si hay clave y así se pide; si no, reglas."""
    from asistente.motores.reglas import MotorReglas

    if motor_llm_configurado() == "claude":
        from asistente.motores.claude import MotorClaude

        return MotorClaude(respaldo=MotorReglas())
    return MotorReglas()
