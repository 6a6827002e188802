"""Lo que lee el panel «Métricas del asistente» del admin, para un rango de 24 h, 7 d o 30 d.

Los turnos (cuántos, por motor, latencia, primer token, costo, abstenciones, confianza) salen de los
resúmenes por hora más la hora en curso (`asistente.metricas.turnos_por_periodo`); lo que los resúmenes no
guardan se consulta en sus filas, con índices sobre la fecha: conversaciones iniciadas, herramientas,
acciones, valoraciones y las preguntas sin respuesta. Las cachés que no dejan filas (embeddings,
fuentes externas) se leen de los contadores de Prometheus, desde el arranque del servidor.

El eje x son horas locales (24 h) o días locales (7 y 30 d), en la zona horaria del proyecto.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from itertools import pairwise
from typing import Any

from django.conf import settings
from django.db.models import Aggregate, Count, Exists, FloatField, Max, OuterRef, Q
from django.db.models.functions import Lower, Trim, TruncDay, TruncHour
from django.utils import timezone

from asistente.metricas import CONFIANZAS, Agregado, total, turnos_por_periodo
from asistente.models import AccionPendiente, Conversacion, LlamadaHerramienta, Mensaje
from config.metricas import cache_contada
from fuentes_externas import cache as cache_fuentes
from fuentes_externas.models import EstadoFuente

RANGOS: dict[str, tuple[str, timedelta]] = {
    "24h": ("Últimas 24 horas", timedelta(hours=24)),
    "7d": ("Últimos 7 días", timedelta(days=7)),
    "30d": ("Últimos 30 días", timedelta(days=30)),
}
RANGO_POR_DEFECTO = "7d"
CONFIANZAS_BAJAS = ("LOW", "NONE")
MAXIMO_SIN_RESPUESTA = 25
# Cachés que no dejan filas: sus aciertos y fallos se cuentan en Prometheus desde el arranque.
CACHES_DE_PROCESO = {
    "embeddings": "Embeddings de pasajes",
    "embeddings_consulta": "Embeddings de preguntas",
    "fuentes_externas": "Fuentes externas",
}


class Percentil(Aggregate):
    """`percentile_cont(f) WITHIN GROUP (ORDER BY expr)` de PostgreSQL (interpolado, como numpy)."""

    function = "percentile_cont"
    template = "%(function)s(%(fraccion)s) WITHIN GROUP (ORDER BY %(expressions)s)"
    output_field = FloatField()

    def __init__(self, expresion: str, fraccion: float) -> None:
        super().__init__(expresion, fraccion=float(fraccion))


@dataclass(frozen=True)
class Periodos:
    """Los comienzos de cada punto del eje x (hora o día local) y cómo se rotulan."""

    inicios: list[datetime]
    por_hora: bool

    @classmethod
    def del_rango(cls, rango: str, ahora: datetime) -> Periodos:
        if rango == "24h":
            # En UTC: restar horas a una hora local cruzaría mal el cambio de horario.
            hora = ahora.astimezone(UTC).replace(minute=0, second=0, microsecond=0)
            return cls(
                [timezone.localtime(hora - timedelta(hours=h)) for h in range(23, -1, -1)], por_hora=True
            )
        medianoche = timezone.localtime(ahora).replace(hour=0, minute=0, second=0, microsecond=0, tzinfo=None)
        dias = RANGOS[rango][1].days
        return cls(
            [timezone.make_aware(medianoche - timedelta(days=d)) for d in range(dias - 1, -1, -1)],
            por_hora=False,
        )

    @property
    def desde(self) -> datetime:
        return self.inicios[0]

    def clave(self, momento: datetime) -> datetime:
        local = timezone.localtime(momento)
        if self.por_hora:
            return local.replace(minute=0, second=0, microsecond=0)
        return timezone.make_aware(local.replace(hour=0, minute=0, second=0, microsecond=0, tzinfo=None))

    def etiquetas(self) -> list[str]:
        formato = "%H:00" if self.por_hora else "%d-%m"
        return [inicio.strftime(formato) for inicio in self.inicios]

    def truncar(self, campo: str) -> TruncHour | TruncDay:
        zona = timezone.get_current_timezone()
        return TruncHour(campo, tzinfo=zona) if self.por_hora else TruncDay(campo, tzinfo=zona)


def panel_leer(rango: str = RANGO_POR_DEFECTO, *, ahora: datetime | None = None) -> dict[str, Any]:
    """Todo lo que dibuja el panel, en tipos de JSON (va a la página con `json_script`)."""
    if rango not in RANGOS:
        raise ValueError(f"Rango desconocido: {rango!r}. Use uno de {', '.join(RANGOS)}.")
    ahora = ahora or timezone.now()
    periodos = Periodos.del_rango(rango, ahora)
    agregados = turnos_por_periodo(desde=periodos.desde, hasta=ahora, periodo=periodos.truncar)
    por_periodo: dict[datetime, Agregado] = defaultdict(Agregado)
    turnos_por_motor: dict[str, dict[datetime, int]] = defaultdict(lambda: defaultdict(int))
    for (inicio, motor), agregado in agregados.items():
        clave = periodos.clave(inicio)
        por_periodo[clave].sumar(agregado)
        turnos_por_motor[motor or "sin motor"][clave] += agregado.turnos
    suma = total(agregados)
    conversaciones = _conversaciones(periodos)
    herramientas = _herramientas(periodos.desde)
    return {
        "rango": rango,
        "etiquetas": periodos.etiquetas(),
        "resumen": _resumen(suma, sum(conversaciones.values())),
        "turnos": {
            motor: [serie[i] for i in periodos.inicios] for motor, serie in sorted(turnos_por_motor.items())
        },
        "latencia": _latencias(periodos, por_periodo),
        "costo": _costos(periodos, por_periodo, conversaciones),
        "abstencion": [_razon(por_periodo[i].abstenciones, por_periodo[i].turnos) for i in periodos.inicios],
        "errores": [_razon(por_periodo[i].errores, por_periodo[i].turnos) for i in periodos.inicios],
        "confianza": _confianzas(suma),
        "herramientas": herramientas,
        "acciones": _acciones(periodos.desde),
        "valoraciones": _valoraciones(periodos.desde),
        "no_por_seguridad": _no_por_seguridad(periodos.desde),
        "usuarios_activos": usuarios_activos(ahora),
        "mensajes_por_conversacion": _mensajes_por_conversacion(periodos.desde),
        "errores_por_tipo": _errores_por_tipo(periodos.desde),
        "similitud": _similitud(periodos.desde),
        "caches": _caches(herramientas, suma),
        "fuentes": _fuentes(),
        "sin_respuesta": preguntas_sin_respuesta(desde=periodos.desde),
        "metas": {
            "turno_p95_ms": settings.METRICAS_META_TURNO_P95_MS,
            "primer_token_p95_ms": settings.METRICAS_META_PRIMER_TOKEN_P95_MS,
            "busqueda_p95_ms": settings.METRICAS_META_BUSQUEDA_P95_MS,
            "cache_aciertos": settings.METRICAS_META_CACHE_ACIERTOS,
        },
    }


def preguntas_sin_respuesta(*, desde: datetime, limite: int = MAXIMO_SIN_RESPUESTA) -> list[dict[str, Any]]:
    """Las preguntas que el asistente no pudo responder (se abstuvo o la búsqueda dio confianza baja) y
    las que respondió y el usuario dijo que no le sirvió, agrupadas sin distinguir mayúsculas ni espacios
    de los bordes, las más repetidas primero; de las calificadas «no», la última respuesta que se dio y
    el comentario (lo que el personal corrige en una respuesta curada)."""
    consideradas = (
        Mensaje.objects.filter(
            rol=Mensaje.Rol.ASISTENTE, creado_at__gte=desde, error="", pregunta__isnull=False
        )
        .filter(Q(abstuvo=True) | Q(confianza__in=CONFIANZAS_BAJAS) | Q(feedback__lt=0))
        .annotate(clave=Lower(Trim("pregunta__contenido")))
    )
    filas = list(
        consideradas.order_by()
        .values("clave")
        .annotate(
            texto=Max(Trim("pregunta__contenido")),
            veces=Count("pk"),
            abstenciones=Count("pk", filter=Q(abstuvo=True)),
            no_sirvio=Count("pk", filter=Q(feedback__lt=0)),
            ultima=Max("creado_at"),
        )
        .order_by("-veces", "-ultima")[:limite]
    )
    reprobadas: dict[str, Mensaje] = {}
    for mensaje in consideradas.filter(
        feedback__lt=0, clave__in=[f["clave"] for f in filas if f["no_sirvio"]]
    ).order_by("creado_at"):
        reprobadas[mensaje.clave] = mensaje  # la última de cada pregunta
    return [
        {
            "pregunta": fila["texto"],
            "veces": fila["veces"],
            "abstenciones": fila["abstenciones"],
            "no_sirvio": fila["no_sirvio"],
            "respuesta": reprobadas[fila["clave"]].contenido if fila["clave"] in reprobadas else "",
            "comentario": reprobadas[fila["clave"]].feedback_comentario
            if fila["clave"] in reprobadas
            else "",
            "ultima": timezone.localtime(fila["ultima"]).strftime("%d-%m-%Y %H:%M"),
        }
        for fila in filas
    ]


def _resumen(suma: Agregado, conversaciones: int) -> dict[str, Any]:
    costo = float(suma.costo_usd)
    return {
        "turnos": suma.turnos,
        "conversaciones": conversaciones,
        "costo_usd": round(costo, 4),
        "costo_por_conversacion_usd": round(costo / conversaciones, 4) if conversaciones else None,
        "latencia_p50_ms": _redondo(suma.percentil_latencia_ms(0.5)),
        "latencia_p95_ms": _redondo(suma.percentil_latencia_ms(0.95)),
        "primer_token_p95_ms": _redondo(suma.percentil_primer_token_ms(0.95)),
        "abstencion": _razon(suma.abstenciones, suma.turnos),
        "errores": _razon(suma.errores, suma.turnos),
        "respaldos": suma.respaldos,
        "limitados": suma.limitados,
        "tokens_entrada": suma.tokens_entrada,
        "tokens_salida": suma.tokens_salida,
    }


def _latencias(periodos: Periodos, por_periodo: dict[datetime, Agregado]) -> dict[str, list[float | None]]:
    series: dict[str, list[float | None]] = {
        "p50": [],
        "p95": [],
        "primer_token_p50": [],
        "primer_token_p95": [],
    }
    for inicio in periodos.inicios:
        agregado = por_periodo[inicio]
        series["p50"].append(_redondo(agregado.percentil_latencia_ms(0.5)))
        series["p95"].append(_redondo(agregado.percentil_latencia_ms(0.95)))
        series["primer_token_p50"].append(_redondo(agregado.percentil_primer_token_ms(0.5)))
        series["primer_token_p95"].append(_redondo(agregado.percentil_primer_token_ms(0.95)))
    return series


def _conversaciones(periodos: Periodos) -> dict[datetime, int]:
    """Conversaciones iniciadas en cada periodo que tienen al menos un mensaje (las que se abrieron y
    quedaron vacías no cuentan). Una conversación se cuenta una vez, en el periodo en que empezó."""
    filas = (
        Conversacion.objects.filter(creada_at__gte=periodos.desde)
        .filter(Exists(Mensaje.objects.filter(conversacion=OuterRef("pk"))))
        .annotate(periodo=periodos.truncar("creada_at"))
        .order_by()
        .values("periodo")
        .annotate(n=Count("pk"))
    )
    return {periodos.clave(fila["periodo"]): fila["n"] for fila in filas}


def _costos(
    periodos: Periodos, por_periodo: dict[datetime, Agregado], conversaciones: dict[datetime, int]
) -> dict[str, list[float | None]]:
    costos = [float(por_periodo[i].costo_usd) for i in periodos.inicios]
    return {
        "total_usd": [round(c, 4) for c in costos],
        "por_conversacion_usd": [
            round(c / conversaciones[i], 4) if conversaciones.get(i) else None
            for c, i in zip(costos, periodos.inicios, strict=True)
        ],
    }


def _confianzas(suma: Agregado) -> dict[str, int]:
    conocidas = {c: suma.confianzas.get(c, 0) for c in CONFIANZAS}
    return {**conocidas, "sin búsqueda": suma.turnos - sum(conocidas.values())}


def _herramientas(desde: datetime) -> list[dict[str, Any]]:
    filas = (
        LlamadaHerramienta.objects.filter(creada_at__gte=desde)
        .order_by()
        .values("herramienta")
        .annotate(
            llamadas=Count("pk"),
            exitos=Count("pk", filter=Q(exito=True)),
            aciertos_cache=Count("pk", filter=Q(cache_hit=True)),
            p50=Percentil("ms", 0.5),
            p95=Percentil("ms", 0.95),
        )
        .order_by("-llamadas")
    )
    return [
        {
            "herramienta": fila["herramienta"],
            "llamadas": fila["llamadas"],
            "exito": _razon(fila["exitos"], fila["llamadas"]),
            "aciertos_cache": fila["aciertos_cache"],
            "p50_ms": _redondo(fila["p50"]),
            "p95_ms": _redondo(fila["p95"]),
        }
        for fila in filas
    ]


def _acciones(desde: datetime) -> dict[str, int]:
    conteos = dict(
        AccionPendiente.objects.filter(creada_at__gte=desde)
        .order_by()
        .values_list("estado")
        .annotate(n=Count("pk"))
    )
    return {estado.label: conteos.get(estado.value, 0) for estado in AccionPendiente.Estado}


def _valoraciones(desde: datetime) -> dict[str, int]:
    return Mensaje.objects.filter(
        rol=Mensaje.Rol.ASISTENTE, creado_at__gte=desde, feedback__isnull=False
    ).aggregate(
        positivas=Count("pk", filter=Q(feedback__gt=0)), negativas=Count("pk", filter=Q(feedback__lt=0))
    )


NIVELES_DE_SEGURIDAD = ("bastante", "medianamente", "poco")


def usuarios_activos(ahora: datetime) -> dict[str, int]:
    """Usuarios distintos que escribieron al asistente en el último día, la última semana y el último
    mes (ventanas móviles hasta `ahora`, sea cual sea el rango del panel)."""
    escritos = Mensaje.objects.filter(rol=Mensaje.Rol.USUARIO)
    return {
        nombre: escritos.filter(creado_at__gte=ahora - timedelta(days=dias), creado_at__lte=ahora)
        .values("conversacion__usuario")
        .distinct()
        .count()
        for nombre, dias in (("dia", 1), ("semana", 7), ("mes", 30))
    }


def _mensajes_por_conversacion(desde: datetime) -> dict[str, float | None]:
    """Mensajes (del usuario y del asistente) de las conversaciones iniciadas en el rango: promedio y
    mediana por conversación."""
    cantidades = sorted(
        Conversacion.objects.filter(creada_at__gte=desde)
        .annotate(n=Count("mensajes"))
        .filter(n__gt=0)
        .values_list("n", flat=True)
    )
    if not cantidades:
        return {"conversaciones": 0, "promedio": None, "mediana": None}
    mitad = len(cantidades) // 2
    mediana = cantidades[mitad] if len(cantidades) % 2 else (cantidades[mitad - 1] + cantidades[mitad]) / 2
    return {
        "conversaciones": len(cantidades),
        "promedio": round(sum(cantidades) / len(cantidades), 1),
        "mediana": float(mediana),
    }


def _errores_por_tipo(desde: datetime) -> list[dict[str, Any]]:
    """Turnos que fallaron en el rango, por tipo de error (el de la excepción), los más frecuentes
    primero."""
    filas = (
        Mensaje.objects.filter(rol=Mensaje.Rol.ASISTENTE, creado_at__gte=desde)
        .exclude(error="")
        .order_by()
        .values("error")
        .annotate(turnos=Count("pk"), ultimo=Max("creado_at"))
        .order_by("-turnos")
    )
    return [
        {
            "tipo": fila["error"],
            "turnos": fila["turnos"],
            "ultimo": timezone.localtime(fila["ultimo"]).strftime("%d-%m-%Y %H:%M"),
        }
        for fila in filas
    ]


# Tramos del histograma de similitud: con el modelo e5 casi todo cae entre 0,75 y 0,95.
TRAMOS_SIMILITUD = (0.0, 0.75, 0.8, 0.85, 0.9, 0.95, 1.0001)
CONFIANZAS_SUFICIENTES = ("HIGH", "MEDIUM")


def _similitud(desde: datetime) -> dict[str, Any]:
    """Histograma de la similitud coseno del mejor fragmento de cada turno que buscó en la normativa, y
    qué parte de esos turnos tuvo contexto suficiente (confianza media o alta)."""
    buscaron = Mensaje.objects.filter(rol=Mensaje.Rol.ASISTENTE, creado_at__gte=desde).exclude(confianza="")
    similitudes: list[float] = [
        valor for valor in buscaron.values_list("similitud", flat=True) if valor is not None
    ]
    tramos: list[dict[str, Any]] = [
        {
            "tramo": f"{inferior:.2f}–{min(superior, 1.0):.2f}",
            "turnos": len([valor for valor in similitudes if inferior <= valor < superior]),
        }
        for inferior, superior in pairwise(TRAMOS_SIMILITUD)
    ]
    conteo = buscaron.aggregate(
        total=Count("pk"), suficientes=Count("pk", filter=Q(confianza__in=CONFIANZAS_SUFICIENTES))
    )
    return {
        "tramos": tramos,
        "con_busqueda": conteo["total"],
        "contexto_suficiente": _razon(conteo["suficientes"], conteo["total"]),
    }


_SEGURIDAD = re.compile(rf"Qué tan seguro estoy: ({'|'.join(NIVELES_DE_SEGURIDAD)})")


def _no_por_seguridad(desde: datetime) -> list[dict[str, Any]]:
    """De las respuestas calificadas, cuántas recibieron «no» según lo seguro que se dijo el asistente
    («Qué tan seguro estoy: …»; «sin nivel» las que no lo dicen: proyectos, acciones). Si «bastante»
    recibe tantos «no» como «poco», el nivel no está diciendo nada."""
    conteos: dict[str, list[int]] = {nivel: [0, 0] for nivel in (*NIVELES_DE_SEGURIDAD, "sin nivel")}
    for contenido, feedback in Mensaje.objects.filter(
        rol=Mensaje.Rol.ASISTENTE, creado_at__gte=desde, feedback__isnull=False
    ).values_list("contenido", "feedback"):
        m = _SEGURIDAD.search(contenido)
        conteo = conteos[m.group(1) if m else "sin nivel"]
        conteo[0] += (feedback or 0) < 0
        conteo[1] += 1
    return [
        {"nivel": nivel, "no": no, "calificadas": total, "tasa_no": _razon(no, total)}
        for nivel, (no, total) in conteos.items()
    ]


def _caches(herramientas: list[dict[str, Any]], suma: Agregado) -> list[dict[str, Any]]:
    llamadas = sum(h["llamadas"] for h in herramientas)
    caches = [
        _cache(
            "Resultados de herramientas", sum(h["aciertos_cache"] for h in herramientas), llamadas, "rango"
        ),
        _cache("Respuestas curadas", suma.curadas, suma.turnos, "rango"),
    ]
    contadas = cache_contada()
    for clave, nombre in CACHES_DE_PROCESO.items():
        conteo = contadas.get(clave, {"acierto": 0, "fallo": 0})
        caches.append(_cache(nombre, conteo["acierto"], conteo["acierto"] + conteo["fallo"], "arranque"))
    return caches


def _cache(nombre: str, aciertos: int, consultas: int, desde: str) -> dict[str, Any]:
    return {
        "cache": nombre,
        "aciertos": aciertos,
        "consultas": consultas,
        "tasa": _razon(aciertos, consultas),
        "desde": desde,
    }


def _fuentes() -> list[dict[str, Any]]:
    estados = {estado.fuente: estado for estado in EstadoFuente.objects.all()}
    filas = []
    for fuente in EstadoFuente.Fuente:
        estado = estados.get(fuente.value)
        contadores = cache_fuentes.contadores(fuente.value)
        if estado is None or estado.ultima_ejecucion_at is None:
            salud = "sin datos"
        elif estado.fallos_consecutivos:
            salud = "con fallas"
        else:
            salud = "al día"
        filas.append(
            {
                "fuente": fuente.label,
                "salud": salud,
                "ultimo_exito": _fecha(estado.ultimo_exito_at if estado else None),
                "ultimo_error": (estado.ultimo_error[:160] if estado else ""),
                "fallos_consecutivos": estado.fallos_consecutivos if estado else 0,
                "aciertos": contadores["aciertos"],
                "fallos": contadores["fallos"],
            }
        )
    return filas


def _razon(parte: int, todo: int) -> float | None:
    return round(parte / todo, 4) if todo else None


def _redondo(valor: float | None) -> float | None:
    return None if valor is None else round(valor, 1)


def _fecha(momento: datetime | None) -> str:
    return timezone.localtime(momento).strftime("%d-%m-%Y %H:%M") if momento else ""
