"""e-SEIA contra un servidor local con las respuestas reales del buscador (páginas 1 y 2) y variantes:
una página que repite filas, JSON en ISO-8859-1 y la fuente caída."""

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.cache import cache

from fuentes_externas import cache as cache_fuentes
from fuentes_externas import eseia, http
from fuentes_externas.http import ErrorHttp
from fuentes_externas.models import ProyectoESEIA
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
def test_paging_dedupes_by_expediente_and_stops_when_a_page_brings_nothing_new(
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
def test_paging_stops_at_records_total(servidor: ServidorLocal) -> None:
    pagina = json.loads(PAGINA_1)
    pagina["recordsTotal"] = "10"
    servidor.responder(eseia.RUTA, cuerpo=json.dumps(pagina), cabeceras=JSON)

    consulta = eseia.proyectos_buscar()

    assert len(servidor.pedidos) == 1 and len(consulta.datos) == 10


@pytest.mark.django_db
def test_latin1_bodies_keep_their_accents_and_filters_apply(servidor: ServidorLocal) -> None:
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
def test_a_source_failure_without_cache_raises_and_an_unexpected_body_is_a_failure(
    servidor: ServidorLocal,
) -> None:
    servidor.responder(
        eseia.RUTA, estado=200, cuerpo="<html>mantención</html>", cabeceras={"Content-Type": "text/html"}
    )

    with pytest.raises(ErrorHttp):
        eseia.proyectos_buscar()


@pytest.mark.django_db
def test_similar_projects_are_mining_ones_from_the_same_region_approved_first() -> None:
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
