"""Lecturas del asistente para las páginas: las conversaciones del usuario y lo que el chat necesita."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from django.db.models import QuerySet

from asistente.markdown import ETIQUETAS_PERMITIDAS, markdown_seguro
from asistente.models import Conversacion, MemoriaUsuario, Mensaje
from asistente.turno.memoria import NOMBRES
from proyectos.roles import Usuario, id_de, puede_escribir
from proyectos.selectors import proyectos_visibles


def turno_ultimo_de(conversacion_id: str) -> str | None:
    """El id del turno más reciente de la conversación: el de su último mensaje del usuario."""
    ultimo = (
        Mensaje.objects.filter(conversacion_id=conversacion_id, rol=Mensaje.Rol.USUARIO)
        .order_by("-creado_at")
        .values_list("pk", flat=True)
        .first()
    )
    return str(ultimo) if ultimo else None


def mensaje_de_usuario_existe(mensaje_id: str) -> bool:
    """Si hay un mensaje del usuario con ese id (el id de su turno)."""
    try:
        pk = UUID(mensaje_id)
    except ValueError:
        return False
    return Mensaje.objects.filter(pk=pk, rol=Mensaje.Rol.USUARIO).exists()


def conversaciones_de(*, usuario: Usuario) -> QuerySet[Conversacion]:
    return Conversacion.objects.filter(usuario_id=usuario.pk, eliminada_at__isnull=True)


def chat_contexto(
    *, usuario: Usuario, conversacion: Conversacion | None, proyecto_id: int | None, vista: str
) -> dict[str, Any]:
    """Mensajes ya guardados (Markdown saneado) y la configuración del websocket para `chat.js`."""
    mensajes = [
        {"m": m, "html": markdown_seguro(m.contenido, fuentes_de=str(m.pk), fuentes=len(m.fuentes or []))}
        for m in (conversacion.mensajes.all() if conversacion else [])
        if m.contenido.strip()
    ]
    return {
        "actual": conversacion,
        "mensajes": mensajes,
        "puede_escribir": puede_escribir(usuario),
        "config_chat": {
            "ws": "/ws/asistente/",
            "conversacion_id": str(conversacion.pk) if conversacion else None,
            "proyecto_id": proyecto_id
            if proyecto_id is not None
            else getattr(conversacion, "proyecto_id", None),
            "vista": vista,
            "etiquetas_markdown": sorted(ETIQUETAS_PERMITIDAS),
        },
    }


def ultima_conversacion_del_proyecto(*, usuario: Usuario, proyecto_id: int) -> Conversacion | None:
    """La conversación más reciente del usuario sobre ese proyecto (el panel lateral la continúa)."""
    return (
        conversaciones_de(usuario=usuario).filter(proyecto_id=proyecto_id).order_by("-actualizada_at").first()
    )


def memoria_de(*, usuario: Usuario) -> dict[str, Any]:
    """Todo lo que el asistente recuerda del usuario, como se muestra en «Mi memoria»: preferencias,
    proyectos frecuentes (los que todavía ve), resúmenes de conversaciones, preguntas que puede recordar
    (las últimas 50) y calificaciones."""
    memoria = MemoriaUsuario.objects.filter(usuario_id=id_de(usuario)).first()
    preferencias = [
        {"clave": clave, "nombre": NOMBRES.get(clave, clave), **dato}
        for clave, dato in (memoria.preferencias if memoria else {}).items()
        if isinstance(dato, dict)
    ]
    frecuentes = memoria.proyectos_frecuentes if memoria else []
    ids = [int(f["id"]) for f in frecuentes]
    visibles = {p.pk: p for p in proyectos_visibles(usuario=usuario).filter(pk__in=ids)}
    conversaciones = conversaciones_de(usuario=usuario)
    preguntas = Mensaje.objects.filter(
        conversacion__in=conversaciones, rol=Mensaje.Rol.USUARIO, olvidado=False
    ).select_related("conversacion")
    return {
        "preferencias": preferencias,
        "proyectos": [
            {"id": int(f["id"]), "veces": f["veces"], "proyecto": visibles[int(f["id"])]}
            for f in frecuentes
            if int(f["id"]) in visibles
        ],
        "resumenes": list(conversaciones.exclude(resumen="").order_by("-actualizada_at")[:50]),
        "preguntas": list(preguntas.order_by("-creado_at")[:50]),
        "calificaciones": list(reversed(memoria.feedback)) if memoria else [],
    }
