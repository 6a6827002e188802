"""El websocket de eco responde a través de la capa de canales en Redis."""

import importlib

from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.test import override_settings

from config import routing
from config.asgi import application


async def test_el_eco_devuelve_el_mensaje_pasando_por_la_capa_de_canales():
    comunicador = WebsocketCommunicator(application, "/ws/eco/", headers=[(b"origin", b"http://localhost")])
    conectado, _ = await comunicador.connect()
    assert conectado

    await comunicador.send_json_to({"hola": "mundo"})

    assert await comunicador.receive_json_from(timeout=5) == {
        "eco": {"hola": "mundo"},
        "via": "capa_de_canales",
    }
    await comunicador.disconnect()


async def test_la_capa_de_canales_configurada_es_la_de_redis_que_espera_a_redis():
    from channels_redis.core import RedisChannelLayer

    from config.canales import CapaDeCanalesRedis

    capa = get_channel_layer()
    assert isinstance(capa, CapaDeCanalesRedis) and isinstance(capa, RedisChannelLayer)


async def test_un_origen_no_permitido_se_rechaza():
    comunicador = WebsocketCommunicator(
        application, "/ws/eco/", headers=[(b"origin", b"http://malicioso.ejemplo")]
    )
    conectado, _ = await comunicador.connect()
    # El consumidor rechazado sigue esperando en la capa de canales: se desconecta aquí y no queda
    # para cuando se cierra el bucle de la prueba.
    await comunicador.disconnect()
    assert not conectado


def test_sin_websocket_eco_la_ruta_de_eco_no_existe() -> None:
    try:
        with override_settings(WEBSOCKET_ECO=False):
            rutas = [str(r.pattern) for r in importlib.reload(routing).websocket_urlpatterns]
        assert rutas == ["ws/asistente/"]
    finally:
        importlib.reload(routing)
