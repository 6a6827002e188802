"""Chat en tiempo real: 100 websockets simultáneos contra daphne, con el motor de reglas y con el
suplente local de Claude que transmite 200 trozos por respuesta.

Por escenario:
- tiempo de turno de un chat solo (mediana de 5) y de 100 chats que preguntan a la vez
  (envío del mensaje → marco `done`), p50/p95/máx, y la razón p95 / solo;
- errores y eventos perdidos: cada turno debe llegar con ids consecutivos desde 1, terminar en `done`
  y su texto transmitido (lo que llegó después del último `reinicio`, si hubo uno) debe ser igual al
  mensaje guardado (con Claude, además, 200 trozos);
- latencia de retransmisión (solo Claude): el suplente estampa en cada trozo la hora en que lo envía;
  el cliente la resta de la hora en que recibe el marco (trozo del modelo → motor → Redis →
  consumidor → websocket), con 100 chats y también con 20, 40, 60 y 80: la carga más alta en que la
  p95 queda en 20 ms es la capacidad de la máquina para esa meta.
  Con 100, además el tramo desde Redis: el id de cada entrada del stream es la hora (ms) en que el
  worker la escribió; la diferencia con la estampa es lo que tardó el worker en leer el trozo del
  modelo y escribirlo;
- capacidad (solo Claude): CPU de toda la máquina por trozo retransmitido, y los núcleos que 100 chats
  a 50 trozos/s pedirían a ese costo.

Cada motor se mide con los turnos en hilos del proceso web (`ASISTENTE_TURNOS_EN=hilos`, lo de las
pruebas) y en los workers «turnos» aparte (`worker`, lo de `make run`: `ASISTENTE_PROCESOS_TURNOS`
procesos). Por escenario se informa además la CPU de cada proceso y la CPU por turno de daphne + workers.

daphne corre en otro proceso (`python -m daphne config.asgi:application`), los workers de turnos en
otros, el suplente de Claude (asyncio) en otro, y los clientes (biblioteca `websockets`) en este. Los
usuarios del benchmark se borran al empezar y al final.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import multiprocessing
import os
import socket
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.test import Client

from config.management.commands.ejecutar import ARGUMENTOS_WORKER_TURNOS
from normativa.evaluacion import leer_preguntas
from proyectos.roles import Rol

RAIZ = Path(__file__).resolve().parent.parent
PREGUNTAS = RAIZ / "tests" / "fixtures" / "eval" / "dev_normativa.jsonl"
PREFIJO = "bench-ws-"
CHATS = 100
CARGAS_PARCIALES = (20, 40, 60, 80)  # con Claude, además la retransmisión con menos carga
META_RETRANSMISION_MS = 20.0
TROZOS_CLAUDE = 200
PAUSA_TROZO_S = 0.02  # ~50 trozos/s, el ritmo de un modelo real
MARCA = "ESTAMPA"  # ASCII: el SSE va en JSON con escapes


@dataclass
class Resultado:
    segundos: float = 0.0
    error: str = ""
    latencias_ms: list[float] = field(default_factory=list)
    turno_id: str = ""
    recibidos: dict[int, float] = field(default_factory=dict)  # hora de llegada de cada marco `token`


def ejecutar() -> None:
    por_escenario = CHATS + 6
    # Una pregunta distinta por chat (las del conjunto de evaluación, numeradas): el proceso recuerda
    # los vectores de consulta ya calculados, y con las mismas 15 preguntas repetidas el motor de
    # reglas casi no calcularía embeddings. Se mide el costo de preguntas nuevas.
    base = [p["pregunta"] for p in leer_preguntas(PREGUNTAS)]
    preguntas = [f"{base[n % len(base)]} (variante {n})" for n in range(por_escenario)]
    # Usuarios nuevos en cada corrida (también si una anterior se interrumpió): la caché de resultados
    # de herramientas es por usuario, y con usuarios de otra corrida el motor de reglas no calcularía
    # sus embeddings ni sus búsquedas.
    get_user_model().objects.filter(username__startswith=PREFIJO).delete()
    cookies = _sesiones(4 * por_escenario)  # usuarios distintos por escenario: no chocan con los límites
    print(f"{'escenario':<50} {'n':>4} {'p50 s':>7} {'p95 s':>7} {'máx s':>7} {'p95/solo':>8} {'errores':>7}")
    suplente, url = _lanzar_suplente()
    claude = {
        "ANTHROPIC_API_KEY": "clave-bench",
        "ANTHROPIC_BASE_URL": url,
        "ASISTENTE_MOTOR": "claude",
        "ASISTENTE_ENRUTADOR": "0",  # se mide el camino del modelo (variable de entorno de los procesos)
    }
    try:
        for n, (donde, entorno, trozos) in enumerate(
            [
                ("hilos", {}, None),
                ("worker", {}, None),
                ("hilos", claude, TROZOS_CLAUDE),
                ("worker", claude, TROZOS_CLAUDE),
            ]
        ):
            motor = f"Claude (suplente, {TROZOS_CLAUDE} trozos)" if trozos else "reglas, pregunta de ley"
            _escenario(
                f"{motor}, turnos en {donde}",
                cookies[n * por_escenario : (n + 1) * por_escenario],
                preguntas,
                {**entorno, "ASISTENTE_TURNOS_EN": donde},
                trozos=trozos,
            )
    finally:
        suplente.terminate()
        get_user_model().objects.filter(username__startswith=PREFIJO).delete()


def _escenario(
    nombre: str, cookies: list[str], preguntas: list[str], entorno: dict[str, str], trozos: int | None = None
) -> None:
    proceso, puerto = _lanzar_daphne(entorno)
    workers = _lanzar_workers(entorno) if entorno.get("ASISTENTE_TURNOS_EN") == "worker" else []
    try:
        url = f"ws://127.0.0.1:{puerto}/ws/asistente/"
        asyncio.run(_chats(url, [cookies[CHATS + 5]], [preguntas[CHATS + 5]], trozos))  # calienta el proceso
        antes = _cpu(proceso.pid, workers)
        solos = [
            asyncio.run(_chats(url, [cookies[CHATS + n]], [preguntas[CHATS + n]], trozos))[0]
            for n in range(5)
        ]
        despues = _cpu(proceso.pid, workers)
        cpu_solo = (despues["daphne"] + despues["turnos"] - antes["daphne"] - antes["turnos"]) / 5
        base = statistics.median(r.segundos for r in solos)
        antes = _cpu(proceso.pid, workers)
        reloj = time.perf_counter()
        todos = asyncio.run(_chats(url, cookies[:CHATS], preguntas[:CHATS], trozos))
        pared = time.perf_counter() - reloj
        cpu = {n: segundos - antes.get(n, 0.0) for n, segundos in _cpu(proceso.pid, workers).items()}
        parciales: dict[int, list[Resultado]] = {}
        if trozos is not None:
            # La misma ruta con menos chats (usuarios ya usados: a lo más 5 mensajes por minuto, dentro
            # de su límite): separa lo que cuesta la ruta de lo que agrega una CPU saturada.
            for carga in CARGAS_PARCIALES:
                parciales[carga] = asyncio.run(_chats(url, cookies[:carga], preguntas[:carga], trozos))
    finally:
        for lanzado in (proceso, *workers):
            lanzado.terminate()
            lanzado.wait(20)
    tiempos = sorted(r.segundos for r in todos if not r.error)
    errores = [r.error for r in (*todos, *solos, *itertools.chain(*parciales.values())) if r.error]
    p95 = _percentil(tiempos, 95) if tiempos else float("nan")
    print(
        f"{nombre + ', 1 chat (mediana de 5)':<44} {5:>4} {base:>7.2f} {'':>7} {'':>7} {'':>8} "
        f"{sum(1 for r in solos if r.error):>7}"
    )
    print(
        f"{nombre + f', {CHATS} a la vez':<44} {len(todos):>4} {_percentil(tiempos, 50):>7.2f} {p95:>7.2f} "
        f"{max(tiempos, default=float('nan')):>7.2f} {p95 / base:>8.2f} {len(errores):>7}"
    )
    latencias = sorted(ms for r in todos for ms in r.latencias_ms)
    if latencias:
        print(
            f"  retransmisión trozo → marco: n={len(latencias)} p50 {_percentil(latencias, 50):.1f} ms, "
            f"p95 {_percentil(latencias, 95):.1f} ms, máx {latencias[-1]:.1f} ms"
        )
    if trozos is not None:
        desde_redis = _desde_redis(todos)
        print(
            f"  de ellas, desde la escritura en Redis (Redis → daphne → websocket): p50 "
            f"{_percentil(desde_redis, 50):.1f} ms, p95 {_percentil(desde_redis, 95):.1f} ms"
        )
    if parciales:
        dentro = [CHATS] if _percentil(latencias, 95) <= META_RETRANSMISION_MS else []
        for carga, resultados in parciales.items():
            parcial = sorted(ms for r in resultados for ms in r.latencias_ms)
            dentro += [carga] if _percentil(parcial, 95) <= META_RETRANSMISION_MS else []
            print(
                f"  retransmisión con {carga} chats a la vez: p50 {_percentil(parcial, 50):.1f} ms, "
                f"p95 {_percentil(parcial, 95):.1f} ms (turno p95 "
                f"{_percentil(sorted(r.segundos for r in resultados), 95):.2f} s)"
            )
        print(
            f"  capacidad con p95 ≤ {META_RETRANSMISION_MS:.0f} ms: "
            + (f"{max(dentro)} chats a la vez" if dentro else f"menos de {min(CARGAS_PARCIALES)} chats")
        )
    print(
        f"  CPU de daphne y worker por turno: solo {cpu_solo * 1000:.0f} ms, con {CHATS} a la vez "
        f"{(cpu['daphne'] + cpu['turnos']) / CHATS * 1000:.0f} ms"
    )
    nucleos = len(os.sched_getaffinity(0))
    print(
        f"  CPU durante los {CHATS} chats ({pared:.1f} s de reloj, {nucleos} núcleos = "
        f"{nucleos * pared:.1f} s de CPU): "
        + ", ".join(f"{nombre} {segundos:.1f} s" for nombre, segundos in cpu.items())
    )
    if trozos is not None:
        # Capacidad: lo que cuesta un trozo en todos los procesos medidos (también el inicio de cada
        # turno, el cliente y el suplente), por los trozos que 100 chats piden por segundo.
        por_trozo = sum(cpu.values()) / (CHATS * trozos)
        print(
            f"  CPU por trozo retransmitido (todos los procesos medidos, con el inicio de cada turno): "
            f"{por_trozo * 1e6:.0f} µs; {CHATS} chats a {1 / PAUSA_TROZO_S:.0f} trozos/s piden "
            f"{por_trozo * CHATS / PAUSA_TROZO_S:.1f} núcleos de {nucleos}"
        )
    for error in sorted(set(errores))[:5]:
        print(f"  error: {error}")


async def _chats(url: str, cookies: list[str], preguntas: list[str], trozos: int | None) -> list[Resultado]:
    """Conecta todos los chats, luego todos preguntan a la vez y esperan su `done`."""
    from websockets.asyncio.client import connect

    origen = url.replace("ws://", "http://").split("/ws/")[0]
    sockets = [
        await connect(url, additional_headers={"Cookie": f"sessionid={c}", "Origin": origen}, max_size=None)
        for c in cookies
    ]
    try:
        return list(
            await asyncio.gather(
                *(_turno(s, pregunta, trozos) for s, pregunta in zip(sockets, preguntas, strict=True))
            )
        )
    finally:
        await asyncio.gather(*(s.close() for s in sockets))


async def _turno(conexion: Any, pregunta: str, trozos: int | None) -> Resultado:
    resultado = Resultado()
    inicio = time.perf_counter()
    await conexion.send(json.dumps({"tipo": "mensaje", "mensaje": pregunta}))
    ids: list[int] = []
    texto: list[str] = []
    try:
        # Un solo plazo por turno: `wait_for` por marco crearía una tarea por cada uno, CPU del cliente
        # que se le resta a daphne y a los workers en los mismos núcleos.
        async with asyncio.timeout(120):
            while True:
                crudo = await conexion.recv()
                recibido = time.time()
                marco = json.loads(crudo)
                if marco["evento"] in ("latido", "contexto", "aviso"):
                    continue
                if marco["evento"] == "error":
                    resultado.error = f"error: {marco['datos'].get('mensaje')}"
                    return resultado
                if marco["id"]:  # los avisos fuera del turno (id 0) no cuentan en la secuencia
                    ids.append(marco["id"])
                if marco["evento"] == "reinicio":  # el protocolo: lo recibido se descarta
                    texto.clear()
                if marco["evento"] == "meta":
                    resultado.turno_id = marco["datos"]["mensaje_usuario_id"]  # el id del turno
                if marco["evento"] == "token":
                    resultado.recibidos[marco["id"]] = recibido
                    texto.append(marco["datos"]["texto"])
                    estampa = marco["datos"]["texto"].strip()
                    if trozos is not None and estampa.replace(".", "", 1).isdigit():
                        resultado.latencias_ms.append((recibido - float(estampa)) * 1000)
                if marco["evento"] == "done":
                    break
    except TimeoutError:
        resultado.error = f"sin «done» en 120 s (último evento {ids[-1] if ids else 'ninguno'})"
        return resultado
    resultado.segundos = time.perf_counter() - inicio
    if ids != list(range(1, len(ids) + 1)):
        resultado.error = "eventos perdidos o desordenados"
    elif "".join(texto) != marco["datos"]["mensaje"]["contenido"]:
        resultado.error = "el texto transmitido no coincide con el guardado"
    elif trozos is not None and len(texto) != trozos:
        resultado.error = f"llegaron {len(texto)} de {trozos} trozos"
    return resultado


def _desde_redis(resultados: list[Resultado]) -> list[float]:
    """Milisegundos desde que cada trozo se escribió en el stream del turno hasta que llegó su marco."""
    from asistente.flujos import clave_turno
    from config.redis_clientes import cliente_redis

    conexion: Any = cliente_redis()  # redis-py tipa el stream como str | bytes | None; aquí son bytes
    latencias = []
    for resultado in resultados:
        for id_stream, campos in conexion.xrange(clave_turno(resultado.turno_id)):
            recibido = resultado.recibidos.get(int(campos[b"id"]))
            if recibido is not None:
                latencias.append(recibido * 1000 - int(id_stream.split(b"-")[0]))
    return sorted(latencias)


def _sesiones(cantidad: int) -> list[str]:
    """Usuarios del benchmark con sesión iniciada (cookie `sessionid`), cada uno con su límite."""
    cookies = []
    grupo = Group.objects.get(name=Rol.LECTURA.grupo)
    for n in range(cantidad):
        # Sin contraseña (la sesión se abre con force_login): derivar 210 claves tomaría minutos.
        usuario, _ = get_user_model().objects.get_or_create(
            username=f"{PREFIJO}{n}", defaults={"password": "!"}
        )
        usuario.groups.add(grupo)
        cliente = Client()
        cliente.force_login(usuario)
        cookies.append(cliente.cookies["sessionid"].value)
    return cookies


def _lanzar_daphne(entorno: dict[str, str]) -> tuple[subprocess.Popen[bytes], int]:
    puerto = _puerto_libre()
    proceso = subprocess.Popen(
        [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(puerto), "config.asgi:application"],
        cwd=RAIZ,
        env={
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings.local",
            "DJANGO_DEBUG": "false",
            **entorno,
        },
        stdout=subprocess.DEVNULL,
        stderr=(RAIZ / "var" / "bench-daphne.log").open("ab"),
    )
    limite = time.monotonic() + 60
    while time.monotonic() < limite:
        with socket.socket() as prueba:
            if prueba.connect_ex(("127.0.0.1", puerto)) == 0:
                return proceso, puerto
        time.sleep(0.2)
    proceso.terminate()
    raise RuntimeError("daphne no abrió su puerto en 60 s")


def _lanzar_workers(entorno: dict[str, str]) -> list[subprocess.Popen[bytes]]:
    """Los workers de Celery de la cola «turnos» (pool gevent): los `ASISTENTE_PROCESOS_TURNOS` procesos
    que `make run` lanza como «turnosN»."""
    variables = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.local", "DJANGO_DEBUG": "false"}
    celery = [sys.executable, "-m", "celery", "-A", "config", "worker", *ARGUMENTOS_WORKER_TURNOS]
    sin_ruido = ["--without-heartbeat", "--without-gossip", "--without-mingle"]
    procesos = [
        subprocess.Popen(
            [*celery, *sin_ruido, "-n", f"turnos{n}-bench-{os.getpid()}@%h"],
            cwd=RAIZ,
            env={**variables, **entorno},
            stdout=subprocess.DEVNULL,
            stderr=(RAIZ / "var" / "bench-worker.log").open("ab"),
        )
        for n in range(1, settings.ASISTENTE_PROCESOS_TURNOS + 1)
    ]
    time.sleep(8)  # arranque de Django y conexión al broker; el turno de calentamiento espera lo que falte
    return procesos


def _lanzar_suplente() -> tuple[multiprocessing.Process, str]:
    """El suplente de Claude en su propio proceso (no compite por el GIL con los clientes)."""
    puerto = multiprocessing.Value("i", 0)
    proceso = multiprocessing.Process(target=_suplente, args=(puerto,), daemon=True)
    proceso.start()
    limite = time.monotonic() + 20
    while not puerto.value and time.monotonic() < limite:
        time.sleep(0.05)
    return proceso, f"http://127.0.0.1:{puerto.value}"


def _suplente(puerto: Any) -> None:
    asyncio.run(_suplente_asincrono(puerto))


async def _suplente_asincrono(puerto: Any) -> None:
    """El suplente de Claude con asyncio: cien flujos a la vez sin hilos. Con la versión de un hilo por
    conexión (`tests.utilidades.ServidorClaude`), cien hilos del suplente compiten por el GIL para
    despertar de cada pausa; así esa espera no se suma a lo medido (en la práctica cambió poco: la
    razón p95/solo pasó de 3,25 a 2,97 en una corrida)."""
    import re

    from tests.utilidades import mensaje_sse

    texto = " ".join([MARCA] * TROZOS_CLAUDE)
    sse = mensaje_sse({"type": "text", "text": texto}, salida=TROZOS_CLAUDE)
    eventos = [e for e in sse.split("\n\n") if e.strip()]

    async def atender(lector: asyncio.StreamReader, escritor: asyncio.StreamWriter) -> None:
        try:
            cabeceras = await lector.readuntil(b"\r\n\r\n")
            largo = re.search(rb"(?i)content-length:\s*(\d+)", cabeceras)
            await lector.readexactly(int(largo.group(1)) if largo else 0)
            # HTTP/1.0 sin Content-Length: el cuerpo termina al cerrar, como el suplente de las pruebas.
            escritor.write(b"HTTP/1.0 200 OK\r\nContent-Type: text/event-stream\r\n\r\n")
            for evento in eventos:
                if "text_delta" in evento:
                    await asyncio.sleep(PAUSA_TROZO_S)
                    evento = evento.replace(MARCA, f"{time.time():.6f}")
                escritor.write((evento + "\n\n").encode())
                await escritor.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            escritor.close()

    servidor = await asyncio.start_server(atender, "127.0.0.1", 0, backlog=512)
    puerto.value = int(servidor.sockets[0].getsockname()[1])
    await servidor.serve_forever()


def _cpu(pid_daphne: int, workers: list[subprocess.Popen[bytes]]) -> dict[str, float]:
    """Segundos de CPU acumulados por daphne, los workers de turnos, este proceso (clientes), el
    suplente, Redis y PostgreSQL."""
    import psutil

    grupos = {"daphne": 0.0, "turnos": 0.0, "clientes": 0.0, "suplente": 0.0, "redis": 0.0, "postgres": 0.0}
    for proceso in psutil.process_iter(["pid", "name", "cmdline"]):
        try:
            tiempos = proceso.cpu_times()
            nombre = proceso.info["name"] or ""
            if proceso.pid == pid_daphne:
                grupo = "daphne"
            elif proceso.pid in {w.pid for w in workers}:
                grupo = "turnos"
            elif proceso.pid == os.getpid():
                grupo = "clientes"
            elif proceso.info["pid"] in {h.pid for h in multiprocessing.active_children()}:
                grupo = "suplente"
            elif "redis" in nombre:
                grupo = "redis"
            elif "postgres" in nombre:
                grupo = "postgres"
            else:
                continue
            grupos[grupo] += tiempos.user + tiempos.system
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
    return grupos


def _puerto_libre() -> int:
    with socket.socket() as prueba:
        prueba.bind(("127.0.0.1", 0))
        return int(prueba.getsockname()[1])


def _percentil(valores: list[float], p: int) -> float:
    if not valores:
        return float("nan")
    return valores[min(len(valores) - 1, round(p / 100 * (len(valores) - 1)))]
