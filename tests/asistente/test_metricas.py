"""Resúmenes por hora de los turnos: cuadran con los mensajes de los que salen."""

import random
from datetime import timedelta
from decimal import Decimal

import pytest
from django.contrib.auth.models import AbstractUser
from django.utils import timezone

from asistente.metricas import (
    CUBETAS_MS,
    agregar_por_hora,
    horas_recientes_resumir,
    horas_resumir,
    percentil,
    total,
    turnos_por_periodo,
)
from asistente.models import Conversacion, Dominio, Mensaje, ResumenHora

pytestmark = pytest.mark.django_db


def turnos_sembrados(usuario: AbstractUser, horas: int, por_hora: int) -> list[Mensaje]:
    """Mensajes del asistente repartidos en las últimas `horas` horas, con datos al azar (semilla fija)."""
    azar = random.Random(7)
    dominio = Dominio.objects.get(codigo="mineria")
    conversacion = Conversacion.objects.create(usuario=usuario, dominio=dominio)  # type: ignore[misc]
    ahora = timezone.now()
    mensajes = []
    for hora in range(horas):
        for _ in range(por_hora):
            motor = azar.choice(["reglas", "claude", "curada"])
            mensaje = Mensaje.objects.create(
                conversacion=conversacion,
                rol=Mensaje.Rol.ASISTENTE,
                contenido="respuesta",
                motor=motor,
                latencia_ms=azar.randint(20, 9000),
                primer_token_ms=azar.randint(10, 2000),
                tokens_entrada=azar.randint(0, 3000) if motor == "claude" else 0,
                tokens_salida=azar.randint(0, 500) if motor == "claude" else 0,
                costo_usd=Decimal(azar.randint(0, 9000)) / 1_000_000,
                abstuvo=azar.random() < 0.2,
                error="RuntimeError" if azar.random() < 0.05 else "",
                confianza=azar.choice(["HIGH", "MEDIUM", "LOW", "NONE", ""]),
            )
            mensajes.append(mensaje)
        Mensaje.objects.filter(pk__in=[m.pk for m in mensajes[-por_hora:]]).update(
            creado_at=ahora - timedelta(hours=hora, minutes=azar.randint(0, 50))
        )
    return list(Mensaje.objects.filter(rol=Mensaje.Rol.ASISTENTE))


def test_los_resumenes_de_cada_hora_y_motor_cuadran_con_los_mensajes(crear_usuario) -> None:
    mensajes = turnos_sembrados(crear_usuario("ana"), horas=6, por_hora=25)
    ahora = timezone.now()

    filas = horas_resumir(desde=ahora - timedelta(hours=8), hasta=ahora)

    hora_en_curso = ahora.replace(minute=0, second=0, microsecond=0)
    completos = [m for m in mensajes if m.creado_at < hora_en_curso]
    assert filas == ResumenHora.objects.count() > 0
    for resumen in ResumenHora.objects.all():
        propios = [
            m
            for m in completos
            if m.motor == resumen.motor and resumen.hora <= m.creado_at < resumen.hora + timedelta(hours=1)
        ]
        assert resumen.turnos == len(propios)
        assert resumen.errores == sum(bool(m.error) for m in propios)
        assert resumen.abstenciones == sum(m.abstuvo for m in propios)
        assert resumen.tokens_entrada == sum(m.tokens_entrada for m in propios)
        assert resumen.costo_usd == sum(m.costo_usd for m in propios)
        assert sum(resumen.latencias) == len(propios)
        assert resumen.confianzas.get("NONE", 0) == sum(m.confianza == "NONE" for m in propios)
    assert sum(r.turnos for r in ResumenHora.objects.all()) == len(completos)


def test_el_rango_suma_resumenes_y_la_hora_en_curso_en_vivo_igual_que_sin_resumir(crear_usuario) -> None:
    mensajes = turnos_sembrados(crear_usuario("ana"), horas=5, por_hora=30)
    desde = timezone.now() - timedelta(hours=6)
    crudo = total(agregar_por_hora(Mensaje.objects.filter(creado_at__gte=desde.replace(minute=0))))

    horas_recientes_resumir()
    horas_recientes_resumir()  # idempotente
    combinado = total(turnos_por_periodo(desde=desde))

    assert combinado == crudo and combinado.turnos == len(mensajes)


def test_el_p95_de_las_cubetas_cae_en_la_cubeta_del_p95_real(crear_usuario) -> None:
    mensajes = turnos_sembrados(crear_usuario("ana"), horas=3, por_hora=40)
    latencias = sorted(m.latencia_ms or 0 for m in mensajes)
    real = latencias[int(0.95 * len(latencias)) - 1]

    estimado = total(agregar_por_hora(Mensaje.objects.all())).percentil_latencia_ms(0.95)

    assert estimado is not None
    limites = (0, *CUBETAS_MS)
    cubeta = next(i for i, limite in enumerate(CUBETAS_MS) if real < limite)
    assert limites[cubeta] <= estimado <= CUBETAS_MS[cubeta]


def test_sin_turnos_no_hay_percentil() -> None:
    assert percentil([0] * (len(CUBETAS_MS) + 1), 0.5) is None
