"""El pool que sana solo (`config/bd/base.py`) contra un PostgreSQL real.

Un corte se simula en una base propia de la prueba: se le prohíben las conexiones y se terminan las
que había (PostgreSQL responde «no acepta conexiones» al instante, como un servidor caído que rechaza),
y después se le vuelven a permitir. Con el pool por omisión de psycopg, al volver la base el pool
seguía esperando su próximo reintento (esperas que se duplican hasta 5 minutos).
"""

import time
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from django.db import connection

from config.bd.base import MENSAJE_CAIDA, PoolQueSana

BASE = "prueba_pool_que_sana"


def _administrar(*sentencias: str) -> None:
    parametros = {**connection.get_connection_params(), "dbname": "postgres", "autocommit": True}
    for clave in ("cursor_factory", "context"):
        parametros.pop(clave, None)
    with psycopg.connect(**parametros) as administrador:
        for sentencia in sentencias:
            administrador.execute(sentencia)


def _cortar() -> None:
    _administrar(
        f'ALTER DATABASE "{BASE}" WITH ALLOW_CONNECTIONS false',
        f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{BASE}'",
    )


def _restablecer() -> None:
    _administrar(f'ALTER DATABASE "{BASE}" WITH ALLOW_CONNECTIONS true')


@pytest.fixture
def pool(django_db_setup: None, django_db_blocker: Any) -> Iterator[PoolQueSana]:
    with django_db_blocker.unblock():
        _administrar(f'DROP DATABASE IF EXISTS "{BASE}" WITH (FORCE)', f'CREATE DATABASE "{BASE}"')
        parametros = {**connection.get_connection_params(), "dbname": BASE, "autocommit": True}
        parametros["connect_timeout"] = 2
        sano = PoolQueSana(kwargs=parametros, min_size=2, max_size=4, timeout=10, check=True, open=True)
        sano.wait(10)
        try:
            yield sano
        finally:
            sano.close()
            _restablecer()
            _administrar(f'DROP DATABASE IF EXISTS "{BASE}" WITH (FORCE)')


def _consultar(pool: PoolQueSana) -> int:
    with pool.connection() as conexion:
        fila = conexion.execute("SELECT 1").fetchone()
        return int(fila[0]) if fila else 0


def test_con_la_base_caida_el_pool_responde_en_un_segundo_y_luego_en_el_acto(
    pool: PoolQueSana, django_db_blocker: Any
) -> None:
    with django_db_blocker.unblock():
        _cortar()

    inicio = time.monotonic()
    with pytest.raises(psycopg.OperationalError):
        _consultar(pool)
    primera_s = time.monotonic() - inicio
    inicio = time.monotonic()
    with pytest.raises(psycopg.OperationalError, match="no responde"):
        _consultar(pool)
    siguiente_s = time.monotonic() - inicio

    assert primera_s < 3, f"la primera falla tardó {primera_s:.1f} s (plazo del pool: 10 s)"
    assert siguiente_s < 0.2
    assert pool.estado.caida and MENSAJE_CAIDA


def test_al_volver_la_base_el_pool_conecta_enseguida_sin_esperar_sus_reintentos(
    pool: PoolQueSana, django_db_blocker: Any
) -> None:
    with django_db_blocker.unblock():
        _cortar()
        with pytest.raises(psycopg.OperationalError):
            _consultar(pool)
        time.sleep(8)  # un corte de varios segundos: el pool por omisión ya esperaría 8 s entre intentos
        _restablecer()

    inicio = time.monotonic()
    resultado = None
    while resultado is None and time.monotonic() - inicio < 10:
        try:
            resultado = _consultar(pool)
        except psycopg.OperationalError:
            time.sleep(0.1)
    recuperacion_s = time.monotonic() - inicio

    assert resultado == 1
    assert recuperacion_s < 3, f"tardó {recuperacion_s:.1f} s en volver"
    assert not pool.estado.caida


def test_tras_un_reinicio_las_conexiones_muertas_se_descartan_todas_de_una_vez(
    pool: PoolQueSana, django_db_blocker: Any
) -> None:
    assert _consultar(pool) == 1
    with django_db_blocker.unblock():
        # Un reinicio breve: las conexiones del pool mueren, la base vuelve enseguida.
        _cortar()
        _restablecer()

    inicio = time.monotonic()
    assert _consultar(pool) == 1
    assert time.monotonic() - inicio < 4
