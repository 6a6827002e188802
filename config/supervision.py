"""Supervisión de los procesos de `make run` con supervisord (http://supervisord.org/).

supervisord reinicia el proceso que muere (daphne, un worker, beat), registra el motivo («exited: beat
(terminated by SIGKILL; not expected)») y nunca derriba a los demás. Cada proceso escribe su salida en
`var/logs/<nombre>.log` (rotado por supervisord) y `ejecutar` la sigue y la muestra en la consola con
el nombre del proceso delante, como antes. `supervisorctl -c var/supervision/supervisord.conf status`
muestra y controla los procesos mientras corre.
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
import shlex
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TextIO

from config.operacion import reinicio_anotar

# Un proceso que muere al arrancar (beat con la base caída) se reintenta con esperas crecientes de a un
# segundo (política de supervisord); con esta cantidad, durante horas, no queda en FATAL para siempre.
REINTENTOS_DE_ARRANQUE = 1000
SEGUNDOS_PARA_ESTAR_ARRIBA = 3
LARGO_MAXIMO_SOCKET = 100
NOMBRE_SUPERVISOR = "supervisor"
# «exited: beat (terminated by SIGKILL; not expected)»: un proceso murió sin que se le pidiera.
_MURIO = re.compile(r"exited: (\S+) \(.*not expected\)")


@dataclass(frozen=True)
class Programa:
    """Un proceso supervisado: su nombre en la consola y en los logs, y su línea de comando."""

    nombre: str
    comando: Sequence[str]
    # Lo que se le da para terminar ordenadamente (un worker de Celery termina su tarea en curso).
    espera_al_detener_s: int = 10


@dataclass(frozen=True)
class Rutas:
    configuracion: Path
    socket: Path
    logs: Path

    @classmethod
    def en(cls, directorio: Path) -> Rutas:
        supervision = directorio / "supervision"
        socket = supervision / "supervisor.sock"
        if len(str(socket)) > LARGO_MAXIMO_SOCKET:
            # Un socket Unix admite ~100 caracteres de ruta: con `var/` muy adentro, va a /tmp.
            huella = hashlib.sha256(str(directorio).encode()).hexdigest()[:12]
            socket = Path(tempfile.gettempdir()) / f"prefactibilidad-{huella}.sock"
        return cls(supervision / "supervisord.conf", socket, directorio / "logs")

    def log_de(self, nombre: str) -> Path:
        return self.logs / f"{nombre}.log"


def configuracion_escribir(programas: Sequence[Programa], *, rutas: Rutas, directorio_trabajo: Path) -> Path:
    """Escribe el archivo de supervisord para estos programas y devuelve su ruta."""
    rutas.configuracion.parent.mkdir(parents=True, exist_ok=True)
    rutas.logs.mkdir(parents=True, exist_ok=True)
    # Credenciales de esta ejecución para el socket de control (solo `supervisorctl` con este archivo).
    clave = secrets.token_hex(16)
    # Como root, decirlo: sin `user`, supervisord lo advierte en cada arranque con nivel CRIT.
    usuario = "user=root\n" if os.geteuid() == 0 else ""
    secciones = [
        f"""[supervisord]
nodaemon=true
silent=true
{usuario}identifier=prefactibilidad
directory={directorio_trabajo}
logfile={rutas.log_de(NOMBRE_SUPERVISOR)}
logfile_maxbytes=10MB
logfile_backups=2
loglevel=info
pidfile={rutas.configuracion.parent / "supervisord.pid"}
childlogdir={rutas.logs}

[unix_http_server]
file={rutas.socket}
chmod=0700
username=prefactibilidad
password={clave}

[rpcinterface:supervisor]
supervisor.rpcinterface_factory = supervisor.rpcinterface:make_main_rpcinterface

[supervisorctl]
serverurl=unix://{rutas.socket}
username=prefactibilidad
password={clave}
"""
    ]
    for programa in programas:
        secciones.append(
            f"""[program:{programa.nombre}]
command={" ".join(_citar(parte) for parte in programa.comando)}
autostart=true
autorestart=true
startsecs={SEGUNDOS_PARA_ESTAR_ARRIBA}
startretries={REINTENTOS_DE_ARRANQUE}
stopsignal=TERM
stopwaitsecs={programa.espera_al_detener_s}
stopasgroup=true
killasgroup=true
redirect_stderr=true
stdout_logfile={rutas.log_de(programa.nombre)}
stdout_logfile_maxbytes=10MB
stdout_logfile_backups=2
"""
        )
    rutas.configuracion.touch(mode=0o600)
    rutas.configuracion.chmod(0o600)
    rutas.configuracion.write_text("\n".join(secciones))
    return rutas.configuracion


def comando_supervisord(configuracion: Path) -> list[str]:
    """La línea de comando de supervisord en primer plano con esta configuración."""
    return [
        sys.executable,
        "-m",
        "supervisor.supervisord",
        "--nodaemon",
        "--configuration",
        str(configuracion),
    ]


class Seguidor:
    """Sigue los logs de los procesos y escribe cada línea nueva como «hh:mm:ss nombre | línea».

    Empieza desde el final de cada archivo (lo de ejecuciones anteriores no se repite) y, si supervisord
    lo rota, sigue con el archivo nuevo desde el comienzo.
    """

    PAUSA_S = 0.1

    def __init__(self, archivos: dict[str, Path], salida: TextIO) -> None:
        self.archivos = archivos
        self.salida = salida
        self.ancho = max(len(nombre) for nombre in archivos)
        self.posiciones = {nombre: _tamano(ruta) for nombre, ruta in archivos.items()}
        self.inodos = {nombre: _inodo(ruta) for nombre, ruta in archivos.items()}
        self.pendiente = dict.fromkeys(archivos, "")
        self.detenido = threading.Event()

    def seguir(self, hasta: Callable[[], bool]) -> None:
        """Escribe lo nuevo hasta que `hasta()` sea verdadero, y una vuelta más (lo último que quedó)."""
        while True:
            terminar = hasta() or self.detenido.is_set()
            nuevo = self.una_vuelta()
            if terminar:
                return
            if not nuevo:
                time.sleep(self.PAUSA_S)

    def una_vuelta(self) -> bool:
        nuevo = False
        for nombre, ruta in self.archivos.items():
            for linea in self._lineas_nuevas(nombre, ruta):
                if nombre == NOMBRE_SUPERVISOR and (murio := _MURIO.search(linea)):
                    reinicio_anotar(murio.group(1))  # lo mide /metrics y lo avisa la revisión de alertas
                self.salida.write(f"{datetime.now():%H:%M:%S} {nombre:<{self.ancho}} | {linea}\n")
                nuevo = True
        if nuevo:
            self.salida.flush()
        return nuevo

    def _lineas_nuevas(self, nombre: str, ruta: Path) -> list[str]:
        inodo = _inodo(ruta)
        if inodo is None:
            return []
        if inodo != self.inodos[nombre] or _tamano(ruta) < self.posiciones[nombre]:
            self.inodos[nombre], self.posiciones[nombre] = inodo, 0  # rotado o recreado
        with ruta.open("rb") as archivo:
            archivo.seek(self.posiciones[nombre])
            datos = archivo.read()
            self.posiciones[nombre] = archivo.tell()
        texto = self.pendiente[nombre] + datos.decode("utf-8", errors="replace")
        *completas, self.pendiente[nombre] = texto.split("\n")
        return completas


def _tamano(ruta: Path) -> int:
    try:
        return ruta.stat().st_size
    except OSError:
        return 0


def _inodo(ruta: Path) -> int | None:
    try:
        return ruta.stat().st_ino
    except OSError:
        return None


def _citar(parte: str) -> str:
    # supervisord parte la línea de comando como un shell (shlex): comillas si hace falta. El signo %
    # es de sus expansiones (%(program_name)s) y se escribe %%.
    return shlex.quote(parte).replace("%", "%%")
