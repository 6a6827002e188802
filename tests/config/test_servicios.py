"""El arranque embebido: PostgreSQL+pgvector y Redis en var/, compartidos y a prueba de caídas."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import psycopg
import pytest
import redis

from config import servicios

pytestmark = pytest.mark.lento
RAIZ = Path(__file__).resolve().parents[2]


def entorno_sin_urls(directorio: Path) -> dict[str, str]:
    entorno = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    entorno["VAR_DIR"] = str(directorio)
    return entorno


def iniciar_en_otro_proceso(directorio: Path) -> dict[str, str]:
    salida = subprocess.run(
        [sys.executable, "-m", "config.servicios", "iniciar"],
        cwd=RAIZ,
        env=entorno_sin_urls(directorio),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    return dict(linea.split("=", 1) for linea in salida.strip().splitlines())


@pytest.fixture
def directorio(tmp_path_factory: pytest.TempPathFactory):
    # Un directorio propio por prueba: nunca se toca el var/ del desarrollador.
    base = tmp_path_factory.mktemp("var")
    yield base
    servicios.detener_servicios(directorio=base)


def test_sin_urls_arranca_postgres_con_pgvector_y_redis_embebidos(directorio, monkeypatch):
    monkeypatch.delenv("DATABASE_URL")
    monkeypatch.delenv("REDIS_URL")

    entorno = servicios.preparar_entorno(directorio=directorio)

    assert entorno.postgres_iniciado and entorno.redis_iniciado
    assert os.environ["DATABASE_URL"] == entorno.database_url
    with psycopg.connect(entorno.database_url) as con:
        con.execute("CREATE EXTENSION IF NOT EXISTS vector")
        assert con.execute("SELECT '[1,2,3]'::vector <-> '[1,2,4]'::vector").fetchone() == (1.0,)
    assert redis.Redis.from_url(entorno.redis_url).ping()
    assert (directorio / "pgdata" / "PG_VERSION").exists()


def test_con_urls_configuradas_usa_esos_servidores_y_no_arranca_nada(directorio, monkeypatch):
    monkeypatch.setenv("DATABASE_URL", "postgresql://usuario@db.ejemplo:5432/produccion")
    monkeypatch.setenv("REDIS_URL", "redis://cache.ejemplo:6379/3")

    entorno = servicios.preparar_entorno(directorio=directorio)

    assert entorno.database_url == "postgresql://usuario@db.ejemplo:5432/produccion"
    assert entorno.redis_url == "redis://cache.ejemplo:6379/3"
    assert not entorno.postgres_iniciado and not entorno.redis_iniciado
    assert not (directorio / "pgdata").exists() and not (directorio / "redis").exists()


def test_varios_procesos_a_la_vez_comparten_las_mismas_instancias(directorio):
    entorno = entorno_sin_urls(directorio)
    comando = [sys.executable, "-m", "config.servicios", "iniciar"]
    procesos = [
        subprocess.Popen(comando, cwd=RAIZ, env=entorno, stdout=subprocess.PIPE, text=True) for _ in range(3)
    ]
    salidas = {proceso.communicate(timeout=120)[0] for proceso in procesos}

    assert all(proceso.returncode == 0 for proceso in procesos)
    assert len(salidas) == 1, "los tres procesos debieron recibir las mismas URLs"
    postmasters = [
        p
        for p in psutil.process_iter(["cmdline"])
        if str(directorio / "pgdata") in " ".join(p.info["cmdline"] or [])
        and "-D" in (p.info["cmdline"] or [])
    ]
    assert len(postmasters) == 1


def test_un_segundo_arranque_reutiliza_lo_que_ya_corre_en_menos_de_un_segundo(directorio):
    primero = iniciar_en_otro_proceso(directorio)
    inicio = time.monotonic()
    segundo = iniciar_en_otro_proceso(directorio)

    assert segundo == primero
    assert time.monotonic() - inicio < 5  # incluye arrancar el intérprete


def test_un_redis_caido_con_pidfile_huerfano_no_impide_el_siguiente_arranque(directorio):
    urls = iniciar_en_otro_proceso(directorio)
    pid = int((directorio / "redis" / "redis.pid").read_text())
    os.kill(pid, signal.SIGKILL)
    psutil.Process(pid).wait(5) if psutil.pid_exists(pid) else None

    nuevas = iniciar_en_otro_proceso(directorio)

    assert redis.Redis.from_url(nuevas["REDIS_URL"]).ping()
    assert nuevas["DATABASE_URL"] == urls["DATABASE_URL"]


def test_un_postgres_matado_con_kill_9_se_recupera_al_siguiente_arranque(directorio):
    urls = iniciar_en_otro_proceso(directorio)
    with psycopg.connect(urls["DATABASE_URL"], autocommit=True) as con:
        con.execute("CREATE TABLE dato (valor int)")
        con.execute("INSERT INTO dato VALUES (42)")
    pid = int((directorio / "pgdata" / "postmaster.pid").read_text().splitlines()[0])
    os.kill(pid, signal.SIGKILL)
    psutil.Process(pid).wait(5)

    nuevas = iniciar_en_otro_proceso(directorio)

    with psycopg.connect(nuevas["DATABASE_URL"]) as con:
        assert con.execute("SELECT valor FROM dato").fetchone() == (42,)


def test_detener_no_deja_procesos_de_postgres_ni_de_redis(directorio):
    iniciar_en_otro_proceso(directorio)

    detenidos = servicios.detener_servicios(directorio=directorio)

    assert sorted(detenidos) == ["postgres", "redis"]
    restos = [
        p for p in psutil.process_iter(["cmdline"]) if str(directorio) in " ".join(p.info["cmdline"] or [])
    ]
    assert restos == []


def test_detener_otro_directorio_no_olvida_lo_que_este_proceso_arranco(tmp_path_factory):
    propio, ajeno = tmp_path_factory.mktemp("propio"), tmp_path_factory.mktemp("ajeno")
    servicios.asegurar_redis(directorio=propio)
    servicios.asegurar_redis(directorio=ajeno)

    servicios.detener_servicios(directorio=ajeno)

    assert servicios.detener_servicios(directorio=propio, solo_iniciados=True) == ["redis"]


def test_solo_iniciados_no_detiene_instancias_que_arranco_otro_proceso(directorio):
    iniciar_en_otro_proceso(directorio)

    assert servicios.detener_servicios(directorio=directorio, solo_iniciados=True) == []
    assert servicios._puerto_redis_vivo(directorio / "redis") is not None
