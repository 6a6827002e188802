"""Turnos sintéticos para medir y probar el panel de métricas: conversaciones con sus mensajes de
usuario y asistente, llamadas a herramientas y acciones, repartidos en los últimos días con fechas
propias (la fecha de creación automática se suspende mientras se insertan).

Las proporciones imitan un uso real: la mitad de los turnos del motor de reglas, un tercio de Claude
y el resto respuestas curadas; Claude tarda segundos y cuesta, las reglas milisegundos; una de cada
ocho preguntas cae fuera del corpus (abstención o confianza baja) y se repite con frecuencia decreciente.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from django.contrib.auth.models import User
from django.db import models
from django.utils import timezone

from asistente.models import AccionPendiente, Conversacion, Dominio, LlamadaHerramienta, Mensaje

TURNOS_POR_CONVERSACION = 5
LOTE = 5000
PREGUNTAS = [
    "¿Un proyecto minero de {n} t/día debe ingresar al SEIA?",
    "¿Qué dice el artículo {n} de la Ley 19.300?",
    "¿Cuándo corresponde un EIA en vez de una DIA para una faena de {n} hectáreas?",
    "¿Qué plazo tiene el SEA para evaluar una DIA con {n} observaciones?",
    "¿Qué permisos sectoriales pide un relave de {n} m³?",
]
FUERA_DEL_CORPUS = [
    "¿Cuánto es la patente minera por hectárea en {n}?",
    "¿Cómo se calcula la indemnización por años de servicio de un minero con {n} años?",
    "¿Qué tasa del impuesto específico a la minería paga una empresa de {n} toneladas?",
    "¿Cómo constituyo una servidumbre minera sobre un predio de {n} hectáreas?",
]
HERRAMIENTAS = [
    ("buscar_normativa", 0.7, 60),
    ("consultar_proyecto", 0.15, 25),
    ("buscar_eseia", 0.1, 900),
    ("buscar_sea", 0.05, 700),
]


@contextmanager
def fechas_propias(*modelos: type[models.Model]) -> Iterator[None]:
    """Suspende `auto_now_add` de los campos de fecha de estos modelos (para insertar el pasado)."""
    campos = [c for m in modelos for c in m._meta.concrete_fields if getattr(c, "auto_now_add", False)]
    for campo in campos:
        campo.auto_now_add = False  # type: ignore[attr-defined]
    try:
        yield
    finally:
        for campo in campos:
            campo.auto_now_add = True  # type: ignore[attr-defined]


def sembrar(
    usuario: User,
    *,
    turnos: int,
    dias: int,
    semilla: int = 20261125,
    ahora: datetime | None = None,
) -> None:
    """Inserta `turnos` turnos en los últimos `dias` días: conversaciones de unos cinco turnos, cada una
    empezada en un momento al azar del rango y con sus turnos a pocos minutos uno de otro."""
    azar = random.Random(semilla)
    ahora = ahora or timezone.now()
    dominio = Dominio.objects.get(codigo="mineria")
    conversaciones: list[Conversacion] = []
    mensajes: list[Mensaje] = []
    llamadas: list[LlamadaHerramienta] = []
    acciones: list[AccionPendiente] = []
    with fechas_propias(Conversacion, Mensaje, LlamadaHerramienta, AccionPendiente):
        restantes, numero = turnos, 0
        while restantes > 0:
            cantidad = min(restantes, azar.randint(1, 2 * TURNOS_POR_CONVERSACION - 1))
            momento = ahora - timedelta(seconds=azar.uniform(0, dias * 86400))
            numero += 1
            conversacion = Conversacion(
                usuario=usuario, dominio=dominio, titulo=f"Sintética {numero}", creada_at=momento
            )
            conversaciones.append(conversacion)
            for _ in range(cantidad):
                momento = min(
                    momento + timedelta(seconds=azar.uniform(20, 600)), ahora - timedelta(seconds=1)
                )
                _turno(azar, usuario, conversacion, momento, mensajes, llamadas, acciones)
            restantes -= cantidad
            if len(mensajes) >= LOTE:
                _guardar(conversaciones, mensajes, llamadas, acciones)
        _guardar(conversaciones, mensajes, llamadas, acciones)


def _turno(
    azar: random.Random,
    usuario: User,
    conversacion: Conversacion,
    momento: datetime,
    mensajes: list[Mensaje],
    llamadas: list[LlamadaHerramienta],
    acciones: list[AccionPendiente],
) -> None:
    respuesta = _respuesta(azar, conversacion, momento)
    respuesta.pregunta = Mensaje(
        conversacion=conversacion,
        rol=Mensaje.Rol.USUARIO,
        contenido=_pregunta(azar, fuera=respuesta.abstuvo or respuesta.confianza in ("LOW", "NONE")),
        creado_at=momento - timedelta(milliseconds=respuesta.latencia_ms or 0),
    )
    mensajes += [respuesta.pregunta, respuesta]
    if respuesta.motor != "curada":
        llamadas += _llamadas(azar, usuario, respuesta)
    if azar.random() < 0.03:
        acciones.append(_accion(azar, usuario, conversacion, momento))


def _guardar(
    conversaciones: list[Conversacion],
    mensajes: list[Mensaje],
    llamadas: list[LlamadaHerramienta],
    acciones: list[AccionPendiente],
) -> None:
    Conversacion.objects.bulk_create(conversaciones, batch_size=LOTE)
    Mensaje.objects.bulk_create(mensajes, batch_size=LOTE)
    LlamadaHerramienta.objects.bulk_create(llamadas, batch_size=LOTE)
    AccionPendiente.objects.bulk_create(acciones, batch_size=LOTE)
    for lote in (conversaciones, mensajes, llamadas, acciones):
        lote.clear()


def _respuesta(azar: random.Random, conversacion: Conversacion, momento: datetime) -> Mensaje:
    motor = azar.choices(["reglas", "claude", "curada"], weights=[50, 35, 15])[0]
    confianza = (
        ""
        if motor == "curada"
        else azar.choices(["HIGH", "MEDIUM", "LOW", "NONE", ""], [45, 25, 8, 5, 17])[0]
    )
    abstuvo = confianza == "NONE" and azar.random() < 0.9
    campos: dict[str, Any] = {"motor": motor, "confianza": confianza, "abstuvo": abstuvo}
    if motor == "claude":
        entrada, salida, leidos = azar.randint(2000, 9000), azar.randint(150, 900), azar.randint(0, 6000)
        campos |= {
            "modelo": "claude-sonnet-4-5",
            "latencia_ms": int(azar.lognormvariate(8.0, 0.5)),
            "primer_token_ms": int(azar.lognormvariate(6.7, 0.4)),
            "tokens_entrada": entrada,
            "tokens_salida": salida,
            "tokens_cache_lectura": leidos,
            "costo_usd": Decimal(entrada * 3 + salida * 15) / 1_000_000,
            "limitado": azar.random() < 0.01,
            "respaldo": "APITimeoutError" if azar.random() < 0.01 else "",
        }
    else:
        latencia = int(azar.lognormvariate(4.6 if motor == "reglas" else 2.5, 0.4))
        campos |= {"latencia_ms": latencia, "primer_token_ms": latencia}
    if azar.random() < 0.005:
        campos["error"] = "OperationalError"
    if azar.random() < 0.06:
        campos["feedback"] = 1 if azar.random() < 0.8 else -1
    return Mensaje(
        conversacion=conversacion,
        rol=Mensaje.Rol.ASISTENTE,
        contenido="Respuesta sintética.",
        creado_at=momento,
        **campos,
    )


def _pregunta(azar: random.Random, *, fuera: bool) -> str:
    if fuera:  # pocas preguntas distintas, las primeras mucho más frecuentes (como en la realidad)
        plantilla = FUERA_DEL_CORPUS[min(int(azar.expovariate(1.2)), len(FUERA_DEL_CORPUS) - 1)]
        return plantilla.format(n=2020 + min(int(azar.expovariate(0.8)), 6))
    return azar.choice(PREGUNTAS).format(n=azar.randint(1, 5000))


def _llamadas(azar: random.Random, usuario: User, respuesta: Mensaje) -> list[LlamadaHerramienta]:
    cantidad = azar.choice([1, 1, 2]) if respuesta.motor == "claude" else 1
    llamadas = []
    for _ in range(cantidad):
        herramienta, _, mediana = azar.choices(HERRAMIENTAS, [h[1] for h in HERRAMIENTAS])[0]
        exito = azar.random() > 0.02
        llamadas.append(
            LlamadaHerramienta(
                conversacion=respuesta.conversacion,
                mensaje=respuesta,
                usuario=usuario,
                herramienta=herramienta,
                parametros={},
                ms=int(azar.lognormvariate(0, 0.5) * mediana),
                exito=exito,
                error="" if exito else "Tiempo agotado",
                cache_hit=azar.random() < 0.4,
                creada_at=respuesta.creado_at,
            )
        )
    return llamadas


def _accion(
    azar: random.Random, usuario: User, conversacion: Conversacion, momento: datetime
) -> AccionPendiente:
    estado = azar.choices(list(AccionPendiente.Estado), [2, 60, 20, 15, 3])[0]
    return AccionPendiente(
        conversacion=conversacion,
        usuario=usuario,
        tipo="crear_proyecto",
        descripcion="Crear proyecto sintético",
        estado=estado,
        creada_at=momento,
        expires_at=momento + timedelta(minutes=15),
    )
