"""Los datos del turno del asistente y sus errores: lo que comparten el servicio del turno, los
motores, las acciones y los transportes. No importa motores ni transportes: las dependencias van hacia
aquí, nunca desde aquí."""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal, Protocol, runtime_checkable

from asistente.models import VIGENCIA_ACCION, AccionPendiente, Conversacion, Dominio, MemoriaUsuario, Mensaje
from asistente.registro import Contexto
from asistente.turno.memoria import recuerdos_de, reparo_de, sin_preferencias
from config.errores import EnConflicto, NoEncontrado, Vencido
from proyectos.models import Proyecto
from proyectos.roles import Usuario
from proyectos.selectors import proyectos_visibles

VENTANA_MENSAJES = 20


MINUTOS_DE_VIGENCIA = int(VIGENCIA_ACCION.total_seconds() // 60)


class AccionNoEncontrada(NoEncontrado):
    mensaje_por_omision = "Acción no encontrada."


class AccionExpirada(Vencido):
    mensaje_por_omision = f"La acción venció ({MINUTOS_DE_VIGENCIA} minutos); pídala de nuevo."


class AccionEnConflicto(EnConflicto):
    mensaje_por_omision = "La acción ya fue decidida en sentido contrario."


# Los eventos de un turno (su orden, en el README: «meta → sources → … → done | error»).
TipoEvento = Literal[
    "meta",
    "tool_start",
    "tool",
    "sources",
    "warnings",
    "start",
    "token",
    "action",
    "done",
    "error",
    "reinicio",
]


@dataclass
class Evento:
    id: int
    tipo: TipoEvento
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
    # El mensaje ya había llegado (el cliente lo reenvió con su mismo `id_cliente`): su turno ya corre o
    # terminó, y no se lanza otro.
    repetido: bool = False
    # El id del primer evento: 1, o el siguiente al último del stream si el turno se retoma tras morir
    # el proceso que lo corría (los clientes no vuelven a recibir ids que ya vieron).
    primer_evento: int = 1
    contexto: Contexto = field(init=False)
    # Las preferencias que el usuario fijó con este mensaje («Respuestas breves»), para confirmárselas.
    anotadas: list[str] = field(default_factory=list, init=False)

    def __post_init__(self) -> None:
        self.contexto = Contexto(
            usuario=self.usuario,
            conversacion=self.conversacion,
            proyecto_activo_id=self.conversacion.proyecto_id,
        )

    @property
    def texto(self) -> str:
        return self.mensaje.contenido

    @property
    def pregunta(self) -> str:
        """Lo que hay que responder: el mensaje sin las frases con que el usuario fijó preferencias."""
        return sin_preferencias(self.texto) if self.anotadas else self.texto

    @cached_property
    def proyecto_frecuente(self) -> Proyecto | None:
        """El proyecto que el usuario más consulta (su memoria) entre los que todavía ve: lo que «mi
        proyecto» quiere decir cuando la conversación no tiene uno activo."""
        memoria: MemoriaUsuario | None = getattr(self.usuario, "memoria", None)  # viene con el mensaje
        ids = [int(p["id"]) for p in (memoria.proyectos_frecuentes if memoria else [])]
        if not ids:
            return None
        visibles = {p.pk: p for p in proyectos_visibles(usuario=self.usuario).filter(pk__in=ids)}
        return next((visibles[pk] for pk in ids if pk in visibles), None)

    @property
    def preferencias(self) -> dict[str, Any]:
        """Las preferencias que el usuario dijo (clave → dato con «valor» y «descripcion»)."""
        memoria: MemoriaUsuario | None = getattr(self.usuario, "memoria", None)
        return {k: v for k, v in (memoria.preferencias if memoria else {}).items() if isinstance(v, dict)}

    def preferencia(self, clave: str) -> str:
        return str(self.preferencias.get(clave, {}).get("valor", ""))

    @property
    def cliente_preferido(self) -> str:
        """El cliente con que el usuario dijo trabajar, si es uno de los suyos (si no, ninguno)."""
        dicho = self.preferencias.get("cliente", {})
        return str(dicho["valor"]) if dicho.get("id") else ""

    @cached_property
    def recuerdos(self) -> list[dict[str, Any]]:
        """Preguntas parecidas del mismo usuario en otras conversaciones, con el comienzo de su respuesta."""
        return recuerdos_de(usuario=self.usuario, texto=self.texto, conversacion_id=self.conversacion.pk)

    @cached_property
    def reparo(self) -> dict[str, Any] | None:
        """La respuesta a una pregunta parecida que el usuario calificó «no me sirvió», con su comentario."""
        return reparo_de(usuario=self.usuario, texto=self.texto)

    def historial(self) -> list[Mensaje]:
        """Los últimos mensajes de la conversación (sin el actual), del más antiguo al más nuevo; sin los
        bloqueados por inyección ni lo que se les respondió (no llegan al modelo ni después)."""
        anteriores = (
            self.conversacion.mensajes.exclude(pk=self.mensaje.pk)
            .exclude(marcado_inyeccion=True)
            .exclude(pregunta__marcado_inyeccion=True)
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
    tokens_entrada: int = 0  # todos, con los leídos y escritos en la caché de prompts
    tokens_salida: int = 0
    tokens_cache_lectura: int = 0
    tokens_cache_escritura: int = 0
    costo_usd: float = 0.0
    motor: str = ""
    modelo: str = ""
    respaldo: str = ""  # por qué respondió el motor de respaldo (tipo de la falla del modelo)
    limitado: bool = False  # el modelo respondió 429 (aunque un reintento haya resultado)


class Motor(Protocol):
    """Un motor del asistente: de un turno, una respuesta."""

    nombre: str

    def responder(self, turno: Turno) -> Respuesta: ...


@runtime_checkable
class MotorEnVivo(Protocol):
    """Un motor que además transmite en vivo: un generador de `Delta` que retorna la `Respuesta`."""

    nombre: str

    def flujo(self, turno: Turno) -> FlujoMotor: ...
