"""Alertas de operación dentro del producto: los mismos umbrales que dibuja el panel y que vigilan las
reglas de Prometheus (`config/prometheus/alertas.yml`), revisados cada minuto sobre los turnos de los
últimos minutos, las colas de Celery y los procesos que supervisord reinició. Cada alerta vigente llega
al personal como un aviso del chat (el canal de los avisos proactivos), con la cifra y el enlace al
panel; la misma alerta no se repite a una persona antes de una hora."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import Count, Q
from django.utils import timezone

from asistente.avisos import avisos_anunciar
from asistente.models import Aviso, Mensaje
from config import cache as cache_tolerante
from config.operacion import colas_celery, reinicios

TIPO = "alerta_operacion"
PANEL = "/admin/asistente/resumenhora/?rango=24h"
REPETIR_CADA = timedelta(hours=1)
REINICIOS_VISTOS = "alertas:reinicios_vistos"


@dataclass(frozen=True)
class Alerta:
    clave: str  # «errores», «latencia», «respaldo», «cola:turnos», «reinicio:beat»
    mensaje: str


def alertas_vigentes(ahora: datetime | None = None) -> list[Alerta]:
    """Lo que pasa sus umbrales ahora: tasa de errores, p95 del turno y tasa de respaldo en los últimos
    `ALERTA_VENTANA_MIN` minutos (con al menos `ALERTA_TURNOS_MINIMOS` turnos), tareas esperando en una
    cola de Celery y procesos reiniciados desde la última revisión."""
    ahora = ahora or timezone.now()
    ventana = settings.ALERTA_VENTANA_MIN
    alertas = _de_los_turnos(ahora - timedelta(minutes=ventana), ventana)
    for cola, esperando in colas_celery().items():
        if esperando > settings.ALERTA_COLA_CELERY:
            alertas.append(
                Alerta(
                    f"cola:{cola}",
                    f"{esperando} tareas esperan en la cola «{cola}» de Celery (umbral: "
                    f"{settings.ALERTA_COLA_CELERY}): los workers no dan abasto o no están corriendo.",
                )
            )
    alertas += _reinicios_nuevos()
    return alertas


def alertas_avisar(ahora: datetime | None = None) -> int:
    """Crea un aviso por cada alerta vigente para cada miembro activo del personal que no tenga ya uno
    igual de la última hora, y lo envía a sus chats abiertos. Devuelve cuántos creó."""
    ahora = ahora or timezone.now()
    alertas = alertas_vigentes(ahora)
    if not alertas:
        return 0
    creados = 0
    for persona in get_user_model().objects.filter(is_staff=True, is_active=True):
        recientes = set(
            Aviso.objects.filter(usuario=persona, tipo=TIPO, creado_at__gte=ahora - REPETIR_CADA).values_list(
                "objeto", flat=True
            )
        )
        nuevos = [
            Aviso.objects.create(
                usuario=persona, tipo=TIPO, objeto=f"alerta:{a.clave}"[:60], mensaje=a.mensaje, enlace=PANEL
            )
            for a in alertas
            if f"alerta:{a.clave}"[:60] not in recientes
        ]
        avisos_anunciar(nuevos, persona)
        creados += len(nuevos)
    return creados


def _de_los_turnos(desde: datetime, ventana: int) -> list[Alerta]:
    turnos = Mensaje.objects.filter(rol=Mensaje.Rol.ASISTENTE, creado_at__gte=desde)
    conteo = turnos.aggregate(
        total=Count("pk"),
        errores=Count("pk", filter=~Q(error="")),
        respaldos=Count("pk", filter=~Q(respaldo="")),
    )
    total = conteo["total"]
    if total < settings.ALERTA_TURNOS_MINIMOS:
        return []
    alertas = []
    if (tasa := conteo["errores"] / total) > settings.ALERTA_ERRORES_TASA:
        alertas.append(
            Alerta(
                "errores",
                f"{tasa:.0%} de los turnos de los últimos {ventana} minutos fallaron ({conteo['errores']} de "
                f"{total}; umbral: {settings.ALERTA_ERRORES_TASA:.0%}).",
            )
        )
    if (tasa := conteo["respaldos"] / total) > settings.ALERTA_RESPALDO_TASA:
        alertas.append(
            Alerta(
                "respaldo",
                f"{tasa:.0%} de los turnos de los últimos {ventana} minutos los respondió el motor sin "
                f"conexión porque el modelo falló ({conteo['respaldos']} de {total}; umbral: "
                f"{settings.ALERTA_RESPALDO_TASA:.0%}).",
            )
        )
    latencias = sorted(ms for ms in turnos.values_list("latencia_ms", flat=True) if ms is not None)
    if latencias:
        p95 = latencias[min(len(latencias) - 1, int(0.95 * len(latencias)))]
        meta = settings.METRICAS_META_TURNO_P95_MS
        if p95 and p95 > meta:
            alertas.append(
                Alerta(
                    "latencia",
                    f"El p95 del turno en los últimos {ventana} minutos es {p95 / 1000:.1f} s (meta: "
                    f"{meta / 1000:.0f} s; {len(latencias)} turnos).",
                )
            )
    return alertas


def _reinicios_nuevos() -> list[Alerta]:
    """Los procesos que supervisord reinició desde la última revisión (lo ya visto queda en Redis)."""
    actuales = reinicios()
    vistos: dict[str, int] = cache_tolerante.leer(REINICIOS_VISTOS, {}) or {}
    cache_tolerante.guardar(REINICIOS_VISTOS, actuales, None)
    alertas = []
    for proceso, veces in sorted(actuales.items()):
        nuevas = veces - vistos.get(proceso, 0)
        if nuevas > 0:
            alertas.append(
                Alerta(
                    f"reinicio:{proceso}",
                    f"supervisord reinició «{proceso}» {nuevas} vez/veces desde la última revisión "
                    f"({veces} en total): murió sin que se le pidiera; revise var/logs/{proceso}.log.",
                )
            )
    return alertas
