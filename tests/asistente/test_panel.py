"""El panel «Métricas del asistente» cuadra con las filas de las que sale: turnos, costo,
conversaciones, herramientas, acciones, valoraciones y preguntas sin respuesta."""

from collections import Counter
from datetime import datetime, timedelta
from decimal import Decimal

import pytest
from django.db.models import QuerySet
from django.utils import timezone

from asistente.metricas import horas_resumir
from asistente.models import AccionPendiente, Conversacion, LlamadaHerramienta, Mensaje
from asistente.panel import Periodos, panel_leer, preguntas_sin_respuesta
from bench.turnos_sinteticos import sembrar

pytestmark = pytest.mark.django_db


@pytest.fixture
def sembrado(crear_usuario):
    """400 turnos sintéticos en los últimos 6 días, con las horas completas ya resumidas."""
    ahora = timezone.now()
    sembrar(crear_usuario("operadora"), turnos=400, dias=6, ahora=ahora)
    horas_resumir(desde=ahora - timedelta(days=8), hasta=ahora)
    return ahora


def asistente_desde(desde: datetime) -> QuerySet[Mensaje]:
    return Mensaje.objects.filter(rol=Mensaje.Rol.ASISTENTE, creado_at__gte=desde)


def test_los_turnos_por_dia_y_motor_suman_los_mensajes_del_asistente_del_rango(sembrado) -> None:
    datos = panel_leer("7d", ahora=sembrado)

    desde = Periodos.del_rango("7d", sembrado).desde
    crudo: Counter[str] = Counter(asistente_desde(desde).values_list("motor", flat=True))
    assert {motor: sum(serie) for motor, serie in datos["turnos"].items()} == dict(crudo)
    assert datos["resumen"]["turnos"] == sum(crudo.values()) > 300
    assert len(datos["etiquetas"]) == 7 == len(datos["latencia"]["p95"]) == len(datos["costo"]["total_usd"])


def test_cada_dia_tiene_los_turnos_y_el_costo_de_sus_mensajes_en_hora_local(sembrado) -> None:
    datos = panel_leer("7d", ahora=sembrado)

    periodos = Periodos.del_rango("7d", sembrado)
    for indice, inicio in enumerate(periodos.inicios):
        del_dia = asistente_desde(inicio).filter(creado_at__lt=inicio + timedelta(days=1))
        assert sum(serie[indice] for serie in datos["turnos"].values()) == del_dia.count()
        costo = sum((m.costo_usd for m in del_dia), Decimal(0))
        assert datos["costo"]["total_usd"][indice] == pytest.approx(float(costo), abs=1e-4)


def test_el_costo_por_conversacion_divide_el_costo_entre_las_conversaciones_iniciadas_con_mensajes(
    sembrado,
) -> None:
    desde = Periodos.del_rango("7d", sembrado).desde
    vacia = Conversacion.objects.get(titulo="Sintética 1")
    Conversacion.objects.create(usuario=vacia.usuario, dominio=vacia.dominio)  # sin mensajes: no cuenta

    resumen = panel_leer("7d", ahora=sembrado)["resumen"]

    iniciadas = Conversacion.objects.filter(creada_at__gte=desde, mensajes__isnull=False).distinct().count()
    costo = sum((m.costo_usd for m in asistente_desde(desde)), Decimal(0))
    assert resumen["conversaciones"] == iniciadas
    assert resumen["costo_por_conversacion_usd"] == pytest.approx(float(costo) / iniciadas, abs=1e-4)


def test_las_herramientas_traen_llamadas_exito_y_percentiles_de_sus_filas(sembrado) -> None:
    herramientas = panel_leer("7d", ahora=sembrado)["herramientas"]

    desde = Periodos.del_rango("7d", sembrado).desde
    buscar = LlamadaHerramienta.objects.filter(creada_at__gte=desde, herramienta="buscar_normativa")
    fila = next(h for h in herramientas if h["herramienta"] == "buscar_normativa")
    tiempos = sorted(buscar.values_list("ms", flat=True))
    assert fila["llamadas"] == len(tiempos) == herramientas[0]["llamadas"]  # la más llamada, primero
    assert fila["exito"] == pytest.approx(buscar.filter(exito=True).count() / len(tiempos), abs=1e-4)
    assert fila["p50_ms"] == pytest.approx(_percentil(tiempos, 0.5), abs=0.1)
    assert fila["p95_ms"] == pytest.approx(_percentil(tiempos, 0.95), abs=0.1)


def test_acciones_valoraciones_y_confianza_cuentan_sus_estados(sembrado) -> None:
    datos = panel_leer("30d", ahora=sembrado)

    estados = Counter(AccionPendiente.objects.values_list("estado", flat=True))
    assert datos["acciones"] == {e.label: estados.get(e.value, 0) for e in AccionPendiente.Estado}
    valoradas = Mensaje.objects.exclude(feedback=None)
    assert datos["valoraciones"] == {
        "positivas": valoradas.filter(feedback__gt=0).count(),
        "negativas": valoradas.filter(feedback__lt=0).count(),
    }
    assert (
        datos["confianza"]["NONE"]
        == asistente_desde(sembrado - timedelta(days=30)).filter(confianza="NONE").count()
    )
    assert sum(datos["confianza"].values()) == datos["resumen"]["turnos"]


def test_las_preguntas_sin_respuesta_se_agrupan_sin_mayusculas_y_salen_las_mas_repetidas_primero(
    sembrado,
) -> None:
    desde = sembrado - timedelta(days=7)
    pregunta = Mensaje.objects.filter(rol=Mensaje.Rol.USUARIO)[0]
    for texto in ("¿Cuánto cuesta una PATENTE minera?", "  ¿cuánto cuesta una patente minera?"):
        usuario = Mensaje.objects.create(
            conversacion=pregunta.conversacion, rol=Mensaje.Rol.USUARIO, contenido=texto
        )
        Mensaje.objects.create(
            conversacion=pregunta.conversacion,
            rol=Mensaje.Rol.ASISTENTE,
            contenido="Sin base.",
            pregunta=usuario,
            abstuvo=True,
            confianza="NONE",
        )

    filas = preguntas_sin_respuesta(desde=desde)

    respuestas = asistente_desde(desde).filter(error="").exclude(pregunta=None).select_related("pregunta")
    esperado = Counter(
        m.pregunta.contenido.strip().lower()
        for m in respuestas
        if m.pregunta is not None and (m.abstuvo or m.confianza in ("LOW", "NONE") or (m.feedback or 0) < 0)
    )
    assert [f["veces"] for f in filas] == sorted((f["veces"] for f in filas), reverse=True)
    mostradas = {f["pregunta"].lower(): f["veces"] for f in filas}
    assert all(esperado[pregunta] == veces for pregunta, veces in mostradas.items())
    omitidas = [veces for pregunta, veces in esperado.items() if pregunta not in mostradas]
    assert max(omitidas, default=0) <= min(mostradas.values())
    patente = next(f for f in filas if f["pregunta"].lower() == "¿cuánto cuesta una patente minera?")
    assert patente["veces"] == patente["abstenciones"] == 2


def test_un_no_lleva_la_pregunta_al_panel_con_la_respuesta_dada_y_cuenta_por_lo_seguro_que_se_dijo(
    crear_usuario, admin_client
) -> None:
    from asistente.models import Dominio
    from asistente.services import mensaje_calificar

    conversacion = Conversacion.objects.create(
        usuario=crear_usuario("calificadora"), dominio=Dominio.objects.get(codigo="mineria")
    )

    def turno(pregunta: str, respuesta: str) -> Mensaje:
        usuario = Mensaje.objects.create(
            conversacion=conversacion, rol=Mensaje.Rol.USUARIO, contenido=pregunta
        )
        return Mensaje.objects.create(
            conversacion=conversacion, rol=Mensaje.Rol.ASISTENTE, contenido=respuesta, pregunta=usuario,
            confianza="HIGH",
        )  # fmt: skip

    segura = turno("¿Quién fiscaliza la RCA?", "La SMA [1].\n\n_Qué tan seguro estoy: bastante; lo dice._")
    dudosa = turno("¿Qué es un PAS?", "Un permiso [1].\n\n_Qué tan seguro estoy: poco; no encontré._")
    mensaje_calificar(mensaje=segura, valor=-1, comentario="Es la SMA, pero falta el artículo")
    mensaje_calificar(mensaje=dudosa, valor=1)

    datos = panel_leer("7d")
    pagina = admin_client.get("/admin/asistente/resumenhora/").content.decode()

    (fila,) = [f for f in datos["sin_respuesta"] if f["pregunta"] == "¿Quién fiscaliza la RCA?"]
    assert fila["no_sirvio"] == 1 and fila["respuesta"].startswith("La SMA [1].")
    assert fila["comentario"] == "Es la SMA, pero falta el artículo"
    por_nivel = {f["nivel"]: f for f in datos["no_por_seguridad"]}
    assert por_nivel["bastante"] == {"nivel": "bastante", "no": 1, "calificadas": 1, "tasa_no": 1.0}
    assert por_nivel["poco"] == {"nivel": "poco", "no": 0, "calificadas": 1, "tasa_no": 0.0}
    assert "texto=La+SMA+%5B1%5D." in pagina and "Es la SMA, pero falta el artículo" in pagina
    assert "¿Qué es un PAS?" not in pagina


def test_usuarios_activos_mensajes_por_conversacion_errores_por_tipo_y_similitud_salen_de_sus_filas(
    crear_usuario,
) -> None:
    from asistente.models import Dominio

    dominio = Dominio.objects.get(codigo="mineria")
    ahora = timezone.now()

    def conversacion(nombre: str, hace: timedelta, respuestas: list[dict[str, object]]) -> None:
        charla = Conversacion.objects.create(usuario=crear_usuario(nombre), dominio=dominio)
        for campos in respuestas:
            pregunta = Mensaje.objects.create(conversacion=charla, rol=Mensaje.Rol.USUARIO, contenido="¿?")
            Mensaje.objects.create(
                conversacion=charla, rol=Mensaje.Rol.ASISTENTE, contenido="r", pregunta=pregunta, **campos
            )
        Mensaje.objects.filter(conversacion=charla).update(creado_at=ahora - hace)

    conversacion(
        "hoy", timedelta(hours=2), [{"confianza": "HIGH", "similitud": 0.91}, {"error": "PoolTimeout"}]
    )
    conversacion("semana", timedelta(days=3), [{"confianza": "LOW", "similitud": 0.81}])
    conversacion("mes", timedelta(days=20), [{"error": "PoolTimeout"}, {"error": "APITimeoutError"}])

    datos = panel_leer("30d", ahora=ahora)

    assert datos["usuarios_activos"] == {"dia": 1, "semana": 2, "mes": 3}
    assert datos["mensajes_por_conversacion"] == {"conversaciones": 3, "promedio": 3.3, "mediana": 4.0}
    assert [(e["tipo"], e["turnos"]) for e in datos["errores_por_tipo"]] == [
        ("PoolTimeout", 2),
        ("APITimeoutError", 1),
    ]
    tramos = {t["tramo"]: t["turnos"] for t in datos["similitud"]["tramos"]}
    assert tramos["0.90–0.95"] == 1 and tramos["0.80–0.85"] == 1 and sum(tramos.values()) == 2
    assert datos["similitud"]["con_busqueda"] == 2 and datos["similitud"]["contexto_suficiente"] == 0.5


def test_veinticuatro_horas_se_dibujan_por_hora_y_un_rango_desconocido_se_rechaza(sembrado) -> None:
    datos = panel_leer("24h", ahora=sembrado)

    assert len(datos["etiquetas"]) == 24 and datos["etiquetas"][-1] == timezone.localtime(sembrado).strftime(
        "%H:00"
    )
    assert (
        sum(sum(serie) for serie in datos["turnos"].values())
        == asistente_desde(Periodos.del_rango("24h", sembrado).desde).count()
    )
    with pytest.raises(ValueError, match="Rango desconocido"):
        panel_leer("1 año")


def _percentil(valores: list[int], q: float) -> float:
    """Interpolación lineal entre rangos, como `percentile_cont` de PostgreSQL."""
    posicion = q * (len(valores) - 1)
    inferior = int(posicion)
    superior = min(inferior + 1, len(valores) - 1)
    return valores[inferior] + (valores[superior] - valores[inferior]) * (posicion - inferior)
