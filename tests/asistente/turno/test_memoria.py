"""Lo que el asistente reconoce como preferencia dicha y como pregunta parecida."""

from collections.abc import Callable

import pytest
from django.contrib.auth.models import AbstractUser

from asistente.models import Conversacion, Dominio, Mensaje
from asistente.turno.memoria import preferencias_dichas, recuerdos_de, solo_preferencias, terminos
from proyectos.models import Cliente


@pytest.mark.parametrize(
    ("texto", "valor"),
    [
        ("Respóndeme breve, por favor", "breve"),
        ("sé breve", "breve"),
        ("prefiero respuestas más cortas", "breve"),
        ("respóndeme en detalle desde ahora", "detallada"),
    ],
)
def test_el_largo_de_las_respuestas_se_reconoce_cuando_el_usuario_lo_pide(
    texto: str, valor: str, usuaria: Callable[..., AbstractUser]
) -> None:
    (preferencia,) = preferencias_dichas(texto, usuario=usuaria())

    assert (preferencia.clave, preferencia.valor) == ("largo", valor)


@pytest.mark.parametrize(
    "texto",
    [
        "¿Qué se considera un proyecto de corta duración?",
        "¿Cuál es el plazo más corto para una DIA?",
        "Explique en forma breve el artículo 11",
        "Estoy en Antofagasta: ¿qué dice el art. 3?",
    ],
)
def test_una_pregunta_que_nombra_lo_breve_o_un_lugar_no_fija_una_preferencia(
    texto: str, usuaria: Callable[..., AbstractUser]
) -> None:
    assert preferencias_dichas(texto, usuario=usuaria()) == []


def test_el_cliente_dicho_se_reconoce_con_su_nombre_registrado_y_la_region_con_su_nombre_oficial(
    usuaria: Callable[..., AbstractUser],
) -> None:
    consultora = usuaria("ana")  # su cliente es «Cliente de ana»

    dichas = preferencias_dichas(
        "Trabajo con el cliente cliente de ANA. Trabajo en la Región de Atacama.", usuario=consultora
    )

    cliente, region = dichas
    assert (cliente.clave, cliente.valor, cliente.extra) == (
        "cliente",
        "Cliente de ana",
        {"id": Cliente.objects.get(nombre="Cliente de ana").pk},
    )
    assert (region.clave, region.valor) == ("region", "Atacama")


def test_un_cliente_que_el_usuario_no_tiene_se_anota_tal_cual_y_se_dice(
    usuaria: Callable[..., AbstractUser],
) -> None:
    (cliente,) = preferencias_dichas("mi cliente es Minera Los Andes", usuario=usuaria())

    assert cliente.valor == "Minera Los Andes" and "no es uno de sus clientes" in cliente.descripcion


def test_un_mensaje_que_solo_fija_preferencias_se_distingue_de_uno_que_ademas_pregunta() -> None:
    assert solo_preferencias("Respóndeme breve, por favor.")
    assert solo_preferencias("trabajo en la Región de Atacama")
    assert not solo_preferencias("respóndeme breve: ¿qué plazo tiene el SEA para una DIA?")
    assert not solo_preferencias("sé breve y dime qué es una línea de base de flora")


def test_los_terminos_ignoran_las_palabras_vacias_y_las_terminaciones() -> None:
    assert terminos("¿Cuáles son los plazos de evaluación?") == terminos("plazo de las evaluaciones")


@pytest.mark.django_db
def test_se_recuerdan_las_preguntas_parecidas_de_otras_conversaciones_con_su_respuesta(
    usuaria: Callable[..., AbstractUser],
) -> None:
    ana, otra = usuaria("ana"), usuaria("berta")
    dominio = Dominio.objects.get(codigo="mineria")
    antes = Conversacion.objects.create(usuario_id=ana.pk, dominio=dominio, titulo="Plazos")
    pregunta = Mensaje.objects.create(
        conversacion=antes, rol="user", contenido="¿Cuál es el plazo de evaluación de una DIA?"
    )
    Mensaje.objects.create(
        conversacion=antes,
        rol="assistant",
        pregunta=pregunta,
        contenido="El plazo es de sesenta días [1]. Puede ampliarse.",
    )
    Mensaje.objects.create(conversacion=antes, rol="user", contenido="¿qué es un glaciar?")
    olvidada = Mensaje.objects.create(
        conversacion=antes, rol="user", contenido="plazo de evaluación DIA prorroga", olvidado=True
    )
    ajena = Conversacion.objects.create(usuario_id=otra.pk, dominio=dominio)
    Mensaje.objects.create(conversacion=ajena, rol="user", contenido="plazo de evaluación de una DIA")
    actual = Conversacion.objects.create(usuario_id=ana.pk, dominio=dominio)

    (recuerdo,) = recuerdos_de(
        usuario=ana, texto="plazos para evaluar una DIA minera", conversacion_id=actual.pk
    )

    assert recuerdo["mensaje_id"] == str(pregunta.pk) != str(olvidada.pk)
    assert (
        recuerdo["titulo"] == "Plazos"
        and recuerdo["respuesta"] == "El plazo es de sesenta días. Puede ampliarse."
    )
    assert recuerdos_de(usuario=ana, texto="plazo de evaluación de una DIA", conversacion_id=antes.pk) == []
