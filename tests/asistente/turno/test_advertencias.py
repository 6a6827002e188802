"""Las advertencias de una respuesta por lo que trajo su búsqueda: las mismas con Claude que sin
conexión, y las que ya se saben llegan antes que el texto."""

from collections.abc import Callable

import pytest
from django.contrib.auth.models import AbstractUser
from django.test import override_settings

from asistente.turno.advertencias import CONFIANZA_BAJA, SIN_BASE, advertencias_de_la_busqueda
from tests.asistente.conftest import Charla, responder_sse, uso_de_herramienta
from tests.utilidades import ServidorLocal
from tests.utilidades import mensaje_sse as sse

PREGUNTA = "¿Qué exige el artículo 11 de la Ley 19.300?"


def test_una_respuesta_de_claude_sobre_la_ley_sin_fuentes_lleva_la_advertencia_de_sin_base(
    servidor: ServidorLocal, usuaria: Callable[..., AbstractUser], conversar: Callable[..., Charla]
) -> None:
    responder_sse(servidor, sse({"type": "text", "text": "El Art. 11 exige un EIA si hay efectos."}))
    responder_sse(servidor, sse({"type": "text", "text": "Hola, ¿en qué le ayudo?"}))

    de_memoria = conversar(usuaria(), PREGUNTA)
    saludo = conversar(usuaria("otra"), "hola")

    assert de_memoria.fuentes == [] and de_memoria.final["mensaje"]["advertencias"] == [SIN_BASE]
    assert saludo.final["mensaje"]["advertencias"] == []


@pytest.mark.usefixtures("corpus")
def test_con_claude_la_busqueda_sin_base_se_advierte_antes_del_primer_trozo_de_texto(
    servidor: ServidorLocal, usuaria: Callable[..., AbstractUser], conversar: Callable[..., Charla]
) -> None:
    responder_sse(
        servidor, sse(uso_de_herramienta("buscar_normativa", {"consulta": "efectos EIA"}), stop="tool_use")
    )
    responder_sse(servidor, sse({"type": "text", "text": "No encontré base en el corpus."}))

    with override_settings(RAG_MIN_CONFIDENCE=0.99):
        charla = conversar(usuaria(), PREGUNTA)

    tipos = charla.tipos
    assert tipos.index("warnings") < tipos.index("token")
    (aviso,) = [e for e in charla.eventos if e.tipo == "warnings"]
    assert aviso.datos["advertencias"] == [SIN_BASE]
    assert charla.final["mensaje"]["advertencias"] == [SIN_BASE]


def test_la_confianza_baja_y_la_falta_de_base_salen_de_las_busquedas_del_turno_y_no_de_otras() -> None:
    debil = {"herramienta": "buscar_normativa", "resultado": {"fuentes": [{}], "confianza_suficiente": False}}
    vacia = {"herramienta": "buscar_normativa", "resultado": {"fuentes": [], "confianza": "NONE"}}
    fallida = {"herramienta": "buscar_normativa", "resultado": None, "error": "desactivada"}
    analisis = {"herramienta": "evaluar_proyecto", "resultado": {"fuentes": []}}

    assert advertencias_de_la_busqueda([debil], hay_fuentes=True) == [CONFIANZA_BAJA]
    assert advertencias_de_la_busqueda([vacia], hay_fuentes=False) == [SIN_BASE]
    assert advertencias_de_la_busqueda([fallida], hay_fuentes=False) == [SIN_BASE]
    assert advertencias_de_la_busqueda([vacia, analisis], hay_fuentes=True) == []
    assert advertencias_de_la_busqueda([analisis], hay_fuentes=False) == []


def test_una_pregunta_parecida_a_una_cuya_respuesta_no_sirvio_lo_advierte_con_el_comentario(
    usuaria: Callable[..., AbstractUser], conversar: Callable[..., Charla]
) -> None:
    from asistente.models import Mensaje
    from asistente.services import mensaje_calificar

    consultora = usuaria()
    primera = conversar(consultora, "¿Cuál es el plazo de evaluación de una DIA minera?")
    mensaje_calificar(
        mensaje=Mensaje.objects.get(pk=primera.final["mensaje"]["id"]),
        valor=-1,
        comentario="No distinguió días hábiles",
    )

    parecida = conversar(consultora, "¿Qué plazo de evaluación tiene una DIA de una mina?")
    distinta = conversar(consultora, "¿Qué es un santuario de la naturaleza?")

    (reparo,) = [a for a in parecida.final["mensaje"]["advertencias"] if "no le sirvió" in a]
    assert "«¿Cuál es el plazo de evaluación de una DIA minera?»" in reparo
    assert "Su comentario: «No distinguió días hábiles»." in reparo
    assert not any("no le sirvió" in a for a in distinta.final["mensaje"]["advertencias"])
