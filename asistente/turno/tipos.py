"""Los datos del turno del asistente y sus errores: lo que comparten el servicio del turno, los
motores, las acciones y los transportes. No importa motores ni transportes: las dependencias van hacia
aquí, nunca desde aquí."""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass, field
from typing import Any

from asistente.models import AccionPendiente, Conversacion, Dominio, Mensaje
from asistente.registro import Contexto
from proyectos.roles import Usuario

VENTANA_MENSAJES = 20


class TurnoRechazado(Exception):
    """El mensaje no se procesa: `codigo` HTTP (400, 404, 429) y mensaje en castellano."""

    def __init__(self, mensaje: str, *, codigo: int = 400, reintentar_en: int | None = None) -> None:
        super().__init__(mensaje)
        self.codigo = codigo
        self.reintentar_en = reintentar_en


class AccionNoEncontrada(Exception):
    pass


class AccionExpirada(Exception):
    pass


class AccionEnConflicto(Exception):
    pass


@dataclass
class Evento:
    id: int
    tipo: str
    datos: dict[str, Any]


@dataclass
class Delta:
    """Avance de un motor en vivo: un trozo de texto, una herramienta que empieza a correr
    (`actividad`, su nombre) o una herramienta ya ejecutada."""

    texto: str = ""
    llamada: dict[str, Any] | None = None
    actividad: str = ""


FlujoMotor = Generator[Delta, None, "Respuesta"]


@dataclass
class Turno:
    usuario: Usuario
    conversacion: Conversacion
    dominio: Dominio
    mensaje: Mensaje
    vista: str = ""
    inyeccion: bool = False
    contexto: Contexto = field(init=False)

    def __post_init__(self) -> None:
        self.contexto = Contexto(
            usuario=self.usuario,
            conversacion=self.conversacion,
            proyecto_activo_id=self.conversacion.proyecto_id,
        )

    @property
    def texto(self) -> str:
        return self.mensaje.contenido

    def historial(self) -> list[Mensaje]:
        """Los últimos mensajes de la conversación (sin el actual), del más antiguo al más nuevo."""
        anteriores = self.conversacion.mensajes.exclude(pk=self.mensaje.pk).filter(
            rol__in=["user", "assistant"]
        )
        return list(reversed(anteriores.order_by("-creado_at")[:VENTANA_MENSAJES]))


@dataclass
class Respuesta:
    """Lo que un motor entrega: el texto, lo que llamó y, si corresponde, una acción propuesta."""

    texto: str
    llamadas: list[dict[str, Any]] = field(default_factory=list)
    accion: AccionPendiente | None = None
    advertencias: list[str] = field(default_factory=list)
    sugerencias: list[str] = field(default_factory=list)
    tokens_entrada: int = 0
    tokens_salida: int = 0
    costo_usd: float = 0.0
    motor: str = ""
