"""/api/health/ informa cada componente y responde 503 nombrando lo esencial que falla."""

import pytest
from celery.contrib.testing.worker import start_worker
from django.test import override_settings

from config import servicios
from config.celery import app as celery_app

pytestmark = pytest.mark.django_db


@pytest.fixture
def monitor(client, settings):
    """Un monitor con `SALUD_TOKEN`: ve el detalle sin sesión (que necesitaría la base)."""
    settings.SALUD_TOKEN = "token-de-monitor"
    client.defaults["HTTP_X_SALUD_TOKEN"] = "token-de-monitor"
    return client


def test_con_los_servicios_arriba_responde_200_con_cada_componente(monitor):
    respuesta = monitor.get("/api/health/")

    assert respuesta.status_code == 200
    datos = respuesta.json()
    assert datos["estado"] == "ok" and datos["fallas"] == []
    componentes = datos["componentes"]
    for nombre in ("base_de_datos", "pgvector", "redis", "canales"):
        assert componentes[nombre]["ok"], componentes[nombre]
    assert componentes["base_de_datos"]["detalle"].startswith("PostgreSQL 1")
    assert componentes["pgvector"]["detalle"].startswith("vector 0.")


def test_sin_worker_de_celery_lo_dice_sin_caer(monitor):
    datos = monitor.get("/api/health/").json()

    assert datos["componentes"]["celery"] == {"ok": False, "detalle": "sin_worker"}


def test_con_un_worker_real_la_tarea_ping_responde(monitor):
    # Solo la cola general, como el worker de `make run`: los turnos del chat son de su propio worker.
    with start_worker(
        celery_app, perform_ping_check=False, pool="solo", loglevel="WARNING", queues=["celery"]
    ):
        datos = monitor.get("/api/health/").json()

    assert datos["componentes"]["celery"] == {"ok": True, "detalle": "worker respondió pong"}


def test_sin_clave_de_anthropic_el_motor_es_reglas(monitor, settings):
    settings.ANTHROPIC_API_KEY = ""
    settings.ASISTENTE_MOTOR = "auto"

    assert monitor.get("/api/health/").json()["componentes"]["motor_llm"]["detalle"] == "reglas"


def test_con_clave_de_anthropic_el_motor_es_claude(monitor, settings):
    settings.ANTHROPIC_API_KEY = "sk-ant-prueba"
    settings.ASISTENTE_MOTOR = "auto"

    assert monitor.get("/api/health/").json()["componentes"]["motor_llm"]["detalle"] == "claude"


@pytest.mark.lento
def test_con_redis_detenido_responde_503_nombrando_redis_y_canales(monitor, tmp_path):
    # Un Redis real propio, que se detiene para simular la caída.
    url, _ = servicios.asegurar_redis(directorio=tmp_path)
    capas = {"default": {"BACKEND": "channels_redis.core.RedisChannelLayer", "CONFIG": {"hosts": [url]}}}
    servicios.detener_servicios(directorio=tmp_path)

    with override_settings(REDIS_URL=url, CHANNEL_LAYERS=capas):
        respuesta = monitor.get("/api/health/")

    assert respuesta.status_code == 503
    datos = respuesta.json()
    assert datos["estado"] == "falla"
    assert "redis" in datos["fallas"] and "canales" in datos["fallas"]
    assert datos["componentes"]["base_de_datos"]["ok"]
    assert datos["componentes"]["celery"] == {"ok": False, "detalle": "broker no disponible"}


def test_anonimo_ve_solo_el_estado_y_con_el_token_ve_el_detalle(client, settings):
    settings.SALUD_TOKEN = "token-de-monitor"

    anonimo = client.get("/api/health/")
    token_malo = client.get("/api/health/", HTTP_X_SALUD_TOKEN="otro")
    con_token = client.get("/api/health/", HTTP_X_SALUD_TOKEN="token-de-monitor")

    assert set(anonimo.json()) == {"estado", "fallas"} and "PostgreSQL" not in anonimo.content.decode()
    assert set(token_malo.json()) == {"estado", "fallas"}
    assert con_token.json()["componentes"]["base_de_datos"]["ok"]
