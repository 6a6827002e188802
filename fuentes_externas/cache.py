"""Caché de las fuentes externas en Redis, con respaldo vencido y el estado de cada fuente.

Cada consulta se guarda con su hora. Dentro de su vigencia (SEA 6 h, e-SEIA 24 h o 7 días por
proyecto, BCN 24 h) se responde desde la caché; vencida, se consulta la fuente y, si esta falla, se
entrega lo último guardado con una advertencia («datos de caché del 12-03-2026; la fuente no
respondió») y la falla queda registrada en `EstadoFuente`. Los aciertos y fallos de caché se cuentan.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Generic, TypeVar
from zoneinfo import ZoneInfo

import structlog
from django.core.cache import cache
from django.utils import timezone

from config import cache as cache_tolerante
from config import metricas
from config.errores import EnConflicto
from config.http import ErrorHttp
from fuentes_externas.models import EstadoFuente

registro = structlog.get_logger(__name__)

T = TypeVar("T")
ZONA = ZoneInfo("America/Santiago")
VIGENCIA_S = {
    "sea": 6 * 3600,
    "eseia": 24 * 3600,
    "eseia_proyecto": 7 * 24 * 3600,
    "bcn": 24 * 3600,
}
RETENCION_S = 60 * 24 * 3600  # lo vencido se guarda dos meses como respaldo


@dataclass(frozen=True)
class Consulta(Generic[T]):
    datos: T
    desde_cache: bool
    guardado_at: datetime
    advertencia: str = ""


class FuenteOcupada(EnConflicto):
    """Otra ejecución de la misma revisión sigue en curso."""


def consultar(
    *, fuente: str, clave: str, obtener: Callable[[], T], vigencia: str | None = None
) -> Consulta[T]:
    """`obtener()` con caché por `fuente` y `clave`; si la fuente falla, lo último guardado."""
    llave = _llave(fuente, clave)
    guardado = cache_tolerante.leer(llave)
    if guardado is not None and time.time() - guardado["t"] < VIGENCIA_S[vigencia or fuente]:
        _contar(fuente, "aciertos")
        metricas.contar_cache("fuentes_externas", acierto=True)
        return Consulta(guardado["datos"], True, _fecha(guardado["t"]))
    _contar(fuente, "fallos")
    metricas.contar_cache("fuentes_externas", acierto=False)
    try:
        datos = obtener()
    except ErrorHttp as error:
        estado_falla(fuente=fuente, error=str(error))
        if guardado is None:
            raise
        fecha = _fecha(guardado["t"])
        registro.warning("fuente_respaldo_vencido", fuente=fuente, guardado=fecha.isoformat())
        advertencia = f"datos de caché del {fecha.astimezone(ZONA):%d-%m-%Y}; la fuente no respondió"
        return Consulta(guardado["datos"], True, fecha, advertencia)
    ahora = time.time()
    cache_tolerante.guardar(llave, {"t": ahora, "datos": datos}, RETENCION_S)
    cache_tolerante.guardar(f"fuentes:{fuente}:ultima", ahora, RETENCION_S)
    return Consulta(datos, False, _fecha(ahora))


def contadores(fuente: str) -> dict[str, int]:
    return {
        nombre: int(cache_tolerante.leer(f"fuentes:{fuente}:{nombre}") or 0)
        for nombre in ("aciertos", "fallos")
    }


def antiguedad_cache(fuente: str) -> float | None:
    """Segundos desde la última respuesta guardada de la fuente (None si no hay)."""
    marca = cache_tolerante.leer(f"fuentes:{fuente}:ultima")
    return time.time() - marca if marca else None


@contextmanager
def ejecucion(*, fuente: str, maximo_s: int) -> Iterator[dict[str, str]]:
    """Una revisión de la fuente: a lo más una a la vez (candado en Redis por `maximo_s`), con su
    duración, resultado o error registrados en `EstadoFuente`. Quien la usa escribe en
    `resumen["resultado"]` lo que hizo."""
    candado = f"fuentes:{fuente}:candado"
    if not cache.add(candado, 1, timeout=maximo_s):
        raise FuenteOcupada(f"Ya hay una revisión de {fuente} en curso.")
    inicio = time.perf_counter()
    resumen: dict[str, str] = {"resultado": ""}
    estado, _ = EstadoFuente.objects.get_or_create(fuente=fuente)
    estado.ultima_ejecucion_at = timezone.now()
    # Solo se guardan los campos de la ejecución: las fallas parciales que se registran durante ella
    # (`estado_falla`) no se pisan con el error anterior.
    campos = ["ultima_ejecucion_at", "duracion_ms", "resultado", "fallos_consecutivos"]
    try:
        yield resumen
    except Exception as error:
        estado.ultimo_error, estado.ultimo_error_at = str(error)[:2000], timezone.now()
        estado.fallos_consecutivos += 1
        estado.resultado = "falló"
        campos += ["ultimo_error", "ultimo_error_at"]
        raise
    else:
        estado.ultimo_exito_at = timezone.now()
        estado.fallos_consecutivos = 0
        estado.resultado = resumen["resultado"]
        campos.append("ultimo_exito_at")
    finally:
        estado.duracion_ms = round((time.perf_counter() - inicio) * 1000)
        estado.save(update_fields=campos)
        cache.delete(candado)


def estado_falla(*, fuente: str, error: str) -> None:
    metricas.fuentes_fallas_total.labels(fuente=fuente).inc()
    EstadoFuente.objects.update_or_create(
        fuente=fuente, defaults={"ultimo_error": error[:2000], "ultimo_error_at": timezone.now()}
    )


def _llave(fuente: str, clave: str) -> str:
    return f"fuentes:{fuente}:datos:{hashlib.sha256(clave.encode()).hexdigest()[:32]}"


def _contar(fuente: str, nombre: str) -> None:
    cache_tolerante.contar(f"fuentes:{fuente}:{nombre}")


def _fecha(marca: float) -> datetime:
    return datetime.fromtimestamp(marca, tz=ZoneInfo("UTC"))
