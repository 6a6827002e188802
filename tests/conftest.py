"""Fixtures compartidas: usuarios con rol y clientes de API autenticados con token."""

from collections.abc import Callable

import pytest
from django.contrib.auth.models import AbstractUser
from rest_framework.test import APIClient

from proyectos.roles import Rol
from proyectos.services import usuario_crear_o_actualizar


@pytest.fixture
def crear_usuario(db: None) -> Callable[..., AbstractUser]:
    def crear(nombre: str = "usuaria", rol: Rol = Rol.LECTURA) -> AbstractUser:
        return usuario_crear_o_actualizar(nombre=nombre, rol=rol, password="clave-segura-123").usuario

    return crear


@pytest.fixture
def api_con_token(db: None) -> Callable[..., APIClient]:
    def crear(nombre: str = "api", rol: Rol = Rol.LECTURA) -> APIClient:
        resultado = usuario_crear_o_actualizar(nombre=nombre, rol=rol)
        cliente = APIClient()
        cliente.credentials(HTTP_AUTHORIZATION=f"Token {resultado.token}")
        return cliente

    return crear
