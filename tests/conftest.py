"""Fixtures compartidas: usuarios con rol, clientes de API con token, el corpus real y las capas."""

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from _pytest.nodeid import NodeId
from django.contrib.auth.models import AbstractUser
from rest_framework.test import APIClient

from normativa.ingesta.corpus import corpus_cargar, embeddings_faltantes
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


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Un id por operación para las pruebas que schemathesis genera: con pytest 9 todas llevan el mismo
    («…::test_la_api_cumple_su_esquema_sin_errores_de_servidor»), y pytest-xdist, que reparte por id con
    `--dist loadfile`, corría solo la primera de las 33 operaciones."""
    for item in items:
        operacion = getattr(item, "operation_label", None)
        if operacion and not item.nodeid.endswith("]"):
            item._id = NodeId.parse(f"{item.nodeid}[{operacion}]")


@pytest.fixture(scope="session")
def django_db_setup(
    django_test_environment: None, django_db_modify_db_settings: None, django_db_blocker: Any
) -> Iterator[None]:
    """Crea siempre la base de pruebas cuando alguien la pide.

    pytest-django solo la crea si algún test de la sesión está marcado para usar la base; las
    pruebas con hilos propios (navegador, websocket, concurrencia) usan datos confirmados sin esa
    marca y, corridas solas, habrían tocado la base de desarrollo. Con pytest-xdist,
    `django_db_modify_db_settings` le pone el sufijo de cada proceso (`test_prefactibilidad_gw0`).
    """
    from django.test.utils import setup_databases, teardown_databases

    with django_db_blocker.unblock():
        configuracion = setup_databases(verbosity=0, interactive=False, aliases={"default"})  # type: ignore[arg-type]
    yield
    with django_db_blocker.unblock():
        _cerrar_sesiones_huerfanas()
        teardown_databases(configuracion, verbosity=0)


def _cerrar_sesiones_huerfanas() -> None:
    """Termina las otras sesiones de la base de pruebas antes de borrarla.

    Las pruebas asíncronas corren el consumidor en un contexto copiado del hilo principal, que ya
    trae el almacenamiento de conexiones de Django (asgiref lo lleva de contexto en contexto). En cada
    `database_sync_to_async(thread_sensitive=False)` la conexión que se abre queda en ese almacenamiento
    copiado, y el `close_old_connections` de channels, que corre fuera de él, no la ve: nadie la
    devuelve y `DROP DATABASE` falla con «is being accessed by other users». Bajo daphne no se pierden:
    `make bench` inicia cientos de turnos así con un pool de 12 conexiones y ninguno espera.
    """
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
    connection.close()


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


@pytest.fixture
def daphne(django_db_setup: None) -> Iterator[Callable[..., str]]:
    """La aplicación ASGI completa (HTTP y websockets) servida por daphne en 127.0.0.1, en un proceso
    nuevo (spawn) que usa la base de pruebas; `daphne(**ajustes)` la lanza y devuelve su URL.

    Spawn y no fork: un hijo copiado de este proceso heredaría hilos que no existen en él (el
    ejecutor de asgiref, los turnos) y se quedaría esperándolos. Ve solo datos confirmados: las
    pruebas que la usan crean los suyos con `django_db_blocker.unblock()` y los borran al terminar
    (nunca `transactional_db`, que vaciaría el corpus y las capas de la sesión).
    """
    from functools import partial

    from channels.testing.live import make_application
    from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler
    from django.db import connection

    from tests.utilidades import DaphneAparte, preparar_hijo_daphne

    procesos: list[Any] = []

    def lanzar(**ajustes: Any) -> str:
        proceso = DaphneAparte(
            "127.0.0.1",
            partial(make_application, static_wrapper=ASGIStaticFilesHandler),
            setup=partial(preparar_hijo_daphne, connection.settings_dict["NAME"], ajustes),
        )
        proceso.start()
        procesos.append(proceso)
        if not proceso.ready.wait(timeout=90):
            raise RuntimeError(
                f"daphne no partió: {proceso.errors.get() if not proceso.errors.empty() else ''}"
            )
        return f"http://127.0.0.1:{proceso.port.value}"

    yield lanzar
    for proceso in procesos:
        proceso.terminate()
        proceso.join(10)
