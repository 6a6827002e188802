"""La medición de un turno: lo que se guarda en el mensaje del asistente (el registro del turno, una
sola fuente de verdad), lo que se publica en Prometheus y el evento de log `asistente_respuesta`.

El registro de cada turno es el `Mensaje` del asistente: motor y modelo, latencia y tiempo al primer
token, tokens (con los de caché de prompts), costo, herramientas con su resultado y duración
(`tool_calls` y las `LlamadaHerramienta` enlazadas), confianza y familia de la búsqueda, si se abstuvo,
si fue una respuesta curada, si respondió el respaldo y por qué, el tipo de error y si el modelo
respondió 429.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import structlog

from asistente.models import LlamadaHerramienta, Mensaje
from config import metricas
from config.texto import sin_tildes

if TYPE_CHECKING:
    from asistente.turno.tipos import Respuesta

registro = structlog.get_logger("asistente.metricas")

# Lo que cuenta como abstención («no tengo base suficiente», «no encontré», «sin base»).
_ABSTENCION = re.compile(r"no tengo base|sin base|no encontre|no hay base|base suficiente", re.IGNORECASE)
_RESPUESTAS_429: ContextVar[list[int] | None] = ContextVar("respuestas_429_del_modelo", default=None)


def es_abstencion(texto: str, fuentes: list[Any]) -> bool:
    """La respuesta dice que no hay base suficiente y no cita nada."""
    return not fuentes and bool(_ABSTENCION.search(sin_tildes(texto)))


@contextmanager
def contando_429() -> Iterator[list[int]]:
    """Cuenta las respuestas 429 del modelo mientras dura el bloque (reintentos del SDK incluidos):
    el envoltorio HTTP del cliente llama a `anotar_429` en el mismo hilo. El bloque no debe ceder el
    control (`yield`) entre medio: la variable de contexto es del hilo que lo ejecuta."""
    cuenta: list[int] = []
    marca = _RESPUESTAS_429.set(cuenta)
    try:
        yield cuenta
    finally:
        _RESPUESTAS_429.reset(marca)


def anotar_429() -> None:
    metricas.limitados_total.labels(origen="modelo").inc()
    cuenta = _RESPUESTAS_429.get()
    if cuenta is not None:
        cuenta.append(1)


@dataclass
class Reloj:
    """El tiempo de un turno: desde que empieza a ejecutarse hasta el primer texto y hasta el final."""

    inicio: float = field(default_factory=time.perf_counter)
    primer_texto: float | None = None

    def texto(self) -> None:
        if self.primer_texto is None:
            self.primer_texto = time.perf_counter()

    def ms(self) -> int:
        return round((time.perf_counter() - self.inicio) * 1000)

    def tiempos_ms(self) -> tuple[int, int]:
        """Hasta el final y hasta el primer texto transmitido (sin transmisión en vivo, hasta el final: todo
        llega junto), leídos del mismo instante: el primer texto nunca queda después del final."""
        ahora = time.perf_counter()
        primer_texto = self.primer_texto if self.primer_texto is not None else ahora
        return round((ahora - self.inicio) * 1000), round((primer_texto - self.inicio) * 1000)


def del_modelo(respuesta: Respuesta, reloj: Reloj) -> dict[str, Any]:
    """Los campos del registro del turno que vienen del motor: tokens, costo, motor y modelo, tiempos y
    si el modelo respondió 429."""
    latencia_ms, primer_token_ms = reloj.tiempos_ms()
    return {
        "tokens_entrada": respuesta.tokens_entrada,
        "tokens_salida": respuesta.tokens_salida,
        "tokens_cache_lectura": respuesta.tokens_cache_lectura,
        "tokens_cache_escritura": respuesta.tokens_cache_escritura,
        "costo_usd": respuesta.costo_usd,
        "motor": respuesta.motor,
        "modelo": respuesta.modelo,
        "latencia_ms": latencia_ms,
        "primer_token_ms": primer_token_ms,
        "limitado": respuesta.limitado,
    }


def de_la_busqueda(llamadas: list[dict[str, Any]]) -> dict[str, Any]:
    """Confianza, familia y similitud del mejor fragmento de la última búsqueda normativa del turno
    (vacías si no buscó)."""
    for llamada in reversed(llamadas):
        resultado = llamada.get("resultado") or {}
        if llamada.get("herramienta") == "buscar_normativa" and "confianza" in resultado:
            familias = resultado.get("familias") or []
            return {
                "confianza": str(resultado["confianza"]),
                "familia": str(familias[0]) if familias else "",
                "similitud": resultado.get("similitud_maxima"),
            }
    return {"confianza": "", "familia": "", "similitud": None}


def enlazar_llamadas(mensaje: Mensaje, *, desde: Any) -> None:
    """Las llamadas a herramientas de la conversación hechas durante el turno apuntan a su mensaje."""
    LlamadaHerramienta.objects.filter(
        conversacion_id=mensaje.conversacion_id, mensaje__isnull=True, creada_at__gte=desde
    ).update(mensaje=mensaje)


def publicar_costo(uso: Respuesta | Mensaje) -> None:
    """Tokens y costo del modelo en las métricas: los de un turno o los de una llamada que no es un turno
    (el resumen de una conversación)."""
    tokens = {
        "entrada": uso.tokens_entrada - uso.tokens_cache_lectura - uso.tokens_cache_escritura,
        "salida": uso.tokens_salida,
        "cache_lectura": uso.tokens_cache_lectura,
        "cache_escritura": uso.tokens_cache_escritura,
    }
    for tipo, cantidad in tokens.items():
        if cantidad > 0:
            metricas.tokens_total.labels(tipo=tipo).inc(cantidad)
    if uso.costo_usd:
        metricas.costo_usd_total.inc(float(uso.costo_usd))


def publicar(mensaje: Mensaje) -> None:
    """Publica el turno registrado en `mensaje`: métricas Prometheus y el evento `asistente_respuesta`."""
    motor = mensaje.motor or "ninguno"
    resultado = _resultado(mensaje)
    metricas.turnos_total.labels(motor=motor, resultado=resultado).inc()
    metricas.turno_segundos.labels(motor=motor).observe((mensaje.latencia_ms or 0) / 1000)
    if mensaje.primer_token_ms is not None:
        metricas.primer_token_segundos.labels(motor=motor).observe(mensaje.primer_token_ms / 1000)
    publicar_costo(mensaje)
    if mensaje.respaldo:
        metricas.respaldos_total.labels(motivo=mensaje.respaldo).inc()
    if mensaje.abstuvo:
        metricas.abstenciones_total.inc()
    registro.info(
        "asistente_respuesta",
        mensaje_id=str(mensaje.pk),
        conversacion_id=str(mensaje.conversacion_id),
        usuario_id=mensaje.conversacion.usuario_id,
        largo_mensaje=len(mensaje.pregunta.contenido) if mensaje.pregunta is not None else None,
        propuso_accion=bool(mensaje.accion_tipo),
        accion_tipo=mensaje.accion_tipo,
        similitud=mensaje.similitud,
        motor=mensaje.motor,
        modelo=mensaje.modelo,
        resultado=resultado,
        latencia_ms=mensaje.latencia_ms,
        primer_token_ms=mensaje.primer_token_ms,
        tokens_entrada=mensaje.tokens_entrada,
        tokens_salida=mensaje.tokens_salida,
        tokens_cache_lectura=mensaje.tokens_cache_lectura,
        tokens_cache_escritura=mensaje.tokens_cache_escritura,
        costo_usd=float(mensaje.costo_usd),
        herramientas=[
            {"herramienta": ll.get("herramienta"), "exito": not ll.get("error"), "ms": ll.get("ms")}
            for ll in mensaje.tool_calls
        ],
        confianza=mensaje.confianza,
        familia=mensaje.familia,
        abstuvo=mensaje.abstuvo,
        curada=mensaje.curada,
        respaldo=mensaje.respaldo,
        error=mensaje.error,
        limitado=mensaje.limitado,
    )


def _resultado(mensaje: Mensaje) -> str:
    """Una de pocas etiquetas: error, respaldo, curada, abstencion, respondida."""
    if mensaje.error:
        return "error"
    if mensaje.respaldo:
        return "respaldo"
    if mensaje.curada:
        return "curada"
    return "abstencion" if mensaje.abstuvo else "respondida"
