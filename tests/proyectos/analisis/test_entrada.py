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
def test_la_region_se_acepta_por_nombre_con_o_sin_prefijo_o_por_numero(region: Any) -> None:
    assert validar_entrada(datos(region=region)).region.codigo == "02"


@pytest.mark.django_db
def test_todos_los_problemas_se_listan_a_la_vez() -> None:
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
def test_una_comuna_debe_pertenecer_a_la_region() -> None:
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
def test_no_puede_faltar_la_cantidad_que_exige_el_tipo(tipo: str, campo: str) -> None:
    errores = errores_de(tipo=tipo, capacidad_extraccion_t_mes=None)

    assert campo in errores and "sin ese dato" in errores[campo]


@pytest.mark.django_db
def test_un_poligono_que_se_cruza_se_rechaza_nombrando_el_cruce() -> None:
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
def test_una_geometria_que_no_es_un_poligono_en_chile_se_rechaza(
    geometria: dict[str, Any], texto: str
) -> None:
    assert texto in errores_de(geometria=geometria)["geometria"]


@pytest.mark.django_db
def test_un_poligono_valido_y_su_envoltorio_feature_se_aceptan() -> None:
    assert validar_entrada(datos(geometria=CUADRADO_TALTAL)).geometria is not None
    feature = {"type": "Feature", "properties": {}, "geometry": CUADRADO_TALTAL}
    assert validar_entrada(datos(geometria=feature)).geometria_geojson["type"] == "Polygon"  # type: ignore[index]


def test_una_entrada_que_no_es_objeto_se_rechaza() -> None:
    with pytest.raises(EntradaInvalida) as error:
        validar_entrada(["no", "es", "objeto"])

    assert error.value.errores[0]["campo"] == "entrada"


def test_el_modelo_de_proyecto_ofrece_exactamente_los_tipos_del_motor() -> None:
    assert tuple(Proyecto.Tipo.values) == TIPOS


@pytest.mark.django_db
def test_los_componentes_se_validan_con_su_campo_y_en_castellano() -> None:
    errores = errores_de(
        componentes={
            "ducto_minero_km": -3,
            "obras_en_glaciar": "sí",
            "gasoducto": 10,
            "generacion_mw": "mucho",
        }
    )

    assert "no puede ser negativa" in errores["componentes.ducto_minero_km"]
    assert "true o false" in errores["componentes.obras_en_glaciar"]
    assert "Componente desconocido «gasoducto»" in errores["componentes.gasoducto"]
    assert "como número" in errores["componentes.generacion_mw"]
    assert "como un objeto" in errores_de(componentes=[30])["componentes"]


@pytest.mark.django_db
def test_los_componentes_validos_quedan_en_la_entrada_normalizada() -> None:
    entrada = validar_entrada(datos(componentes={"ducto_minero_km": 30, "extraccion_turba": False}))

    assert entrada.como_json()["componentes"] == {"ducto_minero_km": 30}
    assert "componentes" not in validar_entrada(datos()).como_json()
