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


def test_a_query_shared_by_different_availability_checks_runs_once_per_offer_and_again_next_offer(
    usuaria: Callable[..., AbstractUser], monkeypatch: pytest.MonkeyPatch
) -> None:
    consultas: list[str] = []

    @registro.por_oferta
    def tipos_cargados() -> set[str]:
        consultas.append("tipos")
        return {"ley"}

    def todos(usuario: Any) -> bool:
        return True

    monkeypatch.setattr(registro, "REGISTRO", {})
    for nombre, disponible in (
        ("ley", lambda: "ley" in tipos_cargados()),
        ("guia", lambda: "guia" in tipos_cargados()),
    ):
        registro.REGISTRO[nombre] = Herramienta(nombre, lambda e, c: {}, _Vacia, todos, disponible=disponible)

    assert [h.nombre for h in herramientas_para(usuaria())] == ["ley"]
    assert consultas == ["tipos"]
    herramientas_para(usuaria("otra"))
    tipos_cargados()  # fuera de una oferta: se consulta cada vez
    assert consultas == ["tipos", "tipos", "tipos"]


@pytest.mark.usefixtures("corpus")
def test_with_the_corpus_loaded_an_offer_reads_the_loaded_norm_types_in_one_query(
    usuaria: Callable[..., AbstractUser],
) -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    usuario = usuaria()
    with CaptureQueriesContext(connection) as consultas:
        nombres = {h.nombre for h in herramientas_para(usuario)}

    assert {"buscar_normativa", "buscar_sea"} <= nombres  # leyes y guías del SEA cargadas
    assert "buscar_documentacion" not in nombres  # la documentación del sistema no se cargó
    assert sum('"normativa_fragmentolegal"' in c["sql"] for c in consultas.captured_queries) == 1


def test_a_tools_parameter_labels_are_their_titles_or_else_their_names_without_underscores() -> None:
    from pydantic import Field

    class Entrada(BaseModel):
        region: str = Field(title="Región")
        superficie_ha: float | None = None

    herramienta = Herramienta("crear", lambda e, c: {}, Entrada, lambda u: True)

    assert herramienta.etiquetas() == {"region": "Región", "superficie_ha": "superficie ha"}


def test_a_parameter_with_fixed_choices_lists_each_value_with_the_name_the_tool_gives_it() -> None:
    from typing import ClassVar, Literal

    class Entrada(BaseModel):
        OPCIONES: ClassVar[dict[str, dict[str, str]]] = {"tipo": {"rapido": "Rápido"}}
        tipo: Literal["rapido", "completo"] = "completo"
        nombre: str = ""

    herramienta = Herramienta("analizar", lambda e, c: {}, Entrada, lambda u: True)

    assert herramienta.opciones() == {"tipo": {"rapido": "Rápido", "completo": "completo"}}


def test_a_tool_says_what_it_is_doing_in_its_own_words_or_else_with_its_name() -> None:
    propia = Herramienta("buscar_x", lambda e, c: {}, BaseModel, lambda u: True, actividad="Buscando x…")
    sin_texto = Herramienta("listar_cosas", lambda e, c: {}, BaseModel, lambda u: True)

    assert propia.texto_actividad == "Buscando x…"
    assert sin_texto.texto_actividad == "Consultando listar cosas…"
