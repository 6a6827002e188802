"""La estructura de un artículo que la búsqueda lee: su epígrafe, su inicio antes de la primera letra
y lo que anuncia su lista; y las columnas de un fragmento que el reordenador mira (`Fila`).

Las partes de los artículos ya leídos se recuerdan mientras el corpus no cambie.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from config.texto import sin_tildes
from normativa.models import FragmentoLegal
from normativa.selectors import por_estado_del_corpus

_ENCABEZADO = re.compile(r"^\s*art[ií]culo\s+[^\n]{1,40}?\.?-\s*\n([^\n]{3,140}?)\.(\s|$)", re.IGNORECASE)
_PUNTO_SEGUIDO = re.compile(r"(?<=\.)\s+(?=[A-ZÁÉÍÓÚÑ])")
# La primera división del artículo: su letra a) o, si sus divisiones son números con letras adentro
# («1. En el caso de las infracciones gravísimas: a) Multa…»), su número 1: lo que la anuncia es lo
# anterior al número, no la primera línea del número.
_PRIMERA_DIVISION = re.compile(r"\n\s*(a\)|1(\.-?|\)))\s")
LARGO_INICIO = 600  # el inicio de un artículo con letras es una o dos oraciones
LARGO_ANTESALA = 250  # lo que anuncia la lista: la oración justo antes de la letra a)
# «contendrá, al menos:», «deberá contener:», «los siguientes contenidos:»
_ANUNCIA_CONTENIDOS = re.compile(
    r"contenidos?|conte(ner|ndran?)|contienen?|antecedentes|requisitos|informacion"
)


@dataclass(frozen=True)
class Fila:
    """Lo que el reordenador lee de un candidato (una tupla, sin armar el modelo de Django)."""

    pk: int
    texto: str
    articulo: str
    letra: str
    jerarquia: list[str]
    modificatorio: bool
    transitorio: bool
    norma_id: int
    sigla: str
    peso_busqueda: float
    tipo: str
    oraciones: list[str]  # las guardadas al ingerir (valen si `analisis` es la `VERSION` actual)
    raices: list[str]  # las de cada oración, separadas por espacios
    analisis: str


def filas_de(ids: list[int]) -> dict[int, Fila]:
    campos = (
        "pk",
        "texto",
        "articulo",
        "letra",
        "jerarquia",
        "modificatorio",
        "transitorio",
        "norma_id",
        "norma__sigla",
        "norma__peso_busqueda",
        "norma__tipo",
        "oraciones",
        "raices",
        "analisis",
    )
    return {
        fila[0]: Fila(*fila)
        for fila in FragmentoLegal.objects.filter(pk__en_arreglo=ids).order_by().values_list(*campos)
    }


@functools.lru_cache(maxsize=20_000)
def anuncio_de(antesala: str) -> str:
    """La oración que anuncia la lista de un artículo («…podrá … adoptar alguna de las siguientes
    medidas:»), si la antesala termina en dos puntos; «» si no."""
    texto = " ".join(antesala.split())
    if not texto.endswith(":"):
        return ""
    if ". " in texto:
        return texto[texto.rfind(". ") + 2 :]
    # la antesala es un trozo del artículo: empieza donde empieza una palabra
    return "… " + texto.split(" ", 1)[-1] if not texto[0].isupper() else texto


def anuncia(oracion: str) -> bool:
    """La oración anuncia lo que sigue («…las siguientes sanciones:»): lo que sigue es su contenido."""
    return oracion.rstrip().endswith(":")


def primera_oracion(texto: str) -> str:
    """Hasta el primer punto seguido (en una definición, «g) Modificación de proyecto o actividad:
    Realización de obras…», el término y su definición, sin cortar en los dos puntos)."""
    # «i bis). Evaluación Ambiental Estratégica: …»: el punto tras la letra no cierra una oración
    texto = _LETRA_CON_PUNTO.sub(r"\1)", texto.strip(), count=1)
    return " ".join(_PUNTO_SEGUIDO.split(texto, maxsplit=1)[0].split())


_LETRA_CON_PUNTO = re.compile(r"^([a-zñ](?: \w+)?|\d{1,2})\)\.")


@functools.lru_cache(maxsize=50_000)
def anuncia_contenidos(texto: str) -> bool:
    return bool(_ANUNCIA_CONTENIDOS.search(sin_tildes(texto)))


def encabezados_de(
    fragmentos: list[Fila],
) -> tuple[dict[int, str], dict[int, str], dict[int, str]]:
    """Epígrafe del artículo de cada fragmento (el de su artículo completo, para las letras) o, en
    las guías, el título de la sección; para las letras, el inicio de su artículo (el texto antes
    de la primera letra, si es corto) y la antesala de la lista (lo que la anuncia)."""
    # el artículo 3 permanente y el 3 transitorio son dos artículos: cada letra, con el suyo
    articulos = {(f.norma_id, f.articulo, f.transitorio) for f in fragmentos if f.articulo}
    conocidos = _articulos_conocidos()
    if faltan := articulos - conocidos.keys():
        for clave in faltan:
            conocidos[clave] = ("", "", "")
        # Un filtro por pares (norma, artículo) armado con OR costaba más que traer de más y descartar.
        filas = FragmentoLegal.objects.filter(
            norma_id__in={n for n, _, _ in faltan},
            articulo__in={a for _, a, _ in faltan},
            letra="",
            version__vigente=True,
        ).values_list("norma_id", "articulo", "transitorio", "texto")
        for norma_id, articulo, transitorio, texto in filas:
            if (norma_id, articulo, transitorio) in faltan:
                conocidos[(norma_id, articulo, transitorio)] = _partes_completas(texto)
    encabezados, inicios, antesalas = {}, {}, {}
    for f in fragmentos:
        if f.articulo:
            principal, inicial, previa = conocidos.get((f.norma_id, f.articulo, f.transitorio), ("", "", ""))
            encabezados[f.pk] = principal
            if f.letra:
                inicios[f.pk] = inicial
                antesalas[f.pk] = previa
        else:
            encabezados[f.pk] = re.sub(r"^[\d.\s]+", "", f.jerarquia[-1]) if f.jerarquia else ""
    return encabezados, inicios, antesalas


def _partes_completas(texto: str) -> tuple[str, str, str]:
    epigrafe, inicio, antesala = _partes_del_articulo(texto)
    return epigrafe or "", inicio or "", antesala or ""


def _partes_del_articulo(texto: str) -> tuple[str | None, str | None, str | None]:
    """(epígrafe, inicio antes de la primera letra si es corto, antesala de la lista) de un artículo;
    None la parte que no tiene."""
    epigrafe = m.group(1).strip() if (m := _ENCABEZADO.match(texto[:300])) else None
    if not (letra := _PRIMERA_DIVISION.search(texto)):
        return epigrafe, None, None
    inicio = texto[: letra.start()] if letra.start() <= LARGO_INICIO else None
    return epigrafe, inicio, texto[max(0, letra.start() - LARGO_ANTESALA) : letra.start()]


@por_estado_del_corpus
def _articulos_conocidos() -> dict[tuple[int, str, bool], tuple[str, str, str]]:
    """Las partes de los artículos ya leídos, por (norma, artículo, transitorio), mientras el corpus no
    cambie: los artículos más citados vuelven en casi todas las preguntas y leerlos enteros era la
    consulta más cara del reordenador."""
    return {}
