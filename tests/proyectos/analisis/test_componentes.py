"""Las otras partes de una faena: cada literal del Art. 3 del DS 40 en su límite exacto."""

from decimal import Decimal
from typing import Any

import pytest

from proyectos.analisis.componentes import Componentes, comparaciones_de_componentes


def cumplidos(**partes: Any) -> list[str]:
    valores = {
        k: Decimal(str(v)) if isinstance(v, int | float) and not isinstance(v, bool) else v
        for k, v in partes.items()
    }
    return [c.literal for c in comparaciones_de_componentes(Componentes(**valores)) if c.cumple]  # type: ignore[arg-type]


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
    comparacion = comparaciones_de_componentes(Componentes(ducto_minero_km=Decimal(str(km))))[0]

    assert comparacion.literal == "j" and comparacion.cumple and "cualquier longitud" in comparacion.texto


def test_obras_sobre_un_glaciar_y_toda_extraccion_de_turba_ingresan_sin_umbral() -> None:
    assert cumplidos(obras_en_glaciar=True) == ["a.5"]
    assert cumplidos(extraccion_turba=True) == ["i.6"]


def test_sin_partes_dichas_no_hay_nada_que_comparar_y_la_que_no_alcanza_se_informa_igual() -> None:
    assert comparaciones_de_componentes(Componentes()) == []
    (bajo,) = comparaciones_de_componentes(Componentes(linea_transmision_kv=Decimal(23)))
    assert not bajo.cumple and bajo.texto == "línea de transmisión de 23 kV ≤ 23 kV"


def test_el_json_de_los_componentes_guarda_solo_lo_dicho() -> None:
    assert Componentes().como_json() == {}
    assert Componentes(ducto_minero_km=Decimal("30"), obras_en_glaciar=True).como_json() == {
        "ducto_minero_km": 30,
        "obras_en_glaciar": True,
    }
