"""Efectos del Art. 11 dichos con palabras de faena se vuelven la circunstancia declarada del motor."""

import pytest

from proyectos.analisis.circunstancias import areas_dichas, circunstancias_dichas
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
        (
            "El bombeo produce un abatimiento de unos 4 m del acuífero que alimenta la laguna.",
            "efectos_adversos_recursos_naturales",
        ),
        ("El camino corta el paso de las veranadas de los crianceros.", "alteracion_sistemas_vida"),
        (
            "El bombeo va a secar la laguna de la que beben los flamencos.",
            "efectos_adversos_recursos_naturales",
        ),
        (
            "El rajo elimina el hábitat de un lagarto endémico de la quebrada.",
            "efectos_adversos_recursos_naturales",
        ),
        (
            "En el sector del botadero vive la única colonia conocida de un roedor amenazado.",
            "efectos_adversos_recursos_naturales",
        ),
        ("El trazado pasa por tierras de una comunidad aymara.", "localizacion_proxima_areas_protegidas"),
        ("La chancadora dejaría el ruido sobre la norma en el colegio.", "riesgo_salud_poblacion"),
        ("La toma de agua queda junto a un sitio Ramsar.", "localizacion_proxima_areas_protegidas"),
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


@pytest.mark.parametrize(
    ("texto", "categoria", "nombre"),
    [
        ("El yacimiento queda completamente dentro de una reserva nacional.", "reserva_nacional", ""),
        ("Las canchas de acopio están en el Parque Nacional Nevado Tres Cruces.", "parque_nacional",
         "Parque Nacional Nevado Tres Cruces"),
        ("La captación cae al interior del santuario de la naturaleza.", "santuario_naturaleza", ""),
        ("El tendido pasa dentro de un sitio prioritario.", "sitio_prioritario", ""),
        ("La línea de 66 kV atraviesa la Reserva Nacional Las Chinchillas.", "reserva_nacional",
         "Reserva Nacional Las Chinchillas"),
        ("Habrá un camino de acceso que cruza un monumento natural.", "monumento_natural", ""),
    ],
)  # fmt: skip
def test_el_area_en_que_se_dice_que_esta_el_proyecto_se_lee_con_su_categoria_y_su_nombre(
    texto: str, categoria: str, nombre: str
) -> None:
    (area,) = areas_dichas(texto)

    assert (area.categoria, area.nombre) == (categoria, nombre)
    assert area.frase in texto


@pytest.mark.parametrize(
    "texto",
    [
        "La faena queda a 12 km de la Reserva Nacional Pampa del Tamarugal.",
        "El botadero no queda dentro de ningún parque nacional.",
        "Todo está fuera de la reserva nacional, por el lado norte.",
        "El camino no cruza el parque nacional: lo rodea.",
    ],
)
def test_estar_cerca_o_fuera_de_un_area_no_es_estar_dentro(texto: str) -> None:
    assert areas_dichas(texto) == []
