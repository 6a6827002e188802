"""API del asistente: chat, SSE, confirmación con sus códigos, conversaciones propias y más."""

import json
import uuid
from collections.abc import Callable, Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractUser
from django.utils import timezone
from rest_framework.test import APIClient

from asistente.models import AccionPendiente, Conversacion
from normativa.models import FragmentoLegal, Norma
from proyectos.models import Proyecto
from proyectos.roles import Rol
from proyectos.services import usuario_crear_o_actualizar
from tests.utilidades import con_claude, mensaje_sse

pytestmark = pytest.mark.usefixtures("capas")
USUARIA_SSE = "cliente-api-sse"


def api(usuario: AbstractUser) -> APIClient:
    cliente = APIClient()
    cliente.force_authenticate(usuario)
    return cliente


def test_el_chat_devuelve_el_mensaje_sus_fuentes_y_una_accion_pendiente_descrita_para_personas(
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
    assert accion["descripcion"] == (
        "Crear el proyecto «Mina Norte» (Explotación minera) para el cliente «Cliente de consultora» "
        "en región Atacama."
    )
    assert accion["etiquetas"]["region"] == "Región" and accion["parametros"]["region"] == "Atacama"
    assert accion["opciones"]["tipo"]["explotacion"] == "Explotación minera"


@pytest.fixture
def usuaria_confirmada(corpus: Any, django_db_blocker: Any) -> Iterator[AbstractUser]:
    """Confirmada en la base (sin transacción de prueba): el turno corre aparte, con su conexión."""
    with django_db_blocker.unblock():
        usuario = usuario_crear_o_actualizar(
            nombre=USUARIA_SSE, rol=Rol.LECTURA, password="clave-sse-1"
        ).usuario
        yield usuario
        Conversacion.objects.filter(usuario_id=usuario.pk).delete()
        get_user_model().objects.filter(username=USUARIA_SSE).delete()


def eventos_sse(respuesta: Any) -> list[dict[str, str]]:
    """Los eventos de una respuesta SSE (su contenido es un iterador asíncrono)."""
    from asgiref.sync import async_to_sync

    async def leer() -> list[bytes]:
        return [parte async for parte in respuesta.streaming_content]

    bloques = b"".join(async_to_sync(leer)()).decode().strip().split("\n\n")
    return [dict(linea.split(": ", 1) for linea in b.split("\n")) for b in bloques]


def test_el_flujo_envia_eventos_ordenados_con_id_y_sin_cache(
    usuaria_confirmada: AbstractUser,
) -> None:
    respuesta = api(usuaria_confirmada).post("/api/asistente/chat/stream", {"mensaje": "hola"}, format="json")

    assert respuesta["Content-Type"].startswith("text/event-stream")
    assert respuesta["Cache-Control"] == "no-cache" and respuesta["X-Accel-Buffering"] == "no"
    eventos = eventos_sse(respuesta)
    assert [e["event"] for e in eventos][:3] == ["meta", "sources", "start"] and eventos[-1][
        "event"
    ] == "done"
    assert [int(e["id"]) for e in eventos] == list(range(1, len(eventos) + 1))
    assert "token" in {e["event"] for e in eventos}


def test_un_cliente_que_perdio_el_flujo_recibe_el_resto_desde_su_ultimo_id(
    usuaria_confirmada: AbstractUser,
) -> None:
    cliente = api(usuaria_confirmada)
    completos = eventos_sse(cliente.post("/api/asistente/chat/stream", {"mensaje": "hola"}, format="json"))
    conversacion = json.loads(completos[0]["data"])["conversacion_id"]
    ruta = f"/api/asistente/conversaciones/{conversacion}/eventos"

    resto = eventos_sse(cliente.get(ruta, headers={"Last-Event-ID": "3"}))
    por_parametro = eventos_sse(cliente.get(ruta, {"ultimo_evento": 3}))

    assert resto == por_parametro == completos[3:] and resto[-1]["event"] == "done"
    assert cliente.get(ruta, {"ultimo_evento": "tres"}).status_code == 400
    assert cliente.get(f"/api/asistente/conversaciones/{uuid.uuid4()}/eventos").status_code == 404


def test_confirmar_crea_una_vez_y_repetir_devuelve_lo_mismo(usuaria: Callable[..., AbstractUser]) -> None:
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


def test_confirmar_una_accion_ajena_o_vencida_falla_con_el_codigo_correcto(
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


def test_un_mensaje_largo_es_un_400_en_castellano(usuaria: Callable[..., AbstractUser]) -> None:
    respuesta = api(usuaria()).post("/api/asistente/chat", {"mensaje": "x" * 4001}, format="json")

    assert respuesta.status_code == 400 and "4000 caracteres" in respuesta.json()["error"]


def test_demasiados_mensajes_reciben_429_con_retry_after(usuaria: Callable[..., AbstractUser]) -> None:
    cliente = api(usuaria())
    codigos = [
        cliente.post("/api/asistente/chat", {"mensaje": "hola"}, format="json").status_code for _ in range(11)
    ]

    ultima = cliente.post("/api/asistente/chat", {"mensaje": "hola"}, format="json")
    assert codigos[:10] == [200] * 10 and ultima.status_code == 429 and int(ultima["Retry-After"]) > 0


def test_conversaciones_y_mensajes_son_privados_y_borrarlos_los_oculta(
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


def test_la_calificacion_se_guarda_en_la_memoria_del_usuario_que_puede_borrarse(
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


def test_las_herramientas_ofrecidas_siguen_el_rol(usuaria: Callable[..., AbstractUser]) -> None:
    lectura = {h["name"] for h in api(usuaria("l", Rol.LECTURA)).get("/api/asistente/herramientas/").json()}
    escritura = {
        h["name"] for h in api(usuaria("e", Rol.ESCRITURA)).get("/api/asistente/herramientas/").json()
    }

    assert {"consultar_proyecto", "listar_proyectos"} <= lectura and "crear_proyecto" not in lectura
    assert {"crear_proyecto", "ejecutar_analisis", "actualizar_proyecto"} <= escritura
    assert "proponer_implementacion" not in escritura


def test_sin_corpus_no_se_ofrecen_herramientas_de_busqueda(usuaria: Callable[..., AbstractUser]) -> None:
    # Sin corpus aunque otra prueba ya lo haya cargado en la sesión (se revierte al terminar).
    FragmentoLegal.objects.exclude(norma__tipo=Norma.Tipo.DOCUMENTACION).delete()

    nombres = {h["name"] for h in api(usuaria()).get("/api/asistente/herramientas/").json()}

    assert "buscar_normativa" not in nombres


def test_la_salud_nombra_el_motor(usuaria: Callable[..., AbstractUser]) -> None:
    assert api(usuaria()).get("/api/asistente/health/").json()["motor"] == "reglas"


@pytest.mark.django_db
@pytest.mark.usefixtures("corpus")
def test_el_formulario_de_dominio_rechaza_descargos_mal_formados_y_normas_desconocidas() -> None:
    from asistente.admin import DominioForm

    datos = {
        "codigo": "otro", "nombre": "Otro", "prompt_sistema": "x", "top_k": 5, "confianza_minima": "MEDIUM",
        "descargos": '[{"texto": ""}]', "normas": '["Ley 99.999"]', "temas": "[]", "activo": True,
    }  # fmt: skip

    formulario = DominioForm(data=datos)

    assert not formulario.is_valid()
    assert {"descargos", "normas"} <= set(formulario.errors)


def test_el_flujo_servido_por_daphne_envia_cada_evento_cuando_ocurre_y_no_todos_al_final(
    usuaria_confirmada: AbstractUser, daphne: Callable[..., str]
) -> None:
    import threading

    import httpx
    from rest_framework.authtoken.models import Token

    visto_a_tiempo = threading.Event()  # el cliente ya recibió el primer trozo
    esperas: list[bool] = []

    def retener_el_final(evento: str) -> str:
        # El modelo no termina hasta que el cliente haya visto su primer trozo: si la respuesta se
        # armara entera antes de enviarla, la espera vencería.
        if "message_stop" in evento:
            esperas.append(visto_a_tiempo.wait(15))
        return evento

    sse = mensaje_sse({"type": "text", "text": "La Ley 19.300 regula la evaluación ambiental."})
    token, _ = Token.objects.get_or_create(user_id=usuaria_confirmada.pk)
    with con_claude(daphne, lambda pedido: sse, al_enviar=retener_el_final) as (url, _):
        eventos = []
        with httpx.stream(
            "POST",
            f"{url}/api/asistente/chat/stream",
            json={"mensaje": "¿Qué regula la Ley 19.300?"},
            headers={"Authorization": f"Token {token.key}"},
            timeout=60,
        ) as respuesta:
            for linea in respuesta.iter_lines():
                if linea.startswith("event: "):
                    eventos.append(linea.removeprefix("event: "))
                    if eventos[-1] == "token":
                        visto_a_tiempo.set()

    assert esperas == [True]
    assert eventos[0] == "meta" and "token" in eventos and eventos[-1] == "done"


def test_la_api_lista_los_dominios_que_el_usuario_puede_usar_con_sus_politicas(
    usuaria: Callable[..., AbstractUser],
) -> None:
    from django.conf import settings
    from django.contrib.auth.models import Group

    from asistente.models import Dominio

    restringido = Dominio.objects.create(
        codigo="auditoria", nombre="Auditoría", prompt_sistema="P.", top_k=3, rag_habilitado=False
    )
    restringido.grupos.add(Group.objects.create(name="auditores"))
    Dominio.objects.create(codigo="faenas", nombre="Faenas", prompt_sistema="P.", similitud_minima=0.9)

    dominios = {d["codigo"]: d for d in api(usuaria()).get("/api/asistente/dominios/").json()}

    assert set(dominios) == {settings.ASISTENTE_DOMINIO, "faenas"}
    assert dominios[settings.ASISTENTE_DOMINIO]["predeterminado"] is True
    assert dominios["faenas"]["politicas"]["rag"] == {
        "habilitado": True,
        "similitud_minima": 0.9,
        "maximo_documentos": 5,
    }


def test_un_dominio_ajeno_o_distinto_del_de_la_conversacion_es_un_error_400_que_dice_que_hacer(
    usuaria: Callable[..., AbstractUser],
) -> None:
    from django.contrib.auth.models import Group

    from asistente.models import Dominio

    ajeno = Dominio.objects.create(codigo="auditoria", nombre="Auditoría", prompt_sistema="P.")
    ajeno.grupos.add(Group.objects.create(name="auditores"))
    Dominio.objects.create(codigo="faenas", nombre="Faenas", prompt_sistema="P.")
    cliente = api(usuaria())

    prohibido = cliente.post(
        "/api/asistente/chat", {"mensaje": "hola", "dominio": "auditoria"}, format="json"
    )
    en_faenas = cliente.post("/api/asistente/chat", {"mensaje": "hola", "dominio": "faenas"}, format="json")
    conversacion = en_faenas.json()["conversacion_id"]
    cambio = cliente.post(
        "/api/asistente/chat",
        {"mensaje": "hola", "conversacion_id": conversacion, "dominio": "mineria"},
        format="json",
    )

    assert prohibido.status_code == 400
    assert "no habilitado para su usuario: «auditoria»" in json.dumps(prohibido.json(), ensure_ascii=False)
    assert Conversacion.objects.get(pk=conversacion).dominio.codigo == "faenas"
    assert cambio.status_code == 400
    assert "empiece una conversación nueva" in json.dumps(cambio.json(), ensure_ascii=False)


@pytest.mark.usefixtures("corpus")
def test_el_chat_dice_que_herramientas_uso_y_cuanto_tardo_y_el_esquema_fuente_nombra_cada_campo(
    usuaria: Callable[..., AbstractUser],
) -> None:
    respuesta = api(usuaria()).post(
        "/api/asistente/chat",
        {"mensaje": "¿Qué plazo tienen los órganos para informar una Declaración de Impacto Ambiental?"},
        format="json",
    )
    esquema = json.loads(APIClient().get("/api/schema/?format=json").content)

    mensaje = respuesta.json()["mensaje"]
    assert [h["herramienta"] for h in mensaje["herramientas"]] == ["buscar_normativa"]
    assert isinstance(mensaje["herramientas"][0]["ms"], int) and mensaje["herramientas"][0]["error"] is None
    assert mensaje["tiempos"]["total_ms"] >= mensaje["tiempos"]["primer_token_ms"] >= 0
    assert mensaje["motor"] == "reglas"
    componentes = esquema["components"]["schemas"]
    campos_fuente = set(componentes["Fuente"]["properties"])
    devueltos = {campo for fuente in mensaje["fuentes"] for campo in fuente}
    assert {"advertencia", "vigencia", "epigrafe"} <= devueltos <= campos_fuente
    assert "marcador" in campos_fuente
    assert set(mensaje) <= set(componentes["MensajeAsistente"]["properties"])


def test_el_flujo_sse_abre_la_conversacion_en_el_dominio_pedido(
    usuaria_confirmada: AbstractUser, django_db_blocker: Any
) -> None:
    from asistente.models import Dominio

    with django_db_blocker.unblock():
        Dominio.objects.create(codigo="faenas-sse", nombre="Faenas", prompt_sistema="P.")
    try:
        eventos = eventos_sse(
            api(usuaria_confirmada).post(
                "/api/asistente/chat/stream", {"mensaje": "hola", "dominio": "faenas-sse"}, format="json"
            )
        )
        conversacion = json.loads(eventos[0]["data"])["conversacion_id"]
        with django_db_blocker.unblock():
            dominio = Conversacion.objects.get(pk=conversacion).dominio.codigo
        assert eventos[-1]["event"] == "done" and dominio == "faenas-sse"
    finally:
        with django_db_blocker.unblock():
            Conversacion.objects.filter(dominio__codigo="faenas-sse").delete()
            Dominio.objects.filter(codigo="faenas-sse").delete()
