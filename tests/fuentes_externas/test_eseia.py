"""e-SEIA contra un servidor local con las respuestas reales del buscador (páginas 1 y 2) y variantes:
una página que repite filas, JSON en ISO-8859-1 y la fuente caída."""

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.cache import cache

from config import http
from config.http import ErrorHttp
from fuentes_externas import cache as cache_fuentes
from fuentes_externas import eseia
from fuentes_externas.models import ProyectoESEIA
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
