"""Cada literal que hace ingresar a una parte de la faena, justo bajo, en y sobre su umbral (por región donde
el literal depende de ella), por el contrato JSON del motor y por el formulario de la portada: una mina de
3.000 t/mes (bajo el i.1) ingresa solo por esa parte, y con el literal citado."""

from typing import Any, NamedTuple

import pytest

from proyectos.analisis.motor import evaluar
from proyectos.models import Proyecto
from tests.proyectos.conftest import Empresa
from tests.proyectos.test_views import navegador

pytestmark = pytest.mark.usefixtures("motor")


class Caso(NamedTuple):
    literal: str
    campo: str
    region: str
    bajo: float
    en: float
    sobre: float
    # «superior a»: el umbral mismo no alcanza; «igual o superior a»: sí.
    estricto: bool


CASOS = [
    Caso("a.1", "presa_altura_m", "04", 4.9, 5, 5.1, True),
    Caso("a.1", "embalse_m3", "13", 49999, 50000, 50001, True),
    Caso("a.2.2", "nadis_ha", "14", 199, 200, 201, False),
    Caso("a.2.4", "humedal_drenado_ha", "03", 9.9, 10, 10.1, False),  # Arica y Parinacota a Coquimbo
    Caso("a.2.4", "humedal_drenado_ha", "13", 19.9, 20, 20.1, False),  # Valparaíso al Maule y la RM
    Caso("a.2.4", "vegas_bofedales_ha", "11", 29.9, 30, 30.1, False),  # Bío Bío a Magallanes
    Caso("a.3", "dragado_m3", "03", 19999, 20000, 20001, False),  # Arica y Parinacota a Atacama
    Caso("a.3", "dragado_m3", "04", 49999, 50000, 50001, False),  # Coquimbo a Magallanes
    Caso("a.4", "cauce_movido_m3", "04", 49999, 50000, 50001, False),  # Arica y Parinacota a Coquimbo
    Caso("a.4", "cauce_movido_m3", "05", 99999, 100000, 100001, False),  # Valparaíso a Magallanes
    Caso("b.1", "linea_transmision_kv", "02", 22.9, 23, 23.1, True),
    Caso("c", "generacion_mw", "02", 2.9, 3, 3.1, True),
    Caso("k.1", "potencia_instalada_kva", "02", 1999, 2000, 2001, False),
    Caso("ñ.1", "toxicas_kg_dia", "02", 9999, 10000, 10001, False),
    Caso("ñ.1", "toxicas_almacenamiento_kg", "02", 29999, 30000, 30001, False),
    Caso("ñ.2", "explosivos_kg_dia", "03", 2499, 2500, 2501, False),
    Caso("ñ.2", "explosivos_almacenamiento_kg", "03", 2499, 2500, 2501, False),
    Caso("ñ.3", "inflamables_kg_dia", "02", 79999, 80000, 80001, False),
    Caso("ñ.3", "inflamables_almacenamiento_kg", "02", 79999, 80000, 80001, False),
    Caso("ñ.4", "corrosivas_kg_dia", "02", 119999, 120000, 120001, False),
    Caso("ñ.4", "corrosivas_almacenamiento_kg", "02", 119999, 120000, 120001, False),
    Caso("ñ.5", "transporte_sustancias_t_dia", "02", 399, 400, 401, False),
]
# Sin umbral: basta que la parte exista («cualquiera sea», «toda extracción»); cero o «no» no ingresa.
SIN_UMBRAL = [
    ("a.2.1", {"vegas_bofedales_ha": 0.5}, "02"),  # Arica y Parinacota, Tarapacá y Antofagasta
    ("a.2.3", {"drenaje_turberas": True}, "12"),
    ("a.5", {"obras_en_glaciar": True}, "13"),
    ("i.6", {"extraccion_turba": True}, "12"),
    ("j", {"ducto_minero_km": 0.3}, "03"),
    ("ñ.6", {"radiactivas_sobre_limites": True}, "02"),
    ("ñ.7", {"transporte_radiactivo_multilateral": True}, "02"),
    ("s", {"obras_en_humedal_urbano": True}, "08"),
]


def mina(region: str, componentes: dict[str, Any]) -> dict[str, Any]:
    return {
        "nombre": "Mina pequeña",
        "region": region,
        "tipo": "explotacion",
        "capacidad_extraccion_t_mes": 3000,
        "componentes": componentes,
    }


def esperado(caso: Caso, valor: float) -> bool:
    return valor > caso.en or (valor == caso.en and not caso.estricto)


def ids(caso: Caso) -> str:
    return f"{caso.literal}-{caso.campo}-{caso.region}"


@pytest.mark.parametrize("caso", CASOS, ids=ids)
def test_por_el_contrato_json_cada_literal_ingresa_desde_su_umbral_con_su_literal_citado(caso: Caso) -> None:
    for valor in (caso.bajo, caso.en, caso.sobre):
        r = evaluar(mina(caso.region, {caso.campo: valor}), espacial=False)

        ingresa = esperado(caso, valor)
        assert r["tipologias"] == ([caso.literal] if ingresa else []), f"{caso.campo}={valor}"
        assert r["clasificacion"] == ("DIA" if ingresa else "NO_INGRESA")
        (umbral,) = [u for u in r["umbrales"] if u["literal"] == caso.literal]
        assert umbral["cumple"] is ingresa
        if ingresa:
            fundamento = r["detalle_tipologias"][0]["fundamento"]
            citas = {(f["norma"], f["articulo"], f["letra"]) for f in fundamento}
            assert ("DS 40", "3", caso.literal) in citas and ("Ley 19.300", "10", caso.literal[0]) in citas


@pytest.mark.parametrize(("literal", "componentes", "region"), SIN_UMBRAL)
def test_por_el_contrato_json_lo_que_no_tiene_umbral_ingresa_con_solo_existir(
    literal: str, componentes: dict[str, Any], region: str
) -> None:
    r = evaluar(mina(region, componentes), espacial=False)
    nada = {campo: 0 if not isinstance(v, bool) else False for campo, v in componentes.items()}

    assert r["tipologias"] == [literal] and r["clasificacion"] == "DIA"
    assert evaluar(mina(region, nada), espacial=False)["tipologias"] == []


def test_los_vegas_y_bofedales_fuera_del_norte_grande_necesitan_la_superficie_de_su_zona() -> None:
    assert evaluar(mina("04", {"vegas_bofedales_ha": 9}), espacial=False)["tipologias"] == []
    assert evaluar(mina("04", {"vegas_bofedales_ha": 10}), espacial=False)["tipologias"] == ["a.2.4"]


@pytest.mark.parametrize("caso", CASOS, ids=ids)
def test_por_el_formulario_de_la_portada_cada_literal_ingresa_desde_su_umbral(
    caso: Caso, empresa_a: Empresa
) -> None:
    cliente = navegador(empresa_a.lectora)
    for valor in (caso.bajo, caso.en, caso.sobre):
        datos = {"tipo": "explotacion", "region": caso.region, "capacidad_extraccion_t_mes": "3000"}
        respuesta = cliente.post("/proyectos/evaluar/", {**datos, caso.campo: str(valor)})

        r = respuesta.context["r"]
        ingresa = esperado(caso, valor)
        assert r["tipologias"] == ([caso.literal] if ingresa else []), f"{caso.campo}={valor}"
        if ingresa:
            assert f"<strong>Tipología {caso.literal}</strong>" in respuesta.content.decode()


def test_el_formulario_acepta_las_partes_si_o_no_y_explica_una_cantidad_negativa_en_su_campo(
    empresa_a: Empresa,
) -> None:
    cliente = navegador(empresa_a.lectora)
    datos = {"tipo": "explotacion", "region": "03", "capacidad_extraccion_t_mes": "3000"}

    glaciar = cliente.post("/proyectos/evaluar/", {**datos, "obras_en_glaciar": "on"})
    negativo = cliente.post("/proyectos/evaluar/", {**datos, "ducto_minero_km": "-3"})

    assert glaciar.context["r"]["tipologias"] == ["a.5"]
    assert negativo.context["r"] is None
    assert negativo.context["formulario"].errors["ducto_minero_km"]
    assert 'id="componentes" open' in negativo.content.decode(), "el grupo con el error queda abierto"


def test_una_mina_con_mineroducto_y_linea_lista_sus_dos_causas_de_ingreso() -> None:
    r = evaluar(mina("03", {"ducto_minero_km": 30, "linea_transmision_kv": 66}), espacial=False)

    assert r["tipologias"] == ["b.1", "j"] and r["clasificacion"] == "DIA"
    assert {t["tipologia"] for t in r["detalle_tipologias"]} == {"b.1", "j"}


def test_el_formulario_de_proyecto_guarda_sus_partes_la_ficha_las_muestra_y_el_analisis_las_usa(
    empresa_a: Empresa,
) -> None:
    cliente = navegador(empresa_a.escritora)
    datos = {
        "nombre": "Mina con polvorín",
        "cliente": empresa_a.cliente.pk,
        "region": "03",
        "tipo": "explotacion",
        "capacidad_extraccion_t_mes": "3000",
        "ducto_minero_km": "30",
        "explosivos_almacenamiento_kg": "10000",
    }

    creado = cliente.post("/proyectos/nuevo/", datos)
    proyecto = Proyecto.objects.get(nombre="Mina con polvorín")
    ficha = cliente.get(f"/proyectos/{proyecto.pk}/").content.decode()
    edicion = cliente.get(f"/proyectos/{proyecto.pk}/editar/").content.decode()
    cliente.post(f"/proyectos/{proyecto.pk}/analizar/", {"tipo": "rapido"})

    assert creado.status_code == 302
    assert proyecto.componentes == {"ducto_minero_km": 30, "explosivos_almacenamiento_kg": 10000}
    assert "El largo del ducto minero (km): 30 — literal j" in ficha
    assert 'name="ducto_minero_km" value="30"' in edicion, "la edición trae lo guardado"
    analisis = proyecto.analisis.get()
    assert analisis.resultado["tipologias"] == ["j", "ñ.2"]
    assert analisis.entrada["componentes"] == proyecto.componentes
