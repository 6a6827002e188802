"""Ejecuta los benchmarks registrados e imprime sus tablas (p50/p95)."""

from __future__ import annotations

import importlib
import json
import os
import sys
import time

# Cada módulo de bench/ expone `ejecutar() -> None` e imprime su propia tabla.
BENCHMARKS: list[str] = [
    "asistente",
    "tiempo_real",
    "analisis_proyectos",
    "busqueda_normativa",
    "panel_metricas",
    "enrutador",
    "concurrencia",
]


def main() -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
    import django

    django.setup()
    from config.services import sistema_preparar

    # En una máquina nueva, `make bench` no supone un `make run` previo: migra y carga corpus y capas
    # (segundos si ya estaba todo).
    print("Preparando la base (migraciones, corpus y capas)…", flush=True)
    sistema_preparar(verbosidad=0)
    if not BENCHMARKS:
        print("No hay benchmarks registrados todavía.")
        return 0
    elegidos = sys.argv[1:] or BENCHMARKS  # `python -m bench tiempo_real` corre solo ese
    for nombre in elegidos:
        inicio, referencia = time.perf_counter(), referencia_ms()
        print(f"\n== {nombre} ==")
        importlib.import_module(f"bench.{nombre}").ejecutar()
        print(
            f"({nombre}: {time.perf_counter() - inicio:.1f} s; referencia de la máquina "
            f"{referencia:.0f} → {referencia_ms():.0f} ms)"
        )
    return 0


def referencia_ms() -> float:
    """Tiempo de un trabajo fijo de CPU en Python (el mejor de 3), antes y después de cada benchmark.

    Esta clase de máquina es compartida y su velocidad varía de una hora a otra (el mismo turno ha
    costado 96 y 162 ms de CPU en corridas seguidas): la referencia dice si dos corridas se comparan.
    Mayor es más lenta.
    """
    datos = {"norma": "Ley 19.300", "articulo": "11", "texto": "efectos adversos " * 12, "n": list(range(20))}
    mejores = []
    for _ in range(3):
        inicio = time.perf_counter()
        for _ in range(20_000):
            json.loads(json.dumps(datos))
        mejores.append((time.perf_counter() - inicio) * 1000)
    return min(mejores)


if __name__ == "__main__":
    sys.exit(main())
