"""La caché del trabajo accesorio sigue sin Redis: leer da «no está», escribir y contar no fallan."""

import socket
from typing import Any

import pytest

from config import cache


def _puerto_sin_servidor() -> int:
    with socket.socket() as prueba:
        prueba.bind(("127.0.0.1", 0))
        return int(prueba.getsockname()[1])


@pytest.fixture
def cache_sin_redis(settings: Any) -> None:
    muerto = f"redis://127.0.0.1:{_puerto_sin_servidor()}/0"
    settings.CACHES = {**settings.CACHES, "default": {**settings.CACHES["default"], "LOCATION": muerto}}


@pytest.mark.usefixtures("cache_sin_redis")
def test_sin_redis_leer_devuelve_el_defecto_y_guardar_o_contar_no_fallan() -> None:
    cache.guardar("prueba:sin-redis", {"dato": 1}, 60)
    cache.contar("prueba:sin-redis:contador")

    assert cache.leer("prueba:sin-redis") is None
    assert cache.leer("prueba:sin-redis:contador", 0) == 0


def test_con_redis_guarda_lee_y_cuenta_desde_uno() -> None:
    from django.core.cache import cache as de_django

    de_django.delete_many(["prueba:con-redis", "prueba:con-redis:contador"])
    cache.guardar("prueba:con-redis", {"dato": 1}, 60)
    cache.contar("prueba:con-redis:contador")
    cache.contar("prueba:con-redis:contador")

    assert cache.leer("prueba:con-redis") == {"dato": 1}
    assert cache.leer("prueba:con-redis:contador") == 2
