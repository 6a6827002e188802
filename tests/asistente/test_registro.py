"""Registro de herramientas: qué herramientas se ofrecen a un usuario."""

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import AbstractUser
from pydantic import BaseModel

from asistente import registro
from asistente.registro import Herramienta, herramientas_para


class _Vacia(BaseModel):
    pass


def test_tools_sharing_an_availability_check_run_it_once_per_offer(
    usuaria: Callable[..., AbstractUser], monkeypatch: pytest.MonkeyPatch
) -> None:
    llamadas: list[str] = []

    def hay_corpus() -> bool:
        llamadas.append("corpus")
        return True

    def sin_servicio() -> bool:
        llamadas.append("servicio")
        return False

    def funcion(entrada: Any, ctx: Any) -> dict[str, Any]:
        return {}

    def todos(usuario: Any) -> bool:
        return True

    monkeypatch.setattr(registro, "REGISTRO", {})
    for nombre, disponible in (
        ("a", hay_corpus),
        ("b", hay_corpus),
        ("c", sin_servicio),
        ("d", sin_servicio),
    ):
        registro.REGISTRO[nombre] = Herramienta(nombre, funcion, _Vacia, todos, disponible=disponible)

    ofrecidas = [h.nombre for h in herramientas_para(usuaria())]

    assert ofrecidas == ["a", "b"]
    assert sorted(llamadas) == ["corpus", "servicio"]
    herramientas_para(usuaria("otra"))
    assert len(llamadas) == 4  # cada oferta vuelve a verificar: nada queda en caché entre turnos
