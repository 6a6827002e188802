"""Recolector de basura de los procesos que sirven: daphne y los workers de Celery."""

import gc
import importlib

# Módulos que el proceso igual importa en su primer turno del chat (el SDK de Anthropic, unos 120 mil
# objetos): se importan antes de congelar para que también queden fuera de las colecciones.
PRECARGAR = ("asistente.motores.claude", "asistente.motores.reglas")


def congelar_lo_cargado() -> None:
    """Deja fuera de las colecciones del recolector lo que el proceso cargó al arrancar.

    Viven hasta que el proceso termina, pero cada colección completa los recorría (pausas medidas en
    docs/rendimiento.md). Lo que se crea después se recolecta como siempre; un objeto congelado igual
    se libera cuando nadie lo referencia (`gc.freeze`).
    """
    for modulo in PRECARGAR:
        importlib.import_module(modulo)
    gc.collect()
    gc.freeze()
