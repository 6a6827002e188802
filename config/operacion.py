"""El estado del servicio en marcha que no está en la base: cuántas tareas esperan en cada cola de
Celery y cuántas veces supervisord tuvo que reiniciar un proceso que murió. Lo leen `/metrics` (para las
reglas de alerta de Prometheus) y la revisión de alertas del producto. Sin Redis, no hay cifras (nunca
una excepción: quien pregunta sigue)."""

from __future__ import annotations

from collections.abc import Iterator

import redis
import structlog
from django.conf import settings
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from config.redis_clientes import cliente_redis

registro = structlog.get_logger(__name__)

REINICIOS = "operacion:reinicios"  # hash proceso → veces que supervisord lo reinició
ESPERA_S = 1.0


def colas_celery() -> dict[str, int]:
    """Tareas esperando en cada cola de Celery (la lista de Redis de cada cola del broker)."""
    nombres = [cola.name for cola in settings.CELERY_TASK_QUEUES]
    try:
        cliente = cliente_redis(espera_s=ESPERA_S)
        return {nombre: int(cliente.llen(nombre)) for nombre in nombres}
    except (redis.exceptions.RedisError, OSError) as error:
        registro.warning("operacion_sin_redis", error=str(error)[:200])
        return {}


def reinicio_anotar(proceso: str) -> None:
    """Un proceso supervisado murió sin que se le pidiera y supervisord lo levantó de nuevo."""
    try:
        cliente_redis(espera_s=ESPERA_S).hincrby(REINICIOS, proceso, 1)
    except (redis.exceptions.RedisError, OSError) as error:
        registro.warning("operacion_sin_redis", error=str(error)[:200])


def reinicios() -> dict[str, int]:
    """Reinicios de cada proceso desde que se creó el Redis (o se vació)."""
    try:
        guardados = cliente_redis(espera_s=ESPERA_S).hgetall(REINICIOS)
    except (redis.exceptions.RedisError, OSError) as error:
        registro.warning("operacion_sin_redis", error=str(error)[:200])
        return {}
    return {
        clave.decode() if isinstance(clave, bytes) else str(clave): int(valor)
        for clave, valor in guardados.items()
    }


class ColectorDeOperacion(Collector):
    """Las cifras de arriba como métricas de Prometheus, leídas al pedir `/metrics`."""

    def collect(self) -> Iterator[Metric]:
        cola = GaugeMetricFamily(
            "celery_cola_tareas", "Tareas esperando en cada cola de Celery.", labels=["cola"]
        )
        for nombre, cantidad in colas_celery().items():
            cola.add_metric([nombre], cantidad)
        yield cola
        reiniciados = CounterMetricFamily(
            "procesos_reinicios", "Veces que supervisord reinició un proceso que murió.", labels=["proceso"]
        )
        for proceso, veces in reinicios().items():
            reiniciados.add_metric([proceso], veces)
        yield reiniciados
