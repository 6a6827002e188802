"""Configuración de pytest común a toda la batería."""

import pytest

from config.servicios import detener_servicios


def pytest_unconfigure(config: pytest.Config) -> None:
    # Detiene solo los servicios embebidos que arrancó esta sesión de pruebas: si un
    # `make run` ya los tenía corriendo, siguen a su cargo.
    detener_servicios(solo_iniciados=True)
