"""Websocket del asistente: autenticación, la misma secuencia de eventos, reanudación y confirmación.

El consumidor y el hilo del turno usan sus propias conexiones: los datos se confirman en la base y se
borran al terminar (sin `transactional_db`, que vaciaría el corpus de la sesión).
"""

import json
from collections.abc import Iterator
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractUser

from asistente.consumers import CIERRE_NO_AUTENTICADO, AsistenteConsumer
from asistente.models import Conversacion
from config.asgi import application
from proyectos.models import Cliente, Proyecto
from proyectos.roles import Rol
from proyectos.services import usuario_crear_o_actualizar
from tests.asistente.conftest import responder_sse, uso_de_herramienta
from tests.utilidades import ServidorLocal
from tests.utilidades import mensaje_sse as sse


@pytest.fixture
def usuarias(capas: Any, django_db_blocker: Any) -> Iterator[tuple[AbstractUser, AbstractUser]]:
    with django_db_blocker.unblock():
        creadas = []
        for nombre in ("ws-una", "ws-otra"):
            usuario = usuario_crear_o_actualizar(
                nombre=nombre, rol=Rol.ESCRITURA, password="x-123456"
            ).usuario
            cliente = Cliente.objects.create(nombre=f"Cliente {nombre}")
            cliente.usuarios.add(usuario.pk)
            creadas.append(usuario)
        yield creadas[0], creadas[1]
        Proyecto.objects.filter(cliente__nombre__startswith="Cliente ws-").delete()
        Conversacion.objects.filter(usuario__username__startswith="ws-").delete()
        Cliente.objects.filter(nombre__startswith="Cliente ws-").delete()
        get_user_model().objects.filter(username__startswith="ws-").delete()


async def conectar(usuario: AbstractUser) -> WebsocketCommunicator:
    comunicador = WebsocketCommunicator(AsistenteConsumer.as_asgi(), "/ws/asistente/")
    comunicador.scope["user"] = usuario
    conectado, _ = await comunicador.connect()
    assert conectado
    return comunicador


async def hasta_el_final(comunicador: WebsocketCommunicator) -> list[dict[str, Any]]:
    marcos = []
    while True:
        marco = await comunicador.receive_json_from(timeout=20)
        marcos.append(marco)
        if marco["evento"] in ("done", "error"):
            return marcos


async def test_un_socket_anonimo_se_acepta_y_se_cierra_con_4401_para_que_el_navegador_vea_el_codigo() -> None:
    comunicador = WebsocketCommunicator(
        application, "/ws/asistente/", headers=[(b"origin", b"http://localhost")]
    )

    conectado, _ = await comunicador.connect()
    cierre = await comunicador.receive_output()
    await comunicador.disconnect()  # el consumidor rechazado termina aquí, no al cerrar el bucle

    # Rechazar el handshake llegaría al navegador como 1006 (un corte) y chat.js reconectaría sin fin.
    assert conectado and cierre == {"type": "websocket.close", "code": CIERRE_NO_AUTENTICADO}


async def test_un_mensaje_transmite_la_misma_secuencia_de_eventos_que_sse(
    usuarias: Any, django_db_blocker: Any
) -> None:
    with django_db_blocker.unblock():
        comunicador = await conectar(usuarias[0])
        await comunicador.send_json_to({"tipo": "mensaje", "mensaje": "hola"})

        marcos = await hasta_el_final(comunicador)
        await comunicador.disconnect()

    eventos = [m["evento"] for m in marcos]
    assert eventos[:3] == ["meta", "sources", "start"] and eventos[-1] == "done" and "token" in eventos
    assert [m["id"] for m in marcos] == list(range(1, len(marcos) + 1))
    assert "asistente de prefactibilidad" in marcos[-1]["datos"]["mensaje"]["contenido"]


async def test_un_cliente_que_se_reconecta_sigue_despues_de_su_ultimo_evento(
    usuarias: Any, django_db_blocker: Any
) -> None:
    with django_db_blocker.unblock():
        primera = await conectar(usuarias[0])
        await primera.send_json_to({"tipo": "mensaje", "mensaje": "hola"})
        vistos = [await primera.receive_json_from(timeout=20) for _ in range(3)]
        await primera.disconnect()
        conversacion = vistos[0]["datos"]["conversacion_id"]

        segunda = await conectar(usuarias[0])
        await segunda.send_json_to({"tipo": "reanudar", "conversacion_id": conversacion, "ultimo_evento": 3})
        resto = await hasta_el_final(segunda)
        await segunda.disconnect()

    assert [m["id"] for m in vistos + resto] == list(range(1, len(vistos) + len(resto) + 1))
    assert resto[-1]["evento"] == "done"


async def test_un_mensaje_reenviado_por_otro_socket_con_su_id_cliente_se_responde_una_sola_vez(
    usuarias: Any, django_db_blocker: Any
) -> None:
    from asistente.models import Mensaje

    marco = {"tipo": "mensaje", "mensaje": "hola", "id_cliente": "0b5e1c52-8f7e-4d0c-9a51-3f2b8f1d6a77"}
    with django_db_blocker.unblock():
        primera = await conectar(usuarias[0])
        await primera.send_json_to(marco)
        meta = await primera.receive_json_from(timeout=20)
        await primera.disconnect()  # el cliente no supo si llegó: lo reenvía al reconectar

        segunda = await conectar(usuarias[0])
        await segunda.send_json_to(marco)
        reenviado = await hasta_el_final(segunda)
        await segunda.disconnect()
        guardados = await database_sync_to_async(
            lambda: list(
                Mensaje.objects.filter(conversacion__usuario=usuarias[0]).values_list("rol", flat=True)
            )
        )()

    assert reenviado[0]["evento"] == "meta" and reenviado[-1]["evento"] == "done"
    assert reenviado[0]["datos"]["mensaje_usuario_id"] == meta["datos"]["mensaje_usuario_id"]
    assert sorted(guardados) == ["assistant", "user"]


async def test_un_socket_que_se_cierra_con_4503_no_procesa_lo_que_el_cliente_alcanzo_a_enviar(
    usuarias: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import redis

    from asistente.models import Mensaje
    from config.canales import CapaDeCanalesRedis
    from config.consumers import CIERRE_REINTENTAR

    async def sin_redis(*_: Any) -> None:
        raise redis.exceptions.ConnectionError("Redis no responde")

    comunicador = WebsocketCommunicator(AsistenteConsumer.as_asgi(), "/ws/asistente/")
    comunicador.scope["user"] = usuarias[0]
    monkeypatch.setattr(CapaDeCanalesRedis, "group_add", sin_redis)
    aceptado, _ = await comunicador.connect()
    await comunicador.send_json_to({"tipo": "mensaje", "mensaje": "¿Qué es una DIA?"})
    cierre = await comunicador.receive_output(timeout=5)
    await comunicador.wait(timeout=2)

    assert aceptado and cierre == {"type": "websocket.close", "code": CIERRE_REINTENTAR}
    guardados = await database_sync_to_async(
        Mensaje.objects.filter(conversacion__usuario=usuarias[0]).exists
    )()
    assert not guardados


async def test_la_conversacion_de_otro_usuario_no_se_puede_reanudar(
    usuarias: Any, django_db_blocker: Any
) -> None:
    with django_db_blocker.unblock():
        duena = await conectar(usuarias[0])
        await duena.send_json_to({"tipo": "mensaje", "mensaje": "hola"})
        conversacion = (await hasta_el_final(duena))[0]["datos"]["conversacion_id"]
        await duena.disconnect()

        intrusa = await conectar(usuarias[1])
        await intrusa.send_json_to({"tipo": "reanudar", "conversacion_id": conversacion, "ultimo_evento": 0})
        respuesta = await intrusa.receive_json_from(timeout=10)
        await intrusa.disconnect()

    assert respuesta["evento"] == "error" and respuesta["datos"]["codigo"] == 404


async def test_una_accion_se_confirma_por_el_socket(usuarias: Any, django_db_blocker: Any) -> None:
    with django_db_blocker.unblock():
        comunicador = await conectar(usuarias[0])
        await comunicador.send_json_to(
            {"tipo": "mensaje", "mensaje": "crea un proyecto llamado Mina Socket en Atacama"}
        )
        marcos = await hasta_el_final(comunicador)
        accion = next(m for m in marcos if m["evento"] == "action")["datos"]
        await comunicador.send_json_to({"tipo": "confirmar", "accion_id": accion["id"], "confirmada": True})
        confirmacion = await comunicador.receive_json_from(timeout=20)
        await comunicador.disconnect()
        creado = await Proyecto.objects.filter(nombre="Mina Socket").acount()

    assert confirmacion["evento"] == "confirmacion" and confirmacion["datos"]["estado"] == "confirmada"
    assert creado == 1


async def test_con_claude_tras_cancelar_el_socket_recibe_la_continuacion_del_modelo(
    usuarias: Any, django_db_blocker: Any, servidor: ServidorLocal
) -> None:
    responder_sse(
        servidor,
        sse(
            uso_de_herramienta("crear_proyecto", {"nombre": "Mina Ws", "region": "Atacama"}), stop="tool_use"
        ),
    )
    responder_sse(servidor, sse({"type": "text", "text": "Cancelada. ¿La creo en otra región?"}))
    with django_db_blocker.unblock():
        comunicador = await conectar(usuarias[0])
        await comunicador.send_json_to({"tipo": "mensaje", "mensaje": "crea la Mina Ws en Atacama"})
        accion = next(m for m in await hasta_el_final(comunicador) if m["evento"] == "action")["datos"]
        await comunicador.send_json_to(
            {"tipo": "confirmar", "accion_id": accion["id"], "confirmada": False, "comentario": "otra región"}
        )
        confirmacion = await comunicador.receive_json_from(timeout=20)
        seguimiento = await comunicador.receive_json_from(timeout=20)
        await comunicador.disconnect()

    assert confirmacion["evento"] == "confirmacion" and confirmacion["datos"]["continua"] is True
    assert seguimiento["evento"] == "seguimiento"
    assert seguimiento["datos"]["mensaje"]["contenido"] == "Cancelada. ¿La creo en otra región?"
    assert "«otra región»" in json.loads(servidor.pedidos[-1][3])["messages"][-1]["content"]


async def test_limites_de_uso_y_marcos_invalidos_vuelven_como_marcos_de_error(
    usuarias: Any, django_db_blocker: Any
) -> None:
    with django_db_blocker.unblock():
        comunicador = await conectar(usuarias[1])
        await comunicador.send_json_to({"tipo": "volar"})
        desconocido = await comunicador.receive_json_from(timeout=10)
        await comunicador.send_json_to({"tipo": "mensaje", "mensaje": "x" * 4001})
        largo = await comunicador.receive_json_from(timeout=10)
        await comunicador.disconnect()

    assert desconocido["evento"] == "error" and "desconocido" in desconocido["datos"]["mensaje"]
    assert largo["datos"]["codigo"] == 400 and "4000 caracteres" in largo["datos"]["mensaje"]


async def test_abrir_un_proyecto_sin_geometria_envia_un_aviso(usuarias: Any, django_db_blocker: Any) -> None:
    from datetime import timedelta

    from django.utils import timezone

    from asistente.models import ConfiguracionAvisos
    from proyectos.services import proyecto_crear

    def preparar() -> int:
        ConfiguracionAvisos.objects.update_or_create(pk=1, defaults={"hora_inicio": 0, "hora_fin": 24})
        cliente = Cliente.objects.get(nombre="Cliente ws-una")
        proyecto = proyecto_crear(
            cliente=cliente, datos={"nombre": "Mina Sin Mapa", "region": "Atacama", "tipo": "explotacion"}
        )
        Proyecto.objects.filter(pk=proyecto.pk).update(creado_at=timezone.now() - timedelta(days=2))
        return proyecto.pk

    from channels.db import database_sync_to_async

    with django_db_blocker.unblock():
        proyecto_id = await database_sync_to_async(preparar)()
        comunicador = await conectar(usuarias[0])
        await comunicador.send_json_to({"tipo": "contexto", "vista": "proyecto", "proyecto_id": proyecto_id})
        contexto = await comunicador.receive_json_from(timeout=10)
        aviso = await comunicador.receive_json_from(timeout=10)
        await comunicador.disconnect()
        await database_sync_to_async(ConfiguracionAvisos.objects.filter(pk=1).delete)()

    assert contexto["evento"] == "contexto" and aviso["evento"] == "aviso"
    assert aviso["datos"]["tipo"] == "proyecto_sin_geometria" and "Mina Sin Mapa" in aviso["datos"]["mensaje"]


async def test_un_aviso_creado_por_la_tarea_periodica_llega_al_socket_abierto_de_su_duena_y_no_a_otro(
    usuarias: Any, django_db_blocker: Any
) -> None:
    from datetime import timedelta

    from django.utils import timezone

    from asistente.avisos import avisos_evaluar
    from asistente.models import Aviso, ConfiguracionAvisos
    from proyectos.services import proyecto_crear

    def preparar() -> None:
        ConfiguracionAvisos.objects.update_or_create(pk=1, defaults={"hora_inicio": 0, "hora_fin": 24})
        proyecto = proyecto_crear(
            cliente=Cliente.objects.get(nombre="Cliente ws-una"),
            datos={"nombre": "Mina Del Aviso En Vivo", "region": "Atacama", "tipo": "explotacion"},
        )
        Proyecto.objects.filter(pk=proyecto.pk).update(creado_at=timezone.now() - timedelta(days=2))

    with django_db_blocker.unblock():
        await database_sync_to_async(preparar)()
        duena, otra = await conectar(usuarias[0]), await conectar(usuarias[1])
        # Lo que hace la tarea periódica con cada usuario activo, sin que el socket haya pedido nada.
        creados = await database_sync_to_async(avisos_evaluar)(usuario=usuarias[0])
        aviso = await duena.receive_json_from(timeout=10)
        nada_para_otra = await otra.receive_nothing(timeout=1)
        await duena.disconnect()
        await otra.disconnect()
        await database_sync_to_async(Aviso.objects.filter(usuario__username__startswith="ws-").delete)()
        await database_sync_to_async(ConfiguracionAvisos.objects.filter(pk=1).delete)()

    assert [a.pk for a in creados] == [aviso["datos"]["id"]] and aviso["evento"] == "aviso"
    assert "Mina Del Aviso En Vivo" in aviso["datos"]["mensaje"] and nada_para_otra


async def test_un_socket_inactivo_y_un_turno_lento_sobreviven_al_plazo_de_lectura_de_5_s_de_redis() -> None:
    """redis-py 8 corta las lecturas a los 5 s: la capa de canales y la retransmisión esperan más."""
    import asyncio
    import json

    import redis.asyncio as redis_asincrono
    from channels.layers import get_channel_layer
    from django.conf import settings

    from asistente import flujos

    capa = get_channel_layer()
    canal = await capa.new_channel()
    turno = "prueba-turno-lento"
    conexion = redis_asincrono.Redis.from_url(settings.REDIS_URL)
    await conexion.delete(flujos.clave_turno(turno))

    async def tarde() -> None:
        await asyncio.sleep(6)
        await capa.send(canal, {"type": "despertar"})
        marco = json.dumps({"evento": "done", "id": 1, "datos": {}})
        await conexion.xadd(flujos.clave_turno(turno), {"id": 1, "evento": "done", "marco": marco})

    async def primer_evento() -> flujos.Marco:
        return await anext(flujos.eventos_desde(turno))

    mensaje, evento, _ = await asyncio.gather(capa.receive(canal), primer_evento(), tarde())

    assert mensaje == {"type": "despertar"} and evento.evento == "done"
    await conexion.delete(flujos.clave_turno(turno))
    await conexion.aclose()


async def test_marcos_mal_formados_reciben_un_marco_de_error_y_el_socket_sigue_abierto(
    usuarias: Any,
) -> None:
    comunicador = await conectar(usuarias[0])
    malos: list[dict[str, Any]] = [
        {"text_data": "esto no es json"},
        {"bytes_data": b"\x00\x01binario"},
        {"text_data": "[" * 50_000 + "]" * 50_000},
        {"text_data": json.dumps({"tipo": "mensaje", "mensaje": "hola", "conversacion_id": "no-es-uuid"})},
        {"text_data": json.dumps({"tipo": "mensaje", "mensaje": "hola", "conversacion_id": {"a": 1}})},
        {"text_data": json.dumps({"tipo": "mensaje", "mensaje": "hola", "proyecto_id": [1]})},
        {"text_data": json.dumps({"tipo": "confirmar", "accion_id": "no-es-uuid", "confirmada": True})},
        {"text_data": json.dumps({"tipo": "mensaje", "mensaje": "ho\x00la"})},
    ]
    try:
        errores = []
        for marco in malos:
            await comunicador.send_to(**marco)
            errores.append(await comunicador.receive_json_from(timeout=10))

        await comunicador.send_json_to({"tipo": "contexto", "vista": "chat"})
        sigue = await comunicador.receive_json_from(timeout=10)
    finally:
        await comunicador.disconnect()

    assert [e["evento"] for e in errores] == ["error"] * len(malos)
    assert all(e["datos"]["mensaje"] for e in errores)
    assert sigue["evento"] == "contexto"


@pytest.mark.parametrize(
    ("marco", "campo"),
    [
        ({"tipo": "mensaje", "mensaje": "ho\ud800la"}, "mensaje"),
        ({"tipo": "mensaje", "mensaje": "ho\x07la"}, "mensaje"),
        ({"tipo": "contexto", "vista": "chat\x1b[2J"}, "vista"),
        (
            {"tipo": "confirmar", "accion_id": "x", "confirmada": False, "comentario": "no\udfff"},
            "comentario",
        ),
    ],
    ids=["sustituto_en_el_mensaje", "control_en_el_mensaje", "escape_en_la_vista", "sustituto_en_comentario"],
)
async def test_un_marco_con_un_sustituto_suelto_o_un_caracter_de_control_recibe_un_400_que_nombra_el_campo(
    usuarias: Any, marco: dict[str, Any], campo: str
) -> None:
    from asistente.models import Mensaje

    comunicador = await conectar(usuarias[0])
    try:
        # `json.dumps` escribe el sustituto como «\ud800», como lo mandaría un cliente.
        await comunicador.send_to(text_data=json.dumps(marco))
        error = await comunicador.receive_json_from(timeout=10)
        await comunicador.send_json_to({"tipo": "contexto", "vista": "chat"})
        sigue = await comunicador.receive_json_from(timeout=10)
    finally:
        await comunicador.disconnect()

    assert error["evento"] == "error" and error["datos"]["codigo"] == 400
    assert f"«{campo}»" in error["datos"]["mensaje"]
    assert sigue["evento"] == "contexto"
    guardados = Mensaje.objects.filter(conversacion__usuario=usuarias[0])
    assert not await database_sync_to_async(guardados.exists)()


async def test_con_redis_caido_un_mensaje_recibe_un_marco_503_sin_guardarse_y_el_socket_sigue(
    usuarias: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import socket

    import redis

    from asistente import limites
    from asistente.models import Mensaje

    with socket.socket() as libre:
        libre.bind(("127.0.0.1", 0))
        puerto = libre.getsockname()[1]
    muerto = redis.Redis(host="127.0.0.1", port=puerto, socket_connect_timeout=1)
    monkeypatch.setattr(limites, "_script_limites", lambda: muerto.register_script(limites._LIMITES_LUA))
    comunicador = await conectar(usuarias[0])
    try:
        await comunicador.send_json_to({"tipo": "mensaje", "mensaje": "¿Qué es una DIA?"})
        error = await comunicador.receive_json_from(timeout=10)
        await comunicador.send_json_to({"tipo": "contexto", "vista": "chat"})
        sigue = await comunicador.receive_json_from(timeout=10)
    finally:
        await comunicador.disconnect()

    assert error["evento"] == "error" and error["datos"]["codigo"] == 503
    assert error["datos"]["reintentar_en"] > 0 and "no se guardó" in error["datos"]["mensaje"]
    assert sigue["evento"] == "contexto"
    guardados = await database_sync_to_async(
        Mensaje.objects.filter(conversacion__usuario=usuarias[0]).exists
    )()
    assert not guardados
