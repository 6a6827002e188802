"""La estructura de la ley del SEIA: qué artículo del Reglamento desarrolla cada uno de la ley."""

import pytest

from config.seia import desarrollo


@pytest.mark.parametrize(
    ("citado", "desarrollado"),
    [
        (("Ley 19.300", "11", "d"), ("DS 40", "8", "")),
        (("Ley 19.300", "11", "a"), ("DS 40", "5", "")),
        (("Ley 19.300", "10", "i"), ("DS 40", "3", "i")),
        (("DS 40", "7", ""), ("Ley 19.300", "11", "c")),
        (("DS 40", "3", "i.1"), ("Ley 19.300", "10", "i")),
    ],
)
def test_cada_letra_de_la_ley_tiene_su_articulo_del_reglamento_y_al_reves(citado, desarrollado):
    assert desarrollo(*citado) == desarrollado


@pytest.mark.parametrize(
    "citado",
    [
        ("Ley 19.300", "10", "s"),
        ("Ley 19.300", "11", ""),
        ("Ley 19.300", "29", ""),
        ("Ley 20.417", "11", "c"),
    ],
)
def test_lo_que_el_reglamento_no_desarrolla_no_tiene_pareja(citado):
    assert desarrollo(*citado) is None
