"""El puntaje de `evaluar_respuestas` sigue el README del conjunto de respuestas."""

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from asistente.evaluacion import (
    ConjuntoInvalido,
    Item,
    Observada,
    cita_coincide,
    clasificacion_declarada,
    evaluar,
    leer_items,
    puntuar,
    resumen,
)
from normativa.busqueda import SenalesDeAbstencion

FIXTURE = Path(__file__).parents[1] / "fixtures" / "eval" / "dev_respuestas.jsonl"


def test_el_conjunto_de_desarrollo_copiado_se_lee_completo():
    items = leer_items(FIXTURE)

    assert len(items) == 15
    assert {i.tipo for i in items} == {"normativa", "proyecto", "fuera_de_corpus"}


def test_una_linea_sin_clasificacion_en_un_proyecto_es_un_error_con_su_numero(tmp_path):
    archivo = tmp_path / "malo.jsonl"
    archivo.write_text('{"id": "x", "pregunta": "p", "tipo": "proyecto", "citas": [], "hechos": []}\n')

    with pytest.raises(ConjuntoInvalido, match="Línea 1"):
        leer_items(archivo)


@pytest.mark.parametrize(
    ("fuente", "esperada", "coincide"),
    [
        (
            {"norma": "D.S. 40", "articulo": "3", "letra": "i.1"},
            {"norma": "DS 40", "articulo": "3", "letra": "i"},
            True,
        ),
        (
            {"norma": "DS 40", "articulo": "3", "letra": "i"},
            {"norma": "DS 40", "articulo": "3", "letra": "i.1"},
            True,
        ),
        (
            {"norma": "DS 40", "articulo": "3", "letra": ""},
            {"norma": "DS 40", "articulo": "3", "letra": "i.1"},
            True,
        ),
        (
            {"norma": "DS 40", "articulo": "3", "letra": "j"},
            {"norma": "DS 40", "articulo": "3", "letra": "i"},
            False,
        ),
        (
            {"norma": "Ley 19.300", "articulo": "11 BIS", "letra": ""},
            {"norma": "Ley 19.300", "articulo": "11 bis"},
            True,
        ),
        ({"norma": "Ley 19.300", "articulo": "11", "letra": ""}, {"norma": "DS 40", "articulo": "11"}, False),
    ],
)
def test_una_cita_coincide_por_norma_articulo_y_letra_como_dice_el_readme(fuente, esperada, coincide):
    assert cita_coincide(fuente, esperada) is coincide


def test_una_respuesta_de_norma_es_correcta_con_la_cita_entre_las_tres_primeras_y_todos_los_hechos():
    item = Item("n", "¿Cuántas veces?", "normativa", [{"norma": "DS 40", "articulo": "50"}], ["dos veces"])
    fuentes = [
        {"norma": "DS 40", "articulo": "43", "letra": ""},
        {"norma": "DS 40", "articulo": "50", "letra": ""},
    ]

    bien = puntuar(item, Observada("Se puede pedir hasta por dos veces [2].", fuentes))
    sin_hecho = puntuar(item, Observada("Se puede pedir más tiempo [2].", fuentes))

    assert bien.correcto and bien.cita3 and not bien.cita1
    assert not sin_hecho.correcto and sin_hecho.hechos is False


def test_un_proyecto_exige_ademas_la_clasificacion_del_motor_o_la_declarada():
    item = Item(
        "p", "…", "proyecto", [{"norma": "DS 40", "articulo": "3", "letra": "i.1"}], ["5[.,]?000"], "DIA"
    )
    fuentes = [{"norma": "DS 40", "articulo": "3", "letra": "i.1"}]

    assert puntuar(item, Observada("Supera 5.000 t/mes [1].", fuentes, clasificacion_motor="DIA")).correcto
    assert not puntuar(
        item, Observada("Supera 5.000 t/mes [1].", fuentes, clasificacion_motor="EIA")
    ).correcto
    assert puntuar(item, Observada("Ingresa por DIA: supera 5.000 t/mes [1].", fuentes)).correcto


def test_fuera_de_corpus_se_abstiene_sin_fuentes_y_sin_cifras():
    item = Item("f", "¿IVA?", "fuera_de_corpus", [], [])

    assert puntuar(item, Observada("No tengo base suficiente en el corpus.", [])).correcto
    assert not puntuar(item, Observada("No tengo base suficiente; el IVA es 19 %.", [])).correcto
    assert not puntuar(
        item, Observada("No tengo base suficiente.", [{"norma": "DS 40", "articulo": "3"}])
    ).correcto


def test_el_resumen_informa_precision_y_recall_de_la_abstencion():
    fuera = Item("f", "¿IVA?", "fuera_de_corpus", [], [])
    dentro = Item("n", "¿Plazo?", "normativa", [{"norma": "DS 40", "articulo": "50"}], [])
    puntajes = [
        puntuar(fuera, Observada("No tengo base suficiente.", [])),
        puntuar(dentro, Observada("No tengo base suficiente.", [])),
    ]

    total = resumen(puntajes)

    assert total["abstencion_precision"] == 0.5 and total["abstencion_recall"] == 1.0
    assert total["correctos"] == 1 and total["por_tipo"]["normativa"] == {"correctos": 0, "total": 1}


def test_la_clasificacion_declarada_es_la_primera_que_nombra_el_texto():
    assert clasificacion_declarada("Se evalúa mediante una DIA, no un EIA.") == "DIA"
    assert clasificacion_declarada("El proyecto no ingresa al SEIA.") == "NO_INGRESA"
    assert clasificacion_declarada("Depende.") is None


@pytest.mark.django_db
def test_el_resumen_informa_el_recall_de_la_busqueda_en_las_preguntas_del_corpus(corpus):
    pregunta = "¿Qué dice el artículo 11 de la Ley 19.300?"
    items = [
        Item("a", pregunta, "normativa", [{"norma": "Ley 19.300", "articulo": "11"}], []),
        Item("b", pregunta, "normativa", [{"norma": "DS 40", "articulo": "999"}], []),
        Item("c", "¿Cuánto IVA paga un camión importado?", "fuera_de_corpus", [], []),
    ]

    total = resumen(evaluar(items, solo_busqueda=True))

    assert [p["busqueda"] for p in total["items"]] == [True, False, None]
    assert total["recall_busqueda"] == 0.5


def test_la_curva_de_abstencion_cuenta_falsas_y_omitidas_en_cada_punto_de_operacion():
    dentro = Item("n", "¿Plazo?", "normativa", [{"norma": "DS 40", "articulo": "50"}], [])
    fuera = Item("f", "¿IVA?", "fuera_de_corpus", [], [])
    respondida = puntuar(dentro, Observada("Según el DS 40…", [{"norma": "DS 40", "articulo": "50"}]))
    # 2 puntos (la similitud, bajo la que ya dice que la pregunta es del corpus)
    respondida.senales = SenalesDeAbstencion(ajenas=("cancha",), cobertura=0.1, similitud=0.875)
    omitida = puntuar(fuera, Observada("Según el DS 40…", [{"norma": "DS 40", "articulo": "3"}]))
    # 1 punto por la palabra, otro si se exige similitud 0,86
    omitida.senales = SenalesDeAbstencion(ajenas=("impuesto",), cobertura=0.5, similitud=0.85)

    total = resumen([respondida, omitida])
    curva = {
        (p["puntos"], p["cobertura_minima"], p["similitud_minima"]): (p["falsas"], p["omitidas"])
        for p in total["curva_abstencion"]
    }

    assert (
        curva[(1, 0.21, 0.0)] == (1, 0)
        and curva[(2, 0.21, 0.0)] == (1, 1)
        and curva[(3, 0.21, 0.0)] == (0, 1)
    )
    assert curva[(2, 0.21, 0.86)] == (1, 0) and curva[(2, 0.21, 0.835)] == (1, 1)
    assert [p["en_uso"] for p in total["curva_abstencion"]].count(True) == 1


@pytest.mark.django_db
def test_el_comando_imprime_la_curva_de_abstencion_con_el_punto_en_uso_marcado(corpus, tmp_path):
    archivo = tmp_path / "uno.jsonl"
    archivo.write_text(
        '{"id": "c", "pregunta": "¿Cuánto IVA paga un camión importado?", "tipo": "fuera_de_corpus", '
        '"citas": [], "hechos": []}\n'
    )
    salida = StringIO()

    call_command("evaluar_respuestas", str(archivo), "--solo-busqueda", stdout=salida)

    texto = salida.getvalue()
    assert "Curva de abstención" in texto and "(* = en uso)" in texto
    assert texto.count("*") == 2  # la celda en uso y la leyenda
