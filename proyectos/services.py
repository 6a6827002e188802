"""Operaciones de escritura de proyectos y usuarios."""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractUser, Group
from django.db import transaction
from rest_framework.authtoken.models import Token

from proyectos.roles import GRUPOS, Rol


@dataclass(frozen=True)
class UsuarioConToken:
    usuario: AbstractUser
    token: str
    creado: bool
    password_generada: str | None


@transaction.atomic
def usuario_crear_o_actualizar(*, nombre: str, rol: Rol, password: str | None = None) -> UsuarioConToken:
    """Crea o actualiza el usuario con exactamente el rol indicado y devuelve su token de API.

    Sin contraseña, un usuario nuevo recibe una generada (que se devuelve para mostrarla una
    vez) y uno existente conserva la suya.
    """
    modelo = get_user_model()
    usuario, creado = modelo.objects.get_or_create(username=nombre)
    password_generada = None
    if password:
        usuario.set_password(password)
    elif creado:
        password_generada = secrets.token_urlsafe(12)
        usuario.set_password(password_generada)
    usuario.is_staff = rol is Rol.ADMINISTRADOR or usuario.is_superuser
    usuario.save()
    usuario.groups.remove(*Group.objects.filter(name__in=GRUPOS))
    usuario.groups.add(Group.objects.get(name=rol.grupo))
    token, _ = Token.objects.get_or_create(user=usuario)
    return UsuarioConToken(
        usuario=usuario, token=token.key, creado=creado, password_generada=password_generada
    )
