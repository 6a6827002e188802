"""/metrics: las métricas de todos los procesos en el formato de Prometheus, solo para quien corresponde."""

import os
import subprocess
import sys

import pytest
from django.test import Client, override_settings
from prometheus_client.parser import text_string_to_metric_families

from config import metricas
from config.celery import app

RAIZ = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def familias(texto: str) -> dict[str, list[tuple[dict[str, str], float]]]:
    return {f.name: [(m.labels, m.value) for m in f.samples] for f in text_string_to_metric_families(texto)}


def test_sin_token_ni_ip_permitida_metrics_responde_403_en_castellano(client: Client) -> None:
    with override_settings(METRICAS_TOKEN="secreto", METRICAS_IPS=[]):
        sin_token = client.get("/metrics")
        token_errado = client.get("/metrics", HTTP_AUTHORIZATION="Bearer otro")

    assert sin_token.status_code == token_errado.status_code == 403
    assert "Acceso denegado" in sin_token.content.decode()


def test_sin_token_configurado_un_token_vacio_no_abre_la_puerta(client: Client) -> None:
    with override_settings(METRICAS_TOKEN="", METRICAS_IPS=[]):
        assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer ").status_code == 403


def test_con_el_token_metrics_entrega_el_formato_de_prometheus_con_las_metricas_del_producto(
    client: Client,
) -> None:
    metricas.turnos_total.labels(motor="reglas", resultado="respondida").inc()

    with override_settings(METRICAS_TOKEN="secreto", METRICAS_IPS=[]):
        respuesta = client.get("/metrics", HTTP_AUTHORIZATION="Bearer secreto")

    assert respuesta.status_code == 200 and respuesta["Content-Type"].startswith("text/plain")
    nombres = familias(respuesta.content.decode())
    # En modo multiproceso solo aparecen las series que algún proceso ya escribió.
    assert "asistente_turnos" in nombres
    assert any(
        etiquetas == {"motor": "reglas", "resultado": "respondida"} and valor >= 1
        for etiquetas, valor in nombres["asistente_turnos"]
    )


def test_desde_una_ip_permitida_no_hace_falta_token(client: Client) -> None:
    with override_settings(METRICAS_TOKEN="", METRICAS_IPS=["127.0.0.1"]):
        assert client.get("/metrics").status_code == 200


def test_lo_que_cuenta_otro_proceso_aparece_sumado_en_metrics() -> None:
    def fallas_de_sea() -> float:
        muestras = familias(metricas.exponer().decode()).get("fuentes_externas_fallas", [])
        return sum(valor for etiquetas, valor in muestras if etiquetas == {"fuente": "sea"})

    antes = fallas_de_sea()
    codigo = "from config import metricas; metricas.fuentes_fallas_total.labels(fuente='sea').inc(3)"

    subprocess.run([sys.executable, "-c", codigo], cwd=RAIZ, check=True, env=os.environ.copy())

    assert fallas_de_sea() == antes + 3


def test_los_aciertos_de_cache_de_todos_los_procesos_se_leen_para_el_panel() -> None:
    antes = metricas.cache_contada().get("embeddings", {"acierto": 0, "fallo": 0})
    metricas.contar_cache("embeddings", acierto=False)
    codigo = (
        "from config import metricas; [metricas.contar_cache('embeddings', acierto=True) for _ in range(2)]"
    )

    subprocess.run([sys.executable, "-c", codigo], cwd=RAIZ, check=True, env=os.environ.copy())

    despues = metricas.cache_contada()["embeddings"]
    assert despues == {"acierto": antes["acierto"] + 2, "fallo": antes["fallo"] + 1}


@pytest.mark.django_db
def test_una_tarea_de_celery_que_falla_suma_en_su_contador() -> None:
    @app.task(name="pruebas.tarea_que_falla")
    def tarea_que_falla() -> None:
        raise ValueError("falla a propósito")

    serie = metricas.tareas_fallidas_total.labels(tarea="pruebas.tarea_que_falla")
    antes = serie._value.get()

    tarea_que_falla.apply()

    assert serie._value.get() == antes + 1
