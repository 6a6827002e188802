"""Programación de las fuentes externas, ejecuciones simultáneas y la página de estado del admin."""

from typing import Any

import pytest
from django.core.cache import cache
from django_celery_beat.models import PeriodicTask

from fuentes_externas import cache as cache_fuentes
from fuentes_externas.models import EstadoFuente
from fuentes_externas.periodicas import TAREAS_PERIODICAS, tareas_periodicas_sincronizar
from fuentes_externas.tasks import revisar_bcn

pytestmark = pytest.mark.django_db


def test_la_agenda_tiene_bcn_diaria_sea_y_eseia_semanales_avisos_y_vencimiento_de_acciones() -> None:
    tareas_periodicas_sincronizar(tareas=TAREAS_PERIODICAS)

    programadas = {
        t.task: t for t in PeriodicTask.objects.filter(enabled=True, name__startswith="prefactibilidad:")
    }
    bcn, eseia = (
        programadas["fuentes_externas.bcn_revisar"].crontab,
        programadas["fuentes_externas.eseia_actualizar"].crontab,
    )
    assert (bcn.hour, bcn.minute, bcn.day_of_week, str(bcn.timezone)) == ("4", "0", "*", "America/Santiago")
    assert (eseia.hour, eseia.minute, eseia.day_of_week) == ("3", "30", "1")
    sea = programadas["fuentes_externas.sea_revisar"].crontab
    assert (sea.hour, sea.minute, sea.day_of_week, str(sea.timezone)) == ("3", "0", "1", "America/Santiago")
    assert programadas["asistente.acciones_expirar"].interval.every == 60
    assert (
        programadas["asistente.avisos_evaluar"].interval.every == 60
    )  # y corre según la frecuencia del admin


def test_una_segunda_ejecucion_mientras_otra_corre_no_hace_nada() -> None:
    cache.delete("fuentes:bcn:candado")
    with cache_fuentes.ejecucion(fuente="bcn", maximo_s=60) as resumen:
        segunda = revisar_bcn()
        resumen["resultado"] = "primera"

    assert segunda == "ocupada"
    estado = EstadoFuente.objects.get(fuente="bcn")
    assert (
        estado.resultado == "primera" and estado.fallos_consecutivos == 0 and estado.duracion_ms is not None
    )


def test_la_pagina_de_estado_lista_cada_fuente_y_corre_una_ahora(admin_client: Any) -> None:
    from celery import current_app

    enviadas: list[str] = []
    original = current_app.send_task
    current_app.send_task = lambda nombre, *a, **k: enviadas.append(nombre)  # type: ignore[method-assign,assignment]
    try:
        pagina = admin_client.get("/admin/fuentes_externas/estadofuente/")
        bcn = EstadoFuente.objects.get(fuente="bcn")
        ejecutar = admin_client.post(
            "/admin/fuentes_externas/estadofuente/",
            {"action": "ejecutar_ahora", "_selected_action": [bcn.pk]},
            follow=True,
        )
    finally:
        current_app.send_task = original  # type: ignore[method-assign]

    contenido = pagina.content.decode()
    assert all(nombre in contenido for nombre in ("BCN LeyChile", "Sitio del SEA", "e-SEIA"))
    assert "Antigüedad de la caché" in contenido
    assert enviadas == ["fuentes_externas.bcn_revisar"]
    assert "revisión encolada" in ejecutar.content.decode()
