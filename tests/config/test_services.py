"""Preparación del sistema y usuario de demostración."""

import pytest
from django.core.exceptions import ImproperlyConfigured
from django_celery_beat.models import PeriodicTask

from config.services import sistema_preparar, usuario_demo_asegurar
from fuentes_externas.periodicas import TareaPeriodica, tareas_periodicas_sincronizar

pytestmark = pytest.mark.django_db


def test_el_usuario_demo_se_crea_una_vez_y_conserva_su_contrasena(settings, tmp_path):
    settings.PERMITIR_USUARIO_DEMO = True
    archivo = tmp_path / "demo.json"

    primera = usuario_demo_asegurar(archivo=archivo)
    segunda = usuario_demo_asegurar(archivo=archivo)

    assert primera == segunda
    from django.contrib.auth import authenticate

    usuario = authenticate(username=primera.usuario, password=primera.password)
    assert usuario is not None and usuario.is_superuser


def test_el_usuario_demo_esta_prohibido_fuera_de_desarrollo(settings, tmp_path):
    settings.PERMITIR_USUARIO_DEMO = False

    with pytest.raises(ImproperlyConfigured, match="no está permitido"):
        usuario_demo_asegurar(archivo=tmp_path / "demo.json")


def test_preparar_es_idempotente(corpus):
    sistema_preparar(verbosidad=0)
    sistema_preparar(verbosidad=0)


def test_las_tareas_periodicas_se_declaran_y_las_retiradas_se_desactivan():
    tareas_periodicas_sincronizar(
        tareas=[
            TareaPeriodica(nombre="cada-minuto", tarea="config.ping", cada_segundos=60),
            TareaPeriodica(
                nombre="lunes", tarea="config.ping", crontab={"minute": "0", "hour": "3", "day_of_week": "1"}
            ),
        ]
    )
    resumen = tareas_periodicas_sincronizar(
        tareas=[TareaPeriodica(nombre="cada-minuto", tarea="config.ping", cada_segundos=60)]
    )

    assert resumen.desactivadas == 1
    activas = set(PeriodicTask.objects.filter(enabled=True).values_list("name", flat=True))
    assert activas == {"prefactibilidad:cada-minuto"}
    lunes = PeriodicTask.objects.get(name="prefactibilidad:lunes")
    assert str(lunes.crontab.timezone) == "America/Santiago"


def test_preparar_carga_la_demostracion_una_sola_vez_donde_corresponde(
    corpus, capas, settings, monkeypatch, tmp_path
):
    from proyectos import demo
    from proyectos.models import Proyecto

    monkeypatch.setattr(demo, "directorio_var", lambda: tmp_path)
    sistema_preparar(verbosidad=0)
    assert not Proyecto.objects.filter(cliente__demo=True).exists(), "las pruebas y producción no la cargan"

    settings.DATOS_DEMO = True
    sistema_preparar(verbosidad=0)
    sistema_preparar(verbosidad=0)
    assert Proyecto.objects.filter(cliente__demo=True, estado=Proyecto.Estado.ANALIZADO).count() == 4

    demo.demo_borrar()
    sistema_preparar(verbosidad=0)
    assert not Proyecto.objects.filter(cliente__demo=True).exists()
