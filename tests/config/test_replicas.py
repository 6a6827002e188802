"""Dos réplicas web detrás de HAProxy (la receta de escalamiento del README): se mata la que transmite
una respuesta del chat y el cliente la reanuda en la otra con `Last-Event-ID`, sin perder un evento.

Dos daphne sobre la misma base y el mismo Redis, un worker «turnos» (el turno corre ahí, no en la
réplica: por eso sobrevive) y HAProxy de Debian con su revisión de salud (`/api/health/`). Claude es un
suplente local que escribe despacio: hay tiempo para matar la réplica a mitad de la respuesta.
"""

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx
import pytest
from django.contrib.auth import get_user_model
from django.db import connection

from asistente.models import Mensaje
from proyectos.roles import Rol
from proyectos.services import usuario_crear_o_actualizar
from tests.utilidades import ServidorClaude, eventos_sse, mensaje_sse, puerto_libre

HAPROXY = shutil.which("haproxy") or "/usr/sbin/haproxy"
pytestmark = [
    pytest.mark.lento,
    pytest.mark.skipif(not Path(HAPROXY).exists(), reason="falta HAProxy de Debian (make test lo instala)"),
]
RAIZ = Path(__file__).resolve().parents[2]
TROZOS = 200
PAUSA_S = 0.05


@pytest.fixture
def claude() -> Iterator[ServidorClaude]:
    texto = " ".join(f"trozo{n}" for n in range(TROZOS))
    suplente = ServidorClaude(
        guion=lambda pedido: mensaje_sse({"type": "text", "text": texto}), pausa_s=PAUSA_S
    )
    yield suplente
    suplente.cerrar()


@pytest.fixture
def token(django_db_blocker: Any) -> Iterator[str]:
    with django_db_blocker.unblock():
        creado = usuario_crear_o_actualizar(nombre="replicas", rol=Rol.LECTURA)
        yield creado.token
        get_user_model().objects.filter(username="replicas").delete()


@pytest.fixture
def replicas(tmp_path: Path, claude: ServidorClaude, django_db_setup: None) -> Iterator[dict[str, Any]]:
    """Dos daphne, un worker de turnos y HAProxy delante; da la URL del balanceador y los procesos."""
    partes = urlsplit(os.environ["DATABASE_URL"])
    entorno = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "DATABASE_URL": urlunsplit(partes._replace(path=f"/{connection.settings_dict['NAME']}")),
        "ANTHROPIC_API_KEY": "clave-de-prueba",
        "ANTHROPIC_BASE_URL": claude.url,
        "ASISTENTE_MOTOR": "claude",
        "ASISTENTE_ENRUTADOR": "0",
        "ASISTENTE_TURNOS_EN": "worker",
    }
    procesos: dict[str, subprocess.Popen[bytes]] = {}
    puertos = {"a": puerto_libre(), "b": puerto_libre()}
    try:
        for nombre, puerto in puertos.items():
            procesos[nombre] = _lanzar(
                [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(puerto),
                 "config.asgi:application"],
                entorno, tmp_path / f"daphne-{nombre}.log",
            )  # fmt: skip
        procesos["turnos"] = _lanzar(
            [sys.executable, "-m", "celery", "-A", "config", "worker", "-Q", "turnos", "-P", "gevent",
             "-c", "8", "-n", f"turnos-replicas-{os.getpid()}@%h", "--without-mingle", "--without-gossip"],
            entorno, tmp_path / "turnos.log",
        )  # fmt: skip
        balanceador = puerto_libre()
        configuracion = tmp_path / "haproxy.cfg"
        configuracion.write_text(_configuracion_haproxy(balanceador, puertos))
        procesos["haproxy"] = _lanzar(
            [HAPROXY, "-f", str(configuracion), "-db"], entorno, tmp_path / "haproxy.log"
        )
        url = f"http://127.0.0.1:{balanceador}"
        for puerto in puertos.values():
            _esperar_salud(f"http://127.0.0.1:{puerto}")
        _esperar_salud(url)
        yield {"url": url, "procesos": procesos, "puertos": puertos, "registros": tmp_path}
    finally:
        for proceso in procesos.values():
            if proceso.poll() is None:
                proceso.terminate()
        for proceso in procesos.values():
            try:
                proceso.wait(20)
            except subprocess.TimeoutExpired:
                proceso.kill()


def test_muere_la_replica_que_transmite_y_el_cliente_reanuda_en_la_otra_sin_perder_eventos(
    replicas: dict[str, Any], token: str, django_db_blocker: Any
) -> None:
    cabeceras = {"Authorization": f"Token {token}"}
    eventos: list[tuple[int, str, dict[str, Any]]] = []
    conversacion = ""
    muerta = ""
    with httpx.stream(
        "POST", f"{replicas['url']}/api/asistente/chat/stream", json={"mensaje": "¿Qué es una DIA?"},
        headers=cabeceras, timeout=60,
    ) as respuesta:  # fmt: skip
        assert respuesta.status_code == 200
        try:
            for evento in eventos_sse(respuesta):
                if not evento[0]:
                    continue  # los marcos fuera del turno (id 0) no cuentan
                eventos.append(evento)
                if evento[1] == "meta":
                    conversacion = evento[2]["conversacion_id"]
                if sum(1 for e in eventos if e[1] == "token") == 20:
                    muerta = _replica_que_transmite(replicas)
                    os.kill(replicas["procesos"][muerta].pid, signal.SIGKILL)
        except (httpx.RemoteProtocolError, httpx.ReadError):
            pass  # la conexión murió con la réplica
    assert muerta and conversacion
    antes = len(eventos)
    assert eventos[-1][1] not in ("done", "error"), "la respuesta terminó antes de matar la réplica"

    with httpx.stream(
        "GET", f"{replicas['url']}/api/asistente/conversaciones/{conversacion}/eventos",
        headers={**cabeceras, "Last-Event-ID": str(eventos[-1][0])}, timeout=60,
    ) as reanudada:  # fmt: skip
        assert reanudada.status_code == 200
        eventos.extend(evento for evento in eventos_sse(reanudada) if evento[0])

    ids = [id_evento for id_evento, _, _ in eventos]
    assert ids == list(range(1, len(ids) + 1)), "se perdió o repitió un evento"
    assert len(eventos) > antes and eventos[-1][1] == "done"
    transmitido = "".join(datos["texto"] for _, evento, datos in eventos if evento == "token")
    with django_db_blocker.unblock():
        guardado = Mensaje.objects.get(pk=eventos[-1][2]["mensaje"]["id"]).contenido
    assert transmitido.strip() == guardado.strip()
    assert transmitido.count("trozo") == TROZOS
    otra = "b" if muerta == "a" else "a"
    assert replicas["procesos"][otra].poll() is None


def _configuracion_haproxy(puerto: int, replicas: dict[str, int]) -> str:
    """La de la receta del README (sección Despliegue), con los puertos de la prueba."""
    servidores = "\n".join(
        f"    server {nombre} 127.0.0.1:{puerto_replica} check" for nombre, puerto_replica in replicas.items()
    )
    return f"""global
    maxconn 1000

defaults
    mode http
    option redispatch
    retries 2
    timeout connect 2s
    timeout client 120s
    timeout server 120s
    timeout tunnel 1h

frontend web
    bind 127.0.0.1:{puerto}
    default_backend daphne

backend daphne
    balance leastconn
    option httpchk GET /api/health/
    http-check expect status 200
    default-server inter 500ms fall 2 rise 2
{servidores}
"""


def _replica_que_transmite(replicas: dict[str, Any]) -> str:
    """La réplica que recibió el `chat/stream`: la que lo anotó en su registro (`request_started`)."""
    recibieron = [
        nombre
        for nombre in ("a", "b")
        if "POST /api/asistente/chat/stream" in (replicas["registros"] / f"daphne-{nombre}.log").read_text()
    ]
    assert len(recibieron) == 1, recibieron
    return recibieron[0]


def _lanzar(comando: list[str], entorno: dict[str, str], registro: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        comando, cwd=RAIZ, env=entorno, stdout=registro.open("wb"), stderr=subprocess.STDOUT
    )


def _esperar_salud(url: str, limite_s: float = 90) -> None:
    fin = time.monotonic() + limite_s
    while time.monotonic() < fin:
        try:
            if httpx.get(url + "/api/health/", timeout=5).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    raise AssertionError(f"{url} no quedó sano")
