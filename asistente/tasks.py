"""Tareas del asistente (adaptadores delgados)."""

from celery import shared_task

from asistente import flujos
from asistente.acciones import acciones_expirar
from asistente.alertas import alertas_avisar
from asistente.avisos import avisos_evaluar_activos
from asistente.metricas import horas_recientes_resumir


@shared_task(name="asistente.acciones_expirar")
def expirar_acciones() -> int:
    """Marca como expiradas las acciones pendientes vencidas."""
    return acciones_expirar()


@shared_task(name="asistente.avisos_evaluar")
def evaluar_avisos() -> int | None:
    """Revisa los proyectos de los usuarios con actividad reciente y crea los avisos que falten
    (None si según la frecuencia configurada aún no tocaba)."""
    return avisos_evaluar_activos()


@shared_task(name="asistente.alertas_revisar")
def revisar_alertas() -> int:
    """Revisa los umbrales de operación y avisa al personal de lo que los pasa (cuántos avisos creó)."""
    return alertas_avisar()


@shared_task(name="asistente.metricas_resumir")
def resumir_metricas() -> int:
    """Agrega por hora los turnos recientes en `ResumenHora` (lo que lee el panel de métricas)."""
    return horas_recientes_resumir()


@shared_task(name=flujos.TAREA_PUBLICAR, acks_late=True, ignore_result=True)
def publicar_turno(mensaje_id: str, vista: str = "") -> None:
    """Ejecuta un turno del chat y publica sus eventos en su stream (cola «turnos», pool gevent).

    La cola «turnos» no lleva acuse de recibo (`CELERY_TASK_QUEUES`): un turno nunca se entrega dos
    veces. El acuse que Celery igual envía queda para el final del turno (`acks_late`), no en el hilo
    que recibe los mensajes cuando cien turnos empiezan a la vez.
    """
    flujos.publicar_mensaje(mensaje_id, vista)
