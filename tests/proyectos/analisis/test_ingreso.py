"""Ingreso al SEIA por la letra i): cada umbral del Art. 3 del DS 40 en su límite exacto y por región."""

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from proyectos.analisis.ingreso import (
    TIPOS,
    TIPOS_CON_UMBRAL_REGIONAL,
    Cantidades,
    Comparacion,
    comparaciones,
    tipologias_de_ingreso,
)
from proyectos.selectors import region_resolver

CASOS = Path(__file__).resolve().parents[2] / "fixtures" / "analisis"
ESPERADO = json.loads((CASOS / "esperado.json").read_text(encoding="utf-8"))

REGIONES = ("15", "01", "02", "03", "04", "05", "13", "06", "07", "16", "08", "09", "14", "10", "11", "12")
ARICA, ANTOFAGASTA, ATACAMA, COQUIMBO, VALPARAISO, METROPOLITANA, MAGALLANES = (
    "15",
    "02",
    "03",
    "04",
    "05",
    "13",
    "12",
)


def literales(tipo: str, region: str, **cantidades: object) -> list[str]:
    valores: dict[str, Any] = {
        k: Decimal(str(v)) if isinstance(v, int | float) and k != "plataformas" else v
        for k, v in cantidades.items()
    }
    return [
        t.literal
        for t in tipologias_de_ingreso(tipo=tipo, codigo_region=region, cantidades=Cantidades(**valores))
    ]


@pytest.mark.parametrize(
    ("toneladas", "ingresa"), [(5000, False), (5000.01, True), (5001, True), (4999, False), (None, False)]
)
def test_una_explotacion_ingresa_solo_si_supera_estrictamente_5000_toneladas_al_mes(toneladas, ingresa):
    assert literales("explotacion", ANTOFAGASTA, capacidad_extraccion_t_mes=toneladas) == (
        ["i.1"] if ingresa else []
    )


@pytest.mark.parametrize(
    ("region", "plataformas", "ingresa"),
    [
        (ARICA, 40, True),
        (COQUIMBO, 39, False),
        (COQUIMBO, 40, True),
        (ANTOFAGASTA, 25, False),
        (VALPARAISO, 20, True),
        (VALPARAISO, 19, False),
        (METROPOLITANA, 20, True),
        (MAGALLANES, 20, True),
    ],
)
def test_una_prospeccion_ingresa_con_40_plataformas_en_el_norte_y_20_desde_valparaiso(
    region, plataformas, ingresa
):
    assert literales("prospeccion", region, plataformas=plataformas) == (["i.2"] if ingresa else [])


@pytest.mark.parametrize(
    ("cantidades", "ingresa"),
    [
        ({"aridos_m3_mes": 10000}, True),
        ({"aridos_m3_mes": 9999}, False),
        ({"aridos_m3_total": 100000}, True),
        ({"aridos_m3_total": 99999}, False),
        ({"superficie_ha": 5}, True),
        ({"superficie_ha": 4.99}, False),
        ({"aridos_m3_mes": 100, "aridos_m3_total": 1000, "superficie_ha": 6}, True),
    ],
)
def test_aridos_en_pozo_ingresan_por_cualquiera_de_sus_tres_umbrales_incluido_el_limite(cantidades, ingresa):
    assert literales("aridos_pozo", METROPOLITANA, **cantidades) == (["i.5.1"] if ingresa else [])


@pytest.mark.parametrize(
    ("region", "metros", "ingresa"),
    [
        (COQUIMBO, 20000, True),
        (COQUIMBO, 19999, False),
        (VALPARAISO, 20000, False),
        (VALPARAISO, 50000, True),
    ],
)
def test_aridos_en_cauce_dependen_de_la_region(region, metros, ingresa):
    assert literales("aridos_cauce", region, aridos_m3_total=metros) == (["i.5.2"] if ingresa else [])


@pytest.mark.parametrize(("metros", "ingresa"), [(50000, True), (49999, False)])
def test_arena_de_playa_ingresa_desde_50000_metros_cubicos(metros, ingresa):
    assert literales("aridos_playa", VALPARAISO, aridos_m3_total=metros) == (["i.5.3"] if ingresa else [])


@pytest.mark.parametrize("tipo", ["deposito_relaves", "botadero_esteriles"])
def test_relaves_y_esteriles_ingresan_cuando_su_origen_cumple_el_literal_i1(tipo):
    assert literales(tipo, ATACAMA, capacidad_extraccion_t_mes=8000) == ["i.3"]
    assert literales(tipo, ATACAMA, capacidad_extraccion_t_mes=5000) == []


def test_los_hidrocarburos_ingresan_siempre_por_el_literal_i4():
    assert literales("hidrocarburos", MAGALLANES) == ["i.4"]


def test_el_motivo_cita_la_cantidad_y_el_umbral_con_separador_de_miles():
    (tipologia,) = tipologias_de_ingreso(
        tipo="explotacion",
        codigo_region=ANTOFAGASTA,
        cantidades=Cantidades(capacidad_extraccion_t_mes=Decimal(8000)),
    )

    assert tipologia.motivo == "extracción de 8.000 t/mes > 5.000 t/mes"


def test_un_tipo_desconocido_se_rechaza():
    with pytest.raises(ValueError, match="Tipo de proyecto desconocido"):
        literales("cantera_lunar", ANTOFAGASTA)


@pytest.mark.django_db
@pytest.mark.parametrize("caso", sorted(ESPERADO))
def test_los_casos_de_desarrollo_dan_las_tipologias_esperadas(caso):
    entrada = json.loads((CASOS / f"{caso}.json").read_text(encoding="utf-8"))
    campos = ("capacidad_extraccion_t_mes", "aridos_m3_mes", "aridos_m3_total", "superficie_ha")
    cantidades = Cantidades(
        plataformas=entrada["plataformas"],
        **{c: Decimal(str(entrada[c])) if entrada[c] is not None else None for c in campos},
    )

    obtenidas = tipologias_de_ingreso(
        tipo=entrada["tipo"],
        codigo_region=region_resolver(texto=entrada["region"]).codigo,
        cantidades=cantidades,
    )

    assert [t.literal for t in obtenidas] == ESPERADO[caso].get("tipologias", [])
    assert bool(obtenidas) is ESPERADO[caso]["ingresa_seia"]


def test_una_cantidad_que_no_alcanza_el_umbral_se_compara_igual():
    (comparacion,) = comparaciones(
        tipo="aridos_cauce", codigo_region=ATACAMA, cantidades=Cantidades(aridos_m3_total=Decimal(15000))
    )

    assert comparacion == Comparacion(
        "i.5.2", "15.000 m³ < 20.000 m³ en un cauce (Arica y Parinacota a Coquimbo)", cumple=False
    )


def test_superior_a_se_compara_estricto_tambien_al_no_cumplir():
    (comparacion,) = comparaciones(
        tipo="explotacion",
        codigo_region=VALPARAISO,
        cantidades=Cantidades(capacidad_extraccion_t_mes=Decimal(5000)),
    )

    assert comparacion.texto == "extracción de 5.000 t/mes ≤ 5.000 t/mes" and not comparacion.cumple


def test_un_pozo_compara_cada_cantidad_dada_y_ninguna_ausente():
    resultado = comparaciones(
        tipo="aridos_pozo",
        codigo_region=VALPARAISO,
        cantidades=Cantidades(aridos_m3_mes=Decimal(2500), superficie_ha=Decimal(7)),
    )

    assert [(c.texto, c.cumple) for c in resultado] == [
        ("2.500 m³/mes < 10.000 m³/mes", False),
        ("7 ha ≥ 5 ha", True),
    ]


@pytest.mark.parametrize("tipo", TIPOS)
def test_solo_los_tipos_declarados_con_umbral_regional_cambian_con_la_region(tipo: str) -> None:
    # el chat evalúa sin región un proyecto de los demás tipos: en ellos ninguna región compara distinto
    cantidades = [
        Cantidades(
            capacidad_extraccion_t_mes=Decimal(v),
            plataformas=v,
            aridos_m3_mes=Decimal(v),
            aridos_m3_total=Decimal(v),
            superficie_ha=Decimal(v),
        )
        for v in (4, 25, 30_000, 60_000)
    ]
    cambia = any(
        len({tuple(comparaciones(tipo=tipo, codigo_region=r, cantidades=c)) for r in REGIONES}) > 1
        for c in cantidades
    )

    assert cambia == (tipo in TIPOS_CON_UMBRAL_REGIONAL)
