"""Permisos ambientales sectoriales en el chat (motor sin conexión y Claude): una pregunta por cada parte
cita primero el artículo de su permiso, con su requisito; un proyecto descrito con varias partes recibe
todos sus permisos; «¿qué permisos necesita mi proyecto?» lista los del proyecto en contexto; y cómo se
tramita un permiso lo responde el reglamento, no el catálogo. Preguntas propias, no de los conjuntos de
evaluación."""

import json
from collections.abc import Callable

import pytest
from django.contrib.auth.models import AbstractUser

from asistente.motores.descripcion import componentes_dichos
from config.texto import sin_tildes
from proyectos.models import Cliente
from proyectos.services import proyecto_crear
from tests.asistente.conftest import Charla, responder_sse, uso_de_herramienta
from tests.utilidades import ServidorLocal
from tests.utilidades import mensaje_sse as sse

Conversar = Callable[..., Charla]
CrearUsuaria = Callable[..., AbstractUser]

pytestmark = pytest.mark.usefixtures("motor")


def primer_articulo(charla: Charla) -> tuple[str, str]:
    primera = charla.fuentes[0]
    return primera["norma"], primera["articulo"]


@pytest.mark.parametrize(
    ("pregunta", "articulo"),
    [
        (
            "¿Qué permiso exige el tranque donde dispondremos las arenas de la planta, o sea los relaves?",
            "135",
        ),
        ("Si apilamos el lastre en un botadero junto al rajo, ¿qué permiso sectorial necesitamos?", "136"),
        ("El casino del campamento tendrá fosa séptica. ¿Requiere algún permiso?", "138"),
        (
            "¿Qué PAS corresponde a la piscina de tratamiento del drenaje ácido antes de descargarlo al "
            "estero?",
            "139",
        ),
        (
            "¿Qué permiso pide el patio donde acumularemos aceites usados y baterías, que son residuos "
            "peligrosos?",
            "142",
        ),
        ("Antes de despejar el área vamos a rescatar lagartos y sapos protegidos. ¿Qué PAS es?", "146"),
        (
            "Encontramos un conchal en el trazado y habrá que excavarlo con arqueólogos: ¿cuál es el "
            "permiso?",
            "132",
        ),
        ("Tenemos que desviar una quebrada para el rajo. ¿Qué PAS aplica?", "156"),
        ("¿Qué permiso piden las defensas fluviales que protegerán el puente de acceso?", "157"),
        (
            "En el predio hay una casona declarada monumento histórico. Vamos a repararla para usarla de "
            "oficina: ¿qué permiso necesitamos?",
            "131",
        ),
        ("¿Qué permiso necesita el campamento si queda en un predio rural, fuera del límite urbano?", "160"),
        (
            "Hay que cortar cactáceas de una formación xerofítica para ampliar el rajo: ¿qué PAS pide eso?",
            "151",
        ),
    ],
)
def test_una_pregunta_por_una_parte_cita_primero_el_articulo_de_su_permiso_con_su_requisito(
    pregunta: str, articulo: str, usuaria: CrearUsuaria, conversar: Conversar
) -> None:
    charla = conversar(usuaria(), pregunta)

    assert primer_articulo(charla) == ("DS 40", articulo), charla.texto
    assert f"Art. {articulo}" in charla.texto.split("\n")[0] or f"**Art. {articulo}**" in charla.texto
    assert "para su otorgamiento" in charla.texto or "Requisito:" in charla.texto
    assert not any(f["articulo"] in ("107", "108") for f in charla.fuentes[:1])
    assert "Qué tan seguro estoy: bastante" in charla.texto


def test_un_proyecto_descrito_con_cuatro_partes_recibe_los_cuatro_permisos(
    usuaria: CrearUsuaria, conversar: Conversar
) -> None:
    charla = conversar(
        usuaria(),
        "Para la DIA: tendremos un tranque de relaves, una bodega de residuos peligrosos, una planta de "
        "aguas servidas y un campamento fuera del límite urbano. ¿Qué permisos sectoriales van?",
    )

    articulos = [f["articulo"] for f in charla.fuentes]
    assert articulos == ["135", "138", "142", "160"]
    for articulo in articulos:
        assert f"**Art. {articulo}**" in charla.texto
    assert charla.texto.index("Art. 135") < charla.texto.index("Art. 160")
    primera_linea = charla.texto.splitlines()[0]
    assert primera_linea.endswith("4 permisos ambientales sectoriales del DS 40, Arts. 135, 138, 142 y 160:")


def test_un_articulo_nombrado_se_responde_con_su_nombre_y_requisito(
    usuaria: CrearUsuaria, conversar: Conversar
) -> None:
    charla = conversar(usuaria(), "¿En qué consiste el PAS del artículo 159?")

    assert primer_articulo(charla) == ("DS 40", "159")
    assert "extracción de ripio y arena" in charla.texto and "erosiones o aluviones" in charla.texto


def test_los_permisos_de_mi_proyecto_salen_de_sus_partes_guardadas(
    usuaria: CrearUsuaria, conversar: Conversar
) -> None:
    consultora = usuaria()
    proyecto = proyecto_crear(
        cliente=Cliente.objects.get(nombre="Cliente de consultora"),
        datos={
            "nombre": "Mina Los Cactus",
            "region": "Coquimbo",
            "tipo": "explotacion",
            "capacidad_extraccion_t_mes": 7000,
            "componentes": {"deposito_relaves": True, "captura_fauna": True},
        },
    )

    charla = conversar(
        consultora, "¿Qué permisos sectoriales necesita este proyecto?", proyecto_id=proyecto.pk
    )

    assert [f["articulo"] for f in charla.fuentes] == ["135", "137", "146"]
    assert charla.texto.startswith("Su proyecto trae 3 permisos ambientales sectoriales")


def test_como_se_tramita_un_permiso_lo_responde_el_reglamento_y_no_el_catalogo(
    usuaria: CrearUsuaria, conversar: Conversar
) -> None:
    charla = conversar(
        usuaria(), "¿Los permisos de captura de fauna para la línea de base se tramitan dentro del SEIA?"
    )

    assert primer_articulo(charla) == ("DS 40", "109")


def test_un_proyecto_descrito_que_pregunta_si_ingresa_dice_tambien_los_permisos_de_sus_partes(
    usuaria: CrearUsuaria, conversar: Conversar
) -> None:
    charla = conversar(
        usuaria(),
        "Una mina de 6.500 t/mes en Atacama con un botadero de lastre, ¿ingresa al SEIA y por qué vía?",
    )

    assert "Declaración de Impacto Ambiental" in charla.texto
    assert "Permisos ambientales sectoriales que traen sus partes" in charla.texto
    assert "Art. 136" in charla.texto and "Art. 137" in charla.texto


@pytest.mark.parametrize(
    ("texto", "esperado"),
    [
        ("el muro del tranque de relaves tendrá 40 metros", {"deposito_relaves": True}),
        ("un embalse de agua fresca de 75.000 m3", {"embalse_m3": 75000.0}),
        ("una aducción de 1.800 l/s desde el río", {"acueducto_m3_s": 1.8}),
        ("no tendremos botadero ni relaves", {}),
        ("hay que relocalizar a 15 familias", {}),
        ("habrá un relleno sanitario para la basura del campamento", {"relleno_sanitario": True}),
    ],
)
def test_las_partes_con_permiso_se_leen_de_las_palabras_del_consultor(
    texto: str, esperado: dict[str, object]
) -> None:
    assert componentes_dichos(" ".join(sin_tildes(texto).split())) == esperado


def test_claude_pide_los_permisos_con_la_herramienta_y_recibe_el_articulo_y_su_requisito(
    servidor: ServidorLocal, usuaria: CrearUsuaria, conversar: Conversar
) -> None:
    responder_sse(
        servidor,
        sse(uso_de_herramienta("consultar_permisos", {"partes": {"captura_fauna": True}}), stop="tool_use"),
    )
    responder_sse(servidor, sse({"type": "text", "text": "Necesita el PAS del Art. 146 del DS 40 [1]."}))

    charla = conversar(usuaria(), "¿Qué permiso necesito para capturar vizcachas?")

    primero, segundo = (json.loads(p[3]) for p in servidor.pedidos)
    assert "consultar_permisos" in {h["name"] for h in primero["tools"]}
    resultado = json.loads(segundo["messages"][-1]["content"][0]["content"])
    (permiso,) = resultado["permisos"]
    assert permiso["articulo"] == "146" and permiso["requisito"].startswith(
        "El requisito para su otorgamiento"
    )
    assert resultado["fuentes"][0]["articulo"] == "146" and resultado["fuentes"][0]["marcador"] == "[1]"
    assert charla.fuentes[0]["articulo"] == "146"
