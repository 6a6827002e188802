"""Que un pedido lento no detenga a los demás: cupos para el cálculo pesado, conexiones que vuelven al
pool y pedidos abandonados que no se calculan.

Bajo daphne cada pedido síncrono corre en un hilo propio del mismo proceso. Un cálculo de GEOS suelta
el GIL, pero cuatro a la vez ocupan los dos núcleos y un pedido liviano espera su turno en la CPU; si
además sus clientes se van y vuelven a pedir, el trabajo abandonado se acumula. Por eso el cálculo
pesado pide un cupo (a lo más `CALCULOS_SIMULTANEOS` por proceso): mientras espera no retiene
conexión a la base, y si el cliente ya se fue, no calcula. Medido en docs/rendimiento.md.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from django.conf import settings
from django.db import connections

from config.errores import NoDisponible

# El evento del pedido en curso: lo marca `config.middleware.marcar_abandono` cuando Django cancela la
# petición porque el cliente se desconectó; el hilo que la atiende lo ve por el contexto copiado.
abandono_del_pedido: ContextVar[threading.Event | None] = ContextVar("abandono_del_pedido", default=None)

REINTENTAR_CALCULO_S = 5
_ESPERA_POR_VUELTA_S = 0.1


class PedidoAbandonado(NoDisponible):
    """El cliente se fue antes de que empezara el cálculo: no se hace (nadie recibiría el resultado)."""

    mensaje_por_omision = "El cliente se desconectó antes de empezar el cálculo; no se hizo."


class _Cupos:
    """El semáforo del proceso, creado al primer uso con el valor de la configuración."""

    def __init__(self) -> None:
        self.candado = threading.Lock()
        self.semaforo: threading.BoundedSemaphore | None = None

    def __call__(self) -> threading.BoundedSemaphore:
        if self.semaforo is None:
            with self.candado:
                if self.semaforo is None:
                    self.semaforo = threading.BoundedSemaphore(settings.CALCULOS_SIMULTANEOS)
        return self.semaforo


cupos_del_proceso = _Cupos()
_con_cupo: ContextVar[bool] = ContextVar("con_cupo", default=False)


def pedido_abandonado() -> bool:
    """Si el cliente del pedido HTTP en curso ya se desconectó (fuera de un pedido: nunca)."""
    evento = abandono_del_pedido.get()
    return evento is not None and evento.is_set()


def conexiones_devolver() -> None:
    """Devuelve al pool las conexiones a la base de este hilo que no están dentro de una transacción
    (una transacción abierta pertenece a quien la abrió: se respeta)."""
    for conexion in connections.all(initialized_only=True):
        if not conexion.in_atomic_block:
            conexion.close()


@contextmanager
def cupo_de_calculo(
    *, semaforo: threading.BoundedSemaphore | None = None, espera_maxima_s: float | None = None
) -> Iterator[None]:
    """Ejecuta el bloque con un cupo de cálculo pesado del proceso, esperándolo si hace falta.

    Mientras espera devuelve sus conexiones al pool. Lanza `PedidoAbandonado` si el cliente se fue
    antes de empezar y `NoDisponible` (503, con `Retry-After`) si no hubo cupo en
    `CALCULO_ESPERA_MAXIMA_S`. Reentrante: un cálculo dentro de otro usa el mismo cupo.
    """
    if _con_cupo.get():
        yield
        return
    semaforo = semaforo or cupos_del_proceso()
    if not semaforo.acquire(blocking=False):
        conexiones_devolver()
        limite = time.monotonic() + (espera_maxima_s or settings.CALCULO_ESPERA_MAXIMA_S)
        while not semaforo.acquire(timeout=_ESPERA_POR_VUELTA_S):
            if pedido_abandonado():
                raise PedidoAbandonado()
            if time.monotonic() > limite:
                raise NoDisponible(
                    "Hay muchos análisis calculándose en este momento; reintente en unos segundos.",
                    reintentar_en=REINTENTAR_CALCULO_S,
                )
    marca = _con_cupo.set(True)
    try:
        if pedido_abandonado():
            raise PedidoAbandonado()
        yield
    finally:
        _con_cupo.reset(marca)
        semaforo.release()
