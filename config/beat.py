"""El planificador de beat: el `DatabaseScheduler` de django-celery-beat, que sobrevive a un corte de
PostgreSQL.

El original atrapa los errores de la base al sincronizar, pero no al releer el calendario (lo hace
cada 5 minutos, o cuando cambia): un corte en ese momento terminaba el proceso beat. Aquí la vuelta
que falla se registra y se reintenta a los `REINTENTO_S` segundos; al volver la base, el calendario
se relee entero.
"""

from __future__ import annotations

from typing import Any

import structlog
from django.db import DatabaseError, InterfaceError
from django_celery_beat.schedulers import DatabaseScheduler

registro = structlog.get_logger(__name__)

REINTENTO_S = 5.0


class PlanificadorTolerante(DatabaseScheduler):
    def tick(self, *args: Any, **kwargs: Any) -> float:
        try:
            return float(super().tick(*args, **kwargs))
        except (DatabaseError, InterfaceError) as error:
            registro.warning("beat_sin_base", error=str(error)[:200], reintento_s=REINTENTO_S)
            # El montículo se rearma desde el calendario completo en la vuelta siguiente.
            self._heap = None
            self._initial_read = True
            return REINTENTO_S
