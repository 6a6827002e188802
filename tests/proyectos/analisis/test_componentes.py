"""Las otras partes de una faena: cada literal del Art. 3 del DS 40 en su límite exacto."""

from dataclasses import fields
from decimal import Decimal
from typing import Any

import pytest

from proyectos.analisis.componentes import (
    COMPONENTES_CON_UMBRAL_REGIONAL,
    Componentes,
    comparaciones_de_componentes,
)


def cumplidos(region: str = "02", **partes: Any) -> list[str]:
    valores: dict[str, Any] = {
        k: Decimal(str(v)) if isinstance(v, int | float) and not isinstance(v, bool) else v
        for k, v in partes.items()
    }
    return [
        c.literal
        for c in comparaciones_de_componentes(Componentes(**valores), codigo_region=region)
        if c.cumple
    ]


@pytest.mark.parametrize(("kv", "ingresa"), [(23, False), (23.1, True), (66, True), (13.2, False)])
def test_una_linea_de_transmision_ingresa_por_b1_solo_si_supera_23_kv(kv: float, ingresa: bool) -> None:
    assert cumplidos(linea_transmision_kv=kv) == (["b.1"] if ingresa else [])


@pytest.mark.parametrize(("mw", "ingresa"), [(3, False), (3.01, True), (2.5, False)])
def test_una_central_generadora_ingresa_por_c_solo_si_supera_3_mw(mw: float, ingresa: bool) -> None:
    assert cumplidos(generacion_mw=mw) == (["c"] if ingresa else [])


@pytest.mark.parametrize(("kva", "ingresa"), [(1999, False), (2000, True), (2500, True)])
def test_una_fundicion_ingresa_por_k1_desde_2000_kva_inclusive(kva: float, ingresa: bool) -> None:
    assert cumplidos(potencia_instalada_kva=kva) == (["k.1"] if ingresa else [])


@pytest.mark.parametrize("km", [0.5, 30, 120])
def test_un_ducto_minero_ingresa_por_j_cualquiera_sea_su_largo(km: float) -> None:
    comparacion = comparaciones_de_componentes(
        Componentes(ducto_minero_km=Decimal(str(km))), codigo_region="03"
    )[0]

    assert comparacion.literal == "j" and comparacion.cumple and "cualquier longitud" in comparacion.texto


def test_obras_sobre_un_glaciar_y_toda_extraccion_de_turba_ingresan_sin_umbral() -> None:
    assert cumplidos(obras_en_glaciar=True) == ["a.5"]
    assert cumplidos(extraccion_turba=True) == ["i.6"]


@pytest.mark.parametrize(
    ("campo", "literal"),
    [
        ("riles_lagunas_estabilizacion", "o.7.1"),
        ("riles_riego_o_infiltracion", "o.7.2"),
        ("riles_de_terceros", "o.7.3"),
    ],
)
def test_un_tratamiento_de_riles_ingresa_por_la_condicion_de_o7_que_cumple(campo: str, literal: str) -> None:
    partes: dict[str, Any] = {campo: True}
    assert cumplidos(**partes) == [literal]


@pytest.mark.parametrize(("region", "ingresa"), [("15", True), ("01", True), ("02", True), ("03", False)])
def test_secar_vegas_o_bofedales_sin_superficie_ingresa_por_a21_solo_en_el_norte_grande(
    region: str, ingresa: bool
) -> None:
    assert cumplidos(region, desecacion_vegas_bofedales=True) == (["a.2.1"] if ingresa else [])


def test_sin_partes_dichas_no_hay_nada_que_comparar_y_la_que_no_alcanza_se_informa_igual() -> None:
    assert comparaciones_de_componentes(Componentes(), codigo_region="02") == []
    (bajo,) = comparaciones_de_componentes(Componentes(linea_transmision_kv=Decimal(23)), codigo_region="02")
    assert not bajo.cumple and bajo.texto == "línea de transmisión de 23 kV ≤ 23 kV"


def test_el_json_de_los_componentes_guarda_solo_lo_dicho() -> None:
    assert Componentes().como_json() == {}
    assert Componentes(ducto_minero_km=Decimal("30"), obras_en_glaciar=True).como_json() == {
        "ducto_minero_km": 30,
        "obras_en_glaciar": True,
    }


@pytest.mark.parametrize(
    ("partes", "ingresa"),
    [
        ({"presa_altura_m": 5}, False),
        ({"presa_altura_m": 5.5}, True),
        ({"embalse_m3": 50000}, False),
        ({"embalse_m3": 50001}, True),
    ],
)
def test_una_presa_ingresa_por_a1_si_su_muro_o_su_embalse_superan_el_umbral(
    partes: dict[str, Any], ingresa: bool
) -> None:
    assert cumplidos("02", **partes) == (["a.1"] if ingresa else [])


@pytest.mark.parametrize(
    ("region", "hectareas", "literal"),
    [
        ("02", 0.3, "a.2.1"),  # Antofagasta: cualquier superficie de vegas o bofedales
        ("15", 0.3, "a.2.1"),
        ("03", 9.9, None),  # Atacama: ya no es a.2.1; a.2.4 desde 10 ha
        ("03", 10, "a.2.4"),
        ("05", 19, None),  # Valparaíso al Maule: 20 ha
        ("05", 20, "a.2.4"),
        ("08", 29, None),  # Bío Bío a Magallanes: 30 ha
        ("12", 30, "a.2.4"),
    ],
)
def test_drenar_vegas_o_bofedales_depende_de_la_region(
    region: str, hectareas: float, literal: str | None
) -> None:
    assert cumplidos(region, vegas_bofedales_ha=hectareas) == ([literal] if literal else [])


@pytest.mark.parametrize(
    ("region", "m3", "ingresa"),
    [("03", 19999, False), ("03", 20000, True), ("04", 20000, False), ("04", 50000, True)],
)
def test_el_dragado_ingresa_por_a3_con_el_umbral_de_su_region(region: str, m3: float, ingresa: bool) -> None:
    # de Arica y Parinacota a Atacama, 20.000 m³; de Coquimbo al sur, 50.000 m³
    assert cumplidos(region, dragado_m3=m3) == (["a.3"] if ingresa else [])


@pytest.mark.parametrize(
    ("region", "m3", "ingresa"),
    [("04", 49999, False), ("04", 50000, True), ("05", 50000, False), ("13", 100000, True)],
)
def test_alterar_un_cauce_ingresa_por_a4_con_el_umbral_de_su_region(
    region: str, m3: float, ingresa: bool
) -> None:
    assert cumplidos(region, cauce_movido_m3=m3) == (["a.4"] if ingresa else [])


def test_obras_en_un_humedal_urbano_ingresan_por_la_letra_s_de_la_ley() -> None:
    assert cumplidos(obras_en_humedal_urbano=True) == ["s"]


@pytest.mark.parametrize(("ha", "ingresa"), [(199.9, False), (200, True), (350, True)])
def test_el_drenaje_de_nadis_ingresa_por_a22_desde_200_ha_inclusive(ha: float, ingresa: bool) -> None:
    assert cumplidos("14", nadis_ha=ha) == (["a.2.2"] if ingresa else [])


def test_drenar_turberas_ingresa_por_a23_cualquiera_sea_su_superficie() -> None:
    assert cumplidos("12", drenaje_turberas=True) == ["a.2.3"]


@pytest.mark.parametrize(
    ("campo", "bajo", "limite", "literal"),
    [
        ("toxicas_kg_dia", 9999, 10000, "ñ.1"),
        ("toxicas_almacenamiento_kg", 29999, 30000, "ñ.1"),
        ("explosivos_kg_dia", 2499, 2500, "ñ.2"),
        ("explosivos_almacenamiento_kg", 2499, 2500, "ñ.2"),
        ("inflamables_kg_dia", 79999, 80000, "ñ.3"),
        ("inflamables_almacenamiento_kg", 79999, 80000, "ñ.3"),
        ("corrosivas_kg_dia", 119999, 120000, "ñ.4"),
        ("corrosivas_almacenamiento_kg", 119999, 120000, "ñ.4"),
        ("transporte_sustancias_t_dia", 399, 400, "ñ.5"),
    ],
)
def test_cada_sustancia_peligrosa_ingresa_por_su_literal_de_la_letra_n_desde_su_cantidad_inclusive(
    campo: str, bajo: int, limite: int, literal: str
) -> None:
    assert cumplidos("02", **{campo: bajo}) == []
    assert cumplidos("02", **{campo: limite}) == [literal]
    assert cumplidos("02", **{campo: limite * 2}) == [literal]


def test_producir_o_transportar_menos_de_un_semestre_no_es_habitual_pero_almacenar_si_cuenta() -> None:
    (corta,) = comparaciones_de_componentes(
        Componentes(transporte_sustancias_t_dia=Decimal(500), sustancias_meses=Decimal(4)), codigo_region="02"
    )
    assert not corta.cumple and "menos de un semestre" in corta.texto
    assert cumplidos(transporte_sustancias_t_dia=500, sustancias_meses=6) == ["ñ.5"]
    assert cumplidos(explosivos_almacenamiento_kg=3000, sustancias_meses=2) == ["ñ.2"]
    (sin_plazo,) = comparaciones_de_componentes(
        Componentes(explosivos_kg_dia=Decimal(3000)), codigo_region="02"
    )
    assert sin_plazo.cumple and "se supone un semestre o más" in sin_plazo.texto


def test_las_radiactivas_sobre_los_limites_del_ds_12_ingresan_por_n6_y_su_transporte_por_n7() -> None:
    assert cumplidos(radiactivas_sobre_limites=True) == ["ñ.6"]
    assert cumplidos(transporte_radiactivo_multilateral=True) == ["ñ.7"]


@pytest.mark.parametrize(("habitantes", "ingresa"), [(2499, False), (2500, True), (300, False)])
def test_la_planta_de_aguas_servidas_ingresa_por_o4_desde_2500_habitantes_inclusive(
    habitantes: int, ingresa: bool
) -> None:
    assert cumplidos(aguas_servidas_habitantes=habitantes) == (["o.4"] if ingresa else [])


_REGIONES = ("15", "01", "02", "03", "04", "05", "13", "06", "07", "16", "08", "09", "14", "10", "11", "12")


@pytest.mark.parametrize("campo", [f.name for f in fields(Componentes)])
def test_solo_las_partes_declaradas_con_umbral_regional_cambian_con_la_region(campo: str) -> None:
    # cada parte con valores a ambos lados de los umbrales: si alguna región compara distinto, la parte
    # debe estar entre las declaradas regionales (el chat evalúa sin región las demás)
    si_no = Componentes.__dataclass_fields__[campo].type == "bool"
    valores: list[Any] = [True] if si_no else [Decimal(v) for v in (3, 15, 25, 60_000, 120_000)]
    comparadas = (
        {tuple(comparaciones_de_componentes(Componentes(**{campo: v}), codigo_region=r)) for r in _REGIONES}
        for v in valores
    )

    assert any(len(c) > 1 for c in comparadas) == (campo in COMPONENTES_CON_UMBRAL_REGIONAL)


@pytest.mark.parametrize(("m3_s", "ingresa"), [(2, False), (2.5, True)])
def test_un_acueducto_ingresa_por_la_letra_a_si_conduce_mas_de_2_m3_por_segundo(
    m3_s: float, ingresa: bool
) -> None:
    # la letra a) del Art. 3 toma los acueductos que requieren la autorización del Art. 294 del Código de
    # Aguas
    assert cumplidos(acueducto_m3_s=m3_s) == (["a"] if ingresa else [])
