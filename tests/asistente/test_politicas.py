"""Políticas de los dominios: quién usa cada uno, y la recuperación (RAG_ENABLED, RAG_MIN_CONFIDENCE,
RAG_MAX_DOCUMENTS) que aplican los dos motores, con el dominio pudiendo ser más estricto."""

import json
from collections.abc import Callable
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.models import AbstractUser, Group
from django.test import override_settings

from asistente.models import Dominio
from asistente.politicas import dominios_disponibles
from asistente.registro import Contexto, ejecutar
from asistente.services import turno_iniciar
from tests.asistente.conftest import Charla, responder_sse
from tests.utilidades import ServidorLocal
from tests.utilidades import mensaje_sse as sse

PREGUNTA = "¿Qué plazo tiene el Servicio para evaluar una Declaración de Impacto Ambiental?"


def _dominio(codigo: str = "faenas", **campos: Any) -> Dominio:
    return Dominio.objects.create(
        codigo=codigo, nombre=codigo.capitalize(), prompt_sistema="Prompt.", **campos
    )


def _buscar(
    usuario: AbstractUser, dominio: Dominio | None = None, top_k: int = 10, consulta: str = PREGUNTA
) -> dict[str, Any]:
    contexto = Contexto(usuario=usuario)
    if dominio is not None:
        contexto.conversacion = turno_iniciar(
            usuario=usuario, mensaje="hola", dominio=dominio.codigo
        ).conversacion
    llamada = ejecutar("buscar_normativa", {"consulta": consulta, "top_k": top_k}, contexto=contexto)
    assert llamada["error"] is None, llamada["error"]
    return llamada["resultado"]  # type: ignore[no-any-return]


def test_un_dominio_con_grupos_lo_usan_solo_sus_miembros_y_el_personal(
    usuaria: Callable[..., AbstractUser],
) -> None:
    _dominio("faenas")
    auditoria = _dominio("auditoria")
    auditores = Group.objects.create(name="auditores")
    auditoria.grupos.add(auditores)
    _dominio("apagado", activo=False)
    auditora, consultora, jefa = usuaria("auditora"), usuaria("consultora"), usuaria("jefa")
    auditora.groups.add(auditores)
    jefa.is_staff = True
    jefa.save()

    def codigos(usuario: AbstractUser) -> set[str]:
        return set(dominios_disponibles(usuario=usuario).values_list("codigo", flat=True))

    assert codigos(auditora) == {settings.ASISTENTE_DOMINIO, "faenas", "auditoria"}
    assert codigos(consultora) == {settings.ASISTENTE_DOMINIO, "faenas"}
    assert codigos(jefa) == {settings.ASISTENTE_DOMINIO, "faenas", "auditoria"}


@pytest.mark.usefixtures("corpus")
def test_con_rag_apagado_en_el_servidor_el_motor_sin_conexion_dice_por_que_y_no_cita(
    usuaria: Callable[..., AbstractUser], conversar: Callable[..., Charla]
) -> None:
    with override_settings(RAG_ENABLED=False):
        charla = conversar(usuaria(), PREGUNTA)

    assert "La búsqueda en la normativa está desactivada en este servidor (RAG_ENABLED)." in charla.texto
    assert charla.fuentes == []


@pytest.mark.usefixtures("corpus")
def test_un_dominio_con_rag_apagado_no_da_la_busqueda_a_claude_y_se_lo_dice(
    servidor: ServidorLocal, usuaria: Callable[..., AbstractUser], conversar: Callable[..., Charla]
) -> None:
    _dominio("sin-corpus", rag_habilitado=False)
    responder_sse(servidor, sse({"type": "text", "text": "Respondo sin el corpus."}))

    conversar(usuaria(), PREGUNTA, dominio="sin-corpus")
    conversar(usuaria("otra"), PREGUNTA)

    sin_corpus, con_corpus = (json.loads(p[3]) for p in servidor.pedidos)
    assert "buscar_normativa" not in {h["name"] for h in sin_corpus["tools"]}
    assert "desactivada en el dominio «Sin-corpus»" in sin_corpus["system"][0]["text"]
    assert "buscar_normativa" in {h["name"] for h in con_corpus["tools"]}


@pytest.mark.usefixtures("corpus")
def test_rag_max_documents_acota_la_busqueda_y_el_top_k_de_un_dominio_la_acota_mas(
    usuaria: Callable[..., AbstractUser],
) -> None:
    consultora = usuaria()
    estricto = _dominio("estricto", top_k=1)

    with override_settings(RAG_MAX_DOCUMENTS=2):
        del_servidor = _buscar(consultora)
        del_dominio = _buscar(consultora, estricto)
    sin_tope = _buscar(consultora)

    assert len(del_servidor["fuentes"]) == 2
    assert len(del_dominio["fuentes"]) == 1
    assert len(sin_tope["fuentes"]) == settings.RAG_MAX_DOCUMENTS == 5


@pytest.mark.usefixtures("corpus")
def test_bajo_la_similitud_minima_no_hay_contexto_y_el_motor_sin_conexion_no_cita(
    usuaria: Callable[..., AbstractUser], conversar: Callable[..., Charla]
) -> None:
    consultora = usuaria()
    exigente = _dominio("exigente", similitud_minima=0.99)

    with override_settings(RAG_MIN_CONFIDENCE=0.99):
        del_servidor = _buscar(consultora)
        charla = conversar(consultora, PREGUNTA)
    del_dominio = _buscar(consultora, exigente)
    normal = _buscar(consultora)

    assert del_servidor["confianza"] == del_dominio["confianza"] == "NONE"
    assert del_servidor["fuentes"] == del_dominio["fuentes"] == []
    assert charla.fuentes == [] and "Art." not in charla.texto
    assert normal["confianza"] != "NONE" and normal["fuentes"]


@pytest.mark.usefixtures("corpus")
def test_subir_la_confianza_minima_de_un_dominio_en_el_admin_rige_desde_la_busqueda_siguiente(
    usuaria: Callable[..., AbstractUser],
) -> None:
    consultora = usuaria()
    faenas = _dominio("faenas", confianza_minima="LOW")
    tangencial = "¿Cómo se relaciona la minería con el turismo?"  # el corpus la toca de lado: MEDIUM
    antes = _buscar(consultora, faenas, consulta=tangencial)

    Dominio.objects.filter(pk=faenas.pk).update(confianza_minima="HIGH")
    despues = _buscar(consultora, Dominio.objects.get(pk=faenas.pk), consulta=tangencial)

    assert antes["confianza"] == despues["confianza"] == "MEDIUM"
    assert antes["confianza_suficiente"] and not despues["confianza_suficiente"]
