"""Motores del asistente detrás de una interfaz: `responder(turno) -> Respuesta`.

Un motor que además sabe transmitir en vivo (`flujo(turno)`, un generador de `Delta` que retorna la
`Respuesta`) entrega el texto a medida que se genera; los demás se envuelven con `motor_flujo`.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from asistente.motores.claude import MotorClaude
from asistente.motores.reglas import MotorReglas
from asistente.turno.tipos import FlujoMotor, Respuesta, Turno
from config.salud import motor_llm_configurado


class Motor(Protocol):
    nombre: str

    def responder(self, turno: Turno) -> Respuesta: ...


@runtime_checkable
class MotorEnVivo(Protocol):
    nombre: str

    def flujo(self, turno: Turno) -> FlujoMotor: ...


def motor_para(turno: Turno) -> Motor:
    """El motor configurado (`ASISTENTE_MOTOR`): Claude si hay clave y así se pide; si no, reglas."""
    if motor_llm_configurado() == "claude":
        return MotorClaude(respaldo=MotorReglas())
    return MotorReglas()


def motor_flujo(motor: Motor, turno: Turno) -> FlujoMotor:
    """El flujo en vivo del motor; uno sin transmisión entrega su respuesta completa al final."""
    if isinstance(motor, MotorEnVivo):
        return (yield from motor.flujo(turno))
    return motor.responder(turno)
