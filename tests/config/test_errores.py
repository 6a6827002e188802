"""Un error del dominio sale igual por la API y por el websocket: mismo estado, mismo mensaje."""

import pytest
from rest_framework.test import APIRequestFactory

from config.api import manejar_excepcion
from config.errores import (
    ESTADO_HTTP,
    EnConflicto,
    EntradaNoValida,
    ErrorDeAplicacion,
    LimiteExcedido,
    NoDisponible,
    NoEncontrado,
    Vencido,
    marco_de_error,
)

ERRORES = [EntradaNoValida, NoEncontrado, EnConflicto, Vencido, LimiteExcedido, NoDisponible]


def _subclases(clase: type[ErrorDeAplicacion]) -> set[type[ErrorDeAplicacion]]:
    return {s for directa in clase.__subclasses__() for s in {directa, *_subclases(directa)}}


def test_todo_error_del_dominio_tiene_su_estado_http() -> None:
    import asistente.turno.tipos  # noqa: F401  (sus errores también deben estar en la tabla)
    import proyectos.analisis.entrada  # noqa: F401

    assert {e.codigo for e in _subclases(ErrorDeAplicacion)} <= set(ESTADO_HTTP)


@pytest.mark.parametrize("clase", ERRORES)
def test_la_api_y_el_websocket_traducen_un_error_al_mismo_estado_y_mensaje(
    clase: type[ErrorDeAplicacion],
) -> None:
    error = clase("Algo no se pudo hacer.", reintentar_en=7)
    contexto = {"request": APIRequestFactory().get("/api/x/"), "view": None}

    respuesta = manejar_excepcion(error, contexto)
    marco = marco_de_error(error)

    assert respuesta is not None
    assert respuesta.status_code == marco["codigo"] == ESTADO_HTTP[clase.codigo]
    assert (
        respuesta.data == {"error": "Algo no se pudo hacer."} and marco["mensaje"] == "Algo no se pudo hacer."
    )
    assert respuesta["Retry-After"] == "7" and marco["reintentar_en"] == 7


def test_un_error_con_problemas_por_campo_los_lista() -> None:
    error = EntradaNoValida("Corrija lo siguiente.", errores=[{"campo": "region", "mensaje": "Falta."}])

    respuesta = manejar_excepcion(error, {})

    assert respuesta is not None and respuesta.status_code == 400
    assert respuesta.data == {
        "error": "Corrija lo siguiente.",
        "errores": [{"campo": "region", "mensaje": "Falta."}],
    }
