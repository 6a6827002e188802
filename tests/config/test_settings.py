"""La configuración se lee del entorno y falla al arrancar, en español, ante valores inválidos."""

import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import connection

from config.settings import entorno

RAIZ = Path(__file__).resolve().parents[2]
SECRETO = "k" * 20 + "9fJ2#xQ7!mZ4@pL8$wR1^tY6&uI3*oP5(aS0)dF"


def ejecutar_manage(*argumentos: str, **variables: str) -> subprocess.CompletedProcess[str]:
    entorno_proceso = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
    entorno_proceso.update(variables)
    return subprocess.run(
        [sys.executable, "manage.py", *argumentos],
        cwd=RAIZ, env=entorno_proceso, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def test_el_idioma_es_espanol_de_chile_y_la_hora_la_de_santiago():
    assert settings.LANGUAGE_CODE == "es-cl"
    assert settings.TIME_ZONE == "America/Santiago"


def test_un_booleano_ambiguo_se_rechaza_nombrando_la_variable(monkeypatch):
    monkeypatch.setenv("DJANGO_DEBUG", "quizás")
    with pytest.raises(ImproperlyConfigured, match="DJANGO_DEBUG inválida"):
        entorno.booleano("DJANGO_DEBUG", defecto=False)


def test_una_url_de_base_de_datos_que_no_es_postgresql_se_rechaza(monkeypatch):
    monkeypatch.setenv("DATABASE_URL", "sqlite:///db.sqlite3")
    with pytest.raises(ImproperlyConfigured, match="DATABASE_URL inválida"):
        entorno.base_de_datos()


def test_una_url_de_redis_mal_formada_se_rechaza(monkeypatch):
    monkeypatch.setenv("REDIS_URL", "localhost:6379")
    with pytest.raises(ImproperlyConfigured, match="REDIS_URL inválida"):
        entorno.url_redis()


def test_un_entero_que_no_es_numero_se_rechaza(monkeypatch):
    monkeypatch.setenv("CELERY_TIME_LIMIT", "mucho")
    with pytest.raises(ImproperlyConfigured, match="CELERY_TIME_LIMIT inválida"):
        entorno.entero("CELERY_TIME_LIMIT", defecto=1)


def test_un_motor_desconocido_se_rechaza_listando_las_opciones(monkeypatch):
    monkeypatch.setenv("ASISTENTE_MOTOR", "gpt")
    with pytest.raises(ImproperlyConfigured, match="auto, claude, reglas"):
        entorno.texto("ASISTENTE_MOTOR", defecto="auto", opciones=("auto", "claude", "reglas"))


@pytest.mark.lento
def test_produccion_con_las_variables_requeridas_pasa_check_deploy():
    resultado = ejecutar_manage(
        "check", "--deploy", "--fail-level", "WARNING",
        DJANGO_SETTINGS_MODULE="config.settings.production",
        DJANGO_SECRET_KEY=SECRETO,
        DJANGO_ALLOWED_HOSTS="prefactibilidad.ejemplo.cl",
        DATABASE_URL=os.environ["DATABASE_URL"],
        REDIS_URL=os.environ["REDIS_URL"],
    )  # fmt: skip
    assert resultado.returncode == 0, resultado.stderr
    assert "no issues" in resultado.stdout


@pytest.mark.lento
def test_produccion_sin_database_url_no_arranca_y_lo_dice_en_espanol():
    variables = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    variables.update(
        DJANGO_SETTINGS_MODULE="config.settings.production",
        DJANGO_SECRET_KEY=SECRETO,
        DJANGO_ALLOWED_HOSTS="prefactibilidad.ejemplo.cl",
    )
    resultado = subprocess.run(
        [sys.executable, "manage.py", "check"], cwd=RAIZ, env=variables, capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip
    assert resultado.returncode != 0
    assert "Falta la variable de entorno DATABASE_URL" in resultado.stderr


@pytest.mark.lento
def test_produccion_rechaza_un_secreto_de_desarrollo():
    resultado = ejecutar_manage(
        "check",
        DJANGO_SETTINGS_MODULE="config.settings.production",
        DJANGO_SECRET_KEY="solo-desarrollo-local-no-usar-en-produccion",
        DJANGO_ALLOWED_HOSTS="prefactibilidad.ejemplo.cl",
        DATABASE_URL=os.environ["DATABASE_URL"],
        REDIS_URL=os.environ["REDIS_URL"],
    )
    assert resultado.returncode != 0
    assert "DJANGO_SECRET_KEY inválida" in resultado.stderr


def test_los_hosts_permitidos_salen_de_las_urls_configuradas_y_una_url_invalida_se_rechaza():
    assert entorno.hosts_de(
        ["https://www.sea.gob.cl/noticias", "http://127.0.0.1:8999"], fijos=["bcn.cl"]
    ) == [
        "bcn.cl",
        "www.sea.gob.cl",
        "127.0.0.1:8999",
    ]
    with pytest.raises(ImproperlyConfigured, match="URL inválida"):
        entorno.hosts_de(["sea.gob.cl/sin-esquema"], fijos=[])


def test_solo_los_sitios_oficiales_estan_permitidos_por_defecto():
    assert "seia.sea.gob.cl" in settings.HTTP_HOSTS_PERMITIDOS
    assert "www.leychile.cl" in settings.HTTP_HOSTS_PERMITIDOS
    assert not any(
        host.startswith(("169.254.", "10.", "localhost")) for host in settings.HTTP_HOSTS_PERMITIDOS
    )


def test_celery_comparte_un_solo_backend_de_resultados_entre_hilos_y_greenlets():
    import threading

    from config.celery import app

    en_otro_hilo = []
    hilo = threading.Thread(target=lambda: en_otro_hilo.append(app.backend))
    hilo.start()
    hilo.join()

    assert en_otro_hilo[0] is app.backend


@pytest.mark.lento
@pytest.mark.parametrize("conexiones", ["12", "0"], ids=["con_pool", "sin_pool"])
def test_produccion_abre_una_conexion_real_y_no_le_faltan_migraciones(conexiones, db):
    # La base de pruebas: ya migrada, a diferencia de la de desarrollo en una copia nueva.
    base = urlsplit(os.environ["DATABASE_URL"])._replace(path=f"/{connection.settings_dict['NAME']}")
    variables = dict(
        DJANGO_SETTINGS_MODULE="config.settings.production",
        DJANGO_SECRET_KEY=SECRETO,
        DJANGO_ALLOWED_HOSTS="prefactibilidad.ejemplo.cl",
        DATABASE_URL=urlunsplit(base),
        REDIS_URL=os.environ["REDIS_URL"],
        BD_CONEXIONES_POR_PROCESO=conexiones,
    )
    consulta = ejecutar_manage(
        "shell", "-c",
        "from django.db import connection\n"
        "with connection.cursor() as c:\n"
        "    c.execute('SELECT count(*) FROM django_migrations')\n"
        "    print('migraciones', c.fetchone()[0])",
        **variables,
    )  # fmt: skip
    assert consulta.returncode == 0, consulta.stderr
    assert "migraciones " in consulta.stdout
    pendientes = ejecutar_manage("migrate", "--check", "--plan", **variables)
    assert pendientes.returncode == 0, pendientes.stdout + pendientes.stderr


@pytest.mark.lento
def test_produccion_nunca_carga_datos_de_demostracion_aunque_el_entorno_lo_pida():
    resultado = ejecutar_manage(
        "demo",
        DJANGO_SETTINGS_MODULE="config.settings.production",
        DJANGO_SECRET_KEY=SECRETO,
        DJANGO_ALLOWED_HOSTS="prefactibilidad.ejemplo.cl",
        DATABASE_URL=os.environ["DATABASE_URL"],
        REDIS_URL=os.environ["REDIS_URL"],
        DATOS_DEMO="1",
    )

    assert resultado.returncode != 0
    assert "no carga datos de demostración" in resultado.stderr


def _redis_de_las_pruebas(proceso: str) -> str:
    variables = {k: v for k, v in os.environ.items() if k != "PYTEST_XDIST_WORKER"}
    if proceso:
        variables["PYTEST_XDIST_WORKER"] = proceso
    codigo = "import config.settings.test as t; print(t.REDIS_URL, t.CACHES['default']['LOCATION'])"
    resultado = subprocess.run(
        [sys.executable, "-c", codigo],
        cwd=RAIZ, env=variables, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert resultado.returncode == 0, resultado.stderr
    redis, cache = resultado.stdout.split()
    assert cache == redis
    return urlsplit(redis).path


def test_cada_proceso_de_pytest_xdist_usa_su_propia_base_de_redis_y_ninguno_la_de_make_run():
    assert _redis_de_las_pruebas("") == "/1"
    assert _redis_de_las_pruebas("gw0") == "/1"
    assert _redis_de_las_pruebas("gw1") == "/2"
