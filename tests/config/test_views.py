"""Portada, ingreso y salida, administración y documentación de la API."""

import pytest

pytestmark = pytest.mark.django_db


def test_la_portada_esta_en_espanol_y_no_carga_nada_de_un_cdn(client):
    respuesta = client.get("/")

    html = respuesta.content.decode()
    assert respuesta.status_code == 200
    assert '<html lang="es-CL">' in html
    assert "¿Su proyecto minero debe ingresar al SEIA?" in html
    assert "https://" not in html.split("<body>")[0], "la cabecera no debe cargar recursos externos"


def test_un_usuario_ingresa_y_sale(client, crear_usuario):
    crear_usuario("maria")

    respuesta = client.post("/ingresar/", {"username": "maria", "password": "clave-segura-123"})
    assert respuesta.status_code == 302
    assert "Salir (maria)" in client.get("/").content.decode()

    client.post("/salir/")
    assert "Ingresar" in client.get("/").content.decode()


def test_credenciales_incorrectas_muestran_un_error_en_espanol(client, crear_usuario):
    crear_usuario("maria")

    respuesta = client.post("/ingresar/", {"username": "maria", "password": "otra"})

    assert "Usuario o contraseña incorrectos" in respuesta.content.decode()


def test_el_admin_acepta_a_un_superusuario(admin_client):
    assert admin_client.get("/admin/").status_code == 200


def test_la_documentacion_de_la_api_se_sirve_sin_cdn(client):
    respuesta = client.get("/api/docs/")
    assert respuesta.status_code == 200
    assert "cdn.jsdelivr" not in respuesta.content.decode()
    assert client.get("/api/schema/").status_code == 200
