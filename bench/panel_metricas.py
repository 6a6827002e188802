"""Consultas del panel «Métricas del asistente» con 100 000 turnos sintéticos en 30 días (meta: p95 ≤ 200 ms).

Todo ocurre en una base aparte (`test_<base>`, migrada para la ocasión y borrada al final): la base
local queda como estaba. Se siembran los turnos (`bench.turnos_sinteticos`), se resumen las horas como
lo haría la tarea de beat, se pasa VACUUM ANALYZE (lo que haría autovacuum) y se mide `panel_leer`
—todas las consultas del panel— para 24 h, 7 d y 30 d, cada parte para 30 d y la página entera del admin.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from datetime import timedelta
from functools import partial

from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client
from django.test.utils import setup_databases, teardown_databases
from django.utils import timezone

from asistente import panel
from asistente.metricas import horas_resumir, turnos_por_periodo
from bench.turnos_sinteticos import sembrar

TURNOS = 100_000
DIAS = 30
REPETICIONES = 20
META_MS = 200.0


def ejecutar() -> None:
    inicio = time.perf_counter()
    _soltar_conexiones()  # el pool abierto apunta a la base local: que la próxima vaya a la aparte
    bases = setup_databases(verbosity=0, interactive=False, aliases={"default"})  # type: ignore[arg-type]
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT current_database()")
            (base,) = cursor.fetchone() or ("",)
        if not base.startswith("test_"):
            raise RuntimeError(f"El benchmark iba a sembrar en «{base}», no en una base aparte: se detiene.")
        print(f"Base aparte «{base}» migrada en {time.perf_counter() - inicio:.1f} s")
        _medir_todo()
    finally:
        _soltar_conexiones()
        teardown_databases(bases, verbosity=0)


def _soltar_conexiones() -> None:
    connection.close()
    if hasattr(connection, "close_pool"):
        connection.close_pool()


def _medir_todo() -> None:
    usuario = get_user_model().objects.create_superuser("bench-metricas", "bench@example.cl", "clave-bench-1")
    inicio = time.perf_counter()
    sembrar(usuario, turnos=TURNOS, dias=DIAS)
    print(f"Siembra: {TURNOS} turnos en {DIAS} días en {time.perf_counter() - inicio:.1f} s")
    ahora = timezone.now()
    inicio = time.perf_counter()
    filas = horas_resumir(desde=ahora - timedelta(days=DIAS + 1), hasta=ahora)
    print(
        f"Resumen por hora (lo que hace la tarea de beat, 31 días de una vez): {filas} filas en "
        f"{time.perf_counter() - inicio:.1f} s"
    )
    with connection.cursor() as cursor:
        cursor.execute(
            "VACUUM ANALYZE asistente_mensaje, asistente_llamadaherramienta, asistente_accionpendiente, "
            "asistente_resumenhora"
        )

    print(f"\n{'consulta':<46} {'p50 ms':>8} {'p95 ms':>8} {'máx ms':>8}  meta p95 ≤ {META_MS:.0f} ms")
    for rango in panel.RANGOS:
        _fila(f"panel_leer({rango}) — todas las consultas", partial(panel.panel_leer, rango))
    desde = ahora - timedelta(days=DIAS)
    periodos = panel.Periodos.del_rango("30d", ahora)
    print("  por parte, 30 d:")
    _fila(
        "  resúmenes + hora en curso",
        lambda: turnos_por_periodo(desde=desde, hasta=ahora, periodo=periodos.truncar),
    )
    _fila("  conversaciones iniciadas por día", lambda: panel._conversaciones(periodos))
    _fila("  herramientas (p50/p95 por herramienta)", lambda: panel._herramientas(desde))
    _fila("  acciones por estado", lambda: panel._acciones(desde))
    _fila("  valoraciones", lambda: panel._valoraciones(desde))
    _fila("  preguntas sin respuesta", lambda: panel.preguntas_sin_respuesta(desde=desde))
    cliente = Client(HTTP_HOST="localhost")
    cliente.force_login(usuario)

    def pagina() -> None:
        respuesta = cliente.get("/admin/asistente/resumenhora/?rango=30d")
        assert respuesta.status_code == 200, respuesta.status_code

    _fila("página del admin, 30 d (consultas + plantilla)", pagina)


def _fila(nombre: str, funcion: Callable[[], object]) -> None:
    funcion()  # calienta cachés de Django y del planificador
    tiempos = []
    for _ in range(REPETICIONES):
        inicio = time.perf_counter()
        funcion()
        tiempos.append((time.perf_counter() - inicio) * 1000)
    p95 = statistics.quantiles(tiempos, n=20)[-1]
    marca = "" if p95 <= META_MS else "  ← sobre la meta"
    print(f"{nombre:<46} {statistics.median(tiempos):>8.1f} {p95:>8.1f} {max(tiempos):>8.1f}{marca}")
