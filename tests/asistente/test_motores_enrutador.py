"""El enrutador antes del modelo: lo que se responde igual sin modelo no llama a Claude y queda
registrado con el motor «enrutador»; una pregunta, aunque empiece con «hola», va al modelo."""

from collections.abc import Callable, Iterator

import pytest
from django.contrib.auth.models import AbstractUser
from django.test import override_settings

from asistente.models import LlamadaHerramienta, Mensaje
from asistente.motores.enrutador import ruta_de
from tests.asistente.conftest import Charla, responder_sse
from tests.asistente.turno.test_medicion import registro_de, valor
from tests.utilidades import ServidorLocal
from tests.utilidades import mensaje_sse as sse


@pytest.mark.parametrize(
    ("mensaje", "ruta"),
    [
        ("hola", "saludo"),
        ("¡Buenos días!", "saludo"),
        ("Muchas gracias", "gracias"),
        ("perfecto, gracias", "gracias"),
        ("¿Qué puedes hacer?", "ayuda"),
        ("¿quién eres?", "identidad"),
        ("lista mis proyectos", "listar_proyectos"),
        ("Muéstrame mis proyectos de Antofagasta", "listar_proyectos"),
        ("¿Qué dice el artículo 11 de la Ley 19.300?", "articulo"),
        ("Dame el art. 3 letra i.1 del DS 40", "articulo"),
        ("hola, ¿qué plazo tiene el SEA para evaluar una DIA?", None),
        ("gracias, ¿y si el proyecto está junto a un humedal?", None),
        ("¿por qué el artículo 11 obliga a un EIA?", None),
        ("lista mis proyectos y dime cuál conviene analizar primero", None),
        ("¿Cuántos días tiene el SEA para evaluar una DIA?", None),
    ],
)
def test_las_rutas_calzan_el_mensaje_entero_y_una_pregunta_va_al_modelo(
    mensaje: str, ruta: str | None
) -> None:
    assert ruta_de(mensaje) == ruta


@pytest.fixture
def claude_con_enrutador(servidor: ServidorLocal) -> Iterator[ServidorLocal]:
    with override_settings(ASISTENTE_ENRUTADOR=True):
        yield servidor


@pytest.mark.usefixtures("corpus")
def test_un_saludo_con_claude_no_llama_al_modelo_y_queda_registrado_como_enrutado(
    claude_con_enrutador: ServidorLocal,
    usuaria: Callable[..., AbstractUser],
    conversar: Callable[..., Charla],
) -> None:
    antes = valor("asistente_turnos_total", motor="enrutador", resultado="respondida")

    charla = conversar(usuaria(), "¡Hola!")

    mensaje = registro_de(charla)
    assert claude_con_enrutador.pedidos == [], "ningún pedido llegó al modelo"
    assert mensaje.motor == "enrutador" and mensaje.tokens_entrada == 0 and mensaje.costo_usd == 0
    assert charla.texto.startswith("¡Hola! Soy el asistente")
    assert valor("asistente_turnos_total", motor="enrutador", resultado="respondida") == antes + 1


@pytest.mark.usefixtures("corpus")
def test_lista_mis_proyectos_se_responde_con_la_herramienta_sin_modelo(
    claude_con_enrutador: ServidorLocal,
    usuaria: Callable[..., AbstractUser],
    conversar: Callable[..., Charla],
) -> None:
    charla = conversar(usuaria(), "lista mis proyectos")

    mensaje = registro_de(charla)
    assert claude_con_enrutador.pedidos == [] and mensaje.motor == "enrutador"
    assert LlamadaHerramienta.objects.filter(mensaje=mensaje, herramienta="listar_proyectos").exists()


@pytest.mark.usefixtures("corpus")
def test_la_consulta_de_un_articulo_trae_el_articulo_citado_sin_modelo(
    claude_con_enrutador: ServidorLocal,
    usuaria: Callable[..., AbstractUser],
    conversar: Callable[..., Charla],
) -> None:
    charla = conversar(usuaria(), "¿Qué dice el artículo 11 de la Ley 19.300?")

    assert claude_con_enrutador.pedidos == [] and registro_de(charla).motor == "enrutador"
    assert charla.fuentes[0]["cita"].startswith("Ley 19.300, Art. 11")


@pytest.mark.usefixtures("corpus")
def test_una_pregunta_que_empieza_con_hola_va_al_modelo(
    claude_con_enrutador: ServidorLocal,
    usuaria: Callable[..., AbstractUser],
    conversar: Callable[..., Charla],
) -> None:
    responder_sse(claude_con_enrutador, sse({"type": "text", "text": "Sesenta días hábiles."}))

    charla = conversar(usuaria(), "hola, ¿qué plazo tiene el SEA para evaluar una DIA?")

    assert len(claude_con_enrutador.pedidos) == 1 and registro_de(charla).motor == "claude"
    assert Mensaje.objects.filter(motor="enrutador").count() == 0
