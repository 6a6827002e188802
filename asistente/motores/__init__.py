"""Motores del asistente detrás de una interfaz: `responder(turno) -> Respuesta`.

Un motor que además sabe transmitir en vivo (`flujo(turno)`, un generador de `Delta` que retorna la
`Respuesta`) entrega el texto a medida que se genera; los demás se envuelven con `motor_flujo`.
"""

from __future__ import annotations

from django.conf import settings

from asistente.curadas import respuesta_curada_para
from asistente.motores.bloqueo import MotorBloqueo
from asistente.motores.claude import MotorClaude
from asistente.motores.curado import MotorCurado
from asistente.motores.enrutador import MotorEnrutado, ruta_de
from asistente.motores.reglas import MotorReglas
from asistente.turno.memoria import solo_preferencias
from asistente.turno.tipos import FlujoMotor, Motor, MotorEnVivo, Turno
from config import metricas


def motor_llm_configurado() -> str:
    """Devuelve el motor del asistente que se usará: «claude» o «reglas»."""
    if settings.ASISTENTE_MOTOR == "auto":
        return "claude" if settings.ANTHROPIC_API_KEY else "reglas"
    return str(settings.ASISTENTE_MOTOR)


def motor_para(turno: Turno) -> Motor:
    """Un mensaje que intenta cambiar las reglas, bloqueado; una respuesta curada vigente que coincide
    con la pregunta, con cualquier motor; si no, el
    motor configurado (`ASISTENTE_MOTOR`): Claude si hay clave y así se pide —salvo lo que el
    enrutador responde sin modelo—; si no, reglas."""
    if turno.inyeccion:  # bloqueado: ningún motor lo procesa
        return MotorBloqueo()
    curada = respuesta_curada_para(texto=turno.texto, dominio=turno.dominio)
    metricas.contar_cache("respuestas_curadas", acierto=curada is not None)
    if curada is not None:
        return MotorCurado(curada)
    if motor_llm_configurado() == "claude":
        ruta = ruta_de(turno.texto) if settings.ASISTENTE_ENRUTADOR and not turno.inyeccion else None
        if settings.ASISTENTE_ENRUTADOR and turno.anotadas and solo_preferencias(turno.texto):
            ruta = "preferencia"  # «respóndeme breve»: se anota y se confirma sin modelo
        if ruta is not None:  # se responde igual sin modelo: no se llama a Claude
            return MotorEnrutado(ruta)
        return MotorClaude(respaldo=MotorReglas())
    return MotorReglas()


def motor_flujo(motor: Motor, turno: Turno) -> FlujoMotor:
    """El flujo en vivo del motor; uno sin transmisión entrega su respuesta completa al final."""
    if isinstance(motor, MotorEnVivo):
        return (yield from motor.flujo(turno))
    return motor.responder(turno)
