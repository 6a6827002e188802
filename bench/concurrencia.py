"""Pedidos livianos mientras otros calculan: que un análisis lento no detenga a los demás usuarios.

Mide la latencia (p50/p95/máx) de pedidos livianos —`GET /api/health/` y la ficha de un proyecto
(`/proyectos/<id>/`, con sesión), alternados— contra daphne en otro proceso, como en `make run`:
- solos;
- con 4 evaluaciones lentas en curso (`POST /api/analisis/evaluar/` de un polígono de miles de vértices
  en el Salar de Atacama, que sola tarda ≈ 1 s aquí), cada cliente pidiendo otra apenas recibe la suya;
- con 4 evaluaciones lentas abandonadas: cada cliente se va a los 0,3 s y vuelve a pedir al segundo
  (un usuario que se impacienta y vuelve a hacer clic): cuatro pedidos pesados por segundo.

Meta (issue «Fallas que sanan solas»): p95 ≤ 200 ms con las 4 evaluaciones en curso. Informa además
cuántas evaluaciones lentas terminaron y su mediana. Decisión y cifras en docs/rendimiento.md.
"""

from __future__ import annotations

import json
import logging
import math
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
from django.contrib.auth import get_user_model
from django.test import Client as Navegador

from proyectos.models import Cliente, Proyecto
from proyectos.roles import Rol
from proyectos.services import proyecto_crear, usuario_crear_o_actualizar
from tests.utilidades import poligono_en_el_salar

RAIZ = Path(__file__).resolve().parent.parent
USUARIO = "bench-concurrencia"
CLIENTE = "Minera Bench Concurrencia"
LENTAS = 4
SEGUNDOS_POR_ESCENARIO = 20
ABANDONO_S = 0.3
REINTENTO_TRAS_ABANDONAR_S = 1.0
# Vértices del polígono lento (≈ 1 s aquí con 30 000; `BENCH_VERTICES` para otra máquina o versión).
VERTICES = int(os.environ.get("BENCH_VERTICES", "30000"))
META_P95_MS = 200


def ejecutar() -> None:
    logging.getLogger("httpx").setLevel(logging.WARNING)  # una línea por pedido taparía la tabla
    token, sesion, proyecto_id = _preparar()
    cuerpo = json.dumps(poligono_en_el_salar(vertices=VERTICES))
    proceso, url = _lanzar_daphne()
    try:
        cabeceras = {"Authorization": f"Token {token}", "Content-Type": "application/json"}
        httpx.post(f"{url}/api/analisis/evaluar/", content=cuerpo, headers=cabeceras, timeout=120)  # índice
        sola = statistics.median(_evaluar(url, cuerpo, cabeceras, espera_s=120) or math.inf for _ in range(3))
        print(f"Evaluación lenta sola: {sola:.2f} s ({VERTICES} vértices)\n")
        print(
            f"{'escenario':<44} {'n':>4} {'p50 ms':>7} {'p95 ms':>7} {'máx ms':>7} {'no 200':>7} "
            f"{'lentas':>7} {'lenta p50 s':>11}"
        )
        livianos = _Livianos(url, sesion, proyecto_id)
        for nombre, espera in (
            ("solos", None),
            (f"con {LENTAS} evaluaciones lentas en curso", 120.0),
            (f"con {LENTAS} evaluaciones lentas abandonadas", ABANDONO_S),
        ):
            _escenario(nombre, livianos, url, cuerpo, cabeceras, espera)
        print(f"(meta: p95 ≤ {META_P95_MS} ms con las evaluaciones lentas en curso)")
    finally:
        proceso.terminate()
        try:
            proceso.wait(60)
        except subprocess.TimeoutExpired:
            proceso.kill()
        _borrar()


class _Livianos:
    def __init__(self, url: str, sesion: str, proyecto_id: int) -> None:
        self.url, self.sesion, self.proyecto_id = url, sesion, proyecto_id

    def medir(self, hasta: float) -> tuple[list[float], int]:
        """Latencias (ms) de los pedidos livianos hasta `hasta`, y cuántos no respondieron 200."""
        tiempos: list[float] = []
        errores = 0
        with httpx.Client(cookies={"sessionid": self.sesion}, timeout=120) as cliente:
            while time.monotonic() < hasta:
                for ruta in ("/api/health/", f"/proyectos/{self.proyecto_id}/"):
                    inicio = time.perf_counter()
                    respuesta = cliente.get(self.url + ruta)
                    tiempos.append((time.perf_counter() - inicio) * 1000)
                    errores += respuesta.status_code != 200
                time.sleep(0.05)
        return tiempos, errores


def _escenario(
    nombre: str, livianos: _Livianos, url: str, cuerpo: str, cabeceras: dict[str, str], espera: float | None
) -> None:
    fin = time.monotonic() + SEGUNDOS_POR_ESCENARIO
    terminadas: list[float] = []
    hilos = [
        threading.Thread(target=_lenta_en_bucle, args=(url, cuerpo, cabeceras, espera, fin, terminadas))
        for _ in range(LENTAS if espera is not None else 0)
    ]
    for hilo in hilos:
        hilo.start()
    time.sleep(1.0 if hilos else 0)  # que las lentas ya estén calculando
    tiempos, errores = livianos.medir(fin)
    for hilo in hilos:
        hilo.join()
    time.sleep(3 if espera == ABANDONO_S else 0)  # lo abandonado que aún corre no pasa al siguiente
    lenta = f"{statistics.median(terminadas):.2f}" if terminadas else "—"
    print(
        f"{nombre:<44} {len(tiempos):>4} {_p(tiempos, 50):>7.0f} {_p(tiempos, 95):>7.0f} "
        f"{max(tiempos):>7.0f} {errores:>7} {len(terminadas):>7} {lenta:>11}"
    )


def _lenta_en_bucle(
    url: str,
    cuerpo: str,
    cabeceras: dict[str, str],
    espera: float | None,
    fin: float,
    terminadas: list[float],
) -> None:
    while time.monotonic() < fin:
        inicio = time.monotonic()
        segundos = _evaluar(url, cuerpo, cabeceras, espera_s=espera or 120)
        if segundos is not None:
            terminadas.append(segundos)
        else:  # abandonada: el usuario vuelve a hacer clic al rato
            time.sleep(max(0.0, REINTENTO_TRAS_ABANDONAR_S - (time.monotonic() - inicio)))


def _evaluar(url: str, cuerpo: str, cabeceras: dict[str, str], *, espera_s: float) -> float | None:
    """Segundos de una evaluación lenta, o None si el cliente se fue antes (la abandonó)."""
    inicio = time.perf_counter()
    try:
        respuesta = httpx.post(
            f"{url}/api/analisis/evaluar/", content=cuerpo, headers=cabeceras, timeout=espera_s
        )
    except httpx.TimeoutException:
        return None
    return time.perf_counter() - inicio if respuesta.status_code == 200 else None


def _preparar() -> tuple[str, str, int]:
    _borrar()
    creado = usuario_crear_o_actualizar(nombre=USUARIO, rol=Rol.ESCRITURA)
    cliente = Cliente.objects.create(nombre=CLIENTE)
    cliente.usuarios.add(creado.usuario.pk)
    proyecto = proyecto_crear(
        cliente=cliente, datos={"nombre": "Mina Bench", "region": "Antofagasta", "tipo": "explotacion"}
    )
    navegador = Navegador()
    navegador.force_login(get_user_model().objects.get(pk=creado.usuario.pk))
    return creado.token, navegador.cookies["sessionid"].value, proyecto.pk


def _borrar() -> None:
    Proyecto.objects.filter(cliente__nombre=CLIENTE).delete()
    Cliente.objects.filter(nombre=CLIENTE).delete()
    get_user_model().objects.filter(username=USUARIO).delete()


def _lanzar_daphne() -> tuple[subprocess.Popen[bytes], str]:
    with socket.socket() as libre:
        libre.bind(("127.0.0.1", 0))
        puerto = int(libre.getsockname()[1])
    proceso = subprocess.Popen(
        [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(puerto), "config.asgi:application"],
        cwd=RAIZ,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.local", "DJANGO_DEBUG": "false"},
        stdout=subprocess.DEVNULL,
        stderr=(RAIZ / "var" / "bench-daphne.log").open("ab"),
    )
    url = f"http://127.0.0.1:{puerto}"
    limite = time.monotonic() + 60
    while time.monotonic() < limite:
        try:
            httpx.get(url + "/api/health/", timeout=5)
            return proceso, url
        except httpx.HTTPError:
            time.sleep(0.2)
    proceso.terminate()
    raise RuntimeError("daphne no respondió en 60 s")


def _p(valores: list[float], percentil: int) -> float:
    if len(valores) < 2:
        return valores[0]
    return statistics.quantiles(valores, n=100, method="inclusive")[percentil - 1]
