"""e-SEIA contra un servidor local con las respuestas reales del buscador (páginas 1 y 2) y variantes:
una página que repite filas, JSON en ISO-8859-1 y la fuente caída."""

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.cache import cache

from config import http
from config.http import ErrorHttp
from fuentes_externas import cache as cache_fuentes
from fuentes_externas import eseia
from fuentes_externas.models import EstadoFuente, ProyectoESEIA
from proyectos.models import Analisis, Cliente
from proyectos.services import analisis_ejecutar, proyecto_crear
from tests.utilidades import ServidorLocal, fuente_local

DATOS = Path(__file__).resolve().parents[1] / "fixtures" / "seia"
PAGINA_1 = (DATOS / "buscarProyectoResumen_formatopag1.json").read_bytes()
PAGINA_2 = (DATOS / "buscarProyectoResumen_formatopag2.json").read_bytes()
JSON = {"Content-Type": "application/json; charset=ISO-8859-1"}


@pytest.fixture
def servidor(settings: Any) -> Iterator[ServidorLocal]:
    local = fuente_local(settings, "ESEIA_URL")
    settings.HTTP_TIMEOUT_S = 2
    yield local
    local.cerrar()


@pytest.fixture(autouse=True)
def _cache_limpia(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(http, "ESPERA_BASE_S", 0.01)
    for clave in ('{"nombre": "", "tipoPresentacion": "Ambos"}', '{"nombre": "", "tipoPresentacion": "DIA"}'):
        cache.delete(cache_fuentes._llave("eseia", clave))


@pytest.mark.django_db
def test_la_paginacion_quita_repetidos_por_expediente_y_para_cuando_una_pagina_no_trae_nada_nuevo(
    servidor: ServidorLocal,
) -> None:
    for cuerpo in (PAGINA_1, PAGINA_2, PAGINA_2):  # la tercera repite la segunda (y así seguiría)
        servidor.responder(eseia.RUTA, cuerpo=cuerpo, cabeceras=JSON)

    consulta = eseia.proyectos_buscar()

    assert len(servidor.pedidos) == 3 and len(consulta.datos) == 20
    assert len({p["expediente_id"] for p in consulta.datos}) == 20
    formulario = servidor.pedidos[0][3].decode()
    assert "offset=1" in formulario and "tipoPresentacion=Ambos" in formulario
    primero = ProyectoESEIA.objects.get(expediente_id="2168003697")
    assert (
        primero.tipo_ingreso == "DIA"
        and primero.tipologia == "o11"
        and str(primero.fecha_presentacion) == "2026-05-08"
    )
    assert (
        primero.url_expediente == "https://seia.sea.gob.cl/expediente/expediente.php?id_expediente=2168003697"
    )


@pytest.mark.django_db
def test_la_paginacion_para_en_records_total(servidor: ServidorLocal) -> None:
    pagina = json.loads(PAGINA_1)
    pagina["recordsTotal"] = "10"
    servidor.responder(eseia.RUTA, cuerpo=json.dumps(pagina), cabeceras=JSON)

    consulta = eseia.proyectos_buscar()

    assert len(servidor.pedidos) == 1 and len(consulta.datos) == 10


@pytest.mark.django_db
def test_los_cuerpos_latin1_conservan_sus_tildes_y_los_filtros_se_aplican(servidor: ServidorLocal) -> None:
    pagina = json.loads(PAGINA_1)
    pagina["recordsTotal"] = "10"
    pagina["data"][0] |= {
        "REGION_NOMBRE": "Región de Tarapacá",
        "TIPO_PROYECTO": "i1",
        "WORKFLOW_DESCRIPCION": "DIA",
    }
    servidor.responder(
        eseia.RUTA,
        cuerpo=json.dumps(pagina, ensure_ascii=False).encode("iso-8859-1", errors="replace"),
        cabeceras=JSON,
    )

    mineros = eseia.proyectos_buscar(tipo="dia", tipologia="i")

    assert mineros.datos[0]["region"] == "Región de Tarapacá"
    assert all(p["tipologia"].startswith("i") for p in mineros.datos)
    assert "tipoPresentacion=DIA" in servidor.pedidos[0][3].decode()


@pytest.mark.django_db
def test_una_falla_de_la_fuente_sin_cache_lanza_error_y_un_cuerpo_inesperado_es_falla(
    servidor: ServidorLocal,
) -> None:
    servidor.responder(
        eseia.RUTA, estado=200, cuerpo="<html>mantención</html>", cabeceras={"Content-Type": "text/html"}
    )

    with pytest.raises(ErrorHttp):
        eseia.proyectos_buscar()


@pytest.mark.django_db
def test_los_proyectos_parecidos_son_mineros_de_la_misma_region_con_los_aprobados_primero() -> None:
    for ident, (nombre, region, tipologia, estado, fecha) in enumerate(
        [
            ("Rechazado", "Región de Atacama", "i1", "Rechazado", "2025-01-01"),
            ("Aprobado", "Región de Atacama", "i1", "Aprobado", "2020-01-01"),
            ("Otra región", "Región de Coquimbo", "i1", "Aprobado", None),
            ("No minero", "Región de Atacama", "o11", "Aprobado", None),
        ]
    ):
        ProyectoESEIA.objects.create(
            expediente_id=str(ident), nombre=nombre, region=region, tipologia=tipologia, estado=estado,
            fecha_presentacion=fecha, tipo_ingreso="DIA", url_expediente="https://seia.sea.gob.cl/x",
        )  # fmt: skip

    similares = [p.nombre for p in eseia.proyectos_similares(region="Atacama")]

    assert similares == ["Aprobado", "Rechazado"]


@pytest.mark.django_db
def test_un_analisis_completo_trae_los_parecidos_del_eseia_como_referencia_y_uno_rapido_no() -> None:
    ProyectoESEIA.objects.create(
        expediente_id="9", nombre="Mina Vecina", region="Región de Antofagasta", tipologia="i1",
        estado="Aprobado", tipo_ingreso="DIA", url_expediente="https://seia.sea.gob.cl/x",
    )  # fmt: skip
    proyecto = proyecto_crear(
        cliente=Cliente.objects.create(nombre="Minera del Norte"),
        datos={
            "nombre": "Mina",
            "region": "Antofagasta",
            "tipo": "explotacion",
            "capacidad_extraccion_t_mes": 6000,
        },
    )

    completo = analisis_ejecutar(proyecto=proyecto)
    rapido = analisis_ejecutar(proyecto=proyecto, tipo=Analisis.Tipo.RAPIDO)

    # `proyectos` no importa el e-SEIA: `fuentes_externas` registra la referencia en su `ready()`.
    assert [p["nombre"] for p in completo.resultado["proyectos_similares_seia"]] == ["Mina Vecina"]
    assert "proyectos_similares_seia" not in rapido.resultado


FICHA = (DATOS / "ficha_expediente_sintetica.html").read_text(encoding="utf-8")


def test_la_ficha_trae_estado_fechas_rca_y_documentos_sin_repetir() -> None:
    ficha = eseia.ficha_leer(
        FICHA, url_base="https://seia.sea.gob.cl/expediente/expediente.php?id_expediente=1"
    )

    assert ficha["estado"] == "Aprobado" and ficha["tipo_ingreso"] == "DIA"
    assert ficha["fecha_presentacion"] == "2020-02-03"
    assert (ficha["rca_numero"], ficha["rca_fecha"]) == ("0123/2020", "2020-09-15")
    assert [(d["titulo"], d["fecha"]) for d in ficha["documentos"]] == [
        ("Declaración de Impacto Ambiental", "2020-02-03"),
        ("ICSARA N° 1", "2020-04-20"),
        ("Resolución de Calificación Ambiental", "2020-09-15"),
    ]
    assert ficha["documentos"][0]["url"] == "https://seia.sea.gob.cl/archivos/2020/02/DIA_Mina_Ejemplo.pdf"


@pytest.mark.parametrize(
    "html",
    [
        "",
        "<html><body>Servicio no disponible</body></html>",
        "<table><tr><td>Estado</td></tr></table>",
        "<<>>",
    ],
)
def test_una_ficha_sin_los_datos_o_con_otra_forma_deja_todo_vacio_sin_fallar(html: str) -> None:
    ficha = eseia.ficha_leer(html, url_base="https://seia.sea.gob.cl/")

    assert ficha == {
        "estado": "", "tipo_ingreso": "", "fecha_presentacion": None, "rca_numero": "", "rca_fecha": None,
        "documentos": [],
    }  # fmt: skip


def test_la_ficha_tambien_se_lee_de_listas_de_definicion_y_textos_etiqueta_valor() -> None:
    html = "<dl><dt>Estado</dt><dd>Rechazado</dd></dl><p>Fecha de calificación: 01/12/2021</p>"

    ficha = eseia.ficha_leer(html, url_base="https://seia.sea.gob.cl/")

    assert ficha["estado"] == "Rechazado" and ficha["rca_fecha"] == "2021-12-01"


@pytest.mark.django_db
def test_el_detalle_lee_la_ficha_en_latin1_y_la_guarda_con_la_duracion_de_la_evaluacion(
    servidor: ServidorLocal,
) -> None:
    ProyectoESEIA.objects.create(
        expediente_id="2150000001", nombre="Mina Ejemplo", tipo_ingreso="DIA", region="Región de Atacama",
        tipologia="i1", url_expediente="https://seia.sea.gob.cl/e", dias_legales=88,
    )  # fmt: skip
    servidor.responder(
        "/expediente/expediente.php",
        cuerpo=FICHA.encode("iso-8859-1"),
        cabeceras={"Content-Type": "text/html"},
    )
    cache.delete(cache_fuentes._llave("eseia", "ficha:2150000001"))

    detalle = eseia.detalle_actualizar(expediente_id="2150000001").datos

    assert "id_expediente=2150000001&modo=ficha" in servidor.pedidos[0][1]
    assert detalle["rca_numero"] == "0123/2020" and detalle["dias_corridos"] == 225
    assert detalle["dias_legales"] == 88 and len(detalle["documentos"]) == 3
    guardado = ProyectoESEIA.objects.get(expediente_id="2150000001")
    assert str(guardado.rca_fecha) == "2020-09-15" and guardado.estado == "Aprobado" and guardado.detalle_at


@pytest.mark.django_db
def test_el_listado_real_trae_los_dias_legales_y_las_regiones_con_tildes_perdidas_se_reconocen() -> None:
    filas = [eseia._fila(d) for d in json.loads(PAGINA_2.decode("utf-8"))["data"]]
    eseia.guardar(filas=filas)

    atacama = eseia.estadisticas(region="Atacama", tipo="DIA")
    valparaiso = eseia.estadisticas(region="Valparaíso", tipologia="")

    assert ProyectoESEIA.objects.get(expediente_id=filas[0]["expediente_id"]).dias_legales == 2
    assert atacama["total"] == 2 and atacama["calificados"] == 0 and atacama["dias_legales"] is None
    assert valparaiso["total"] == 3  # «Regi\ufffdn de Valpara\ufffdso» en la captura


@pytest.mark.django_db
def test_las_cifras_de_duracion_salen_de_los_calificados_de_la_region_y_el_tipo() -> None:
    def proyecto(n: int, **datos: Any) -> None:
        ProyectoESEIA.objects.create(
            expediente_id=str(1000 + n), nombre=f"P{n}", url_expediente="https://seia.sea.gob.cl/e",
            tipologia=datos.pop("tipologia", "i1"), tipo_ingreso=datos.pop("tipo", "DIA"),
            region=datos.pop("region", "Región de Antofagasta"), **datos,
        )  # fmt: skip

    from datetime import date

    proyecto(
        1, estado="Aprobado", dias_legales=60, fecha_presentacion=date(2020, 1, 1), rca_fecha=date(2020, 7, 1)
    )
    proyecto(2, estado="Aprobado", dias_legales=100)
    proyecto(3, estado="Rechazado", dias_legales=110)
    proyecto(4, estado="En Calificación", dias_legales=30)  # en curso: no cuenta para la duración
    proyecto(5, estado="Aprobado", dias_legales=500, tipo="EIA")
    proyecto(6, estado="Aprobado", dias_legales=500, region="Región de Atacama")
    proyecto(7, estado="Aprobado", dias_legales=500, tipologia="o11")

    cifras = eseia.estadisticas(region="Antofagasta", tipo="DIA")

    assert cifras["total"] == 4 and cifras["calificados"] == 3 and cifras["aprobados"] == 2
    assert cifras["dias_legales"] == {"n": 3, "promedio": 90.0, "mediana": 100, "minimo": 60, "maximo": 110}
    assert cifras["dias_corridos"] == {
        "n": 1,
        "promedio": 182.0,
        "mediana": 182,
        "minimo": 182,
        "maximo": 182,
    }
    assert cifras["por_estado"] == {"Aprobado": 2, "Rechazado": 1, "En Calificación": 1}


@pytest.mark.django_db
def test_la_tarea_semanal_lee_las_fichas_de_los_calificados_y_una_que_falla_no_detiene_las_demas(
    servidor: ServidorLocal,
) -> None:
    pagina = json.loads(PAGINA_1.decode("utf-8"))
    pagina["recordsTotal"] = "3"
    pagina["data"] = pagina["data"][:3]
    for fila, estado in zip(pagina["data"], ["Aprobado", "Rechazado", "En Calificación"], strict=True):
        fila |= {"TIPO_PROYECTO": "i1", "ESTADO_PROYECTO": estado, "REGION_NOMBRE": "Región de Atacama"}
    servidor.responder(eseia.RUTA, cuerpo=json.dumps(pagina), cabeceras=JSON)
    servidor.responder("/expediente/expediente.php", 404, "no existe")  # la primera ficha falla
    servidor.responder("/expediente/expediente.php", cuerpo=FICHA.encode("iso-8859-1"))
    cache.clear()

    eseia.mineros_actualizar(regiones=["Atacama"], detalles=5)

    fichas = [p for p in servidor.pedidos if p[1].startswith("/expediente/")]
    con_ficha = ProyectoESEIA.objects.filter(detalle_at__isnull=False)
    assert len(fichas) == 2, "solo los dos calificados"
    assert con_ficha.count() == 1 and con_ficha.get().rca_numero == "0123/2020"
    assert "1 fichas leídas, 1 fallidas" in EstadoFuente.objects.get(fuente="eseia").resultado


@pytest.mark.django_db
def test_la_ficha_de_un_proyecto_se_sirve_de_la_cache_por_siete_dias_y_no_mas(
    servidor: ServidorLocal, monkeypatch: pytest.MonkeyPatch
) -> None:
    servidor.responder(
        "/expediente/expediente.php",
        cuerpo=FICHA.encode("iso-8859-1"),
        cabeceras={"Content-Type": "text/html"},
    )
    cache.delete(cache_fuentes._llave("eseia", "ficha:2150000001"))
    ahora = time.time()
    eseia.detalle_actualizar(expediente_id="2150000001")

    monkeypatch.setattr("fuentes_externas.cache.time.time", lambda: ahora + 6 * 24 * 3600)
    seis_dias = eseia.detalle_actualizar(expediente_id="2150000001")
    monkeypatch.setattr("fuentes_externas.cache.time.time", lambda: ahora + 8 * 24 * 3600)
    ocho_dias = eseia.detalle_actualizar(expediente_id="2150000001")

    assert seis_dias.desde_cache and not ocho_dias.desde_cache
    assert len(servidor.pedidos) == 2
