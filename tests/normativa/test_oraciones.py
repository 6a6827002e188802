"""Las oraciones de un texto y sus raíces, como las guarda la ingesta y las lee el reordenador."""

import pytest

from normativa.oraciones import continua_la_anterior, oraciones_de, raices_en_orden


def test_un_salto_de_linea_a_mitad_de_oracion_no_la_corta_pero_el_de_una_letra_nueva_si():
    texto = (
        "Medio físico, que incluirá, la caracterización y\nanálisis de los aspectos asociados a:\n"
        "- La atmósfera, como el clima y meteorología,\nla calidad del aire;\nf) La predicción de impactos."
    )

    assert oraciones_de(texto) == (
        "Medio físico, que incluirá, la caracterización y análisis de los aspectos asociados a:",
        "- La atmósfera, como el clima y meteorología, la calidad del aire;",
        "f) La predicción de impactos.",
    )


def test_un_resto_corto_no_es_una_oracion():
    assert oraciones_de("a)\nLa evaluación ambiental del proyecto.") == (
        "La evaluación ambiental del proyecto.",
    )


@pytest.mark.django_db
def test_las_raices_de_cada_texto_vienen_en_su_orden_sin_tildes_ni_palabras_vacias():
    raices = raices_en_orden(["Consejo de Ministros para la Sustentabilidad", "", "de la"])

    assert raices == [["conse", "minis", "suste"], [], []]


@pytest.mark.django_db
def test_sin_textos_no_se_consulta_la_base(django_assert_num_queries):
    with django_assert_num_queries(0):
        assert raices_en_orden([]) == []


@pytest.mark.parametrize(
    "oracion",
    [
        "vencido este plazo, el permiso se entendera otorgado.",
        "la falta de pronunciamiento en el termino indicado la hara responsable.",
        "para tal efecto, el organo requerira el informe del servicio.",
        "no obstante, el no alcanzar dicha finalidad no implica la afectacion del derecho.",
        # la condición de la regla anterior y lo que vale para los casos que acaba de nombrar
        "todo ello, siempre que lo soliciten a lo menos dos organizaciones ciudadanas.",
        "en ambos casos, el plazo se interrumpira con la notificacion de los cargos.",
    ],
)
def test_una_oracion_que_depende_de_la_anterior_se_reconoce(oracion):
    assert continua_la_anterior(oracion)


def test_una_oracion_que_abre_una_regla_nueva_no_depende_de_la_anterior():
    assert not continua_la_anterior("el titular debera presentar un estudio de impacto ambiental.")


def test_lo_que_se_dice_de_la_regla_anterior_depende_de_ella():
    assert continua_la_anterior("lo anterior, sujeto a que dichas reducciones sean adicionales")
    assert continua_la_anterior("lo dispuesto en el inciso anterior no se aplicara a las areas protegidas")
    assert continua_la_anterior("dicho procedimiento se reiniciara en caso de incumplirse el programa")
    assert not continua_la_anterior("lo que no este previsto se regira por la ley 19.880")
