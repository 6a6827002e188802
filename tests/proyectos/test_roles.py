"""Los roles Lectura, Escritura y Administrador existen y escalan en permisos."""

import pytest
from django.contrib.auth.models import AnonymousUser, Group

from proyectos.roles import Rol, puede_administrar, puede_consultar, puede_escribir, rol_de

pytestmark = pytest.mark.django_db


def test_la_migracion_crea_los_tres_grupos():
    assert set(Group.objects.values_list("name", flat=True)) >= {"Lectura", "Escritura", "Administrador"}


def test_un_usuario_de_lectura_consulta_pero_no_escribe(crear_usuario):
    usuario = crear_usuario("lector", Rol.LECTURA)

    assert puede_consultar(usuario)
    assert not puede_escribir(usuario)
    assert not puede_administrar(usuario)


def test_un_usuario_de_escritura_consulta_y_escribe_pero_no_administra(crear_usuario):
    usuario = crear_usuario("escritora", Rol.ESCRITURA)

    assert puede_consultar(usuario) and puede_escribir(usuario)
    assert not puede_administrar(usuario)


def test_un_administrador_puede_todo(crear_usuario):
    usuario = crear_usuario("jefa", Rol.ADMINISTRADOR)

    assert puede_consultar(usuario) and puede_escribir(usuario) and puede_administrar(usuario)


def test_un_anonimo_no_tiene_rol_ni_permisos():
    anonimo = AnonymousUser()

    assert rol_de(anonimo) is None
    assert not puede_consultar(anonimo)


def test_un_superusuario_sin_grupo_cuenta_como_administrador(admin_user):
    assert rol_de(admin_user) is Rol.ADMINISTRADOR


def test_un_bloque_memorizado_dentro_de_otro_consulta_el_rol_una_sola_vez(
    crear_usuario, django_assert_num_queries
):
    from proyectos.roles import rol_memorizado

    usuario = crear_usuario("memorizada", Rol.ESCRITURA)

    with django_assert_num_queries(1), rol_memorizado():
        with rol_memorizado():
            assert rol_de(usuario) == Rol.ESCRITURA
        assert rol_de(usuario) == Rol.ESCRITURA
