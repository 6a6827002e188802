"""Ninguna entrada hostil produce un 500: cada una recibe un 400 (o 404) en castellano con la forma de
error de la API, `{"error": …}`."""

import json
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import AbstractUser
from rest_framework.test import APIClient

from proyectos.models import Cliente, Proyecto
from proyectos.roles import Rol
from proyectos.services import proyecto_crear

PROFUNDO = "[" * 100_000 + "]" * 100_000
POLIGONO = [[[-70.4, -23.6], [-70.39, -23.6], [-70.39, -23.59], [-70.4, -23.6]]]


def evaluar(**cambios: Any) -> str:
    datos = {
        "nombre": "Mina",
        "region": "Antofagasta",
        "tipo": "explotacion",
        "capacidad_extraccion_t_mes": 1,
    }
    return json.dumps({**datos, **cambios})


CUERPOS_HOSTILES = {
    "nul_en_un_texto": evaluar(nombre="Mina\x00Norte"),
    "entero_de_400_digitos": evaluar().replace(
        '"capacidad_extraccion_t_mes": 1', '"plataformas": ' + "9" * 400
    ),
    "capacidad_1e20": evaluar(capacidad_extraccion_t_mes=1e20),
    "plataformas_2_a_la_40": evaluar(tipo="prospeccion", plataformas=2**40),
    "anidacion_profunda": '{"nombre": ' + PROFUNDO + "}",
    "geometria_de_tipo_desconocido": evaluar(geometria={"type": "Foo", "coordinates": []}),
    "coleccion_con_features_no_lista": evaluar(geometria={"type": "FeatureCollection", "features": 5}),
    "coleccion_de_tipo_desconocido": evaluar(
        geometria={
            "type": "FeatureCollection",
            "features": [{"type": "Feature", "geometry": {"type": "Foo"}}],
        }
    ),
    "coordenadas_que_no_son_numeros": evaluar(geometria={"type": "Polygon", "coordinates": [[["a", 1]]]}),
    "nan_literal": evaluar().replace("1}", "NaN}"),
}


@pytest.fixture
def escritora(motor: None, crear_usuario: Callable[..., AbstractUser]) -> APIClient:
    usuario = crear_usuario("escritora", Rol.ESCRITURA)
    Cliente.objects.create(nombre="Minera Hostil").usuarios.add(usuario.pk)
    api = APIClient()
    api.force_authenticate(usuario)
    return api


@pytest.mark.parametrize("cuerpo", CUERPOS_HOSTILES.values(), ids=CUERPOS_HOSTILES.keys())
def test_un_cuerpo_hostil_en_evaluar_recibe_un_400_en_castellano(escritora: APIClient, cuerpo: str) -> None:
    respuesta = escritora.post("/api/analisis/evaluar/", cuerpo, content_type="application/json")

    assert respuesta.status_code == 400, respuesta.content[:300]
    assert respuesta["Content-Type"] == "application/json"
    assert isinstance(respuesta.json()["error"], str) and respuesta.json()["error"]


@pytest.mark.parametrize("cuerpo", CUERPOS_HOSTILES.values(), ids=CUERPOS_HOSTILES.keys())
def test_un_cuerpo_hostil_al_crear_un_proyecto_recibe_un_400_y_no_guarda_nada(
    escritora: APIClient, cuerpo: str
) -> None:
    cliente = Cliente.objects.get(nombre="Minera Hostil")
    con_cliente = cuerpo.replace('{"nombre"', f'{{"cliente": {cliente.pk}, "nombre"', 1)

    respuesta = escritora.post("/api/proyectos/", con_cliente, content_type="application/json")

    assert respuesta.status_code == 400, respuesta.content[:300]
    assert respuesta.json()["error"]
    assert not Proyecto.objects.exists()


@pytest.mark.parametrize(
    "ruta",
    [
        "/api/proyectos/?cliente=²",
        "/api/proyectos/?region=%00",
        "/api/proyectos/?estado=a%00b",
        "/api/clientes/%00/",
        "/api/asistente/conversaciones/00000000-0000-0000-0000-000000000000/eventos?ultimo_evento=²",
    ],
)
def test_parametros_con_nul_o_digitos_unicode_no_producen_un_500(escritora: APIClient, ruta: str) -> None:
    respuesta = escritora.get(ruta)

    assert respuesta.status_code in (200, 400, 404), respuesta.content[:300]
    assert respuesta["Content-Type"] == "application/json"
    if respuesta.status_code != 200:
        assert respuesta.json()["error"]


def test_un_mensaje_del_chat_con_nul_o_anidado_sin_fin_recibe_un_400(escritora: APIClient) -> None:
    for cuerpo in ('{"mensaje": "hola\\u0000"}', '{"mensaje": ' + PROFUNDO + "}"):
        respuesta = escritora.post("/api/asistente/chat", cuerpo, content_type="application/json")

        assert respuesta.status_code == 400
        assert respuesta.json()["error"]


def test_una_ruta_inexistente_de_la_api_responde_404_en_json_y_sugiere_la_barra_final(
    escritora: APIClient,
) -> None:
    sin_barra = escritora.get("/api/proyectos")
    inexistente = escritora.post("/api/no-existe/", {})

    assert sin_barra.status_code == 404 and "¿quiso decir /api/proyectos/?" in sin_barra.json()["error"]
    assert inexistente.status_code == 404 and inexistente["Content-Type"] == "application/json"


def test_un_error_de_validacion_de_drf_sale_con_la_forma_de_error_de_la_api(escritora: APIClient) -> None:
    respuesta = escritora.post("/api/asistente/confirm", {"accion_id": "x"}, format="json")

    assert respuesta.status_code == 400
    cuerpo = respuesta.json()
    assert set(cuerpo) == {"error", "errores"}
    assert {e["campo"] for e in cuerpo["errores"]} == {"accion_id", "confirmada"}


@pytest.mark.parametrize(
    "geometria",
    [
        PROFUNDO,
        '{"type": "Polygon", "coordinates": [[[NaN, 1], [2, 3], [3, 3], [NaN, 1]]]}',
        '{"type": "Foo", "coordinates": []}',
        '{"type": "FeatureCollection", "features": 5}',
        json.dumps({"type": "Polygon", "coordinates": POLIGONO}).replace("-70.4", '"\\u0000"', 1),
    ],
    ids=["anidada", "nan", "tipo_desconocido", "features_no_lista", "nul"],
)
def test_la_pagina_del_mapa_rechaza_una_geometria_hostil_con_un_mensaje(
    motor: None, crear_usuario: Callable[..., AbstractUser], client: Any, geometria: str
) -> None:
    usuario = crear_usuario("mapa", Rol.ESCRITURA)
    cliente = Cliente.objects.create(nombre="Minera Mapa")
    cliente.usuarios.add(usuario.pk)
    proyecto = proyecto_crear(
        cliente=cliente, datos={"nombre": "Mina Mapa", "region": "Antofagasta", "tipo": "explotacion"}
    )
    client.force_login(usuario)

    respuesta = client.post(f"/proyectos/{proyecto.pk}/mapa/", {"geometria": geometria}, follow=True)

    assert respuesta.status_code == 200
    errores = [str(m) for m in respuesta.context["messages"]]
    assert errores and all(m for m in errores)
    proyecto.refresh_from_db()
    assert proyecto.geometria is None
