"""Respuestas curadas: se sirven con cualquier motor cuando la pregunta coincide, se cargan las del
repositorio sin pisar lo editado y pasan a «revisar» cuando la BCN cambia un fragmento en que descansan."""

import re
from collections.abc import Callable, Iterator

import pytest
from django.contrib.auth.models import AbstractUser
from django.test import override_settings

from asistente.curadas import respuesta_curada_para, respuestas_curadas_cargar
from asistente.models import FuenteCurada, RespuestaCurada
from fuentes_externas import bcn
from normativa.models import FragmentoLegal, Norma
from tests.asistente.conftest import Charla
from tests.fuentes_externas.test_bcn import servir, variante
from tests.utilidades import ServidorLocal

Conversar = Callable[..., Charla]

pytestmark = pytest.mark.django_db


def curada(pregunta: str, texto: str, *fragmentos: FragmentoLegal, variantes: str = "") -> RespuestaCurada:
    respuesta = RespuestaCurada.objects.create(pregunta=pregunta, variantes=variantes, texto=texto)
    for orden, fragmento in enumerate(fragmentos, start=1):
        FuenteCurada.objects.create(respuesta=respuesta, fragmento=fragmento, orden=orden)
    return respuesta


def fragmento(norma: str, articulo: str, letra: str = "") -> FragmentoLegal:
    return FragmentoLegal.objects.get(
        norma__sigla=norma, articulo=articulo, letra=letra, version__vigente=True
    )


@pytest.mark.usefixtures("corpus")
def test_una_pregunta_que_coincide_con_una_variante_recibe_la_respuesta_curada_con_sus_fuentes(
    usuaria: Callable[..., AbstractUser], conversar: Conversar
) -> None:
    curada(
        "¿Cuándo caduca una Resolución de Calificación Ambiental?",
        "Caduca si pasan más de cinco años sin iniciar la ejecución [1].",
        fragmento("Ley 19.300", "25 ter"),
        variantes="¿En cuántos años caduca la RCA?",
    )

    charla = conversar(usuaria(), "en cuantos años caduca la RCA")

    assert charla.texto == "Caduca si pasan más de cinco años sin iniciar la ejecución [1]."
    assert [f["cita"] for f in charla.fuentes] == ["Ley 19.300, Art. 25 ter"]
    assert charla.turno.contexto.fuentes[0]["url"].startswith("https://www.bcn.cl/leychile/")


@pytest.mark.usefixtures("corpus")
def test_una_pregunta_parecida_pero_distinta_va_a_la_busqueda(
    usuaria: Callable[..., AbstractUser], conversar: Conversar
) -> None:
    curada("¿Qué es una DIA?", "Texto curado [1].", fragmento("Ley 19.300", "2", "f"))

    charla = conversar(usuaria(), "¿Qué es una DIA y cuánto demora su evaluación?")

    assert charla.texto != "Texto curado [1]."


@pytest.mark.usefixtures("corpus")
def test_con_claude_la_respuesta_curada_se_sirve_sin_llamar_al_modelo(
    usuaria: Callable[..., AbstractUser], conversar: Conversar
) -> None:
    curada("¿Qué plazo tiene el SEA para una DIA?", "Sesenta días [1].", fragmento("Ley 19.300", "18"))
    modelo = ServidorLocal()  # sin respuestas: cualquier llamada fallaría y dejaría su pedido
    try:
        with override_settings(
            ANTHROPIC_API_KEY="clave-de-prueba", ANTHROPIC_BASE_URL=modelo.url, ASISTENTE_MOTOR="claude"
        ):
            charla = conversar(usuaria(), "¿Qué plazo tiene el SEA para una DIA?")
    finally:
        modelo.cerrar()

    assert charla.texto == "Sesenta días [1]." and modelo.pedidos == []


@pytest.mark.usefixtures("corpus")
def test_las_respuestas_del_repositorio_se_cargan_una_vez_y_no_pisan_lo_editado() -> None:
    creadas, omitidas = respuestas_curadas_cargar()
    editada = RespuestaCurada.objects.order_by("pk").first()
    assert editada is not None
    editada.texto = "Editada por el equipo [1]."
    editada.save()

    otra_vez = respuestas_curadas_cargar()

    assert creadas >= 10 and omitidas == [] and otra_vez == (0, [])
    assert RespuestaCurada.objects.get(pk=editada.pk).texto == "Editada por el equipo [1]."
    # Cada marcador [n] de cada respuesta tiene su fuente.
    for respuesta in RespuestaCurada.objects.all():
        marcadores = {int(n) for n in re.findall(r"\[(\d+)\]", respuesta.texto)}
        assert marcadores <= set(respuesta.fuentes.values_list("orden", flat=True)), respuesta.pregunta


# --- invalidación cuando cambia la ley ---------------------------------------------------------


@pytest.fixture
def norma_bcn(db: None) -> Norma:
    return Norma.objects.create(
        sigla="Res. Ex. 3240",
        tipo=Norma.Tipo.DECRETO,
        numero="3240",
        nombre="Resolución exenta 3240",
        id_norma_bcn=243302,
    )


@pytest.fixture
def bcn_local(settings: object) -> Iterator[ServidorLocal]:
    local = ServidorLocal()
    settings.HTTP_HOSTS_PERMITIDOS = [local.host]  # type: ignore[attr-defined]
    settings.HTTP_INTERVALO_POR_HOST_MS = 0  # type: ignore[attr-defined]
    settings.LEYCHILE_URL = local.url  # type: ignore[attr-defined]
    yield local
    local.cerrar()


def test_cuando_la_bcn_cambia_un_fragmento_la_respuesta_pasa_a_revisar_y_deja_de_servirse(
    bcn_local: ServidorLocal, norma_bcn: Norma
) -> None:
    servir(bcn_local, variante())
    bcn.norma_revisar(norma=norma_bcn)
    cambiado = FragmentoLegal.objects.get(norma=norma_bcn, articulo="s/n", version__vigente=True)
    intacto = FragmentoLegal.objects.get(norma=norma_bcn, articulo="2", version__vigente=True)
    afectada = curada("¿Por cuánto tiempo se autorizan los colectores?", "Seis meses [1].", cambiado)
    sana = curada("¿Cuándo se retiran los colectores?", "Al término del período [1].", intacto)

    servir(bcn_local, variante(cambio=True))
    revision = bcn.norma_revisar(norma=norma_bcn)

    afectada.refresh_from_db()
    sana.refresh_from_db()
    assert revision.cambio and afectada.estado == RespuestaCurada.Estado.REVISAR
    assert "Res. Ex. 3240, Art. s/n cambió en la versión del 01-11-2026" in afectada.motivo_revision
    assert (
        respuesta_curada_para(texto="¿Por cuánto tiempo se autorizan los colectores?", dominio=None) is None
    )
    # La que descansa en un fragmento que no cambió sigue vigente, ahora sobre la versión nueva.
    assert sana.estado == RespuestaCurada.Estado.VIGENTE
    assert sana.fuentes.get().fragmento.version_id == revision.version_id
    assert respuesta_curada_para(texto="¿Cuándo se retiran los colectores?", dominio=None) == sana
