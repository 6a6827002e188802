"""Después de una decisión, con Claude el resultado (o la cancelación con su comentario) vuelve al modelo,
que continúa la conversación; sin modelo queda solo el mensaje fijo."""

import json
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import AbstractUser
from rest_framework.test import APIClient

from asistente.acciones import accion_decidir
from asistente.decisiones import decision_continua, decision_continuar
from asistente.models import AccionPendiente, Mensaje
from tests.asistente.conftest import Charla, responder_sse, uso_de_herramienta
from tests.utilidades import ServidorLocal
from tests.utilidades import mensaje_sse as sse

pytestmark = pytest.mark.usefixtures("capas")


def propuesta(
    servidor: ServidorLocal, conversar: Callable[..., Charla], usuario: AbstractUser, continuacion: str
) -> AccionPendiente:
    """El modelo propone crear un proyecto y, tras la decisión, responde `continuacion` (el servidor local
    entrega sus respuestas en orden)."""
    responder_sse(
        servidor,
        sse(
            uso_de_herramienta("crear_proyecto", {"nombre": "Mina Norte", "region": "Atacama"}),
            stop="tool_use",
        ),
    )
    responder_sse(servidor, sse({"type": "text", "text": continuacion}))
    charla = conversar(usuario, "crea la Mina Norte en Atacama")
    assert charla.accion is not None
    return AccionPendiente.objects.get(pk=charla.accion["id"])


def ultimo_pedido(servidor: ServidorLocal) -> dict[str, Any]:
    return dict(json.loads(servidor.pedidos[-1][3]))


def test_tras_cancelar_con_un_comentario_el_modelo_recibe_el_motivo_y_ofrece_alternativas(
    servidor: ServidorLocal, usuaria: Callable[..., AbstractUser], conversar: Callable[..., Charla]
) -> None:
    consultora = usuaria()
    accion = propuesta(servidor, conversar, consultora, "Entendido. ¿La creo en Antofagasta?")
    accion = accion_decidir(
        accion_id=accion.pk, usuario=consultora, confirmada=False, comentario="mejor en Antofagasta"
    )

    mensaje = decision_continuar(accion=accion, usuario=consultora)

    assert mensaje is not None and mensaje.contenido == "Entendido. ¿La creo en Antofagasta?"
    assert mensaje.motor == "claude" and mensaje.costo_usd > 0 and mensaje.tokens_salida == 30
    nota = ultimo_pedido(servidor)["messages"][-1]
    assert (
        nota["role"] == "user"
        and "canceló" in nota["content"]
        and "«mejor en Antofagasta»" in nota["content"]
    )
    assert "alternativas" in nota["content"] and "tools" not in ultimo_pedido(servidor)
    fijo = Mensaje.objects.get(conversacion=accion.conversacion, motor="acciones")
    assert fijo.contenido.startswith("Cancelé la acción")


def test_tras_confirmar_el_modelo_recibe_el_resultado_y_repetir_la_decision_no_repite_la_continuacion(
    servidor: ServidorLocal, usuaria: Callable[..., AbstractUser], conversar: Callable[..., Charla]
) -> None:
    consultora = usuaria()
    accion = propuesta(servidor, conversar, consultora, "Listo, quedó creada. ¿La analizo?")
    accion = accion_decidir(accion_id=accion.pk, usuario=consultora, confirmada=True)

    primera = decision_continuar(accion=accion, usuario=consultora)
    otra_vez = decision_continuar(
        accion=accion_decidir(accion_id=accion.pk, usuario=consultora, confirmada=True), usuario=consultora
    )

    nota = ultimo_pedido(servidor)["messages"][-1]["content"]
    assert "confirmó la acción y se ejecutó" in nota and '"nombre": "Mina Norte"' in nota
    assert primera is not None and otra_vez is None and len(servidor.pedidos) == 2


def test_si_el_modelo_falla_tras_la_decision_queda_el_mensaje_fijo(
    servidor: ServidorLocal, usuaria: Callable[..., AbstractUser], conversar: Callable[..., Charla]
) -> None:
    consultora = usuaria()
    responder_sse(
        servidor,
        sse(
            uso_de_herramienta("crear_proyecto", {"nombre": "Mina Norte", "region": "Atacama"}),
            stop="tool_use",
        ),
    )
    servidor.responder("/v1/messages", 500, "falla")  # tras la propuesta, el modelo falla
    charla = conversar(consultora, "crea la Mina Norte en Atacama")
    assert charla.accion is not None
    accion = accion_decidir(accion_id=charla.accion["id"], usuario=consultora, confirmada=False)

    assert decision_continuar(accion=accion, usuario=consultora) is None
    assert list(accion.conversacion.mensajes.filter(rol="assistant").values_list("motor", flat=True)) == [
        "claude",
        "acciones",
    ]


def test_sin_modelo_no_hay_continuacion(
    usuaria: Callable[..., AbstractUser], conversar: Callable[..., Charla]
) -> None:
    consultora = usuaria()
    charla = conversar(consultora, "crea un proyecto llamado Mina Sur en Atacama")
    assert charla.accion is not None
    accion = accion_decidir(accion_id=charla.accion["id"], usuario=consultora, confirmada=False)

    assert not decision_continua(accion) and decision_continuar(accion=accion, usuario=consultora) is None


def test_la_api_devuelve_la_continuacion_del_modelo_con_la_decision(
    servidor: ServidorLocal, usuaria: Callable[..., AbstractUser], conversar: Callable[..., Charla]
) -> None:
    consultora = usuaria()
    accion = propuesta(servidor, conversar, consultora, "Cancelada. ¿Prefiere otra región?")
    cliente = APIClient()
    cliente.force_authenticate(consultora)

    respuesta = cliente.post(
        "/api/asistente/confirm", {"accion_id": str(accion.pk), "confirmada": False}, format="json"
    ).json()

    assert respuesta["estado"] == "cancelada"
    assert respuesta["seguimiento"]["contenido"] == "Cancelada. ¿Prefiere otra región?"
