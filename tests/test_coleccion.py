"""La colección de pruebas misma: lo que `make test` necesita para repartirla en dos procesos."""

from collections import Counter

import pytest


def test_ninguna_prueba_comparte_su_id_con_otra(request: pytest.FixtureRequest) -> None:
    # pytest-xdist reparte por id: de varias pruebas con el mismo id corre solo la primera (le pasó a
    # las 33 operaciones del esquema de la API, ver `pytest_collection_modifyitems` en conftest.py)
    repetidos = [
        nodeid for nodeid, veces in Counter(i.nodeid for i in request.session.items).items() if veces > 1
    ]

    assert repetidos == []
