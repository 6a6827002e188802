"""El extracto de un fragmento: las oraciones que responden la pregunta y lo que depende de ellas."""

import pytest

from normativa.busqueda.analisis import VACIO, analizar
from normativa.busqueda.extracto import Consulta, anuncio_de_la_lista, elegir
from normativa.busqueda.preguntas import lo_que_pregunta

pytestmark = pytest.mark.django_db

ARTICULO = [
    "El titular deberá presentar el informe de seguimiento dentro de quince días.",
    "Vencido este plazo, la Superintendencia podrá imponer una multa.",
    "Los funcionarios del servicio llevarán un registro público de los informes.",
    "El infractor podrá solicitar el pago de la multa en cuotas.",
]


def _extracto(pregunta: str, *, pide_plazo: bool = False) -> list[str]:
    preguntas = lo_que_pregunta(pregunta)
    textos = analizar([*ARTICULO, pregunta, *preguntas])
    # todas las raíces de la pregunta pesan lo mismo: lo que se prueba es qué oraciones se eligen
    idf = dict.fromkeys(textos[pregunta].raices, 1.0)
    consulta = Consulta.de(idf=idf, texto=pregunta, preguntas=preguntas, textos=textos, pide_plazo=pide_plazo)
    return [ARTICULO[i] for i in elegir(ARTICULO, textos, consulta, VACIO).posiciones]


def test_la_oracion_que_depende_de_la_elegida_va_con_ella():
    extracto = _extracto("¿En qué plazo se presenta el informe de seguimiento?", pide_plazo=True)

    assert extracto == ARTICULO[:2]  # «Vencido este plazo, …» dice qué pasa si no se presenta


def test_cada_pregunta_de_la_consulta_trae_su_oracion():
    extracto = _extracto(
        "¿Qué informe de seguimiento debe presentar el titular dentro del período? ¿Se paga en cuotas?"
    )

    assert ARTICULO[0] in extracto
    assert ARTICULO[3] in extracto
    assert ARTICULO[2] not in extracto  # el registro de los funcionarios no responde ninguna


def test_un_punto_de_una_lista_que_no_es_el_primero_va_con_lo_que_la_anuncia():
    definicion = [
        "Ampliación relevante: la que cambia la escala del proyecto.",
        "Se entenderá que una ampliación es relevante cuando:",
        "Duplica la superficie intervenida por la faena;",
        "Agrega un nuevo depósito de relaves que no ha sido evaluado;",
        "Cambia la fuente de agua.",
    ]
    pregunta = "¿Un nuevo depósito de relaves no evaluado cuenta?"
    textos = analizar([*definicion, pregunta])
    idf = dict.fromkeys(textos[pregunta].raices, 1.0)
    consulta = Consulta.de(idf=idf, texto=pregunta, preguntas=[pregunta], textos=textos, pide_plazo=False)

    posiciones = elegir(definicion, textos, consulta, VACIO).posiciones

    assert [definicion[i] for i in posiciones] == definicion[1:2] + definicion[3:4]
    assert anuncio_de_la_lista(definicion, 4) == 1  # los puntos anteriores terminan en punto y coma
    assert anuncio_de_la_lista(definicion, 1) is None  # la definición no es punto de una lista
