"""Beat sobrevive a una base que falla al releer el calendario (`config/beat.py`).

El `DatabaseScheduler` original atrapa los errores de la base al sincronizar, pero no al releer el
calendario (cada 5 minutos o cuando cambia): el error subía hasta beat y terminaba el proceso. La falla
aquí es real: se renombra la tabla de tareas periódicas, de modo que la consulta del calendario falla
en PostgreSQL, y luego se le devuelve su nombre. Corre fuera de la transacción de la prueba (como beat,
que cierra y abre sus conexiones), en un hilo propio, y deja la tabla como estaba pase lo que pase.
"""

import threading
from typing import Any

from django.db import connection
from django_celery_beat.models import IntervalSchedule, PeriodicTask

from config.beat import REINTENTO_S, PlanificadorTolerante
from config.celery import app

TABLA = "django_celery_beat_periodictask"
# Una tarea de intervalo: django-celery-beat 2.9 solo lee las de crontab cuya hora cae cerca de la
# hora actual (la de limpieza, a las 4 de su zona horaria), así que mirar esa hacía depender la
# prueba de la hora del día en que corre.
TAREA = "prueba de beat: cada hora"


def test_una_vuelta_de_beat_con_la_base_fallando_espera_y_reintenta_en_vez_de_terminar(
    django_db_setup: None, django_db_blocker: Any
) -> None:
    resultados: dict[str, Any] = {}

    def beat() -> None:
        cada_hora, _ = IntervalSchedule.objects.get_or_create(every=1, period=IntervalSchedule.HOURS)
        PeriodicTask.objects.update_or_create(name=TAREA, defaults={"interval": cada_hora, "task": "x"})
        planificador = PlanificadorTolerante(app=app)
        planificador._initial_read = True  # la vuelta siguiente relee el calendario entero
        try:
            with connection.cursor() as cursor:
                cursor.execute(f"ALTER TABLE {TABLA} RENAME TO tarea_periodica_perdida")
            resultados["con_falla"] = planificador.tick()
        finally:
            with connection.cursor() as cursor:
                cursor.execute(f"ALTER TABLE IF EXISTS tarea_periodica_perdida RENAME TO {TABLA}")
        resultados["sana"] = planificador.tick()
        resultados["calendario"] = dict(planificador.schedule)
        PeriodicTask.objects.filter(name__in=[TAREA, "celery.backend_cleanup"]).delete()  # y lo de beat
        connection.close()

    with django_db_blocker.unblock():
        hilo = threading.Thread(target=beat)
        hilo.start()
        hilo.join(60)

    assert resultados["con_falla"] == REINTENTO_S
    assert isinstance(resultados["sana"], float) and resultados["sana"] >= 0
    assert TAREA in resultados["calendario"]  # releído entero al volver la base
