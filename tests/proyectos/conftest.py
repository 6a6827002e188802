"""Dos empresas mandantes con sus usuarios y un proyecto cada una."""

from dataclasses import dataclass

import pytest
from django.contrib.auth.models import AbstractUser
from rest_framework.test import APIClient

from proyectos.models import Cliente, Proyecto
from proyectos.roles import Rol
from proyectos.services import proyecto_crear, usuario_crear_o_actualizar

TALTAL = {
    "type": "Polygon",
    "coordinates": [
        [
            [-70.005, -25.3045],
            [-69.995, -25.3045],
            [-69.995, -25.2955],
            [-70.005, -25.2955],
            [-70.005, -25.3045],
        ]
    ],
}


@dataclass
class Empresa:
    cliente: Cliente
    escritora: AbstractUser
    lectora: AbstractUser
    proyecto: Proyecto

    def api(self, usuario: AbstractUser) -> APIClient:
        api = APIClient()
        api.force_authenticate(usuario)
        return api


def _empresa(nombre: str, sufijo: str, region: str) -> Empresa:
    cliente = Cliente.objects.create(nombre=nombre)
    escritora = usuario_crear_o_actualizar(
        nombre=f"escritora-{sufijo}", rol=Rol.ESCRITURA, password="clave-123!"
    ).usuario
    lectora = usuario_crear_o_actualizar(
        nombre=f"lectora-{sufijo}", rol=Rol.LECTURA, password="clave-123!"
    ).usuario
    cliente.usuarios.add(escritora.pk, lectora.pk)
    proyecto = proyecto_crear(
        cliente=cliente,
        datos={
            "nombre": f"Mina {nombre}",
            "region": region,
            "tipo": "explotacion",
            "capacidad_extraccion_t_mes": 6000,
        },
    )
    return Empresa(cliente, escritora, lectora, proyecto)


@pytest.fixture
def empresa_a(db: None) -> Empresa:
    return _empresa("Minera Atacama", "a", "Antofagasta")


@pytest.fixture
def empresa_b(db: None) -> Empresa:
    return _empresa("Áridos del Sur", "b", "O'Higgins")
