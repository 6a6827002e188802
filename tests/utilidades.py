"""Utilidades de las pruebas."""

import socket


def puerto_libre() -> int:
    """Devuelve un puerto TCP libre en 127.0.0.1."""
    with socket.socket() as prueba:
        prueba.bind(("127.0.0.1", 0))
        return int(prueba.getsockname()[1])
