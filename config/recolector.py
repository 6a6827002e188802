"""Recolector de basura de los procesos que sirven: daphne y los workers de Celery."""

import gc
import importlib

# Módulos que el proceso igual importa en su primer turno del chat (el SDK de Anthropic, unos 120 mil
# objetos; el diccionario de lemas y las frecuencias del español de `ajenas`): se cargan antes de
# congelar para que el primer turno no los pague y también queden fuera de las colecciones.
PRECARGAR = ("asistente.motores.claude", "asistente.motores.reglas", "normativa.busqueda.ajenas")


def precargar() -> None:
    """Importa `PRECARGAR` y llama la función `precargar()` de los módulos que la tienen (datos que
    el módulo carga recién en su primer uso: el lematizador tarda más de un segundo)."""
    for nombre in PRECARGAR:
        modulo = importlib.import_module(nombre)
        cargar = getattr(modulo, "precargar", None)
        if callable(cargar):
            cargar()


def congelar_lo_cargado() -> None:
    """Deja fuera de las colecciones del recolector lo que el proceso cargó al arrancar.

    Viven hasta que el proceso termina, pero cada colección completa los recorría (pausas medidas en
    docs/rendimiento.md). Lo que se crea después se recolecta como siempre; un objeto congelado igual
    se libera cuando nadie lo referencia (`gc.freeze`).
    """
    precargar()
    gc.collect()
    gc.freeze()
