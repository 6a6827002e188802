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


def test_herramientas_que_comparten_una_revision_de_disponibilidad_la_corren_una_vez_por_oferta(
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


def test_una_consulta_compartida_por_distintas_revisiones_corre_una_vez_por_oferta_y_de_nuevo_en_la_siguiente(
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
def test_con_el_corpus_cargado_una_oferta_lee_los_tipos_de_norma_en_una_consulta(
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


def test_las_etiquetas_de_los_parametros_son_sus_titulos_o_sus_nombres_sin_guiones_bajos() -> None:
    from pydantic import Field

    class Entrada(BaseModel):
        region: str = Field(title="Región")
        superficie_ha: float | None = None

    herramienta = Herramienta("crear", lambda e, c: {}, Entrada, lambda u: True)

    assert herramienta.etiquetas() == {"region": "Región", "superficie_ha": "superficie ha"}


def test_un_parametro_de_opciones_fijas_lista_cada_valor_con_el_nombre_que_le_da_la_herramienta() -> None:
    from typing import ClassVar, Literal

    class Entrada(BaseModel):
        OPCIONES: ClassVar[dict[str, dict[str, str]]] = {"tipo": {"rapido": "Rápido"}}
        tipo: Literal["rapido", "completo"] = "completo"
        nombre: str = ""

    herramienta = Herramienta("analizar", lambda e, c: {}, Entrada, lambda u: True)

    assert herramienta.opciones() == {"tipo": {"rapido": "Rápido", "completo": "completo"}}


def test_una_herramienta_dice_lo_que_hace_con_sus_palabras_o_con_su_nombre() -> None:
    propia = Herramienta("buscar_x", lambda e, c: {}, BaseModel, lambda u: True, actividad="Buscando x…")
    sin_texto = Herramienta("listar_cosas", lambda e, c: {}, BaseModel, lambda u: True)

    assert propia.texto_actividad == "Buscando x…"
    assert sin_texto.texto_actividad == "Consultando listar cosas…"
