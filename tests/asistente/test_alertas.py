"""Alertas de operación en el producto: lo que pasa los umbrales del panel (errores, latencia, respaldo,
colas de Celery, procesos reiniciados) llega al personal como aviso del chat, con la cifra y el enlace al
panel, una vez por hora; y `/metrics` expone las colas y los reinicios para las reglas de Prometheus."""

import io
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import AbstractUser
from django.test import Client
from django.utils import timezone
from kombu import Queue

from asistente.alertas import PANEL, alertas_avisar, alertas_vigentes
from asistente.avisos import aviso_json
from asistente.models import Aviso, Conversacion, Dominio, Mensaje
from config import operacion
from config.redis_clientes import cliente_redis
from config.supervision import NOMBRE_SUPERVISOR, Seguidor

COLA = "prueba_alertas"


@pytest.fixture(autouse=True)
def _operacion_limpia(settings: Any) -> Iterator[None]:
    settings.CELERY_TASK_QUEUES = (Queue(COLA),)
    cliente_redis().delete(COLA, operacion.REINICIOS, ":1:alertas:reinicios_vistos")
    from django.core.cache import cache

    cache.delete("alertas:reinicios_vistos")
    yield
    cliente_redis().delete(COLA, operacion.REINICIOS)
    cache.delete("alertas:reinicios_vistos")


def _turnos(usuario: AbstractUser, cantidad: int, **campos: object) -> None:
    conversacion = Conversacion.objects.create(
        usuario_id=usuario.pk, dominio=Dominio.objects.get(codigo="mineria")
    )
    for _ in range(cantidad):
        pregunta = Mensaje.objects.create(conversacion=conversacion, rol=Mensaje.Rol.USUARIO, contenido="¿?")
        Mensaje.objects.create(
            conversacion=conversacion, rol=Mensaje.Rol.ASISTENTE, contenido="r", pregunta=pregunta,
            **{"latencia_ms": 900, **campos},
        )  # fmt: skip


def test_una_tasa_de_errores_sobre_el_umbral_avisa_al_personal_una_vez_por_hora_con_la_cifra_y_el_panel(
    crear_usuario: Callable[..., AbstractUser],
) -> None:
    jefa, consultora = crear_usuario("jefa"), crear_usuario("consultora")
    jefa.is_staff = True
    jefa.save()
    _turnos(consultora, 17)
    _turnos(consultora, 3, error="PoolTimeout")

    creados = alertas_avisar()
    otra_vez = alertas_avisar()
    en_dos_horas = alertas_avisar(timezone.now() + timedelta(hours=2))

    (aviso,) = Aviso.objects.filter(usuario_id=jefa.pk).order_by("creado_at")[:1]
    assert creados == 1 and otra_vez == 0
    assert aviso.mensaje.startswith(
        "15% de los turnos de los últimos 10 minutos fallaron (3 de 20; umbral: 5%)"
    )
    assert aviso.enlace == PANEL and aviso_json(aviso)["texto_enlace"] == "Ver el panel"
    assert not Aviso.objects.filter(usuario_id=consultora.pk).exists()
    assert en_dos_horas == 0  # ya no hay turnos en la ventana


def test_pocos_turnos_no_alertan_y_la_latencia_y_el_respaldo_tienen_su_propio_umbral(
    crear_usuario: Callable[..., AbstractUser],
) -> None:
    consultora = crear_usuario("consultora")
    _turnos(consultora, 2, error="PoolTimeout")
    pocos = alertas_vigentes()
    _turnos(consultora, 10, latencia_ms=15_000, respaldo="APITimeoutError")

    claves = {a.clave: a.mensaje for a in alertas_vigentes()}

    assert pocos == []
    assert set(claves) == {"errores", "respaldo", "latencia"}
    assert "83% de los turnos" in claves["respaldo"] and "(10 de 12" in claves["respaldo"]
    assert claves["latencia"].startswith("El p95 del turno en los últimos 10 minutos es 15.0 s (meta: 8 s")


def test_una_cola_de_celery_larga_y_un_proceso_reiniciado_alertan_y_salen_en_metrics(
    tmp_path: Path, crear_usuario: Callable[..., AbstractUser], settings: Any
) -> None:
    cliente_redis().rpush(COLA, *[b"tarea"] * 51)
    registro_supervisor = tmp_path / "supervisor.log"
    registro_supervisor.write_text("")
    seguidor = Seguidor({NOMBRE_SUPERVISOR: registro_supervisor}, io.StringIO())
    with registro_supervisor.open("a") as archivo:
        archivo.write("2026-11-28 22:00:01,000 WARN exited: beat (terminated by SIGKILL; not expected)\n")
        archivo.write("2026-11-28 22:00:02,000 INFO exited: web (exit status 0; expected)\n")
    seguidor.una_vuelta()
    settings.METRICAS_IPS = ["127.0.0.1"]

    primera = {a.clave for a in alertas_vigentes()}
    segunda = {a.clave for a in alertas_vigentes()}
    metricas = Client(REMOTE_ADDR="127.0.0.1").get("/metrics").content.decode()

    assert primera == {f"cola:{COLA}", "reinicio:beat"}
    assert segunda == {f"cola:{COLA}"}  # el reinicio ya se avisó
    assert f'celery_cola_tareas{{cola="{COLA}"}} 51.0' in metricas
    assert 'procesos_reinicios_total{proceso="beat"} 1.0' in metricas
