"""Operaciones del asistente: el turno (validar, limitar, persistir, ejecutar el motor, responder con
eventos), la conversación y la memoria del usuario. Las acciones por confirmar están en `acciones`,
los límites de uso en `limites` y los tipos del turno en `turno.tipos`.

Secuencia de eventos de un turno (diseño §4), la misma para SSE y websocket:
`meta → sources → warnings? → start → (token | tool | action)* → done | error`, con id creciente.
Con un motor que transmite en vivo (Claude), `tool` y `sources` llegan a medida que el modelo consulta,
antes de `start`, y vuelven a llegar si una consulta posterior suma fuentes: toda fuente que un texto
pueda citar llega antes que ese texto.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from typing import Any
from uuid import UUID, uuid4

import structlog
from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from asistente.acciones import accion_json
from asistente.limites import limites_consumir
from asistente.memoria import conversacion_resumir, preferencias_anotar, proyectos_recordar
from asistente.models import AccionPendiente, Conversacion, Dominio, MemoriaUsuario, Mensaje
from asistente.motores import motor_flujo, motor_para
from asistente.politicas import dominios_disponibles
from asistente.registro import REGISTRO, Fuente
from asistente.turno.advertencias import (
    advertencia_de_reparo,
    advertencias_al_terminar,
    advertencias_de_la_busqueda,
)
from asistente.turno.eventos import SecuenciaDeEventos
from asistente.turno.inyeccion import mensaje_sospechoso
from asistente.turno.medicion import (
    Reloj,
    de_la_busqueda,
    del_modelo,
    enlazar_llamadas,
    es_abstencion,
    publicar,
)
from asistente.turno.tipos import Evento, Respuesta, Turno
from config.errores import EnConflicto, EntradaNoValida, NoEncontrado
from config.texto import normalizar
from proyectos import selectors as proyectos
from proyectos.models import Proyecto
from proyectos.roles import Usuario, id_de

registro = structlog.get_logger(__name__)

LARGO_MAXIMO = 4000
FALLA_DEL_TURNO = "No pude completar la respuesta. Intente nuevamente en unos segundos."
RESPUESTA_CORREGIDA = "La respuesta cambió mientras llegaba; esta es la versión guardada."
TURNO_PERDIDO = (
    "No pude completar la respuesta: el proceso que la preparaba se detuvo más de una vez. Su mensaje "
    "quedó guardado; envíelo de nuevo con «Reintentar»."
)


def turno_iniciar(
    *,
    usuario: Usuario,
    mensaje: Any,
    conversacion_id: UUID | str | None = None,
    proyecto_id: int | None = None,
    vista: str = "",
    dominio: str | None = None,
    id_cliente: Any = None,
) -> Turno:
    """Valida, limita y guarda el mensaje del usuario antes de cualquier llamada a modelo o herramienta.

    Con `id_cliente` (el identificador que el cliente dio al mensaje), un reenvío del mismo mensaje
    —el cliente no supo si llegó— devuelve el turno ya guardado, marcado `repetido`: no se guarda ni
    se responde dos veces, ni cuenta otra vez para el límite de uso.
    """
    clave = _id_cliente(id_cliente)
    if clave is not None and (ya := _turno_repetido(usuario, clave, vista)) is not None:
        return ya
    if not isinstance(mensaje, str) or not mensaje.strip():
        raise EntradaNoValida("Escriba un mensaje.")
    if len(mensaje) > LARGO_MAXIMO:
        raise EntradaNoValida(
            f"El mensaje supera {LARGO_MAXIMO} caracteres ({len(mensaje)}); acórtelo o divídalo."
        )
    limites_consumir(usuario=usuario, limites=("mensajes_minuto", "mensajes_hora"))
    conversacion = _conversacion(usuario, conversacion_id, dominio)
    if proyecto_id is not None:
        try:
            conversacion.proyecto = proyectos.proyecto_visible(usuario=usuario, pk=int(proyecto_id))
        except (Proyecto.DoesNotExist, ValueError, TypeError, OverflowError) as error:
            raise NoEncontrado("Proyecto no encontrado.") from error
    if not conversacion.titulo:
        conversacion.titulo = " ".join(mensaje.split())[:80]
    conversacion.save()
    inyeccion = mensaje_sospechoso(mensaje)
    try:
        with transaction.atomic():
            guardado = Mensaje.objects.create(
                conversacion=conversacion,
                rol=Mensaje.Rol.USUARIO,
                contenido=mensaje,
                marcado_inyeccion=inyeccion,
                id_cliente=clave,
            )
    except IntegrityError:  # el mismo mensaje llegó a la vez por otra conexión
        if clave is None or (ya := _turno_repetido(usuario, clave, vista)) is None:
            raise
        if not conversacion_id:  # la conversación nueva de este intento queda sin mensajes
            conversacion.delete()
        return ya
    if inyeccion:
        registro.warning("inyeccion_marcada", mensaje_id=str(guardado.pk), usuario=usuario.pk)
    return Turno(usuario, conversacion, conversacion.dominio, guardado, vista=vista, inyeccion=inyeccion)


def _id_cliente(valor: Any) -> UUID | None:
    if valor is None or valor == "":
        return None
    try:
        return UUID(str(valor))
    except ValueError:
        raise EntradaNoValida("«id_cliente» debe ser un UUID (p. ej. el de crypto.randomUUID()).") from None


def _turno_repetido(usuario: Usuario, clave: UUID, vista: str) -> Turno | None:
    """El turno del mensaje que el usuario ya envió con ese `id_cliente`, o None si no llegó antes."""
    previo = Mensaje.objects.filter(id_cliente=clave, rol=Mensaje.Rol.USUARIO).values_list(
        "pk", "conversacion__usuario_id"
    )
    if not previo:
        return None
    mensaje_id, duenio = previo[0]
    if duenio != id_de(usuario):
        raise EnConflicto("Ese «id_cliente» ya identifica otro mensaje; genere uno nuevo.")
    turno = turno_de_mensaje(mensaje_id=mensaje_id, vista=vista)
    turno.repetido = True
    return turno


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
    mensaje_id = uuid4()
    secuencia = SecuenciaDeEventos(turno, mensaje_id=mensaje_id)
    evento = secuencia.evento
    descargos = descargos_de(turno.dominio, turno.texto) + advertencia_de_reparo(turno.reparo)
    reloj = Reloj()
    desde = timezone.now()
    transmitido: list[str] = []  # el texto que ya salió en vivo
    llamadas: list[dict[str, Any]] = []  # las herramientas que corrieron antes del texto
    turno.anotadas = preferencias_anotar(usuario=turno.usuario, mensaje=turno.mensaje)
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
                llamadas.append(delta.llamada)
                yield from secuencia.herramienta(delta.llamada)
            if delta.texto:
                # lo que advierten las búsquedas ya hechas llega antes que el texto
                antes = advertencias_de_la_busqueda(llamadas, hay_fuentes=bool(turno.contexto.fuentes))
                yield from secuencia.inicio(list(dict.fromkeys(descargos + antes)))
                reloj.texto()
                transmitido.append(delta.texto)
                yield evento("token", {"texto": delta.texto})
    except Exception as error:
        registro.exception("turno_fallo", conversacion=str(turno.conversacion.pk))
        _registrar_falla(turno, mensaje_id, reloj, desde, error)
        yield evento("error", {"mensaje": FALLA_DEL_TURNO})
        return
    texto, fuentes = depurar_citas(respuesta.texto, turno.contexto.fuentes)
    advertencias = list(
        dict.fromkeys(
            respuesta.advertencias
            + descargos
            + advertencias_al_terminar(
                texto=texto, fuentes=fuentes, llamadas=respuesta.llamadas, del_modelo=bool(respuesta.modelo)
            )
        )
    )
    mensaje = Mensaje.objects.create(
        id=mensaje_id,
        conversacion=turno.conversacion,
        pregunta=turno.mensaje,
        rol=Mensaje.Rol.ASISTENTE,
        contenido=texto,
        tool_calls=respuesta.llamadas,
        fuentes=fuentes,
        advertencias=advertencias,
        sugerencias=respuesta.sugerencias,
        abstuvo=es_abstencion(texto, fuentes),
        respaldo=respuesta.respaldo,
        **del_modelo(respuesta, reloj),
        recuerdos=turno.recuerdos,
        **de_la_busqueda(respuesta.llamadas),
        accion_tipo=respuesta.accion.tipo if respuesta.accion is not None else "",
    )
    enlazar_llamadas(mensaje, desde=desde)
    publicar(mensaje)
    if secuencia.iniciado:
        # Si el modelo falló a mitad de camino, el motor de respaldo trae sus propias fuentes y su aviso.
        yield from secuencia.fuentes_nuevas()
        yield from secuencia.advertencias_nuevas(advertencias)
        if "".join(transmitido) != texto:
            # Lo transmitido no es lo guardado (respondió el respaldo tras un texto a medias, o se
            # quitaron marcadores sin fuente): el cliente descarta lo recibido y recibe lo guardado.
            registro.warning(
                "transmitido_distinto", transmitido=len("".join(transmitido)), guardado=len(texto)
            )
            yield evento("reinicio", {"mensaje": RESPUESTA_CORREGIDA})
            yield from _trozos(texto, evento)
    else:  # motor sin transmisión en vivo: todo se emite ahora, en el orden de la secuencia
        yield from secuencia.inicio(advertencias)
        for llamada in respuesta.llamadas[secuencia.llamadas :]:
            yield evento("tool", llamada)
        yield from _trozos(texto, evento)
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
    # Después de `done`: el usuario ya tiene su respuesta cuando la memoria se pone al día (con Claude,
    # el resumen es otra llamada al modelo). Si falla, el turno no se pierde.
    try:
        proyectos_recordar(usuario=turno.usuario, ids=_proyectos_del_turno(turno, respuesta))
        conversacion_resumir(conversacion=turno.conversacion, turno=mensaje)
    except Exception:
        registro.exception("memoria_fallo", conversacion=str(turno.conversacion.pk))


def _trozos(texto: str, evento: Any) -> Iterator[Evento]:
    for trozo in re.findall(r"\S+\s*|\s+", texto):
        yield evento("token", {"texto": trozo})


def _registrar_falla(turno: Turno, mensaje_id: UUID, reloj: Reloj, desde: Any, error: Exception) -> None:
    """Un turno que falló también queda registrado: el aviso que vio el usuario y el tipo de error.
    Si ni eso se puede guardar (la base cayó), queda al menos en las métricas y el log."""
    mensaje = Mensaje(
        id=mensaje_id,
        conversacion=turno.conversacion,
        pregunta=turno.mensaje,
        rol=Mensaje.Rol.ASISTENTE,
        contenido=FALLA_DEL_TURNO,
        latencia_ms=reloj.ms(),
        error=type(error).__name__[:80],
    )
    try:
        mensaje.save(force_insert=True)
        enlazar_llamadas(mensaje, desde=desde)
    except Exception:
        registro.exception("turno_fallo_sin_registro", conversacion=str(turno.conversacion.pk))
    publicar(mensaje)


def turno_registrar_perdido(turno_id: str) -> None:
    """Guarda como fallido un turno que se retomó las veces permitidas y ninguna terminó (quien lo
    retransmite lo informa como final: el usuario lo reenvía). Si ya tiene respuesta, no hace nada."""
    pregunta = Mensaje.objects.filter(pk=turno_id, rol=Mensaje.Rol.USUARIO).first()
    if pregunta is None or pregunta.respuestas.filter(rol=Mensaje.Rol.ASISTENTE).exists():
        return
    registro.error("turno_perdido", turno=turno_id)
    with contextlib.suppress(IntegrityError):  # otra ejecución guardó su respuesta recién
        Mensaje.objects.create(
            conversacion_id=pregunta.conversacion_id,
            pregunta=pregunta,
            rol=Mensaje.Rol.ASISTENTE,
            contenido=TURNO_PERDIDO,
            error="TurnoPerdido",
        )


def depurar_citas(texto: str, fuentes: list[Fuente]) -> tuple[str, list[Fuente]]:
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
    normal = normalizar(texto)
    return [
        d["texto"]
        for d in dominio.descargos or []
        if any(normalizar(p) in normal for p in d.get("disparadores", []))
    ]


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


def turno_final_guardado(turno_id: str) -> tuple[str, dict[str, Any]] | None:
    """El evento final del turno armado desde la base (`done`, o `error` si el turno falló), o None si
    su respuesta aún no se guarda. Lo que recibe quien reanuda un turno cuyos eventos ya no están en
    Redis (vencieron, o Redis se reinició sin ellos)."""
    try:
        pregunta = UUID(turno_id)
    except ValueError:
        return None
    respuesta = (
        Mensaje.objects.filter(pregunta_id=pregunta, rol=Mensaje.Rol.ASISTENTE).order_by("-creado_at").first()
    )
    if respuesta is None:
        return None
    if respuesta.error:
        return "error", {"mensaje": respuesta.contenido}
    pendiente = (
        AccionPendiente.objects.filter(
            conversacion_id=respuesta.conversacion_id,
            estado=AccionPendiente.Estado.PENDIENTE,
            creada_at__gte=respuesta.pregunta.creado_at,
        )
        .order_by("-creada_at")
        .first()
        if respuesta.pregunta
        else None
    )
    return "done", {
        "mensaje": mensaje_json(respuesta),
        "accion_pendiente": accion_json(pendiente) if pendiente else None,
        "sugerencias": respuesta.sugerencias,
    }


def mensaje_json(mensaje: Mensaje) -> dict[str, Any]:
    """El mensaje como lo entregan la API y el evento `done`: su texto, fuentes y advertencias, qué
    herramientas usó (sin sus resultados) y cuánto tardó."""
    return {
        "id": str(mensaje.pk),
        "rol": mensaje.rol,
        "contenido": mensaje.contenido,
        "fuentes": mensaje.fuentes,
        "advertencias": mensaje.advertencias,
        "recuerdos": mensaje.recuerdos,
        "creado_at": mensaje.creado_at.isoformat(),
        "motor": mensaje.motor,
        "herramientas": [
            {
                "herramienta": llamada.get("herramienta", ""),
                "ms": llamada.get("ms"),
                "error": llamada.get("error"),
            }
            for llamada in mensaje.tool_calls or []
            if isinstance(llamada, dict)
        ],
        "tiempos": {"total_ms": mensaje.latencia_ms, "primer_token_ms": mensaje.primer_token_ms},
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
    """La conversación pedida (del usuario) o una nueva en el dominio pedido, que debe ser uno de los
    que el usuario puede usar. El dominio de una conversación no cambia: pedir otro es un error."""
    if conversacion_id:
        try:
            existente = Conversacion.objects.select_related("dominio").get(
                pk=conversacion_id, usuario_id=id_de(usuario), eliminada_at__isnull=True
            )
        except (Conversacion.DoesNotExist, ValueError, TypeError, ValidationError) as error:
            raise NoEncontrado("Conversación no encontrada.") from error
        if dominio and dominio != existente.dominio.codigo:
            raise EntradaNoValida(
                f"Esta conversación es del dominio «{existente.dominio.nombre}»: para preguntar en "
                f"«{dominio}», empiece una conversación nueva."
            )
        return existente
    codigo = dominio or settings.ASISTENTE_DOMINIO
    elegido = dominios_disponibles(usuario=usuario).filter(codigo=codigo).first()
    if elegido is None:
        raise EntradaNoValida(f"Dominio desconocido, inactivo o no habilitado para su usuario: «{codigo}».")
    return Conversacion(usuario=usuario, dominio=elegido)  # type: ignore[misc]
