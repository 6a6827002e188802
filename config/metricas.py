"""Métricas Prometheus del producto, compartidas entre procesos (modo multiproceso).

daphne, los procesos de turnos, el worker y el beat de Celery son procesos distintos: cada uno escribe
sus valores en archivos de `PROMETHEUS_MULTIPROC_DIR` (la configuración lo fija antes de importar el
cliente) y `/metrics` los suma al leerlos. `manage.py ejecutar` vacía ese directorio al arrancar.

Convenciones de Prometheus: duraciones en `_seconds`, contadores en `_total`, etiquetas de pocos valores
(motor, resultado, herramienta, fuente, tipo de caché; nunca usuario, conversación ni texto).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest, multiprocess
from prometheus_client.exposition import CONTENT_TYPE_LATEST

__all__ = ["CONTENT_TYPE_LATEST", "cache_contada", "exponer"]

PREFIJO = "asistente"
# Cubren desde una respuesta curada (milisegundos) hasta un turno de Claude con varias rondas.
CUBETAS_TURNO = (0.05, 0.1, 0.25, 0.5, 1, 2, 3, 5, 8, 13, 21, 34, 60)
CUBETAS_RAPIDAS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.2, 0.3, 0.5, 1, 2, 5, 10)

turno_segundos = Histogram(
    f"{PREFIJO}_turno_seconds",
    "Duración de un turno del asistente, de la pregunta a la respuesta guardada.",
    ["motor"],
    buckets=CUBETAS_TURNO,
)
primer_token_segundos = Histogram(
    f"{PREFIJO}_primer_token_seconds",
    "Tiempo hasta el primer trozo de texto de la respuesta.",
    ["motor"],
    buckets=CUBETAS_TURNO,
)
herramienta_segundos = Histogram(
    f"{PREFIJO}_herramienta_seconds",
    "Duración de una llamada a herramienta.",
    ["herramienta"],
    buckets=CUBETAS_RAPIDAS,
)
busqueda_segundos = Histogram(
    "normativa_busqueda_seconds", "Duración de una búsqueda normativa.", ["modo"], buckets=CUBETAS_RAPIDAS
)
turnos_total = Counter(
    f"{PREFIJO}_turnos_total", "Turnos del asistente por motor y resultado.", ["motor", "resultado"]
)
tokens_total = Counter(f"{PREFIJO}_tokens_total", "Tokens del modelo por tipo.", ["tipo"])
costo_usd_total = Counter(f"{PREFIJO}_costo_usd_total", "Costo estimado del modelo, en dólares.")
herramienta_errores_total = Counter(
    f"{PREFIJO}_herramienta_errores_total", "Llamadas a herramienta que fallaron.", ["herramienta"]
)
respaldos_total = Counter(
    f"{PREFIJO}_respaldos_total", "Turnos que respondió el motor de respaldo, por motivo.", ["motivo"]
)
limitados_total = Counter(
    f"{PREFIJO}_limitados_total",
    "Respuestas 429: del modelo (`origen=modelo`) o del límite de uso del asistente (`origen=limite`).",
    ["origen"],
)
abstenciones_total = Counter(f"{PREFIJO}_abstenciones_total", "Respuestas «sin base suficiente».")
cache_total = Counter(
    "cache_consultas_total",
    "Consultas a cachés por tipo (herramientas, fuentes externas, embeddings, respuestas curadas) y "
    "resultado (acierto, fallo).",
    ["cache", "resultado"],
)
cache_fallas_total = Counter(
    "cache_fallas_total",
    "Operaciones de caché que no llegaron a Redis (el trabajo siguió sin caché), por operación.",
    ["operacion"],
)
fuentes_fallas_total = Counter(
    "fuentes_externas_fallas_total", "Fallas al consultar una fuente externa.", ["fuente"]
)
tareas_fallidas_total = Counter("celery_tareas_fallidas_total", "Tareas de Celery que fallaron.", ["tarea"])


def contar_cache(cache: str, *, acierto: bool) -> None:
    cache_total.labels(cache=cache, resultado="acierto" if acierto else "fallo").inc()


def exponer() -> bytes:
    """El texto de exposición con la suma de todos los procesos (o solo de este, sin directorio), y el
    estado del servicio que se lee de Redis al pedirlo (colas de Celery, procesos reiniciados)."""
    from config.operacion import ColectorDeOperacion

    operacion = CollectorRegistry()
    operacion.register(ColectorDeOperacion())
    return generate_latest(_registro()) + generate_latest(operacion)


def cache_contada() -> dict[str, dict[str, int]]:
    """cache → {"acierto": n, "fallo": n}, sumados en todos los procesos desde el arranque del servidor
    (`make run` vacía el directorio): lo que el panel muestra de las cachés que no dejan filas."""
    contadas: dict[str, dict[str, int]] = {}
    for familia in _registro().collect():
        if familia.name != "cache_consultas":
            continue
        for muestra in familia.samples:
            if muestra.name.endswith("_total"):
                por_resultado = contadas.setdefault(muestra.labels["cache"], {"acierto": 0, "fallo": 0})
                por_resultado[muestra.labels["resultado"]] += int(muestra.value)
    return contadas


def _registro() -> Any:
    directorio = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if not directorio or not Path(directorio).is_dir():
        from prometheus_client import REGISTRY

        return REGISTRY
    registro = CollectorRegistry()
    multiprocess.MultiProcessCollector(registro, path=directorio)  # type: ignore[no-untyped-call]
    return registro


def vaciar_directorio(directorio: Path) -> None:
    """Borra los valores de procesos anteriores (al arrancar el servidor, antes de los procesos)."""
    directorio.mkdir(parents=True, exist_ok=True)
    for archivo in directorio.glob("*.db"):
        archivo.unlink(missing_ok=True)
