"""Regiones y comunas como las escribe un usuario: con o sin tildes, «Región de», número o romano."""

import re

import pytest

from proyectos.models import Comuna, Region
from proyectos.selectors import (
    ErrorDeTerritorio,
    comuna_mencionada,
    comuna_resolver,
    region_mencionada,
    region_resolver,
)

pytestmark = pytest.mark.django_db


def test_el_catalogo_trae_las_16_regiones_y_las_346_comunas_del_cut():
    assert Region.objects.count() == 16
    assert Comuna.objects.count() == 346
    assert Comuna.objects.get(codigo="02101").nombre == "Antofagasta"
    assert Comuna.objects.get(codigo="12202").nombre == "Antártica"


@pytest.mark.parametrize(
    ("texto", "codigo"),
    [
        ("Antofagasta", "02"),
        ("Región de Antofagasta", "02"),
        ("region de antofagasta", "02"),
        (2, "02"),
        ("II", "02"),
        ("XV", "15"),
        ("Arica y Parinacota", "15"),
        ("O'Higgins", "06"),
        ("Región del Libertador General Bernardo O'Higgins", "06"),
        ("Metropolitana", "13"),
        ("Región Metropolitana de Santiago", "13"),
        ("RM", "13"),
        ("Ñuble", "16"),
        ("Nuble", "16"),
        ("Bío Bío", "08"),
        ("Región del Biobío", "08"),
        ("Aysén", "11"),
        ("Aisén", "11"),
        ("Magallanes", "12"),
        ("la araucania", "09"),
        ("Los Ríos", "14"),
        ("Los Lagos", "10"),
        ("16", "16"),
    ],
)
def test_una_region_se_reconoce_como_la_escribe_un_usuario(texto, codigo):
    assert region_resolver(texto=texto).codigo == codigo


@pytest.mark.parametrize("texto", ["Atacamaa", "17", "0", "Región de Mendoza", "Los", ""])
def test_una_region_desconocida_da_un_error_que_lista_las_opciones(texto):
    with pytest.raises(ErrorDeTerritorio, match="Región desconocida") as error:
        region_resolver(texto=texto)

    assert "Arica y Parinacota (15)" in str(error.value)


def test_un_error_de_tipeo_en_la_region_sugiere_la_correcta():
    with pytest.raises(ErrorDeTerritorio, match=re.escape("¿Quiso decir Atacama?")):
        region_resolver(texto="Atacamaa")


@pytest.mark.parametrize(
    ("texto", "nombre"),
    [
        ("Antofagasta", "Región de Antofagasta"),
        ("Maule", "Región del Maule"),
        ("O'Higgins", "Región del Libertador General Bernardo O'Higgins"),
        ("RM", "Región Metropolitana de Santiago"),
    ],
)
def test_una_region_se_nombra_con_su_preposicion(texto: str, nombre: str) -> None:
    assert str(region_resolver(texto=texto)) == nombre


def test_una_comuna_se_reconoce_sin_tildes_y_dentro_de_su_region():
    atacama = region_resolver(texto="Atacama")

    assert comuna_resolver(texto="copiapo", region=atacama).codigo == "03101"
    assert comuna_resolver(texto="Diego de Almagro", region=atacama).region_id == "03"
    assert comuna_resolver(texto="Calama").region_id == "02"


def test_una_comuna_de_otra_region_se_rechaza_nombrando_la_suya():
    with pytest.raises(
        ErrorDeTerritorio,
        match="La comuna Calama pertenece a la Región de Antofagasta, no a la Región de Atacama",
    ):
        comuna_resolver(texto="Calama", region=region_resolver(texto="Atacama"))


def test_una_comuna_mal_escrita_sugiere_las_parecidas_de_la_region():
    with pytest.raises(ErrorDeTerritorio, match=r"¿Quiso decir .*Tierra Amarilla"):
        comuna_resolver(texto="Tierra Amarila", region=region_resolver(texto="Atacama"))


def test_el_catalogo_se_consulta_en_el_admin(admin_client):
    respuesta = admin_client.get("/admin/proyectos/comuna/", {"q": "Copiap", "region__codigo__exact": "03"})

    assert respuesta.status_code == 200
    assert "Copiapó" in respuesta.content.decode()


@pytest.mark.parametrize(
    ("texto", "region"),
    [
        ("un rajo en la Región de Antofagasta de 8.000 t/mes", "Antofagasta"),
        ("proyecto en la region del biobio", "Biobío"),
        ("una planta en la RM", "Metropolitana de Santiago"),
        ("cerca de Rancagua, en O'Higgins", "Libertador General Bernardo O'Higgins"),
        ("un proyecto en Magallanes", "Magallanes y de la Antártica Chilena"),
        ("¿qué exige la normativa chilena para un relave en el campo?", None),
        ("¿qué es una DIA?", None),
        ("una cantera en la Quinta Región", "Valparaíso"),
        ("faena de la III Región con 7.000 t/mes", "Atacama"),
        ("un pozo en la región VIII", "Biobío"),
        ("en la segunda región hay un salar", "Antofagasta"),
        ("lo que dice la letra i del Art. 3 sobre la región i.1", None),
    ],
)
def test_la_region_nombrada_en_un_texto_libre_se_reconoce_por_su_nombre_oficial(texto, region):
    assert region_mencionada(texto=texto) == region


@pytest.mark.parametrize(
    ("texto", "comuna"),
    [
        ("Pozo lastrero en Quillota: la extracción es chica", "Quillota"),
        ("áridos del cauce del río Copiapo, sin tilde", "Copiapó"),
        ("una cantera en Alto del Carmen", "Alto del Carmen"),
        ("la faena está al pie de una colina", None),  # «Colina» en minúscula no nombra la comuna
        ("un proyecto sin lugar", None),
    ],
)
def test_la_comuna_que_nombra_un_texto_libre_se_reconoce_con_su_mayuscula(texto, comuna):
    encontrada = comuna_mencionada(texto=texto)

    assert (encontrada.nombre if encontrada else None) == comuna
