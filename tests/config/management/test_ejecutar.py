"""`manage.py ejecutar` (lo que corre `make run`) en una máquina limpia, y las fallas que sana solo.

Un solo `ejecutar` para todo el módulo, con un directorio var/ propio (arranca PostgreSQL y Redis
embebidos desde cero) y Claude apuntado a un suplente local que escribe despacio (un turno dura ~15 s:
hay tiempo para cortar algo a mitad de camino). Las pruebas corren en orden sobre el mismo sistema:
1. sirve salud, admin, eco y chat, con sus procesos supervisados;
2. un proceso que muere (beat, web, worker) vuelve con su motivo en el log y los demás siguen;
3. un corte de PostgreSQL: 503 en el acto (API y páginas), beat sigue vivo, y al volver la base la API,
   las páginas, el SSE y el websocket responden en menos de 5 s, sin reiniciar nada;
4. Redis muere a mitad de un turno: el SSE y el websocket terminan en menos de 5 s con un error que dice
   que el turno sigue y cómo reanudar; al volver Redis se reanudan hasta `done`;
5. el worker de «turnos» que corre un turno muere: el cliente recibe `reinicio` en menos de 5 s y el
   otro worker lo termina, con una sola respuesta guardada;
6. Ctrl-C no deja procesos.
Cada una de 2–4 falla con el código anterior (honcho derribaba todo; el pool tardaba ~2 min en volver;
los flujos quedaban colgados 60–150 s).
"""

import asyncio
import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import psutil
import pytest
import websockets
from django.conf import settings
from websockets.typing import Origin

from config.servicios import _detener_postgres, _leer_entero, asegurar_postgres, redis_responde
from tests.utilidades import ServidorClaude, eventos_sse, mensaje_sse, puerto_libre

pytestmark = pytest.mark.lento
RAIZ = Path(__file__).resolve().parents[3]

TOKEN_SALUD = "token-de-la-prueba"
RESPUESTA_LARGA = " ".join(f"palabra{n}" for n in range(300))
PAUSA_TROZO_S = 0.05  # 300 trozos: un turno de ~15 s
LIMITE_RECUPERACION_S = 5.0


class Servidor:
    def __init__(self, directorio: Path, claude_url: str) -> None:
        self.puerto = puerto_libre()
        self.directorio = directorio
        # Sin las URLs ni el directorio de métricas de la sesión de pruebas (`ejecutar` lo vaciaría).
        excluidas = {"DATABASE_URL", "REDIS_URL", "PROMETHEUS_MULTIPROC_DIR"}
        self.entorno = {k: v for k, v in os.environ.items() if k not in excluidas}
        self.entorno.update(
            SALUD_TOKEN=TOKEN_SALUD,
            WEBSOCKET_ECO="true",  # la prueba de punta a punta de la capa de canales
            VAR_DIR=str(directorio),
            DJANGO_SETTINGS_MODULE="config.settings.local",
            ANTHROPIC_API_KEY="clave-de-prueba",
            ANTHROPIC_BASE_URL=claude_url,
        )
        self.proceso = subprocess.Popen(
            [sys.executable, "manage.py", "ejecutar", "--puerto", str(self.puerto)],
            cwd=RAIZ, env=self.entorno, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
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

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.puerto}/ws/asistente/"

    def salud(self) -> dict[str, Any]:
        datos: dict[str, Any] = httpx.get(
            f"{self.url}/api/health/", headers={"X-Salud-Token": TOKEN_SALUD}, timeout=10
        ).json()
        return datos

    def esperar_salud(self, limite_s: float = 240) -> dict[str, Any]:
        # Preparar desde cero (PostgreSQL, migraciones, corpus y capas) toma ~110 s aquí; con la
        # máquina cargada, más: el límite es para un arranque colgado, no para medir.
        fin = time.monotonic() + limite_s
        ultimo: dict[str, Any] = {}
        while time.monotonic() < fin:
            assert self.proceso.poll() is None, "".join(self.lineas)
            try:
                ultimo = self.salud()
                if ultimo["componentes"]["celery"]["ok"]:
                    return ultimo
            except (httpx.HTTPError, ValueError):
                pass
            time.sleep(0.5)
        raise AssertionError(f"no quedó sano: {ultimo}\n{''.join(self.lineas)}")

    def pid(self, programa: str) -> int:
        """El pid de un proceso supervisado, según supervisord."""
        salida = subprocess.run(
            [sys.executable, "-m", "supervisor.supervisorctl", "-c",
             str(self.directorio / "supervision" / "supervisord.conf"), "pid", programa],
            capture_output=True, text=True, timeout=30,
        ).stdout.strip()  # fmt: skip
        assert salida.isdigit() and int(salida) > 0, f"{programa}: {salida}"
        return int(salida)

    def manage(self, *argumentos: str) -> str:
        """Un comando de manage.py sobre la base de este sistema."""
        entorno = {**self.entorno, "DATABASE_URL": self.database_url, "REDIS_URL": self.redis_url}
        resultado = subprocess.run(
            [sys.executable, "manage.py", *argumentos], cwd=RAIZ, env=entorno,
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert resultado.returncode == 0, resultado.stderr[-2000:]
        return resultado.stdout

    @property
    def database_url(self) -> str:
        socket_dir = (self.directorio / "pgdata" / "postmaster.pid").read_text().splitlines()[4]
        return f"postgresql://postgres@/prefactibilidad?host={socket_dir}"

    @property
    def redis_url(self) -> str:
        return f"redis://127.0.0.1:{_leer_entero(self.directorio / 'redis' / 'puerto')}/0"


@pytest.fixture(scope="module")
def claude() -> Iterator[ServidorClaude]:
    suplente = ServidorClaude(
        guion=lambda pedido: mensaje_sse({"type": "text", "text": RESPUESTA_LARGA}), pausa_s=PAUSA_TROZO_S
    )
    yield suplente
    suplente.cerrar()


@pytest.fixture(scope="module")
def servidor(tmp_path_factory: pytest.TempPathFactory, claude: ServidorClaude) -> Iterator[Servidor]:
    directorio = tmp_path_factory.mktemp("var-ejecutar")
    os.chmod(directorio, 0o777)  # como root, pgserver corre PostgreSQL con su propio usuario
    sistema = Servidor(directorio, claude.url)
    try:
        sistema.esperar_salud()
        yield sistema
    finally:
        if sistema.proceso.poll() is None:  # una prueba falló antes de Ctrl-C: que no quede nada
            procesos = [psutil.Process(sistema.proceso.pid)]
            procesos += procesos[0].children(recursive=True)
            for proceso in procesos:
                with contextlib.suppress(psutil.Error):
                    proceso.kill()
            subprocess.run(
                [sys.executable, "-m", "config.servicios", "detener"], env=sistema.entorno, cwd=RAIZ
            )


@pytest.fixture(scope="module")
def sesion(servidor: Servidor) -> str:
    credenciales = next(linea for linea in servidor.lineas if "Superusuario de demostración" in linea)
    usuario, password = credenciales.split(": ", 1)[1].strip().split(" / ")
    return ingresar_al_admin(servidor.url, usuario, password)[1]


@pytest.fixture(scope="module")
def token(servidor: Servidor) -> str:
    salida = servidor.manage(
        "crear_usuario", "api-fallas", "--rol", "escritura", "--cliente", "Minera Fallas"
    )
    encontrado = re.search(r"\b[0-9a-f]{40}\b", salida)
    assert encontrado, salida
    return encontrado.group()


def test_ejecutar_sirve_salud_admin_eco_y_chat_con_sus_procesos_supervisados(
    servidor: Servidor, sesion: str
) -> None:
    salud = servidor.salud()
    assert salud["estado"] == "ok"
    assert all(
        salud["componentes"][c]["ok"] for c in ("base_de_datos", "pgvector", "redis", "canales", "celery")
    )
    assert httpx.get(servidor.url + "/", timeout=10).status_code == 200

    eventos = asyncio.run(chat_por_websocket(servidor.ws, sesion, "hola"))
    assert eventos[0] == "meta" and eventos[-1] == "done"
    respuesta = asyncio.run(eco(f"ws://127.0.0.1:{servidor.puerto}/ws/eco/"))
    assert respuesta == {"eco": {"hola": "mundo"}, "via": "capa_de_canales"}

    hijos = psutil.Process(servidor.proceso.pid).children(recursive=True)
    web = psutil.Process(servidor.pid("web"))
    assert web in hijos and "daphne" in " ".join(web.cmdline())
    assert web.environ()["ASISTENTE_TURNOS_EN"] == "worker"  # el turno anterior lo corrió «turnos»
    turnos = [p for p in hijos if "-Q turnos" in " ".join(p.cmdline())]
    assert len(turnos) == settings.ASISTENTE_PROCESOS_TURNOS == 2
    # La consola muestra cada proceso con su nombre delante, como antes; y su log queda en var/logs/.
    consola = "".join(servidor.lineas)
    assert re.search(r"^\d\d:\d\d:\d\d web\s+\|", consola, re.MULTILINE)
    assert (servidor.directorio / "logs" / "beat.log").stat().st_size > 0


@pytest.mark.parametrize("programa", ["beat", "web", "worker"])
def test_un_proceso_que_muere_vuelve_con_su_motivo_en_el_log_y_los_demas_siguen(
    servidor: Servidor, programa: str
) -> None:
    otros = {p: servidor.pid(p) for p in ("web", "worker", "beat", "turnos1") if p != programa}
    muerto = servidor.pid(programa)

    os.kill(muerto, signal.SIGKILL)
    nuevo = _esperar(lambda: _pid_nuevo(servidor, programa, muerto), limite_s=30)

    assert nuevo != muerto
    assert _esperar(
        lambda: f"exited: {programa} (terminated by SIGKILL; not expected)" in "".join(servidor.lineas), 10
    )
    assert {p: servidor.pid(p) for p in otros} == otros
    assert servidor.proceso.poll() is None
    assert _esperar(lambda: servidor.salud()["estado"] == "ok", limite_s=30)


def test_tras_un_corte_de_postgresql_todo_responde_en_5_s_sin_reiniciar_nada_y_beat_sigue_vivo(
    servidor: Servidor, sesion: str, token: str
) -> None:
    cabeceras = {"Authorization": f"Token {token}"}
    procesos = {p: servidor.pid(p) for p in ("web", "worker", "beat", "turnos1", "turnos2")}
    assert httpx.get(f"{servidor.url}/api/proyectos/", headers=cabeceras, timeout=10).status_code == 200
    lineas_antes = len(servidor.lineas)

    _detener_postgres(servidor.directorio / "pgdata")
    try:
        inicio = time.monotonic()
        api = httpx.get(f"{servidor.url}/api/proyectos/", headers=cabeceras, timeout=60)
        primera_s = time.monotonic() - inicio
        pagina = httpx.get(f"{servidor.url}/proyectos/", cookies={"sessionid": sesion}, timeout=60)
        time.sleep(6)  # un corte que dura: beat y los workers lo viven
    finally:
        asegurar_postgres(directorio=servidor.directorio)
    volvio = time.monotonic()

    recuperados = {
        "api": _esperar(lambda: _api_responde(servidor, cabeceras), LIMITE_RECUPERACION_S),
        "pagina": _esperar(lambda: _pagina_responde(servidor, sesion), LIMITE_RECUPERACION_S),
        "sse": _esperar(lambda: _sse_termina(servidor, cabeceras, "hola"), LIMITE_RECUPERACION_S),
        "websocket": _esperar(
            lambda: asyncio.run(chat_por_websocket(servidor.ws, sesion, "hola"))[-1] == "done",
            LIMITE_RECUPERACION_S,
        ),
    }
    recuperacion_s = time.monotonic() - volvio

    assert api.status_code == 503 and api.headers["Retry-After"] and api.json()["error"]
    assert primera_s < 5, f"la primera respuesta con la base caída tardó {primera_s:.1f} s"
    assert pagina.status_code == 503 and "base de datos" in pagina.text  # no un 500
    assert all(recuperados.values()), recuperados
    assert recuperacion_s < 4 * LIMITE_RECUPERACION_S
    assert {p: servidor.pid(p) for p in procesos} == procesos  # nada reiniciado, beat incluido
    assert "exited:" not in "".join(servidor.lineas[lineas_antes:])


def test_si_redis_muere_a_mitad_de_un_turno_el_sse_y_el_websocket_terminan_reanudables_y_se_reanudan(
    servidor: Servidor, sesion: str, token: str
) -> None:
    cabeceras = {"Authorization": f"Token {token}"}
    sse = _FlujoSse(servidor, cabeceras, "¿Qué es una DIA?")
    socket_ws = _ChatWebsocket(servidor.ws, sesion, "¿Qué es un EIA?")
    assert _esperar(lambda: sse.tokens() >= 5 and socket_ws.tokens() >= 5, limite_s=30)

    muerte = time.monotonic()
    os.kill(_leer_entero(servidor.directorio / "redis" / "redis.pid") or 0, signal.SIGKILL)
    assert _esperar(lambda: sse.termino and socket_ws.error is not None, limite_s=LIMITE_RECUPERACION_S)
    fin_s = time.monotonic() - muerte
    puerto = _leer_entero(servidor.directorio / "redis" / "puerto") or 0
    assert _esperar(lambda: redis_responde(puerto), limite_s=15)  # el vigía lo reinicia
    volvio = time.monotonic()
    nuevo_ws = _esperar(
        lambda: asyncio.run(chat_por_websocket(servidor.ws, sesion, "hola"))[-1] == "done",
        LIMITE_RECUPERACION_S,
    )
    nuevo_ws_s = time.monotonic() - volvio
    nuevo_sse = _esperar(lambda: _sse_termina(servidor, cabeceras, "hola"), LIMITE_RECUPERACION_S)
    nuevo_sse_s = time.monotonic() - volvio
    reanudado_sse = _reanudar_sse(servidor, cabeceras, sse.conversacion, sse.ultimo)
    reanudado_ws = socket_ws.reanudar()

    assert fin_s < LIMITE_RECUPERACION_S
    for error in (sse.error, socket_ws.error):
        assert error is not None and error["reanudable"] is True
        assert "guardada" in error["mensaje"] and "Last-Event-ID" in error["mensaje"]
    assert sse.error and sse.error["ultimo_evento"] == sse.ultimo
    assert nuevo_ws and nuevo_ws_s < LIMITE_RECUPERACION_S
    assert nuevo_sse and nuevo_sse_s < 2 * LIMITE_RECUPERACION_S  # después del websocket, que va primero
    assert reanudado_sse[-1] == "done", reanudado_sse
    assert reanudado_ws[-1] == "done", socket_ws.error
    assert socket_ws.abierto_al_reanudar  # el socket siguió abierto durante el corte


def test_si_muere_el_worker_de_turnos_a_mitad_de_un_turno_el_cliente_lo_sabe_en_5_s_y_otro_lo_termina(
    servidor: Servidor, token: str
) -> None:
    import redis

    cabeceras = {"Authorization": f"Token {token}"}
    sse = _FlujoSse(servidor, cabeceras, "¿Qué es una resolución de calificación ambiental?")
    assert _esperar(lambda: sse.tokens() >= 5, limite_s=30)
    conexion = redis.Redis.from_url(servidor.redis_url)
    vigilias = conexion.keys("asistente:turno:vigilia:*")
    assert len(vigilias) == 1, vigilias
    ficha = conexion.get(vigilias[0])
    assert isinstance(ficha, bytes)
    pid = int(ficha.split(b":")[0])
    conexion.close()
    assert pid in {servidor.pid("turnos1"), servidor.pid("turnos2")}

    muerte = time.monotonic()
    os.kill(pid, signal.SIGKILL)
    assert _esperar(lambda: "reinicio" in sse.eventos, limite_s=2 * LIMITE_RECUPERACION_S)
    aviso_s = time.monotonic() - muerte
    assert _esperar(lambda: sse.termino, limite_s=90)
    mensajes = httpx.get(
        f"{servidor.url}/api/asistente/conversaciones/{sse.conversacion}/mensajes/",
        headers=cabeceras, timeout=10,
    ).json()  # fmt: skip

    assert aviso_s < LIMITE_RECUPERACION_S
    assert sse.eventos[-1] == "done" and sse.error is None
    respuestas = [m for m in mensajes if m["rol"] == "assistant"]
    assert len(respuestas) == 1 and "palabra299" in respuestas[0]["contenido"]


def test_ctrl_c_detiene_los_procesos_y_los_servicios_sin_dejar_huerfanos(servidor: Servidor) -> None:
    hijos = psutil.Process(servidor.proceso.pid).children(recursive=True)
    pid_postgres = int((servidor.directorio / "pgdata" / "postmaster.pid").read_text().splitlines()[0])
    pid_redis = int((servidor.directorio / "redis" / "redis.pid").read_text())

    servidor.proceso.send_signal(signal.SIGINT)
    servidor.proceso.wait(120)

    vivos = [p for p in hijos if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]
    assert vivos == []
    assert (
        not psutil.pid_exists(pid_postgres) or psutil.Process(pid_postgres).status() == psutil.STATUS_ZOMBIE
    )
    assert not psutil.pid_exists(pid_redis) or psutil.Process(pid_redis).status() == psutil.STATUS_ZOMBIE
    assert "Servicios embebidos detenidos: redis, postgres." in "".join(servidor.lineas)


# --- ayudantes ---------------------------------------------------------------------------------


async def eco(url: str) -> dict[str, Any]:
    async with websockets.connect(url, origin=Origin("http://127.0.0.1")) as socket_ws:
        await socket_ws.send(json.dumps({"hola": "mundo"}))
        datos: dict[str, Any] = json.loads(await asyncio.wait_for(socket_ws.recv(), 10))
        return datos


async def chat_por_websocket(url: str, sesion: str, mensaje: str) -> list[str]:
    """Un turno del chat por el websocket; con `make run` lo ejecuta el worker «turnos»."""
    cabeceras = {"Cookie": f"sessionid={sesion}"}
    async with websockets.connect(
        url, origin=Origin("http://127.0.0.1"), additional_headers=cabeceras, open_timeout=5
    ) as socket_ws:
        await socket_ws.send(json.dumps({"tipo": "mensaje", "mensaje": mensaje}))
        eventos: list[str] = []
        while not eventos or eventos[-1] not in ("done", "error"):
            marco = json.loads(await asyncio.wait_for(socket_ws.recv(), 30))
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


class _FlujoSse:
    """Un turno por `chat/stream` leído en un hilo: sus eventos, el último id y el error, si llega."""

    def __init__(self, servidor: Servidor, cabeceras: dict[str, str], mensaje: str) -> None:
        self.eventos: list[str] = []
        self.ultimo = 0
        self.conversacion = ""
        self.error: dict[str, Any] | None = None
        self.termino = False
        threading.Thread(target=self._leer, args=(servidor, cabeceras, mensaje), daemon=True).start()

    def tokens(self) -> int:
        return self.eventos.count("token")

    def _leer(self, servidor: Servidor, cabeceras: dict[str, str], mensaje: str) -> None:
        with httpx.stream(
            "POST", f"{servidor.url}/api/asistente/chat/stream", json={"mensaje": mensaje},
            headers=cabeceras, timeout=120,
        ) as respuesta:  # fmt: skip
            for id_evento, evento, datos in eventos_sse(respuesta):
                self.eventos.append(evento)
                self.ultimo = id_evento or self.ultimo
                if evento == "meta":
                    self.conversacion = datos["conversacion_id"]
                if evento == "error":
                    self.error = datos
        self.termino = True


class _ChatWebsocket:
    """Un turno por el websocket en un hilo con su propio bucle; el socket queda abierto para reanudar."""

    def __init__(self, url: str, sesion: str, mensaje: str) -> None:
        self.url, self.sesion, self.mensaje = url, sesion, mensaje
        self.eventos: list[str] = []
        self.ultimo = 0
        self.conversacion = ""
        self.error: dict[str, Any] | None = None
        self.abierto_al_reanudar = False
        self.bucle = asyncio.new_event_loop()
        self.socket: Any = None
        threading.Thread(target=self.bucle.run_forever, daemon=True).start()
        asyncio.run_coroutine_threadsafe(self._turno(), self.bucle)

    def tokens(self) -> int:
        return self.eventos.count("token")

    async def _turno(self) -> None:
        self.socket = await websockets.connect(
            self.url,
            origin=Origin("http://127.0.0.1"),
            additional_headers={"Cookie": f"sessionid={self.sesion}"},
        )
        await self.socket.send(json.dumps({"tipo": "mensaje", "mensaje": self.mensaje}))
        await self._hasta_el_final()

    async def _hasta_el_final(self) -> list[str]:
        recibidos: list[str] = []
        while True:
            marco = json.loads(await asyncio.wait_for(self.socket.recv(), 60))
            if marco["evento"] in ("latido", "contexto", "aviso"):
                continue
            self.eventos.append(marco["evento"])
            recibidos.append(marco["evento"])
            self.ultimo = marco["id"] or self.ultimo
            if marco["evento"] == "meta":
                self.conversacion = marco["datos"]["conversacion_id"]
            if marco["evento"] == "error":
                self.error = marco["datos"]
                return recibidos
            if marco["evento"] == "done":
                return recibidos

    def reanudar(self) -> list[str]:
        async def pedir() -> list[str]:
            self.abierto_al_reanudar = self.socket.state == websockets.protocol.State.OPEN
            await self.socket.send(
                json.dumps(
                    {"tipo": "reanudar", "conversacion_id": self.conversacion, "ultimo_evento": self.ultimo}
                )
            )
            recibidos = await self._hasta_el_final()
            await self.socket.close()
            return recibidos

        return asyncio.run_coroutine_threadsafe(pedir(), self.bucle).result(90)


def _reanudar_sse(servidor: Servidor, cabeceras: dict[str, str], conversacion: str, ultimo: int) -> list[str]:
    with httpx.stream(
        "GET", f"{servidor.url}/api/asistente/conversaciones/{conversacion}/eventos",
        headers={**cabeceras, "Last-Event-ID": str(ultimo)}, timeout=90,
    ) as respuesta:  # fmt: skip
        assert respuesta.status_code == 200
        return [evento for _, evento, _ in eventos_sse(respuesta)]


def _sse_termina(servidor: Servidor, cabeceras: dict[str, str], mensaje: str) -> bool:
    with httpx.stream(
        "POST", f"{servidor.url}/api/asistente/chat/stream", json={"mensaje": mensaje}, headers=cabeceras,
        timeout=30,
    ) as respuesta:  # fmt: skip
        if respuesta.status_code != 200:
            return False
        return [evento for _, evento, _ in eventos_sse(respuesta)][-1:] == ["done"]


def _api_responde(servidor: Servidor, cabeceras: dict[str, str]) -> bool:
    return httpx.get(f"{servidor.url}/api/proyectos/", headers=cabeceras, timeout=10).status_code == 200


def _pagina_responde(servidor: Servidor, sesion: str) -> bool:
    return (
        httpx.get(f"{servidor.url}/proyectos/", cookies={"sessionid": sesion}, timeout=10).status_code == 200
    )


def _pid_nuevo(servidor: Servidor, programa: str, muerto: int) -> int | None:
    try:
        pid = servidor.pid(programa)
    except AssertionError:
        return None
    return pid if pid != muerto else None


def _esperar(condicion: Any, limite_s: float) -> Any:
    """Repite `condicion()` hasta que dé algo verdadero (y lo devuelve) o venza el plazo (False)."""
    fin = time.monotonic() + limite_s
    while True:
        try:
            resultado = condicion()
            if resultado:
                return resultado
        except (httpx.HTTPError, OSError, websockets.exceptions.WebSocketException, TimeoutError, ValueError):
            pass
        if time.monotonic() > fin:
            return False
        time.sleep(0.2)
