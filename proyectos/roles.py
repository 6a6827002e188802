"""Roles de usuario y permisos con nombre, compartidos por la API, las páginas y el asistente.

- Lectura: consulta normativa, proyectos y análisis.
- Escritura: además crea, analiza y actualiza proyectos.
- Administrador: además usa las herramientas de meta-sistema (p. ej. proponer_implementacion).
"""

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from enum import StrEnum
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser


class Rol(StrEnum):
    LECTURA = "lectura"
    ESCRITURA = "escritura"
    ADMINISTRADOR = "administrador"

    @property
    def grupo(self) -> str:
        """Nombre del grupo de Django que representa el rol."""
        return self.value.capitalize()


ORDEN = (Rol.LECTURA, Rol.ESCRITURA, Rol.ADMINISTRADOR)
GRUPOS = tuple(rol.grupo for rol in ORDEN)

Usuario = AbstractBaseUser | AnonymousUser


def rol_de(usuario: Usuario) -> Rol | None:
    """Devuelve el rol más alto del usuario (los superusuarios son administradores)."""
    if not usuario.is_authenticated:
        return None
    if getattr(usuario, "is_superuser", False):
        return Rol.ADMINISTRADOR
    memoria = _ROLES.get()
    if memoria is not None and usuario.pk in memoria:
        return memoria[usuario.pk]
    grupos = set(usuario.groups.values_list("name", flat=True))  # type: ignore[attr-defined]
    rol = next((r for r in reversed(ORDEN) if r.grupo in grupos), None)
    if memoria is not None:
        memoria[usuario.pk] = rol
    return rol


_ROLES: ContextVar[dict[Any, Rol | None] | None] = ContextVar("roles_memorizados", default=None)


@contextmanager
def rol_memorizado() -> Iterator[None]:
    """Dentro del bloque, el rol de cada usuario se consulta una sola vez (p. ej., al revisar el
    permiso de cada herramienta). Un bloque dentro de otro usa la memoria del de afuera."""
    if _ROLES.get() is not None:
        yield
        return
    marca = _ROLES.set({})
    try:
        yield
    finally:
        _ROLES.reset(marca)


def tiene_rol(usuario: Usuario, minimo: Rol) -> bool:
    """Indica si el usuario tiene al menos el rol `minimo`."""
    rol = rol_de(usuario)
    return rol is not None and ORDEN.index(rol) >= ORDEN.index(minimo)


def puede_consultar(usuario: Usuario) -> bool:
    """Lectura: buscar normativa, consultar y listar proyectos, estadísticas, fuentes externas."""
    return tiene_rol(usuario, Rol.LECTURA)


def puede_escribir(usuario: Usuario) -> bool:
    """Escritura: crear, analizar y actualizar proyectos."""
    return tiene_rol(usuario, Rol.ESCRITURA)


def puede_administrar(usuario: Usuario) -> bool:
    """Administración: herramientas de meta-sistema."""
    return tiene_rol(usuario, Rol.ADMINISTRADOR)


def id_de(usuario: Usuario) -> int:
    """El id del usuario autenticado (las vistas ya exigieron autenticación)."""
    if not usuario.is_authenticated or usuario.pk is None:
        raise PermissionError("Se requiere un usuario autenticado.")
    return int(usuario.pk)
