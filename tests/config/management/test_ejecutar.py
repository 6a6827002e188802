"""`manage.py ejecutar` (lo que corre `make run`) en una máquina limpia: sirve todo; Ctrl-C no deja huérfanos.

Usa un directorio var/ propio, de modo que arranca PostgreSQL y Redis embebidos desde cero.
"""

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import psutil
import pytest
import websockets
from django.conf import settings
from websockets.typing import Origin

from tests.utilidades import puerto_libre

pytestmark = pytest.mark.lento
RAIZ = Path(__file__).resolve().parents[3]

TOKEN_SALUD = "token-de-la-prueba"


class Servidor:
    def __init__(self, directorio: Path) -> None:
        self.puerto = puerto_libre()
        self.directorio = directorio
        # Sin las URLs ni el directorio de métricas de la sesión de pruebas (`ejecutar` lo vaciaría).
        excluidas = {"DATABASE_URL", "REDIS_URL", "PROMETHEUS_MULTIPROC_DIR"}
        entorno = {k: v for k, v in os.environ.items() if k not in excluidas}
        entorno["SALUD_TOKEN"] = TOKEN_SALUD
        entorno["WEBSOCKET_ECO"] = "true"  # la prueba de punta a punta de la capa de canales
        entorno.update(VAR_DIR=str(directorio), DJANGO_SETTINGS_MODULE="config.settings.local")
        self.proceso = subprocess.Popen(
            [sys.executable, "manage.py", "ejecutar", "--puerto", str(self.puerto)],
            cwd=RAIZ, env=entorno, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            start_new_session=True,
        )  # fmt: skip
        self.lineas: list[str] = []
        threading.Thread(target=self._leer, daemon=True).start()

    def _leer(self) -> None:
        assert self.proceso.stdout is not None
        for linea in self.proceso.stdout:
            self.lineas.append(linea)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.puerto}"

    def esperar_salud(self, limite_s: float = 240) -> dict[str, Any]:
        # Preparar desde cero (PostgreSQL, migraciones, corpus y capas) toma ~110 s aquí; con la
        # máquina cargada, más: el límite es para un arranque colgado, no para medir.
        fin = time.monotonic() + limite_s
        ultimo: dict[str, Any] = {}
        while time.monotonic() < fin:
            assert self.proceso.poll() is None, "".join(self.lineas)
            try:
                ultimo = httpx.get(
                    f"{self.url}/api/health/", headers={"X-Salud-Token": TOKEN_SALUD}, timeout=10
                ).json()
                if ultimo["componentes"]["celery"]["ok"]:
                    return ultimo
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        raise AssertionError(f"no quedó sano: {ultimo}\n{''.join(self.lineas)}")


async def eco(url: str) -> dict[str, Any]:
    async with websockets.connect(url, origin=Origin("http://127.0.0.1")) as socket:
        await socket.send(json.dumps({"hola": "mundo"}))
        datos: dict[str, Any] = json.loads(await asyncio.wait_for(socket.recv(), 10))
        return datos


async def saludar_al_asistente(url: str, sesion: str) -> list[str]:
    """Un turno del chat por el websocket; con `make run` lo ejecuta el worker «turnos»."""
    cabeceras = {"Cookie": f"sessionid={sesion}"}
    async with websockets.connect(
        url, origin=Origin("http://127.0.0.1"), additional_headers=cabeceras
    ) as socket:
        await socket.send(json.dumps({"tipo": "mensaje", "mensaje": "hola"}))
        eventos: list[str] = []
        while not eventos or eventos[-1] not in ("done", "error"):
            marco = json.loads(await asyncio.wait_for(socket.recv(), 60))
            if marco["evento"] not in ("latido", "contexto", "aviso"):
                eventos.append(marco["evento"])
        return eventos


def ingresar_al_admin(url: str, usuario: str, password: str) -> tuple[int, str]:
    with httpx.Client(base_url=url, follow_redirects=True, timeout=10) as navegador:
        formulario = navegador.get("/admin/login/").text
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', formulario)
        assert token
        respuesta = navegador.post(
            "/admin/login/?next=/admin/",
            data={"csrfmiddlewaretoken": token.group(1), "username": usuario, "password": password},
            headers={"Referer": f"{url}/admin/login/"},
        )
        assert "Cerrar sesión" in respuesta.text or "Terminar sesión" in respuesta.text, respuesta.text[:500]
        return respuesta.status_code, navegador.cookies["sessionid"]


def test_ejecutar_sirve_salud_admin_eco_y_chat_con_su_worker_de_turnos_y_ctrl_c_no_deja_procesos(tmp_path):
    servidor = Servidor(tmp_path)
    try:
        salud = servidor.esperar_salud()
        assert salud["estado"] == "ok"
        assert all(
            salud["componentes"][c]["ok"] for c in ("base_de_datos", "pgvector", "redis", "canales", "celery")
        )

        assert httpx.get(servidor.url + "/", timeout=10).status_code == 200
        credenciales = next(linea for linea in servidor.lineas if "Superusuario de demostración" in linea)
        usuario, password = credenciales.split(": ", 1)[1].strip().split(" / ")
        estado, sesion = ingresar_al_admin(servidor.url, usuario, password)
        assert estado == 200

        eventos = asyncio.run(saludar_al_asistente(f"ws://127.0.0.1:{servidor.puerto}/ws/asistente/", sesion))
        assert eventos[0] == "meta" and eventos[-1] == "done"

        respuesta = asyncio.run(eco(f"ws://127.0.0.1:{servidor.puerto}/ws/eco/"))
        assert respuesta == {"eco": {"hola": "mundo"}, "via": "capa_de_canales"}

        hijos = psutil.Process(servidor.proceso.pid).children(recursive=True)
        web = next(p for p in hijos if "daphne" in " ".join(p.cmdline()))
        assert web.environ()["ASISTENTE_TURNOS_EN"] == "worker"  # el turno anterior lo corrió «turnos»
        turnos = [p for p in hijos if "-Q turnos" in " ".join(p.cmdline())]
        assert len(turnos) == settings.ASISTENTE_PROCESOS_TURNOS == 2
        pid_postgres = int((tmp_path / "pgdata" / "postmaster.pid").read_text().splitlines()[0])
        pid_redis = int((tmp_path / "redis" / "redis.pid").read_text())
    finally:
        servidor.proceso.send_signal(signal.SIGINT)
        servidor.proceso.wait(60)

    vivos = [p for p in hijos if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]
    assert vivos == []
    assert (
        not psutil.pid_exists(pid_postgres) or psutil.Process(pid_postgres).status() == psutil.STATUS_ZOMBIE
    )
    assert not psutil.pid_exists(pid_redis) or psutil.Process(pid_redis).status() == psutil.STATUS_ZOMBIE
    assert "Servicios embebidos detenidos: redis, postgres." in "".join(servidor.lineas)
