"""Fallas de dependencias: qué ve el usuario y que nada se pierda.

Redis: con Redis caído el chat responde 503 en castellano con `Retry-After` y el mensaje se rechaza
explícitamente (no queda a medias); el Redis embebido caído vuelve en su mismo puerto y un cliente
ya creado se reconecta solo, sin reiniciar la aplicación.
"""

import os
import signal
import socket
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import redis
from django.contrib.auth.models import AbstractUser
from rest_framework.test import APIClient

from asistente import services
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
    monkeypatch.setattr(services, "redis_compartido", lambda: muerto)
    services._script_limites.cache_clear()
    yield
    services._script_limites.cache_clear()


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
