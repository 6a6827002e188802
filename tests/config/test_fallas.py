"""Fallas de dependencias: qué ve el usuario y que nada se pierda.

PostgreSQL: caído, la API responde 503 con `Retry-After` (no 500); al volver, el pool descarta las
conexiones muertas y el mismo proceso responde sin reiniciarse.

Redis: con Redis caído el chat responde 503 en castellano con `Retry-After` y el mensaje se rechaza
explícitamente (no queda a medias); el Redis embebido caído vuelve en su mismo puerto y un cliente
ya creado se reconecta solo, sin reiniciar la aplicación.
"""

import asyncio
import os
import signal
import socket
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractUser
from rest_framework.test import APIClient

from asistente import limites
from asistente.models import Mensaje
from config.servicios import _leer_entero, asegurar_redis, detener_servicios, vigilar_redis
from proyectos.roles import Rol


def _puerto_sin_servidor() -> int:
    with socket.socket() as prueba:
        prueba.bind(("127.0.0.1", 0))
        return int(prueba.getsockname()[1])


@pytest.fixture
def redis_caido(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """El cliente de Redis del proceso apunta a un puerto donde no hay nadie (conexión rechazada)."""
    muerto = redis.Redis(host="127.0.0.1", port=_puerto_sin_servidor(), socket_connect_timeout=1)
    monkeypatch.setattr(limites, "cliente_redis", lambda: muerto)
    limites._script_limites.cache_clear()
    yield
    limites._script_limites.cache_clear()


@pytest.mark.usefixtures("redis_caido")
@pytest.mark.parametrize("ruta", ["/api/asistente/chat", "/api/asistente/chat/stream"])
def test_con_redis_caido_el_chat_responde_503_con_retry_after_y_no_guarda_a_medias(
    crear_usuario: Callable[..., AbstractUser], ruta: str
) -> None:
    api = APIClient()
    api.force_authenticate(crear_usuario("sin-redis", Rol.LECTURA))

    respuesta = api.post(ruta, {"mensaje": "¿Qué es una DIA?"}, format="json")

    assert respuesta.status_code == 503
    assert respuesta["Content-Type"] == "application/json"
    assert int(respuesta["Retry-After"]) > 0
    assert "no se guardó" in respuesta.json()["error"]
    assert not Mensaje.objects.exists()


@pytest.mark.lento
def test_el_redis_embebido_caido_vuelve_en_su_puerto_y_un_cliente_existente_se_reconecta(
    tmp_path: Path,
) -> None:
    os.chmod(tmp_path, 0o777)
    url, _ = asegurar_redis(directorio=tmp_path)
    cliente = redis.Redis.from_url(url, socket_connect_timeout=1)
    try:
        cliente.set("antes", "1")
        puerto = _leer_entero(tmp_path / "redis" / "puerto")
        pid = _leer_entero(tmp_path / "redis" / "redis.pid")
        assert pid and pid > 1
        os.kill(pid, signal.SIGKILL)
        with pytest.raises(redis.exceptions.ConnectionError):
            for _ in range(50):  # hasta que el proceso muerto suelte el puerto
                cliente.ping()

        reinicios = vigilar_redis(directorio=tmp_path, cada_s=0, rondas=1)

        assert reinicios == 1
        assert _leer_entero(tmp_path / "redis" / "puerto") == puerto
        assert cliente.ping() and cliente.get("antes") in (b"1", None)
        assert vigilar_redis(directorio=tmp_path, cada_s=0, rondas=1) == 0  # vivo: no lo toca
    finally:
        cliente.close()
        detener_servicios(directorio=tmp_path)


def _cortar_conexiones(*, permitir: bool) -> None:
    """Como un PostgreSQL caído para los demás procesos: corta sus conexiones a la base de pruebas y,
    con `permitir=False`, rechaza las nuevas. Desde la base «postgres»: la propia no se puede cerrar
    a sí misma."""
    import psycopg
    from django.db import connection

    base = connection.settings_dict["NAME"]
    with connection.cursor() as cursor:  # la conexión de esta prueba sigue viva
        cursor.execute("SELECT pg_backend_pid()")
        propia = cursor.fetchone()[0]
    parametros = {**connection.get_connection_params(), "dbname": "postgres", "autocommit": True}
    parametros.pop("cursor_factory", None)
    with psycopg.connect(**parametros) as administrador:
        administrador.execute(f'ALTER DATABASE "{base}" WITH ALLOW_CONNECTIONS {str(permitir).lower()}')
        if not permitir:
            administrador.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = %s AND pid <> %s AND backend_type = 'client backend'",
                [base, propia],
            )


@pytest.mark.lento
def test_con_postgresql_caido_la_api_responde_503_y_al_volver_se_recupera_sin_reiniciar(
    daphne: Callable[..., str], django_db_blocker: Any
) -> None:
    import httpx

    from proyectos.services import usuario_crear_o_actualizar

    with django_db_blocker.unblock():
        token = usuario_crear_o_actualizar(nombre="sin-base", rol=Rol.LECTURA).token
        url = daphne()
        cabeceras = {"Authorization": f"Token {token}"}
        try:
            antes = httpx.get(f"{url}/api/yo/", headers=cabeceras, timeout=30)
            _cortar_conexiones(permitir=False)
            caida = httpx.get(f"{url}/api/yo/", headers=cabeceras, timeout=30)
            _cortar_conexiones(permitir=True)  # «reinicio»: las conexiones del pool quedaron muertas
            volvio = time.monotonic()
            despues = httpx.get(f"{url}/api/yo/", headers=cabeceras, timeout=30)
            # Con la base marcada caída, el proceso la sondea una vez por segundo.
            while despues.status_code == 503 and time.monotonic() - volvio < 5:
                time.sleep(0.2)
                despues = httpx.get(f"{url}/api/yo/", headers=cabeceras, timeout=30)
            recuperacion_s = time.monotonic() - volvio
        finally:
            _cortar_conexiones(permitir=True)
            get_user_model().objects.filter(username="sin-base").delete()

    assert antes.status_code == 200
    # El pool espera hasta 10 s una conexión del pool lleno, pero con la base caída falla en ~1 s.
    assert caida.status_code == 503 and int(caida.headers["Retry-After"]) > 0
    assert caida.elapsed.total_seconds() < 4
    assert caida.json()["error"].startswith("La base de datos no responde")
    assert despues.status_code == 200 and despues.json()["usuario"] == "sin-base"
    assert recuperacion_s < 5


@pytest.mark.parametrize(
    ("cuerpo", "tipo"),
    [
        ("{esto no es json", "application/json"),
        ("<html>mantención</html>", "text/html"),
        ('{"data": 5}', "application/json"),
    ],
    ids=["json_roto", "html", "json_de_otra_forma"],
)
def test_una_fuente_externa_que_responde_basura_termina_el_turno_diciendo_que_no_respondio(
    settings: Any, usuaria_con_cliente: AbstractUser, cuerpo: str, tipo: str
) -> None:
    from django.core.cache import cache

    from asistente.services import turno_eventos, turno_iniciar
    from fuentes_externas import eseia
    from tests.utilidades import fuente_local

    local = fuente_local(settings, "ESEIA_URL")
    local.responder(eseia.RUTA, cuerpo=cuerpo, cabeceras={"Content-Type": tipo})
    cache.clear()
    try:
        turno = turno_iniciar(
            usuario=usuaria_con_cliente, mensaje="busca en el e-SEIA proyectos mineros en Antofagasta"
        )
        eventos = list(turno_eventos(turno))
    finally:
        local.cerrar()

    assert eventos[-1].tipo == "done"
    texto = eventos[-1].datos["mensaje"]["contenido"]
    assert "e-SEIA" in texto and ("no respondió" in texto or "falló" in texto)
    assert Mensaje.objects.filter(conversacion=turno.conversacion).count() == 2


@pytest.fixture
def usuaria_con_cliente(capas: Any, crear_usuario: Callable[..., AbstractUser]) -> AbstractUser:
    return crear_usuario("fuente-basura", Rol.LECTURA)


async def _turno_por_websocket(url: str, sesion: str) -> list[str]:
    """Los eventos de un turno por el websocket, o [«cierre N»] si el servidor cierra el socket."""
    import json

    import websockets
    from websockets.typing import Origin

    eventos: list[str] = []
    try:
        async with websockets.connect(
            url, origin=Origin("http://127.0.0.1"), additional_headers={"Cookie": f"sessionid={sesion}"}
        ) as socket:
            await socket.send(json.dumps({"tipo": "mensaje", "mensaje": "hola"}))
            while not eventos or eventos[-1] not in ("done", "error"):
                marco = json.loads(await asyncio.wait_for(socket.recv(), 30))
                if marco["evento"] not in ("latido", "contexto", "aviso"):
                    eventos.append(marco["evento"])
    except websockets.ConnectionClosed as cierre:
        return [f"cierre {cierre.rcvd.code if cierre.rcvd else None}"]
    return eventos


@pytest.mark.lento
def test_con_postgresql_caido_el_websocket_cierra_con_4503_y_al_volver_el_primer_turno_transmite_entero(
    daphne: Callable[..., str], django_db_blocker: Any
) -> None:
    from django.test import Client

    from proyectos.services import usuario_crear_o_actualizar

    with django_db_blocker.unblock():
        usuario = usuario_crear_o_actualizar(nombre="ws-sin-base", rol=Rol.LECTURA).usuario
        navegador: Any = Client()
        navegador.force_login(usuario)
        sesion = navegador.cookies["sessionid"].value
        url = daphne().replace("http://", "ws://") + "/ws/asistente/"
        try:
            antes = asyncio.run(_turno_por_websocket(url, sesion))
            _cortar_conexiones(permitir=False)
            caida = asyncio.run(_turno_por_websocket(url, sesion))
            _cortar_conexiones(permitir=True)
            volvio = time.monotonic()
            despues = asyncio.run(_turno_por_websocket(url, sesion))
            while despues == caida and time.monotonic() - volvio < 10:  # la base se sondea cada 1 s
                time.sleep(0.2)
                despues = asyncio.run(_turno_por_websocket(url, sesion))
        finally:
            _cortar_conexiones(permitir=True)
            get_user_model().objects.filter(username="ws-sin-base").delete()

    assert antes[0] == "meta" and antes[-1] == "done"
    assert caida == ["cierre 4503"]  # como el 503 de la API: chat.js reconecta solo
    assert despues[0] == "meta" and despues[-1] == "done" and "error" not in despues
