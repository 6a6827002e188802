"""El plegado de texto quita tildes, diéresis y la virgulilla y conserva todo lo demás."""

import unicodedata

from config.texto import sin_tildes


def plegado_de_referencia(texto: str) -> str:
    """La definición: minúsculas, descomposición NFD y fuera las marcas combinantes."""
    descompuesto = unicodedata.normalize("NFD", texto.lower())
    return "".join(c for c in descompuesto if unicodedata.category(c) != "Mn")


def test_quita_tildes_dieresis_y_virgulilla_y_conserva_la_puntuacion():
    assert (
        sin_tildes("Ñandú PINGÜINO, «Art. 3°» 8.000 t/mes ¿Sí?")
        == "nandu pinguino, «art. 3°» 8.000 t/mes ¿si?"
    )


def test_una_marca_ya_separada_de_su_letra_tambien_se_quita():
    assert sin_tildes("e\u0301xito") == "exito"


def test_coincide_con_la_definicion_en_los_alfabetos_latino_griego_y_cirilico():
    texto = "".join(chr(codigo) for codigo in range(0x20, 0x530))

    assert sin_tildes(texto) == plegado_de_referencia(texto)


def test_un_texto_sin_tildes_solo_pasa_a_minusculas():
    assert sin_tildes("Ley 19.300, Art. 11 letra D") == "ley 19.300, art. 11 letra d"
