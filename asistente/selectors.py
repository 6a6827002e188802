"""Lecturas del asistente para las páginas: las conversaciones del usuario y lo que el chat necesita."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from django.conf import settings
from django.db.models import QuerySet

from asistente.markdown import ETIQUETAS_PERMITIDAS, markdown_seguro
from asistente.models import Conversacion, Dominio, MemoriaUsuario, Mensaje
from asistente.politicas import dominios_disponibles, politica_rag
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


def dominio_json(dominio: Dominio) -> dict[str, Any]:
    """Un dominio como lo ven el selector del chat y la API: su nombre y las políticas que rigen sus
    respuestas (la de recuperación ya combinada con la del servidor)."""
    rag = politica_rag(dominio)
    return {
        "codigo": dominio.codigo,
        "nombre": dominio.nombre,
        "tono": dominio.tono,
        "predeterminado": dominio.codigo == settings.ASISTENTE_DOMINIO,
        "politicas": {
            "top_k": dominio.top_k,
            "confianza_minima": dominio.confianza_minima,
            "normas": list(dominio.normas or []),
            "temas": list(dominio.temas or []),
            "aviso_clasificacion": dominio.aviso_clasificacion,
            "descargos": [list(d.get("disparadores", [])) for d in dominio.descargos or []],
            "rag": {
                "habilitado": rag.habilitado,
                "similitud_minima": rag.similitud_minima,
                "maximo_documentos": rag.maximo_documentos,
            },
        },
    }


def conversaciones_de(*, usuario: Usuario) -> QuerySet[Conversacion]:
    return Conversacion.objects.filter(usuario_id=usuario.pk, eliminada_at__isnull=True)


def chat_contexto(
    *, usuario: Usuario, conversacion: Conversacion | None, proyecto_id: int | None, vista: str
) -> dict[str, Any]:
    """Mensajes ya guardados (Markdown saneado) y la configuración del websocket para `chat.js`."""
    guardados = [m for m in (conversacion.mensajes.all() if conversacion else []) if m.contenido.strip()]
    mensajes = [
        {"m": m, "html": markdown_seguro(m.contenido, fuentes_de=str(m.pk), fuentes=len(m.fuentes or []))}
        for m in guardados
    ]
    dominios = [dominio_json(d) for d in dominios_disponibles(usuario=usuario)]
    respuestas = [m for m in guardados if m.rol == Mensaje.Rol.ASISTENTE]
    return {
        "actual": conversacion,
        "mensajes": mensajes,
        "puede_escribir": puede_escribir(usuario),
        "advertencias_actuales": list(respuestas[-1].advertencias or []) if respuestas else [],
        "dominios": dominios,
        "dominios_codigos": [d["codigo"] for d in dominios],
        "dominio_actual": conversacion.dominio.codigo if conversacion else settings.ASISTENTE_DOMINIO,
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
