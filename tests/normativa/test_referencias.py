"""Las referencias explícitas de una pregunta se reconocen en sus formas habituales."""

import pytest

from normativa.referencias import extraer_referencias


@pytest.mark.parametrize(
    ("consulta", "normas", "articulo", "letra"),
    [
        ("art. 11 letra d", (), "11", "d"),
        ("artículo 10 i) de la Ley 19.300", ("Ley 19.300",), "10", "i"),
        ("Artículo 25 quater ley 19300", ("Ley 19.300",), "25 quáter", ""),
        ("¿qué dice el DS 40 sobre plazos?", ("DS 40",), "", ""),
        ("decreto supremo N° 40, artículo 3", ("DS 40",), "3", ""),
        ("umbral del literal i.5.2", ("DS 40",), "3", "i.5.2"),
        ("reglamento del SEIA, art 26", ("DS 40",), "26", ""),
        ("ley de bases generales del medio ambiente", ("Ley 19.300",), "", ""),
        # las otras leyes del corpus por su nombre
        ("¿Qué pide la ley marco de cambio climático a las faenas?", ("Ley 21.455",), "", ""),
        ("¿Cuándo prescribe una infracción según la LOSMA?", ("Ley 20.417",), "", ""),
        ("la ley que crea los tribunales ambientales, art. 17", ("Ley 20.600",), "17", ""),
        ("¿Qué sanciona la ley del Servicio de Biodiversidad?", ("Ley 21.600",), "", ""),
        ("¿qué es una DIA?", (), "", ""),
    ],
)
def test_reconoce_norma_articulo_y_letra(consulta, normas, articulo, letra):
    referencias = extraer_referencias(consulta)

    assert (referencias.normas, referencias.articulo, referencias.letra) == (normas, articulo, letra)


@pytest.mark.parametrize(
    ("consulta", "normas"),
    [
        ("¿La multa de 10.000 UTA corresponde a una infracción gravísima?", ()),
        ("Sacamos 18.500 t/mes", ()),
        ("El pozo da 21.000 litros al día", ()),
        ("¿Qué dice la 20.417 sobre la autodenuncia?", ("Ley 20.417",)),
        ("¿La 17.288 protege los petroglifos?", ("Ley 17.288",)),
    ],
)
def test_un_numero_suelto_es_una_ley_solo_si_no_es_una_cantidad(consulta, normas):
    assert extraer_referencias(consulta).normas == normas
