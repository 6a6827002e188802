"""Fixtures compartidas: usuarios con rol, clientes de API con token, el corpus real y las capas."""

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.contrib.auth.models import AbstractUser
from rest_framework.test import APIClient

from normativa.services import corpus_cargar, embeddings_faltantes
from proyectos.capas import capas_cargar
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


@pytest.fixture(scope="session")
def django_db_setup(django_test_environment: None, django_db_blocker: Any) -> Iterator[None]:
    """Crea siempre la base de pruebas cuando alguien la pide.

    pytest-django solo la crea si algún test de la sesión está marcado para usar la base; las
    pruebas con hilos propios (navegador, websocket, concurrencia) usan datos confirmados sin esa
    marca y, corridas solas, habrían tocado la base de desarrollo.
    """
    from django.test.utils import setup_databases, teardown_databases

    with django_db_blocker.unblock():
        configuracion = setup_databases(verbosity=0, interactive=False, aliases={"default"})  # type: ignore[arg-type]
    yield
    with django_db_blocker.unblock():
        teardown_databases(configuracion, verbosity=0)


@pytest.fixture(scope="session", autouse=True)
def cache_vacia() -> None:
    """La caché de Redis de pruebas empieza vacía: los ids se repiten entre corridas."""
    from django.core.cache import cache

    cache.clear()


@pytest.fixture(scope="session")
def corpus(django_db_setup, django_db_blocker):
    """Corpus real cargado una vez por sesión en la base de pruebas, con los embeddings incluidos."""
    with django_db_blocker.unblock():
        faltantes = embeddings_faltantes()
        if faltantes:
            pytest.fail(
                f"Sin embeddings precalculados para: {', '.join(faltantes)}. "
                "Ejecute `manage.py cargar_corpus --exportar-embeddings` y confirme embeddings.npz."
            )
        resultados = corpus_cargar()
        assert sum(r.embebidos for r in resultados) == 0
    return resultados


@pytest.fixture(scope="session")
def capas(django_db_setup, django_db_blocker):
    """Capas geográficas incluidas, cargadas una vez por sesión en la base de pruebas."""
    with django_db_blocker.unblock():
        return capas_cargar()


@pytest.fixture
def motor(db: None, corpus, capas) -> None:
    """Base con corpus y capas: lo que el motor necesita para fundamentar y medir."""
