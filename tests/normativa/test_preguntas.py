"""Lo que una consulta pregunta, separado de la situación que la rodea."""

import pytest

from normativa.busqueda.preguntas import lo_que_pregunta


@pytest.mark.parametrize(
    ("consulta", "preguntas"),
    [
        (
            "Nos cursaron una multa. ¿Podemos pagar en cuotas? ¿Ante quién se pide y en qué plazo?",
            ["podemos pagar en cuotas", "ante quien se pide", "en que plazo"],
        ),
        (
            "La planta está lista. ¿Quién la fiscaliza o cuándo parte la fiscalización",
            ["quien la fiscaliza", "cuando parte la fiscalizacion"],
        ),
        ("¿Qué es una DIA?", ["que es una dia"]),
        # «y» entre dos cosas que se preguntan juntas no separa preguntas
        ("¿Qué contienen la DIA y el EIA?", ["que contienen la dia y el eia"]),
    ],
)
def test_cada_pregunta_de_la_consulta_se_separa_sin_la_situacion(consulta, preguntas):
    assert lo_que_pregunta(consulta) == preguntas
