"""Después de una decisión (semilla 000 §2.2.4, §4.2): con Claude, el resultado de la acción confirmada
—o la cancelación con el comentario del usuario— vuelve al modelo, que continúa la conversación en un
mensaje propio (tras una cancelación, ofrece alternativas acordes al comentario; tras un resultado, el
paso siguiente). El mensaje fijo de `acciones` queda igual como constancia de lo que pasó; sin modelo,
o si el modelo falla, es lo único que se dice.
"""

from __future__ import annotations

import json

import anthropic
import structlog
from django.conf import settings

from asistente.models import AccionPendiente, Mensaje
from asistente.motores import motor_llm_configurado
from asistente.motores.claude import contexto_del_turno, politicas_del_dominio, redactar
from asistente.turno.medicion import Reloj, del_modelo, publicar
from asistente.turno.tipos import VENTANA_MENSAJES, Turno
from proyectos.roles import Usuario

registro = structlog.get_logger(__name__)

DECIDIDAS = (
    AccionPendiente.Estado.CONFIRMADA,
    AccionPendiente.Estado.FALLIDA,
    AccionPendiente.Estado.CANCELADA,
)


def decision_continua(accion: AccionPendiente) -> bool:
    """Si el modelo continuará la conversación tras esta decisión (para anunciarlo en el chat)."""
    return motor_llm_configurado() == "claude" and accion.estado in DECIDIDAS


def decision_continuar(*, accion: AccionPendiente, usuario: Usuario) -> Mensaje | None:
    """El mensaje del modelo que continúa la conversación tras la decisión, o None sin modelo o si
    falla (el usuario ya tiene el mensaje fijo)."""
    if not decision_continua(accion):
        return None
    conversacion = accion.conversacion
    if conversacion.mensajes.filter(creado_at__gt=accion.decidida_at, motor="claude", pregunta=None).exists():
        return None  # la misma decisión repetida: ya se continuó
    pregunta = (
        conversacion.mensajes.filter(rol=Mensaje.Rol.USUARIO, creado_at__lte=accion.creada_at)
        .order_by("-creado_at")
        .first()
    )
    if pregunta is None:
        return None
    turno = Turno(usuario, conversacion, conversacion.dominio, pregunta)
    anteriores = list(reversed(conversacion.mensajes.order_by("-creado_at")[:VENTANA_MENSAJES]))
    mensajes = [{"role": m.rol, "content": m.contenido} for m in anteriores if m.contenido.strip()]
    mensajes.append({"role": "user", "content": nota_de_decision(accion)})
    reloj = Reloj()
    try:
        respuesta = redactar(
            sistema="\n\n".join(
                [
                    conversacion.dominio.prompt_sistema,
                    politicas_del_dominio(conversacion.dominio),
                    contexto_del_turno(turno),
                ]
            ),
            mensajes=mensajes,
            max_tokens=settings.ASISTENTE_RESUMEN_MAX_TOKENS,
        )
    except anthropic.APIError as error:
        registro.warning("decision_sin_continuacion", accion=str(accion.pk), error=type(error).__name__)
        return None
    if not respuesta.texto.strip():
        return None
    mensaje = Mensaje.objects.create(
        conversacion=conversacion,
        rol=Mensaje.Rol.ASISTENTE,
        contenido=respuesta.texto.strip(),
        **del_modelo(respuesta, reloj),
    )
    publicar(mensaje)
    return mensaje


def nota_de_decision(accion: AccionPendiente) -> str:
    """Lo que el modelo recibe como turno del usuario: qué decidió, el resultado o el motivo, y qué se
    espera de él. Es una nota del sistema, no un texto que el usuario escribió."""
    if accion.estado == AccionPendiente.Estado.CANCELADA:
        comentario = accion.comentario.strip()
        return (
            f"[Nota del sistema] El usuario canceló la acción propuesta: {accion.descripcion} "
            + (f"Su comentario: «{comentario}». " if comentario else "No dejó comentario. ")
            + "No se ejecutó nada. Continúa la conversación en pocas frases: reconoce la cancelación y "
            "ofrece alternativas acordes a su comentario (otra región, otro nombre, otras cantidades, "
            "analizar un proyecto existente). Si propones otra acción, usa las herramientas en el turno "
            "siguiente, cuando el usuario la pida."
        )
    if accion.estado == AccionPendiente.Estado.FALLIDA:
        return (
            f"[Nota del sistema] El usuario confirmó la acción, pero falló: {accion.descripcion} "
            f"Motivo: {accion.error}. No se modificó nada. Explica el motivo en pocas frases y qué puede "
            "corregir para intentarlo de nuevo."
        )
    resultado = json.dumps(accion.resultado or {}, ensure_ascii=False, default=str)[:4000]
    return (
        f"[Nota del sistema] El usuario confirmó la acción y se ejecutó: {accion.descripcion} "
        f"Resultado (datos del sistema): {resultado}. Continúa la conversación en pocas frases: di qué "
        "quedó hecho con los datos del resultado (sin inventar otros) y ofrece el paso siguiente."
    )
