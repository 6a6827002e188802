"""Catálogo de tareas periódicas del sistema y su sincronización con django-celery-beat.

Cada tema que necesite una tarea programada la agrega a `TAREAS_PERIODICAS`; el comando
`setup_periodic_tasks` (que ejecutan `make run` y los despliegues) deja la base igual a esta lista.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django_celery_beat.models import CrontabSchedule, IntervalSchedule, PeriodicTask

PREFIJO = "prefactibilidad:"


@dataclass(frozen=True)
class TareaPeriodica:
    nombre: str
    tarea: str
    cada_segundos: int | None = None
    crontab: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ResumenSincronizacion:
    declaradas: int
    desactivadas: int


TAREAS_PERIODICAS: list[TareaPeriodica] = [
    # Las acciones pendientes vencen a los 5 minutos; cada minuto se marcan y se avisa en la conversación.
    TareaPeriodica(
        nombre="expirar acciones del asistente", tarea="asistente.acciones_expirar", cada_segundos=60
    ),
    # Avisos proactivos (la configuración en el admin limita cuántos y a qué hora).
    # La tarea corre cada minuto y revisa según la frecuencia configurada en el admin (5 min por defecto).
    TareaPeriodica(nombre="avisos proactivos", tarea="asistente.avisos_evaluar", cada_segundos=60),
    # Alertas de operación (errores, latencia, respaldo, colas, reinicios) al personal, cada minuto.
    TareaPeriodica(nombre="alertas de operación", tarea="asistente.alertas_revisar", cada_segundos=60),
    # Resúmenes por hora de los turnos del asistente (panel de métricas), a los 5 minutos de cada hora.
    TareaPeriodica(
        nombre="resumir métricas del asistente", tarea="asistente.metricas_resumir", crontab={"minute": "5"}
    ),
    # Sitio del SEA: noticias y guías nuevas o actualizadas, los lunes a las 03:00 de Santiago.
    TareaPeriodica(
        nombre="revisar sitio del SEA",
        tarea="fuentes_externas.sea_revisar",
        crontab={"minute": "0", "hour": "3", "day_of_week": "1"},
    ),
    # BCN LeyChile: cambios en las normas del corpus, todos los días a las 04:00 de Santiago.
    TareaPeriodica(
        nombre="revisar BCN", tarea="fuentes_externas.bcn_revisar", crontab={"minute": "0", "hour": "4"}
    ),
    # e-SEIA: proyectos mineros de las regiones con proyectos, los lunes a las 03:30 de Santiago.
    TareaPeriodica(
        nombre="actualizar e-SEIA",
        tarea="fuentes_externas.eseia_actualizar",
        crontab={"minute": "30", "hour": "3", "day_of_week": "1"},
    ),
]


def tareas_periodicas_sincronizar(*, tareas: list[TareaPeriodica]) -> ResumenSincronizacion:
    """Crea o actualiza las tareas declaradas y desactiva las propias que ya no figuran."""
    nombres = set()
    for tarea in tareas:
        nombre = PREFIJO + tarea.nombre
        nombres.add(nombre)
        programacion: dict[str, object]
        if tarea.cada_segundos is not None:
            intervalo, _ = IntervalSchedule.objects.get_or_create(
                every=tarea.cada_segundos, period=IntervalSchedule.SECONDS
            )
            programacion = {"interval": intervalo, "crontab": None}
        else:
            cron, _ = CrontabSchedule.objects.get_or_create(timezone="America/Santiago", **tarea.crontab)
            programacion = {"crontab": cron, "interval": None}
        PeriodicTask.objects.update_or_create(
            name=nombre, defaults={"task": tarea.tarea, "enabled": True, **programacion}
        )
    desactivadas = (
        PeriodicTask.objects.filter(name__startswith=PREFIJO, enabled=True)
        .exclude(name__in=nombres)
        .update(enabled=False)
    )
    return ResumenSincronizacion(declaradas=len(tareas), desactivadas=desactivadas)
