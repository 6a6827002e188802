"""API del catálogo de permisos ambientales sectoriales: lista con filtros, detalle, errores en castellano
y el esquema OpenAPI que la documenta."""

import json
from collections.abc import Callable

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

pytestmark = pytest.mark.usefixtures("motor")


def test_la_lista_trae_los_cincuenta_permisos_con_su_requisito_y_su_clase(
    api_con_token: Callable[..., APIClient],
) -> None:
    permisos = api_con_token().get("/api/permisos/").json()

    assert [p["numero"] for p in permisos] == list(range(111, 161))
    relaves = next(p for p in permisos if p["numero"] == 135)
    assert relaves["tipo"] == "mixto" and relaves["requisito"].startswith("El requisito para su otorgamiento")
    assert relaves["url"].startswith("https://www.bcn.cl/leychile/navegar?idNorma=1053563&idParte=")
    assert relaves["guia_url"].endswith("guia_pas_135.pdf")


def test_la_lista_se_filtra_por_clase_y_por_palabras_sin_importar_las_tildes(
    api_con_token: Callable[..., APIClient],
) -> None:
    api = api_con_token()

    ambientales = api.get("/api/permisos/?tipo=ambiental").json()
    assert {p["tipo"] for p in ambientales} == {"ambiental"} and len(ambientales) == 20
    assert [p["numero"] for p in api.get("/api/permisos/?q=residuos peligrosos").json()] == [
        142,
        143,
        144,
        145,
    ]
    assert [p["numero"] for p in api.get("/api/permisos/?q=xerofiticas").json()] == [151]


def test_el_detalle_trae_los_contenidos_y_un_articulo_sin_permiso_responde_404_en_castellano(
    api_con_token: Callable[..., APIClient],
) -> None:
    api = api_con_token()

    detalle = api.get("/api/permisos/142/").json()
    assert detalle["nombre"] == "Permiso para todo sitio destinado al almacenamiento de residuos peligrosos"
    assert detalle["contenidos"][0] == {"letra": "a", "texto": "Descripción del sitio de almacenamiento."}
    for numero in (107, 9 * 10**20):
        respuesta = api.get(f"/api/permisos/{numero}/")
        assert respuesta.status_code == 404 and "no tiene un permiso" in respuesta.json()["error"]


def test_una_clase_desconocida_responde_400_diciendo_las_validas(
    api_con_token: Callable[..., APIClient],
) -> None:
    respuesta = api_con_token().get("/api/permisos/?tipo=sectorial")

    assert respuesta.status_code == 400
    assert "ambiental, mixto" in json.dumps(respuesta.json(), ensure_ascii=False)


def test_sin_rol_o_sin_credenciales_no_se_consulta() -> None:
    sin_rol = APIClient()
    sin_rol.force_authenticate(get_user_model().objects.create_user("sin-rol"))

    assert APIClient().get("/api/permisos/").status_code in (401, 403)
    assert sin_rol.get("/api/permisos/135/").status_code == 403


def test_el_esquema_openapi_documenta_la_lista_y_el_detalle_del_catalogo() -> None:
    esquema = json.loads(APIClient().get("/api/schema/?format=json").content)

    assert {"/api/permisos/", "/api/permisos/{numero}/"} <= set(esquema["paths"])
    campos = esquema["components"]["schemas"]["Permiso"]["properties"]
    assert {"numero", "nombre", "tipo", "requisito", "contenidos", "organo", "guia_url", "estado"} <= set(
        campos
    )
