"""La API contra su propio esquema OpenAPI (schemathesis): ningún error de servidor y cada respuesta
—código, tipo de contenido y cuerpo— como el esquema la describe.

Corrida acotada y reproducible: `derandomize` fija los ejemplos (la misma corrida cada vez, sin
semilla que guardar) y `EJEMPLOS` acota cuántos por operación. Cada caso se envía con el token de una
escritora y con el de una lectora. Quedan fuera los flujos SSE (`chat/stream`, `eventos`): un cliente
WSGI no consume un iterador asíncrono; su forma la prueban `tests/asistente/test_api.py` y daphne.
Para ver una falla en detalle: `pytest tests/config/test_esquema_api.py -k "GET /api/proyectos/"`.
"""

import os
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from django.core import signals
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, Phase, settings
from schemathesis import checks
from schemathesis.generation.meta import TestPhase

from proyectos.models import Cliente
from proyectos.roles import Rol
from proyectos.services import proyecto_crear, usuario_crear_o_actualizar

# ESQUEMA_EJEMPLOS=100 para una corrida más profunda (la misma cada vez, con esa cantidad).
EJEMPLOS = int(os.environ.get("ESQUEMA_EJEMPLOS", "12"))
# Sin error de servidor, y código, tipo, encabezados y cuerpo como los describe el esquema. Fuera:
# «positive_data_acceptance» (un texto cualquiera es válido para el esquema pero no es una región: la
# validación semántica responde 400, documentado) e «ignored_auth» (la prueba manda un token válido
# en el encabezado; la falta de sesión o token la prueban tests/*/test_api.py con 403).
VERIFICACIONES = [
    checks.not_a_server_error,
    checks.status_code_conformance,
    checks.content_type_conformance,
    checks.response_headers_conformance,
    checks.response_schema_conformance,
]
FUERA = r"/api/asistente/(chat/stream|conversaciones/\{id\}/eventos)$"


# El esquema se genera sin consultar la base: se puede leer al recolectar las pruebas.
esquema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", get_wsgi_application()).exclude(
    path_regex=FUERA
)


@pytest.fixture
def sin_cerrar_conexiones() -> Iterator[None]:
    """Como el cliente de pruebas de Django: al terminar cada pedido WSGI la conexión no se cierra
    (la prueba corre dentro de una transacción que se revierte al final)."""
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    yield
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)


@pytest.fixture
def tokens(motor: None, sin_cerrar_conexiones: None) -> Iterator[dict[str, str]]:
    """Una escritora y una lectora del mismo cliente, con un proyecto: los ids existen a veces."""
    escritora = usuario_crear_o_actualizar(nombre="st-escritora", rol=Rol.ESCRITURA)
    lectora = usuario_crear_o_actualizar(nombre="st-lectora", rol=Rol.LECTURA)
    cliente = Cliente.objects.create(nombre="Minera Esquema")
    cliente.usuarios.add(escritora.usuario.pk, lectora.usuario.pk)
    proyecto_crear(
        cliente=cliente,
        datos={"nombre": "Mina Esquema", "region": "Antofagasta", "tipo": "explotacion"},
    )
    yield {"escritora": escritora.token, "lectora": lectora.token}


@esquema.parametrize()
@settings(
    max_examples=EJEMPLOS,
    derandomize=True,
    deadline=None,
    database=None,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=list(HealthCheck),
)
def test_la_api_cumple_su_esquema_sin_errores_de_servidor(case: Any, tokens: dict[str, str]) -> None:
    for token in _quienes_prueban(case, tokens):
        case.call_and_validate(headers={"Authorization": f"Token {token}"}, checks=VERIFICACIONES)


def _quienes_prueban(case: Any, tokens: dict[str, str]) -> list[str]:
    """Las dos, salvo en la fase de cobertura de una escritura: esa fase varía el cuerpo campo por campo
    (más de mil casos en un PATCH) y a la lectora una escritura le responde 403 antes de leerlo; su
    403 lo prueban los ejemplos generados, que van con las dos."""
    if case.method.upper() != "GET" and case.meta is not None and case.meta.phase.name == TestPhase.COVERAGE:
        return [tokens["escritora"]]
    return list(tokens.values())
