"""Operaciones del asistente: el turno (validar, limitar, persistir, ejecutar el motor, responder con
eventos), las acciones por confirmar y la memoria del usuario.

Secuencia de eventos de un turno (diseño §4), la misma para SSE y websocket:
`meta → sources → warnings? → start → (token | tool | action)* → done | error`, con id creciente.
Con un motor que transmite en vivo (Claude), `tool` y `sources` llegan a medida que el modelo consulta,
antes de `start`, y vuelven a llegar si una consulta posterior suma fuentes: toda fuente que un texto
pueda citar llega antes que ese texto.
"""

from __future__ import annotations

import functools
import re
import time
import unicodedata
from collections.abc import Generator, Iterator
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID, uuid4

import redis
import structlog
from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from asistente.models import AccionPendiente, Conversacion, Dominio, MemoriaUsuario, Mensaje
from asistente.registro import REGISTRO, Contexto, ErrorDeHerramienta, ejecutar, validar_parametros
from config.servicios import redis_compartido
from proyectos import selectors as proyectos
from proyectos.models import Proyecto
from proyectos.roles import Usuario, id_de

registro = structlog.get_logger(__name__)

LARGO_MAXIMO = 4000
VENTANA_MENSAJES = 20
LARGO_RESUMEN = 4000
REINTENTAR_SIN_REDIS_S = 5
LIMITES = {
    "mensajes_minuto": (10, 60),
    "mensajes_hora": (100, 3600),
    "acciones_hora": (20, 3600),
    "busquedas_externas_hora": (30, 3600),
}
# Heurísticas de inyección: marcan el mensaje (se guarda tal cual) y el asistente no cambia sus reglas.
# Se comparan sobre el texto normalizado (`_texto_comparable`): sin tildes, ancho completo ni
# caracteres invisibles, en minúsculas; en castellano y en inglés.
PATRONES_INYECCION = [
    r"ignor\w* (todas |las |tus |mis |estas |esas |las anteriores )*(instrucciones|reglas|indicaciones)",
    r"olvid\w* (todas |las |tus |lo )*(instrucciones|reglas|anterior)",
    r"sin (pedir |pedirme |solicitar |necesidad de |esperar )?(mi |la )?confirma",
    r"no (me )?(pidas|pida|solicites|esperes) (la |mi )?confirma",
    r"(salta|omite|omitir|saltar|evita|evitar)\w* (la |las |el )?(paso de )?confirma",
    r"confirma\w* (automaticamente|por mi|tu mismo|de inmediato)",
    r"(auto|automatically|auto-?) ?confirm",
    r"(system|sistema) ?prompt",
    r"modo (desarrollador|dios|administrador|sin restricciones)",
    r"ahora eres|actua como (si fueras )?(un |el )?(administrador|root|otro)",
    r"(revela|muestra)\w* (tus|las) (instrucciones|reglas)",
    r"ejecuta\w* directamente",
    r"(ignore|disregard|forget|override)\w* (all |any |the |your |my |previous |prior |above |earlier )*"
    r"(instructions|rules|prompts?|directions|guidelines)",
    r"without (asking (for )?|requiring |needing |waiting for )?(my |any |user )?confirmation",
    r"(skip|bypass|disable)\w* (the |any )?confirmation",
    r"you are now|from now on you|act as (an? )?(admin|administrator|root|system)",
    r"(developer|god|jailbreak|dan) mode",
    r"(reveal|print|show)\w* (your|the) (system )?(instructions|prompt|rules)",
    # Roles o llamadas a herramientas falsificados en el texto del usuario.
    r"(^|\n)\s*(\[|<|#+ ?)?(system|assistant)(\]|>)?\s*:",
    r"[\[<]\s*/?\s*(sistema|system)\s*[\]>]",
    r"<\s*/?\s*(system|tool_use|tool_result|function_calls?|invoke)\b",
    r"\"type\"\s*:\s*\"(tool_use|tool_result)\"",
    r"\"(tool|name|herramienta)\"\s*:\s*\"(crear_proyecto|actualizar_proyecto|ejecutar_analisis)\"",
]


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


def turno_iniciar(
    *,
    usuario: Usuario,
    mensaje: Any,
    conversacion_id: UUID | str | None = None,
    proyecto_id: int | None = None,
    vista: str = "",
    dominio: str | None = None,
) -> Turno:
    """Valida, limita y guarda el mensaje del usuario antes de cualquier llamada a modelo o herramienta."""
    if not isinstance(mensaje, str) or not mensaje.strip():
        raise TurnoRechazado("Escriba un mensaje.")
    if len(mensaje) > LARGO_MAXIMO:
        raise TurnoRechazado(
            f"El mensaje supera {LARGO_MAXIMO} caracteres ({len(mensaje)}); acórtelo o divídalo."
        )
    limites_consumir(usuario=usuario, limites=("mensajes_minuto", "mensajes_hora"))
    conversacion = _conversacion(usuario, conversacion_id, dominio)
    if proyecto_id is not None:
        try:
            conversacion.proyecto = proyectos.proyecto_visible(usuario=usuario, pk=int(proyecto_id))
        except (Proyecto.DoesNotExist, ValueError, TypeError, OverflowError) as error:
            raise TurnoRechazado("Proyecto no encontrado.", codigo=404) from error
    if not conversacion.titulo:
        conversacion.titulo = " ".join(mensaje.split())[:80]
    conversacion.save()
    inyeccion = mensaje_sospechoso(mensaje)
    guardado = Mensaje.objects.create(
        conversacion=conversacion, rol=Mensaje.Rol.USUARIO, contenido=mensaje, marcado_inyeccion=inyeccion
    )
    if inyeccion:
        registro.warning("inyeccion_marcada", mensaje_id=str(guardado.pk), usuario=usuario.pk)
    return Turno(usuario, conversacion, conversacion.dominio, guardado, vista=vista, inyeccion=inyeccion)


def turno_de_mensaje(*, mensaje_id: UUID | str, vista: str = "") -> Turno:
    """El turno de un mensaje del usuario ya guardado (para ejecutarlo en otro proceso)."""
    mensaje = Mensaje.objects.select_related(
        "conversacion__usuario__memoria", "conversacion__dominio", "conversacion__proyecto"
    ).get(pk=mensaje_id, rol=Mensaje.Rol.USUARIO)
    conversacion = mensaje.conversacion
    return Turno(
        conversacion.usuario,
        conversacion,
        conversacion.dominio,
        mensaje,
        vista=vista,
        inyeccion=mensaje.marcado_inyeccion,
    )


def turno_eventos(turno: Turno) -> Iterator[Evento]:
    """Ejecuta el motor y produce la secuencia de eventos; guarda la respuesta del asistente."""
    from asistente.motores import motor_flujo, motor_para

    contador = iter(range(1, 1_000_000))
    mensaje_id = uuid4()
    emitidas = {"llamadas": 0, "advertencias": 0, "inicio": 0}
    fuentes_emitidas: list[dict[str, Any]] | None = None
    descargos = descargos_de(turno.dominio, turno.texto)

    def evento(tipo: str, datos: dict[str, Any]) -> Evento:
        return Evento(next(contador), tipo, datos)

    def fuentes_nuevas() -> Iterator[Evento]:
        nonlocal fuentes_emitidas
        if turno.contexto.fuentes != fuentes_emitidas:
            fuentes_emitidas = list(turno.contexto.fuentes)
            yield evento("sources", {"fuentes": fuentes_emitidas})

    def advertencias_nuevas(advertencias: list[str]) -> Iterator[Evento]:
        if len(advertencias) > emitidas["advertencias"]:
            emitidas["advertencias"] = len(advertencias)
            yield evento("warnings", {"advertencias": advertencias})

    def inicio(advertencias: list[str]) -> Iterator[Evento]:
        if not emitidas["inicio"]:
            emitidas["inicio"] = 1
            yield from fuentes_nuevas()
            yield from advertencias_nuevas(advertencias)
            yield evento("start", {"mensaje_id": str(mensaje_id)})

    def herramienta(llamada: dict[str, Any]) -> Iterator[Evento]:
        emitidas["llamadas"] += 1
        yield evento("tool", llamada)
        if fuentes_emitidas is not None or turno.contexto.fuentes:
            yield from fuentes_nuevas()

    reloj = time.perf_counter()
    yield evento(
        "meta",
        {
            "conversacion_id": str(turno.conversacion.pk),
            "titulo": turno.conversacion.titulo,
            "mensaje_usuario_id": str(turno.mensaje.pk),
        },
    )
    try:
        flujo = motor_flujo(motor_para(turno), turno)
        while True:
            try:
                delta = next(flujo)
            except StopIteration as fin:
                respuesta: Respuesta = fin.value
                break
            if delta.actividad:
                definicion = REGISTRO.get(delta.actividad)
                texto_actividad = definicion.texto_actividad if definicion else "Consultando…"
                yield evento("tool_start", {"herramienta": delta.actividad, "actividad": texto_actividad})
            if delta.llamada is not None:
                yield from herramienta(delta.llamada)
            if delta.texto:
                yield from inicio(descargos)
                yield evento("token", {"texto": delta.texto})
    except Exception:
        registro.exception("turno_fallo", conversacion=str(turno.conversacion.pk))
        yield evento(
            "error", {"mensaje": "No pude completar la respuesta. Intente nuevamente en unos segundos."}
        )
        return
    texto, fuentes = depurar_citas(respuesta.texto, turno.contexto.fuentes)
    advertencias = list(dict.fromkeys(respuesta.advertencias + descargos))
    mensaje = Mensaje.objects.create(
        id=mensaje_id,
        conversacion=turno.conversacion,
        rol=Mensaje.Rol.ASISTENTE,
        contenido=texto,
        tool_calls=respuesta.llamadas,
        fuentes=fuentes,
        advertencias=advertencias,
        sugerencias=respuesta.sugerencias,
        tokens_entrada=respuesta.tokens_entrada,
        tokens_salida=respuesta.tokens_salida,
        costo_usd=respuesta.costo_usd,
        motor=respuesta.motor,
        latencia_ms=round((time.perf_counter() - reloj) * 1000),
    )
    memoria_recordar_proyectos(usuario=turno.usuario, ids=_proyectos_del_turno(turno, respuesta))
    conversacion_resumir(conversacion=turno.conversacion)
    if emitidas["inicio"]:
        # Si el modelo falló a mitad de camino, el motor de respaldo trae sus propias fuentes y su aviso.
        yield from fuentes_nuevas()
        yield from advertencias_nuevas(advertencias)
    else:  # motor sin transmisión en vivo: todo se emite ahora, en el orden de la secuencia
        yield from inicio(advertencias)
        for llamada in respuesta.llamadas[emitidas["llamadas"] :]:
            yield evento("tool", llamada)
        for trozo in re.findall(r"\S+\s*|\s+", texto):
            yield evento("token", {"texto": trozo})
    if respuesta.accion is not None:
        yield evento("action", accion_json(respuesta.accion))
    yield evento(
        "done",
        {
            "mensaje": mensaje_json(mensaje),
            "accion_pendiente": accion_json(respuesta.accion) if respuesta.accion else None,
            "sugerencias": respuesta.sugerencias,
        },
    )


def accion_proponer(*, turno: Turno, herramienta: str, parametros: dict[str, Any]) -> AccionPendiente:
    """Crea la acción pendiente de una herramienta de escritura (valida parámetros y permiso)."""
    definicion = REGISTRO[herramienta]
    if not definicion.permiso(turno.usuario):
        raise ErrorDeHerramienta(
            f"Su rol no permite «{herramienta}»: pídaselo a alguien con rol de escritura."
        )
    entrada = validar_parametros(definicion, parametros)
    if definicion.preparar is not None:
        entrada = definicion.preparar(entrada, turno.contexto)
    limites_consumir(usuario=turno.usuario, limites=("acciones_hora",))
    descripcion = definicion.describir(entrada, turno.contexto) if definicion.describir else herramienta
    return AccionPendiente.objects.create(
        conversacion=turno.conversacion,
        usuario=turno.usuario,  # type: ignore[misc]
        tipo=herramienta,
        parametros=entrada.model_dump(mode="json"),
        descripcion=descripcion,
    )


def accion_decidir(
    *,
    accion_id: UUID | str,
    usuario: Usuario,
    confirmada: bool,
    comentario: str = "",
    parametros: dict[str, Any] | None = None,
) -> AccionPendiente:
    """Confirma o cancela una acción de su dueño, una sola vez.

    La decisión se toma con un UPDATE condicional (estado pendiente y vigente): con confirmaciones
    simultáneas, solo una gana y ejecuta el servicio. Repetir la misma decisión devuelve el mismo
    resultado; una decisión contraria da conflicto; una acción vencida queda «expirada».
    """
    try:
        accion = AccionPendiente.objects.get(pk=accion_id, usuario_id=id_de(usuario))
    except (AccionPendiente.DoesNotExist, ValueError, ValidationError) as error:
        raise AccionNoEncontrada from error
    if parametros is not None and accion.estado == AccionPendiente.Estado.PENDIENTE:
        definicion = REGISTRO[accion.tipo]
        parametros = validar_parametros(definicion, {**accion.parametros, **parametros}).model_dump(
            mode="json"
        )
    ahora = timezone.now()
    nuevo = AccionPendiente.Estado.CONFIRMADA if confirmada else AccionPendiente.Estado.CANCELADA
    cambios: dict[str, Any] = {"estado": nuevo, "decidida_at": ahora, "comentario": comentario}
    if parametros is not None:
        cambios["parametros"] = parametros
    # Decisión y ejecución en una transacción: un UPDATE concurrente espera el bloqueo de la fila y,
    # al liberarse, ya no la encuentra pendiente; relee entonces el estado final con su resultado.
    with transaction.atomic():
        gano = AccionPendiente.objects.filter(
            pk=accion.pk, estado=AccionPendiente.Estado.PENDIENTE, expires_at__gt=ahora
        ).update(**cambios)
        if gano:
            accion.refresh_from_db()
            if confirmada:
                _ejecutar_accion(accion, usuario)
            _mensaje_de_seguimiento(accion)
            return accion
    accion.refresh_from_db()
    return _decision_repetida(accion, confirmada)


def acciones_expirar() -> int:
    """Marca como expiradas las acciones pendientes vencidas y lo informa en su conversación."""
    vencidas = list(
        AccionPendiente.objects.filter(
            estado=AccionPendiente.Estado.PENDIENTE, expires_at__lte=timezone.now()
        )
    )
    for accion in vencidas:
        if _expirar(accion):
            accion.refresh_from_db()
            _mensaje_de_seguimiento(accion)
    return len(vencidas)


def limites_consumir(*, usuario: Usuario, limites: tuple[str, ...]) -> None:
    """Cuenta un uso de cada límite en una ventana deslizante; si alguno está lleno, `TurnoRechazado`
    429 con los segundos que faltan para que se libere un cupo. Si Redis no responde, 503: el mensaje
    se rechaza explícitamente (no se guarda ni se pierde en silencio) y el cliente puede reintentarlo.

    Cada límite es un conjunto ordenado con la hora de cada uso; un script de Lua descarta los usos
    fuera de la ventana, revisa todos los límites y solo si hay cupo en todos anota el uso: atómico,
    y un intento rechazado no consume cupo. Una ventana fija dejaba pasar el doble en el cambio de
    minuto (10 al final de uno y 10 al comienzo del siguiente).
    """
    ahora_ms = int(time.time() * 1000)
    claves = [f"asistente:limite:{limite}:{id_de(usuario)}" for limite in limites]
    argumentos: list[int | str] = [ahora_ms, uuid4().hex]
    for limite in limites:
        maximo, ventana = LIMITES[limite]
        argumentos += [maximo, ventana * 1000]
    try:
        lleno, espera_ms = _script_limites()(keys=claves, args=argumentos)
    except redis.exceptions.RedisError as error:
        registro.warning("limites_sin_redis", error=str(error)[:200])
        raise TurnoRechazado(
            "El servicio no está disponible en este momento; su mensaje no se guardó. Reintente en "
            f"{REINTENTAR_SIN_REDIS_S} s.",
            codigo=503,
            reintentar_en=REINTENTAR_SIN_REDIS_S,
        ) from None
    if lleno:
        limite = limites[int(lleno) - 1]
        maximo, ventana = LIMITES[limite]
        restante = max(1, -(-int(espera_ms) // 1000))
        raise TurnoRechazado(
            f"Superó el límite de {maximo} por {'minuto' if ventana == 60 else 'hora'} "
            f"({limite.replace('_', ' ')}). "
            f"Intente en {restante} s.",
            codigo=429,
            reintentar_en=restante,
        )


_LIMITES_LUA = """
local ahora = tonumber(ARGV[1])
for i, clave in ipairs(KEYS) do
  local maximo = tonumber(ARGV[1 + 2 * i])
  local ventana = tonumber(ARGV[2 + 2 * i])
  redis.call('ZREMRANGEBYSCORE', clave, '-inf', ahora - ventana)
  if redis.call('ZCARD', clave) >= maximo then
    local primero = redis.call('ZRANGE', clave, 0, 0, 'WITHSCORES')
    return {i, tonumber(primero[2]) + ventana - ahora}
  end
end
for i, clave in ipairs(KEYS) do
  redis.call('ZADD', clave, ahora, ARGV[2])
  redis.call('PEXPIRE', clave, tonumber(ARGV[2 + 2 * i]))
end
return {0, 0}
"""


@functools.cache
def _script_limites() -> Any:
    return redis_compartido().register_script(_LIMITES_LUA)


def mensaje_sospechoso(texto: str) -> bool:
    """Indica si el texto intenta cambiar las reglas del asistente (inyección de instrucciones)."""
    plano = _texto_comparable(texto)
    return any(re.search(patron, plano) for patron in PATRONES_INYECCION)


def _texto_comparable(texto: str) -> str:
    """El texto como lo leería una persona: NFKC (ancho completo «ｉｇｎｏｒａ» → «ignora»), sin
    caracteres invisibles (de ancho cero, de formato) que parten palabras, sin tildes, en minúsculas y
    con los espacios de cada línea reducidos a uno."""
    compatible = unicodedata.normalize("NFKC", texto)
    visible = "".join(c for c in compatible if unicodedata.category(c) != "Cf")
    lineas = proyectos.sin_tildes(visible).splitlines()
    return "\n".join(" ".join(linea.split()) for linea in lineas)


def depurar_citas(texto: str, fuentes: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    """Quita los marcadores [n] que no corresponden a una fuente recuperada en este turno."""

    def revisar(coincidencia: re.Match[str]) -> str:
        numero = int(coincidencia.group(1))
        if 1 <= numero <= len(fuentes):
            return coincidencia.group(0)
        registro.warning("cita_sin_fuente", marcador=coincidencia.group(0))
        return ""

    return re.sub(r"\s?\[(\d+)\]", revisar, texto), fuentes


def descargos_de(dominio: Dominio, texto: str) -> list[str]:
    """Textos de descargo cuyo disparador aparece en la pregunta (política del dominio)."""
    normal = proyectos.normalizar(texto)
    return [
        d["texto"]
        for d in dominio.descargos or []
        if any(proyectos.normalizar(p) in normal for p in d.get("disparadores", []))
    ]


def conversacion_resumir(*, conversacion: Conversacion) -> None:
    """Lleva al resumen acumulado los intercambios que salen de la ventana de mensajes recientes.

    Es extractivo (pregunta y comienzo de la respuesta) para no depender de un modelo; el motor
    Claude lo recibe como contexto.
    """
    mensajes = list(conversacion.mensajes.filter(rol__in=["user", "assistant"]).order_by("creado_at"))
    resumidos = int(conversacion.metadata.get("resumidos", 0))
    fuera = mensajes[resumidos : max(len(mensajes) - VENTANA_MENSAJES, resumidos)]
    if not fuera:
        return
    lineas = [
        f"{'Usuario' if m.rol == 'user' else 'Asistente'}: {' '.join(m.contenido.split())[:160]}"
        for m in fuera
    ]
    conversacion.resumen = ("\n".join([conversacion.resumen, *lineas]).strip())[-LARGO_RESUMEN:]
    conversacion.metadata = {**conversacion.metadata, "resumidos": resumidos + len(fuera)}
    conversacion.save(update_fields=["resumen", "metadata"])


def memoria_recordar_proyectos(*, usuario: Usuario, ids: list[int]) -> None:
    """Cuenta los proyectos que el usuario consulta (los frecuentes, primero)."""
    if not ids:
        return
    memoria, _ = MemoriaUsuario.objects.get_or_create(usuario_id=id_de(usuario))
    cuentas = {int(p["id"]): int(p["veces"]) for p in memoria.proyectos_frecuentes}
    for pk in ids:
        cuentas[pk] = cuentas.get(pk, 0) + 1
    ordenados = sorted(cuentas.items(), key=lambda par: -par[1])[:10]
    memoria.proyectos_frecuentes = [{"id": pk, "veces": veces} for pk, veces in ordenados]
    memoria.save(update_fields=["proyectos_frecuentes", "actualizada_at"])


def conversacion_eliminar(*, conversacion: Conversacion) -> None:
    conversacion.eliminada_at = timezone.now()
    conversacion.save(update_fields=["eliminada_at"])


def mensaje_calificar(*, mensaje: Mensaje, valor: int, comentario: str = "") -> Mensaje:
    """Guarda la calificación (1 o -1) y la agrega a la memoria del usuario."""
    mensaje.feedback, mensaje.feedback_comentario = valor, comentario
    mensaje.save(update_fields=["feedback", "feedback_comentario"])
    memoria, _ = MemoriaUsuario.objects.get_or_create(usuario_id=mensaje.conversacion.usuario_id)
    memoria.feedback = [
        *memoria.feedback,
        {"mensaje": str(mensaje.pk), "valor": valor, "comentario": comentario},
    ][-50:]
    memoria.save()
    return mensaje


def memoria_borrar(*, usuario: Usuario) -> None:
    MemoriaUsuario.objects.filter(usuario_id=id_de(usuario)).delete()


def accion_json(accion: AccionPendiente) -> dict[str, Any]:
    herramienta = REGISTRO.get(accion.tipo)
    return {
        "id": str(accion.pk),
        "tipo": accion.tipo,
        "parametros": accion.parametros,
        "etiquetas": herramienta.etiquetas() if herramienta else {},
        "opciones": herramienta.opciones() if herramienta else {},
        "descripcion": accion.descripcion,
        "estado": accion.estado,
        "expires_at": accion.expires_at.isoformat(),
        "resultado": accion.resultado,
        "error": accion.error or None,
    }


def mensaje_json(mensaje: Mensaje) -> dict[str, Any]:
    return {
        "id": str(mensaje.pk),
        "rol": mensaje.rol,
        "contenido": mensaje.contenido,
        "fuentes": mensaje.fuentes,
        "advertencias": mensaje.advertencias,
        "creado_at": mensaje.creado_at.isoformat(),
    }


def _proyectos_del_turno(turno: Turno, respuesta: Respuesta) -> list[int]:
    ids = {turno.conversacion.proyecto_id} if turno.conversacion.proyecto_id else set()
    for llamada in respuesta.llamadas:
        resultado = llamada.get("resultado") or {}
        proyecto = resultado.get("proyecto")
        if isinstance(proyecto, dict) and proyecto.get("id"):
            ids.add(int(proyecto["id"]))
        if resultado.get("proyecto_id"):
            ids.add(int(resultado["proyecto_id"]))
    return sorted(ids)


def _conversacion(usuario: Usuario, conversacion_id: UUID | str | None, dominio: str | None) -> Conversacion:
    if conversacion_id:
        try:
            return Conversacion.objects.select_related("dominio").get(
                pk=conversacion_id, usuario_id=id_de(usuario), eliminada_at__isnull=True
            )
        except (Conversacion.DoesNotExist, ValueError, TypeError, ValidationError) as error:
            raise TurnoRechazado("Conversación no encontrada.", codigo=404) from error
    codigo = dominio or settings.ASISTENTE_DOMINIO
    elegido = Dominio.objects.filter(codigo=codigo, activo=True).first()
    if elegido is None:
        raise TurnoRechazado(f"Dominio desconocido o inactivo: «{codigo}».", codigo=400)
    return Conversacion(usuario=usuario, dominio=elegido)  # type: ignore[misc]


def _decision_repetida(accion: AccionPendiente, confirmada: bool) -> AccionPendiente:
    if accion.estado == AccionPendiente.Estado.PENDIENTE:  # vencida sin que nadie la marcara
        _expirar(accion)
        accion.refresh_from_db()
    if accion.estado == AccionPendiente.Estado.EXPIRADA:
        raise AccionExpirada
    misma = accion.estado in (
        (AccionPendiente.Estado.CONFIRMADA, AccionPendiente.Estado.FALLIDA)
        if confirmada
        else (AccionPendiente.Estado.CANCELADA,)
    )
    if not misma:
        raise AccionEnConflicto
    return accion


def _expirar(accion: AccionPendiente) -> bool:
    return bool(
        AccionPendiente.objects.filter(pk=accion.pk, estado=AccionPendiente.Estado.PENDIENTE).update(
            estado=AccionPendiente.Estado.EXPIRADA, decidida_at=timezone.now()
        )
    )


def _ejecutar_accion(accion: AccionPendiente, usuario: Usuario) -> None:
    # `ejecutar` corre el servicio en un punto de guardado: si falla, nada queda a medias y la
    # llamada fallida igual queda registrada.
    contexto = Contexto(usuario=usuario, conversacion=accion.conversacion)
    llamada = ejecutar(accion.tipo, accion.parametros, contexto=contexto, forzar_escritura=True)
    if llamada["error"]:
        accion.estado, accion.error = AccionPendiente.Estado.FALLIDA, llamada["error"]
        accion.save(update_fields=["estado", "error"])
        return
    accion.resultado = llamada["resultado"]
    accion.save(update_fields=["resultado"])


def _mensaje_de_seguimiento(accion: AccionPendiente) -> Mensaje:
    """El asistente cuenta qué pasó con la acción (creado, falló, cancelada, venció)."""
    texto = _texto_de_seguimiento(accion)
    return Mensaje.objects.create(
        conversacion=accion.conversacion, rol=Mensaje.Rol.ASISTENTE, contenido=texto, motor="acciones"
    )


def _texto_de_seguimiento(accion: AccionPendiente) -> str:
    estado = accion.estado
    if estado == AccionPendiente.Estado.FALLIDA:
        return f"No se pudo ejecutar: {accion.descripcion} Motivo: {accion.error} No se modificó nada."
    if estado == AccionPendiente.Estado.CANCELADA:
        return (
            f"Cancelé la acción: {accion.descripcion} Puede pedírmela de nuevo con otros datos (por ejemplo, "
            "otra región, tipo o cantidad), o puedo mostrarle sus proyectos existentes."
        )
    if estado == AccionPendiente.Estado.EXPIRADA:
        return (
            f"La acción venció sin confirmarse (5 minutos): {accion.descripcion} "
            "Pídamela de nuevo si aún la necesita."
        )
    resultado = accion.resultado or {}
    if accion.tipo == "crear_proyecto":
        p = resultado["proyecto"]
        return (
            f"Proyecto creado: #{p['id']} «{p['nombre']}» (Región {p['region']}, {p['estado']}). "
            "¿Quiere que lo analice?"
        )
    if accion.tipo == "ejecutar_analisis":
        a = resultado["analisis"]
        proyecto_id = resultado["proyecto_id"]
        return f"Análisis #{a['id']} del proyecto #{proyecto_id}: {a['clasificacion']}. {a['resumen']}"
    if accion.tipo == "actualizar_proyecto":
        p = resultado["proyecto"]
        return f"Proyecto #{p['id']} «{p['nombre']}» actualizado."
    return f"Listo: {accion.descripcion}"
