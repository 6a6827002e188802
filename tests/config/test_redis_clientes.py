"""Un cliente Redis por proceso, URL y plazo."""

from django.test import override_settings

from config.redis_clientes import cliente_redis


def test_el_mismo_plazo_comparte_el_cliente_y_otra_url_recibe_otro() -> None:
    compartido = cliente_redis()

    assert cliente_redis() is compartido and compartido.ping()
    assert cliente_redis(espera_s=2) is not compartido
    with override_settings(REDIS_URL="redis://127.0.0.1:1/0"):
        otro = cliente_redis()
    assert otro is not compartido and otro.connection_pool.connection_kwargs["port"] == 1
