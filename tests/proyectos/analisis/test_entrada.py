"""Validación de la entrada del motor: todos los problemas a la vez, en castellano."""

from typing import Any

import pytest

from proyectos.analisis.entrada import EntradaInvalida, validar_entrada
from proyectos.analisis.ingreso import TIPOS
from proyectos.models import Proyecto

pytestmark = pytest.mark.usefixtures("capas")

CUADRADO_TALTAL = {
    "type": "Polygon",
    "coordinates": [[[-70.0, -25.3], [-69.99, -25.3], [-69.99, -25.29], [-70.0, -25.29], [-70.0, -25.3]]],
}


def datos(**cambios: Any) -> dict[str, Any]:
    base = {
        "nombre": "Mina",
        "region": "Antofagasta",
        "tipo": "explotacion",
        "capacidad_extraccion_t_mes": 6000,
    }
    return {**base, **cambios}


def errores_de(**cambios: Any) -> dict[str, str]:
    with pytest.raises(EntradaInvalida) as error:
        validar_entrada(datos(**cambios))
    return {e["campo"]: e["mensaje"] for e in error.value.errores}


@pytest.mark.django_db
@pytest.mark.parametrize("region", ["Antofagasta", "antofagasta", "Región de Antofagasta", "II", 2, "2"])
def test_the_region_is_accepted_by_name_with_or_without_prefix_or_by_number(region: Any) -> None:
    assert validar_entrada(datos(region=region)).region.codigo == "02"


@pytest.mark.django_db
def test_every_problem_is_listed_at_once() -> None:
    errores = errores_de(
        nombre="",
        region="Narnia",
        tipo="cobre",
        capacidad_extraccion_t_mes=-1,
        plataformas=2.5,
        circunstancias=["polvo"],
        capcidad=3,
    )

    assert set(errores) == {
        "nombre",
        "region",
        "tipo",
        "capacidad_extraccion_t_mes",
        "plataformas",
        "circunstancias",
        "capcidad",
    }
    assert "negativa" in errores["capacidad_extraccion_t_mes"]
    assert "Campo desconocido" in errores["capcidad"]


@pytest.mark.django_db
def test_a_comuna_must_belong_to_the_region() -> None:
    assert "comuna" in errores_de(comuna="Rancagua")
    assert validar_entrada(datos(comuna="Taltal")).comuna.codigo == "02104"  # type: ignore[union-attr]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("tipo", "campo"),
    [
        ("explotacion", "capacidad_extraccion_t_mes"),
        ("prospeccion", "plataformas"),
        ("aridos_cauce", "aridos_m3_total"),
    ],
)
def test_a_quantity_required_by_the_tipo_cannot_be_missing(tipo: str, campo: str) -> None:
    errores = errores_de(tipo=tipo, capacidad_extraccion_t_mes=None)

    assert campo in errores and "sin ese dato" in errores[campo]


@pytest.mark.django_db
def test_a_self_intersecting_polygon_is_rejected_naming_the_crossing() -> None:
    corbata = {
        "type": "Polygon",
        "coordinates": [[[-70.0, -25.3], [-69.99, -25.29], [-69.99, -25.3], [-70.0, -25.29], [-70.0, -25.3]]],
    }

    assert "auto-intersecta" in errores_de(geometria=corbata)["geometria"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("geometria", "texto"),
    [
        ({"type": "Point", "coordinates": [-70.0, -25.3]}, "Polygon o MultiPolygon"),
        (
            {
                "type": "Polygon",
                "coordinates": [[[-58.4, -34.6], [-58.3, -34.6], [-58.3, -34.5], [-58.4, -34.6]]],
            },
            "fuera de Chile",
        ),
        (
            {
                "type": "Polygon",
                "coordinates": [[[-67.0, -30.0], [-66.9, -30.0], [-66.9, -29.9], [-67.0, -30.0]]],
            },
            "fuera de Chile",
        ),
        (
            {
                "type": "Polygon",
                "coordinates": [[[350000, 7200000], [351000, 7200000], [351000, 7201000], [350000, 7200000]]],
            },
            "WGS84",
        ),
        (
            {
                "type": "Polygon",
                "coordinates": [[[-25.3, -70.0], [-25.29, -70.0], [-25.29, -69.99], [-25.3, -70.0]]],
            },
            "fuera de Chile",
        ),
        ({"coordinates": []}, "type"),
    ],
)
def test_a_geometry_that_is_not_a_polygon_in_chile_is_rejected(geometria: dict[str, Any], texto: str) -> None:
    assert texto in errores_de(geometria=geometria)["geometria"]


@pytest.mark.django_db
def test_a_valid_polygon_and_feature_wrapper_are_accepted() -> None:
    assert validar_entrada(datos(geometria=CUADRADO_TALTAL)).geometria is not None
    feature = {"type": "Feature", "properties": {}, "geometry": CUADRADO_TALTAL}
    assert validar_entrada(datos(geometria=feature)).geometria_geojson["type"] == "Polygon"  # type: ignore[index]


def test_a_non_object_input_is_rejected() -> None:
    with pytest.raises(EntradaInvalida) as error:
        validar_entrada(["no", "es", "objeto"])

    assert error.value.errores[0]["campo"] == "entrada"


def test_the_project_model_offers_exactly_the_engine_types() -> None:
    assert tuple(Proyecto.Tipo.values) == TIPOS
