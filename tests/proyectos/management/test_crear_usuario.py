"""crear_usuario crea o actualiza un usuario con su rol e imprime un token que sirve en la API."""

from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db


def ejecutar(*argumentos: str) -> str:
    salida = StringIO()
    call_command("crear_usuario", *argumentos, stdout=salida)
    return salida.getvalue()


def token_de(salida: str) -> str:
    return next(linea.split(": ", 1)[1] for linea in salida.splitlines() if linea.startswith("Token de API"))


def test_crea_el_usuario_con_su_rol_e_imprime_un_token_que_autentica_en_la_api():
    salida = ejecutar("ana", "--rol", "escritura", "--password", "clave-segura-123")

    assert "Usuario ana creado con rol escritura." in salida
    cliente = APIClient()
    cliente.credentials(HTTP_AUTHORIZATION=f"Token {token_de(salida)}")
    assert cliente.get("/api/yo/").json() == {"usuario": "ana", "rol": "escritura"}


def test_sin_contrasena_genera_una_y_la_muestra_una_vez():
    salida = ejecutar("beto", "--rol", "lectura")

    password = next(
        linea.split(": ", 1)[1] for linea in salida.splitlines() if linea.startswith("Contraseña")
    )
    assert get_user_model().objects.get(username="beto").check_password(password)


def test_actualizar_cambia_el_rol_conserva_el_token_y_la_contrasena():
    primera = ejecutar("carla", "--rol", "lectura", "--password", "clave-segura-123")

    segunda = ejecutar("carla", "--rol", "administrador")

    assert "Usuario carla actualizado con rol administrador." in segunda
    assert token_de(segunda) == token_de(primera)
    usuario = get_user_model().objects.get(username="carla")
    assert list(usuario.groups.values_list("name", flat=True)) == ["Administrador"]
    assert usuario.is_staff and usuario.check_password("clave-segura-123")


def test_un_rol_desconocido_se_rechaza():
    with pytest.raises(CommandError, match="invalid choice"):
        ejecutar("dani", "--rol", "dios")


def test_un_nombre_invalido_se_rechaza_en_espanol():
    with pytest.raises(CommandError, match="Nombre de usuario inválido"):
        ejecutar("nombre con espacios", "--rol", "lectura")


def test_sin_token_la_api_responde_401_o_403():
    assert APIClient().get("/api/yo/").status_code in (401, 403)


def test_con_cliente_lo_asocia_al_existente_sin_mayusculas_o_lo_crea_y_lo_dice():
    from proyectos.models import Cliente

    Cliente.objects.create(nombre="Minera Atacama")

    existente = ejecutar("carla", "--rol", "escritura", "--cliente", "minera atacama")
    nuevo = ejecutar("dario", "--rol", "escritura", "--cliente", "Áridos del Maipo")

    assert "Pertenece al cliente «Minera Atacama»." in existente
    assert "Pertenece al cliente «Áridos del Maipo» (creado)." in nuevo
    assert list(Cliente.objects.get(nombre="Minera Atacama").usuarios.values_list("username", flat=True)) == [
        "carla"
    ]
    assert Cliente.objects.get(nombre="Áridos del Maipo").usuarios.get().username == "dario"


def test_un_cliente_vacio_se_rechaza_en_castellano():
    with pytest.raises(CommandError, match="El nombre del cliente no puede estar vacío"):
        ejecutar("eva", "--rol", "escritura", "--cliente", "  ")
