"""Efectos del Art. 11 dichos con palabras de faena se vuelven la circunstancia declarada del motor."""

import pytest

from proyectos.analisis.circunstancias import circunstancias_dichas
from proyectos.analisis.entrada import CIRCUNSTANCIAS


@pytest.mark.parametrize(
    ("texto", "circunstancia"),
    [
        (
            "Para ampliar el rajo habría que reubicar a las familias del caserío.",
            "reasentamiento_comunidades",
        ),
        ("Con la tronadura vamos a exceder la norma de MP10 en la villa.", "riesgo_salud_poblacion"),
        ("El tranque de agua va a desecar parte del bofedal.", "efectos_adversos_recursos_naturales"),
        ("El camino corta el paso de las veranadas de los crianceros.", "alteracion_sistemas_vida"),
        ("La planta queda a 2 km de un parque nacional.", "localizacion_proxima_areas_protegidas"),
        ("Durante el escarpe apareció un sitio arqueológico con petroglifos.", "intervencion_monumentos"),
        (
            "El botadero altera de forma significativa el paisaje de la quebrada.",
            "alteracion_valor_paisajistico_turistico",
        ),
    ],
)
def test_cada_efecto_dicho_en_terreno_es_la_circunstancia_de_su_letra(texto: str, circunstancia: str) -> None:
    dichas = circunstancias_dichas(texto)

    assert [d.circunstancia for d in dichas] == [circunstancia]
    assert circunstancia in CIRCUNSTANCIAS and dichas[0].frase in texto


def test_la_frase_se_cita_con_sus_tildes_y_la_cifra_con_coma_no_corta_la_clausula() -> None:
    dichas = circunstancias_dichas("Vamos a sobrepasar la norma de MP2,5 en Chañaral.")

    assert [d.frase for d in dichas] == ["sobrepasar la norma de MP2,5"]


@pytest.mark.parametrize(
    "texto",
    [
        "No hay comunidades ni áreas protegidas en el entorno.",
        "El proyecto está lejos de cualquier glaciar.",
        "Sin sitios arqueológicos en el área.",
    ],
)
def test_una_mencion_negada_en_su_clausula_no_declara_nada(texto: str) -> None:
    assert circunstancias_dichas(texto) == []


def test_varias_circunstancias_salen_en_el_orden_del_texto_sin_repetirse() -> None:
    texto = "Hay que relocalizar a 8 familias; además el rajo queda junto a un glaciar y otro glaciar."

    assert [d.circunstancia for d in circunstancias_dichas(texto)] == [
        "reasentamiento_comunidades",
        "localizacion_proxima_areas_protegidas",
    ]
