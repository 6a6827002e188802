"""Ejecuta los benchmarks registrados e imprime sus tablas (p50/p95)."""

from __future__ import annotations

import importlib
import os
import sys
import time

# Cada módulo de bench/ expone `ejecutar() -> None` e imprime su propia tabla.
BENCHMARKS: list[str] = ["asistente", "tiempo_real", "analisis_proyectos", "busqueda_normativa"]


def main() -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
    import django

    django.setup()
    if not BENCHMARKS:
        print("No hay benchmarks registrados todavía.")
        return 0
    elegidos = sys.argv[1:] or BENCHMARKS  # `python -m bench tiempo_real` corre solo ese
    for nombre in elegidos:
        inicio = time.perf_counter()
        print(f"\n== {nombre} ==")
        importlib.import_module(f"bench.{nombre}").ejecutar()
        print(f"({nombre}: {time.perf_counter() - inicio:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
