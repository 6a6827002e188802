"""Métricas del asistente para el panel: resúmenes por hora y lo que se lee de ellos.

Cada turno queda en su mensaje del asistente (`asistente.turno.medicion`). Una tarea de beat agrega
cada hora los mensajes en `ResumenHora` (una fila por hora y motor), así el panel de 30 días suma ~720
filas por motor en vez de recorrer cada mensaje; la hora en curso se agrega en vivo con la misma
consulta. Las latencias se guardan por cubetas (las mismas para todas las horas): los percentiles de
un rango salen de sumar cubetas e interpolar dentro de la que contiene el percentil.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from django.db import transaction
from django.db.models import Count, Func, IntegerField, Max, Q, QuerySet, Sum
from django.db.models.fields.json import KeyTextTransform
from django.db.models.functions import Cast, TruncHour
from django.utils import timezone

from asistente.models import Mensaje, ResumenHora

# Límites superiores de cada cubeta, en ms (la última, sin límite).
CUBETAS_MS = (100, 250, 500, 1000, 2000, 3000, 5000, 8000, 13000, 21000, 34000, 60000)
CONFIANZAS = ("HIGH", "MEDIUM", "LOW", "NONE")
HORAS_A_RECALCULAR = 3  # la tarea de cada hora rehace las últimas: un turno largo termina tarde
DIAS_MAXIMOS = 31  # lo más atrás que rehace de una vez (el panel muestra hasta 30 días)
_SUMAS = ("tokens_entrada", "tokens_salida", "tokens_cache_lectura", "tokens_cache_escritura", "costo_usd")
# De un campo de fecha, el comienzo de su periodo: `TruncHour`, `TruncDay`…
Periodo = Callable[[str], Func]
_CONTEOS = ("turnos", "errores", "respaldos", "abstenciones", "curadas", "limitados")


@dataclass
class Agregado:
    """Turnos agregados (de una hora y un motor, o de un rango entero)."""

    turnos: int = 0
    errores: int = 0
    respaldos: int = 0
    abstenciones: int = 0
    curadas: int = 0
    limitados: int = 0
    tokens_entrada: int = 0
    tokens_salida: int = 0
    tokens_cache_lectura: int = 0
    tokens_cache_escritura: int = 0
    costo_usd: Decimal = Decimal(0)
    latencias: list[int] = field(default_factory=lambda: [0] * (len(CUBETAS_MS) + 1))
    primeros_tokens: list[int] = field(default_factory=lambda: [0] * (len(CUBETAS_MS) + 1))
    confianzas: dict[str, int] = field(default_factory=dict)

    def sumar(self, otro: Agregado | ResumenHora) -> None:
        for nombre in (*_CONTEOS, *_SUMAS):
            setattr(self, nombre, getattr(self, nombre) + getattr(otro, nombre))
        self.latencias = [a + b for a, b in zip(self.latencias, otro.latencias, strict=True)]
        self.primeros_tokens = [
            a + b for a, b in zip(self.primeros_tokens, otro.primeros_tokens, strict=True)
        ]
        for confianza, cantidad in otro.confianzas.items():
            self.confianzas[confianza] = self.confianzas.get(confianza, 0) + cantidad

    def percentil_latencia_ms(self, q: float) -> float | None:
        return percentil(self.latencias, q)

    def percentil_primer_token_ms(self, q: float) -> float | None:
        return percentil(self.primeros_tokens, q)


def percentil(cubetas: list[int], q: float) -> float | None:
    """El percentil `q` (0–1) interpolando dentro de la cubeta que lo contiene; None sin datos. En la
    última cubeta (sin límite) devuelve su límite inferior: «más de 60 s»."""
    total = sum(cubetas)
    if not total:
        return None
    objetivo = q * total
    acumulado = 0
    for indice, cantidad in enumerate(cubetas):
        if cantidad and acumulado + cantidad >= objetivo:
            inferior = CUBETAS_MS[indice - 1] if indice else 0
            if indice == len(CUBETAS_MS):
                return float(inferior)
            return inferior + (CUBETAS_MS[indice] - inferior) * (objetivo - acumulado) / cantidad
        acumulado += cantidad
    return float(CUBETAS_MS[-1])


def agregar_por_hora(
    mensajes: QuerySet[Mensaje], periodo: Periodo = TruncHour
) -> dict[tuple[datetime, str], Agregado]:
    """(hora, motor) → sus turnos agregados, en una consulta (conteos condicionales por cubeta). Con
    otro `periodo` (p. ej. `TruncDay`), por día u otro periodo en vez de por hora."""
    anotaciones: dict[str, Any] = {
        "turnos": Count("pk"),
        "errores": Count("pk", filter=~Q(error="")),
        "respaldos": Count("pk", filter=~Q(respaldo="")),
        "abstenciones": Count("pk", filter=Q(abstuvo=True)),
        "curadas": Count("pk", filter=Q(motor="curada")),
        "limitados": Count("pk", filter=Q(limitado=True)),
        **{nombre: Sum(nombre) for nombre in _SUMAS},
    }
    for campo, prefijo in (("latencia_ms", "l"), ("primer_token_ms", "p")):
        inferior = 0
        for indice, superior in enumerate((*CUBETAS_MS, None)):
            condicion = Q(**{f"{campo}__gte": inferior})
            if superior is not None:
                condicion &= Q(**{f"{campo}__lt": superior})
                inferior = superior
            anotaciones[f"{prefijo}{indice}"] = Count("pk", filter=condicion)
    for confianza in CONFIANZAS:
        anotaciones[f"c_{confianza}"] = Count("pk", filter=Q(confianza=confianza))
    filas: Iterable[dict[str, Any]] = (
        mensajes.filter(rol=Mensaje.Rol.ASISTENTE)  # type: ignore[assignment]
        .annotate(hora=periodo("creado_at"))
        .order_by()
        .values("hora", "motor")
        .annotate(**anotaciones)
    )
    return {(fila["hora"], fila["motor"]): _agregado(fila) for fila in filas}


def resumenes_agregar(
    resumenes: QuerySet[ResumenHora], periodo: Periodo
) -> dict[tuple[datetime, str], Agregado]:
    """(periodo, motor) → la suma de sus resúmenes por hora, cubetas incluidas, en la base: el panel de
    30 días no trae a Python una fila por hora."""
    anotaciones: dict[str, Any] = {nombre: Sum(nombre) for nombre in (*_CONTEOS, *_SUMAS)}
    for campo, prefijo in (("latencias", "l"), ("primeros_tokens", "p")):
        for indice in range(len(CUBETAS_MS) + 1):
            anotaciones[f"{prefijo}{indice}"] = Sum(
                Cast(KeyTextTransform(str(indice), campo), IntegerField())
            )
    for confianza in CONFIANZAS:
        anotaciones[f"c_{confianza}"] = Sum(Cast(KeyTextTransform(confianza, "confianzas"), IntegerField()))
    filas: Iterable[dict[str, Any]] = (
        resumenes.annotate(periodo=periodo("hora"))  # type: ignore[assignment]
        .order_by()
        .values("periodo", "motor")
        .annotate(**anotaciones)
    )
    return {(fila["periodo"], fila["motor"]): _agregado(fila) for fila in filas}


def _agregado(fila: dict[str, Any]) -> Agregado:
    cubetas = range(len(CUBETAS_MS) + 1)
    valores: dict[str, Any] = {nombre: fila[nombre] or 0 for nombre in (*_CONTEOS, *_SUMAS)}
    return Agregado(
        **valores,
        latencias=[fila[f"l{i}"] or 0 for i in cubetas],
        primeros_tokens=[fila[f"p{i}"] or 0 for i in cubetas],
        confianzas={c: fila[f"c_{c}"] for c in CONFIANZAS if fila[f"c_{c}"]},
    )


def horas_resumir(*, desde: datetime, hasta: datetime) -> int:
    """Rehace los resúmenes de las horas completas entre `desde` y `hasta` (truncadas a la hora);
    devuelve cuántas filas quedaron. Idempotente."""
    inicio, fin = _hora(desde), _hora(hasta)
    agregados = agregar_por_hora(Mensaje.objects.filter(creado_at__gte=inicio, creado_at__lt=fin))
    with transaction.atomic():
        ResumenHora.objects.filter(hora__gte=inicio, hora__lt=fin).delete()
        ResumenHora.objects.bulk_create(
            ResumenHora(hora=hora, motor=motor, **vars(agregado))
            for (hora, motor), agregado in agregados.items()
        )
    return len(agregados)


def horas_recientes_resumir() -> int:
    """Lo que corre la tarea de beat cada hora: las últimas `HORAS_A_RECALCULAR` horas completas y,
    si la tarea estuvo detenida, las que faltan desde el último resumen (hasta `DIAS_MAXIMOS` atrás)."""
    ahora = timezone.now()
    ultimo = ResumenHora.objects.order_by("-hora").values_list("hora", flat=True).first()
    if ultimo is None:
        ultimo = Mensaje.objects.order_by("creado_at").values_list("creado_at", flat=True).first() or ahora
    desde = max(
        min(ahora - timedelta(hours=HORAS_A_RECALCULAR), ultimo), ahora - timedelta(days=DIAS_MAXIMOS)
    )
    return horas_resumir(desde=desde, hasta=ahora)


def turnos_por_periodo(
    *, desde: datetime, hasta: datetime | None = None, periodo: Periodo = TruncHour
) -> dict[tuple[datetime, str], Agregado]:
    """(periodo, motor) → agregado del rango: los resúmenes de las horas completas y, para la hora en
    curso (y las que la tarea aún no resumió), los mensajes mismos. Por hora, o por el `periodo` dado."""
    hasta = hasta or timezone.now()
    resumenes = ResumenHora.objects.filter(hora__gte=_hora(desde), hora__lt=hasta)
    resumidas_hasta = resumenes.aggregate(ultima=Max("hora"))["ultima"] or _hora(desde) - timedelta(hours=1)
    resultado = resumenes_agregar(resumenes, periodo)
    en_vivo = Mensaje.objects.filter(creado_at__gte=resumidas_hasta + timedelta(hours=1), creado_at__lt=hasta)
    for clave, agregado in agregar_por_hora(en_vivo, periodo).items():
        resultado.setdefault(clave, Agregado()).sumar(agregado)
    return resultado


def total(por_hora: dict[tuple[datetime, str], Agregado]) -> Agregado:
    suma = Agregado()
    for agregado in por_hora.values():
        suma.sumar(agregado)
    return suma


def _hora(momento: datetime) -> datetime:
    return momento.replace(minute=0, second=0, microsecond=0)
