"""API del asistente: chat, SSE, confirmación con sus códigos, conversaciones propias y más."""

from collections.abc import Callable
from datetime import timedelta

import pytest
from django.contrib.auth.models import AbstractUser
from django.utils import timezone
from rest_framework.test import APIClient

from asistente.models import AccionPendiente
from normativa.models import FragmentoLegal, Norma
from proyectos.models import Proyecto
from proyectos.roles import Rol

pytestmark = pytest.mark.usefixtures("capas")


def api(usuario: AbstractUser) -> APIClient:
    cliente = APIClient()
    cliente.force_authenticate(usuario)
    return cliente


def test_chat_returns_the_message_sources_and_a_pending_action_described_for_people(
    usuaria: Callable[..., AbstractUser],
) -> None:
    respuesta = api(usuaria()).post(
        "/api/asistente/chat", {"mensaje": "crea un proyecto llamado Mina Norte en Atacama"}, format="json"
    )

    assert respuesta.status_code == 200
    cuerpo = respuesta.json()
    assert cuerpo["conversacion_id"] and cuerpo["mensaje"]["rol"] == "assistant"
    accion = cuerpo["accion_pendiente"]
    assert accion["tipo"] == "crear_proyecto" and accion["expires_at"]
    assert accion["descripcion"] == "Crear el proyecto «Mina Norte» (Explotación minera) en región Atacama."
    assert accion["etiquetas"]["region"] == "Región" and accion["parametros"]["region"] == "Atacama"
    assert accion["opciones"]["tipo"]["explotacion"] == "Explotación minera"


def test_the_stream_sends_ordered_events_with_ids_and_no_cache_headers(
    usuaria: Callable[..., AbstractUser],
) -> None:
    respuesta = api(usuaria()).post("/api/asistente/chat/stream", {"mensaje": "hola"}, format="json")

    assert respuesta["Content-Type"].startswith("text/event-stream")
    assert respuesta["Cache-Control"] == "no-cache" and respuesta["X-Accel-Buffering"] == "no"
    contenido = b"".join(respuesta.streaming_content)  # type: ignore[attr-defined]
    bloques = contenido.decode().strip().split("\n\n")
    eventos = [dict(linea.split(": ", 1) for linea in b.split("\n")) for b in bloques]
    assert [e["event"] for e in eventos][:3] == ["meta", "sources", "start"] and eventos[-1][
        "event"
    ] == "done"
    assert [int(e["id"]) for e in eventos] == list(range(1, len(eventos) + 1))
    assert "token" in {e["event"] for e in eventos}


def test_confirming_creates_once_and_repeating_returns_the_same(usuaria: Callable[..., AbstractUser]) -> None:
    cliente = api(usuaria())
    accion = cliente.post(
        "/api/asistente/chat", {"mensaje": "crea un proyecto llamado Mina Norte en Atacama"}, format="json"
    ).json()["accion_pendiente"]

    primera = cliente.post(
        "/api/asistente/confirm", {"accion_id": accion["id"], "confirmada": True}, format="json"
    )
    segunda = cliente.post(
        "/api/asistente/confirm", {"accion_id": accion["id"], "confirmada": True}, format="json"
    )
    contraria = cliente.post(
        "/api/asistente/confirm", {"accion_id": accion["id"], "confirmada": False}, format="json"
    )

    assert primera.status_code == segunda.status_code == 200
    assert primera.json()["resultado"] == segunda.json()["resultado"]
    assert contraria.status_code == 409
    assert Proyecto.objects.filter(nombre="Mina Norte").count() == 1


def test_confirming_someone_elses_or_an_expired_action_fails_with_the_right_code(
    usuaria: Callable[..., AbstractUser],
) -> None:
    dueña = api(usuaria())
    accion = dueña.post(
        "/api/asistente/chat", {"mensaje": "crea un proyecto llamado Mina Norte en Atacama"}, format="json"
    ).json()["accion_pendiente"]

    ajena = api(usuaria("otra")).post(
        "/api/asistente/confirm", {"accion_id": accion["id"], "confirmada": True}, format="json"
    )
    AccionPendiente.objects.filter(pk=accion["id"]).update(expires_at=timezone.now() - timedelta(seconds=1))
    vencida = dueña.post(
        "/api/asistente/confirm", {"accion_id": accion["id"], "confirmada": True}, format="json"
    )

    assert ajena.status_code == 404 and vencida.status_code == 410
    assert not Proyecto.objects.exists()


def test_a_long_message_is_a_400_in_spanish(usuaria: Callable[..., AbstractUser]) -> None:
    respuesta = api(usuaria()).post("/api/asistente/chat", {"mensaje": "x" * 4001}, format="json")

    assert respuesta.status_code == 400 and "4000 caracteres" in respuesta.json()["error"]


def test_too_many_messages_get_429_with_retry_after(usuaria: Callable[..., AbstractUser]) -> None:
    cliente = api(usuaria())
    codigos = [
        cliente.post("/api/asistente/chat", {"mensaje": "hola"}, format="json").status_code for _ in range(11)
    ]

    ultima = cliente.post("/api/asistente/chat", {"mensaje": "hola"}, format="json")
    assert codigos[:10] == [200] * 10 and ultima.status_code == 429 and int(ultima["Retry-After"]) > 0


def test_conversations_and_messages_are_private_and_deletion_hides_them(
    usuaria: Callable[..., AbstractUser],
) -> None:
    dueña = api(usuaria())
    conversacion = dueña.post("/api/asistente/chat", {"mensaje": "hola"}, format="json").json()[
        "conversacion_id"
    ]
    otra = api(usuaria("otra"))

    assert len(dueña.get("/api/asistente/conversaciones/").json()) == 1
    assert otra.get("/api/asistente/conversaciones/").json() == []
    assert otra.get(f"/api/asistente/conversaciones/{conversacion}/mensajes/").status_code == 404
    assert (
        otra.post(
            "/api/asistente/chat", {"mensaje": "hola", "conversacion_id": conversacion}, format="json"
        ).status_code
        == 404
    )
    assert [
        m["rol"] for m in dueña.get(f"/api/asistente/conversaciones/{conversacion}/mensajes/").json()
    ] == ["user", "assistant"]
    assert dueña.delete(f"/api/asistente/conversaciones/{conversacion}/").status_code == 204
    assert dueña.get("/api/asistente/conversaciones/").json() == []


def test_feedback_is_stored_in_the_users_memory_which_can_be_erased(
    usuaria: Callable[..., AbstractUser],
) -> None:
    cliente = api(usuaria())
    mensaje = cliente.post("/api/asistente/chat", {"mensaje": "hola"}, format="json").json()["mensaje"]["id"]

    assert (
        cliente.post(
            f"/api/asistente/mensajes/{mensaje}/feedback", {"valor": -1, "comentario": "breve"}, format="json"
        ).status_code
        == 204
    )
    assert cliente.get("/api/asistente/memoria/").json()["feedback"][0]["valor"] == -1
    assert cliente.delete("/api/asistente/memoria/").status_code == 204
    assert cliente.get("/api/asistente/memoria/").json()["feedback"] == []


def test_tools_offered_follow_the_role(usuaria: Callable[..., AbstractUser]) -> None:
    lectura = {h["name"] for h in api(usuaria("l", Rol.LECTURA)).get("/api/asistente/herramientas/").json()}
    escritura = {
        h["name"] for h in api(usuaria("e", Rol.ESCRITURA)).get("/api/asistente/herramientas/").json()
    }

    assert {"consultar_proyecto", "listar_proyectos"} <= lectura and "crear_proyecto" not in lectura
    assert {"crear_proyecto", "ejecutar_analisis", "actualizar_proyecto"} <= escritura
    assert "proponer_implementacion" not in escritura


def test_search_tools_are_not_offered_without_a_corpus(usuaria: Callable[..., AbstractUser]) -> None:
    # Sin corpus aunque otra prueba ya lo haya cargado en la sesión (se revierte al terminar).
    FragmentoLegal.objects.exclude(norma__tipo=Norma.Tipo.DOCUMENTACION).delete()

    nombres = {h["name"] for h in api(usuaria()).get("/api/asistente/herramientas/").json()}

    assert "buscar_normativa" not in nombres


def test_the_health_endpoint_names_the_engine(usuaria: Callable[..., AbstractUser]) -> None:
    assert api(usuaria()).get("/api/asistente/health/").json()["motor"] == "reglas"


@pytest.mark.django_db
@pytest.mark.usefixtures("corpus")
def test_the_domain_form_rejects_malformed_disclaimers_and_unknown_norms() -> None:
    from asistente.admin import DominioForm

    datos = {
        "codigo": "otro", "nombre": "Otro", "prompt_sistema": "x", "top_k": 5, "confianza_minima": "MEDIUM",
        "descargos": '[{"texto": ""}]', "normas": '["Ley 99.999"]', "temas": "[]", "activo": True,
    }  # fmt: skip

    formulario = DominioForm(data=datos)

    assert not formulario.is_valid()
    assert {"descargos", "normas"} <= set(formulario.errors)
