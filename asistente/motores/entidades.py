"""Lo que dice un mensaje, leído sin modelo: el proyecto al que se refiere (#12, «nombre», «este
proyecto», «mi proyecto»), región, comuna, tipo, cliente, cantidades, circunstancias del Art. 11 y las
otras partes de la faena; y si es una pregunta jurídica aunque traiga cifras."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from asistente.motores.descripcion import cantidades_dichas, componentes_dichos
from config.texto import sin_tildes
from normativa.busqueda.familias import familias_de
from normativa.busqueda.preguntas import nucleo_de_la_pregunta
from proyectos import selectors as proyectos
from proyectos.analisis.circunstancias import (
    AreaDicha,
    CircunstanciaDicha,
    areas_dichas,
    circunstancias_dichas,
)
from proyectos.analisis.componentes import hay_partes
from proyectos.analisis.ingreso import CANTIDADES_REQUERIDAS
from proyectos.models import Comuna

# «mi proyecto»: el activo o, sin uno, el que el usuario más consulta (su memoria).
MI_PROYECTO = re.compile(r"\bmi (proyecto|mina|faena)\b")
_TIPOS = [
    (re.compile(r"prospecc|sondaje"), "prospeccion"),
    # Las plantas que tratan aguas servidas o riles, o que producen agua o energía, no procesan mineral.
    (
        re.compile(
            r"\bplanta\b(?! (?:de|del) (?:tratamiento|aguas?|osmosis|hormigon|asfalto|aridos?|ripio|grava)"
            r"|s? desaladora"
            r"| electrica| generadora| solar| fotovoltaica)"
        ),
        "planta_procesamiento",
    ),
    (re.compile(r"relave"), "deposito_relaves"),
    (re.compile(r"botadero|esteril"), "botadero_esteriles"),
    (
        re.compile(
            r"(arido|ripio|grava|arena|bolon)\w*.*\b(cauce|rio|estero|lecho)\b"
            r"|\b(cauce|rio|estero|lecho)\b.*(arido|ripio|grava)"
        ),
        "aridos_cauce",
    ),
    (re.compile(r"arena.*playa|playa"), "aridos_playa"),
    # «Pozo» solo si es de áridos (el pozo de un APR no lo es); el lastre de una mina es estéril.
    (
        re.compile(
            r"arido|cantera|\bpozo (?:de )?(?:arido|ripio|grava|arena)|\bpozo lastrero|ripio|grava"
            r"|\barenas?\b[^.;]{0,30}\bpozo\b"
        ),
        "aridos_pozo",
    ),
    # Explotar petróleo o gas (DS 40, Art. 3, literal i.4); el diésel o el gas que una faena guarda o
    # consume es una sustancia almacenada (letra ñ), no el tipo del proyecto.
    (
        re.compile(
            r"\b(?:explot|extra|prospec|produc|perfor)\w*(?:\s+(?:de|del|el|la|los|las|un|una|pozos?"
            r"|yacimientos?|campos?))*\s+(?:petroleo|gas natural|gas|hidrocarburos?)\b(?! diesel)"
            r"|\b(?:yacimientos?|pozos?|campos?) (?:de )?(?:petroleo|gas|hidrocarburos?)\b(?! diesel)"
        ),
        "hidrocarburos",
    ),
]
# Lo que precede al nombre de un proyecto entre comillas.
_ANTES_DE_UN_NOMBRE = (
    r"\b(?:proyecto|faena|mina|planta|llamad[oa]|denominad[oa]|de nombre|se llama\w*|nombre)(?:\s+#?\d+)?"
)
# Una cantera de un mineral no metálico (caliza, yeso, cuarzo…) es minería (DS 40, Art. 3, literal i.1),
# no extracción de áridos (i.5), que se mide en m³.
_CANTERA_DE_MINERAL = re.compile(
    r"\b(caliza|yeso|cuarzo|caolin\w*|feldespato|puzolana|marmol|diatomita|baritina|talco|bentonita"
    r"|carbonato de calcio|como mineral)\b"
)
# Una mina dicha como tal: sus relaves y botaderos son partes de ella, no el tipo del proyecto.
_MINA = re.compile(r"\b(mina|rajo|yacimiento|explotacion|explotar|extraer|extraccion de mineral)\b")
_PARTES_DE_UNA_MINA = ("deposito_relaves", "botadero_esteriles")
# Un proyecto descrito con su extracción de mineral es una explotación aunque no lo diga; con toneladas
# al mes, «faena» es la faena minera, y un proyecto «de cobre» o «de extracción», una mina.
FAENA_DESCRITA = re.compile(
    r"\b(mina|rajo|yacimiento|mineral|explot\w*|faena|subterranea|concentrado|extraccion|extraer|pirquin\w*"
    r"|(proyecto|faena|empresa) miner[oa]s?"
    r"|(proyecto|faena|explotacion|extraccion|mina|planta) de (cobre|oro|plata|hierro|litio|molibdeno|zinc"
    r"|plomo|carbon|manganeso|yodo|nitratos?|caliza))\b"
)


@dataclass
class Entidades:
    proyecto_id: int | None = None
    nombre: str | None = None
    region: str | None = None
    comuna: str | None = None
    tipo: str | None = None
    cliente: str | None = None
    cantidades: dict[str, float] = field(default_factory=dict)
    # Conversiones hechas para llegar a las unidades del motor («66.000 t/año ÷ 12 = 5.500 t/mes»).
    supuestos: list[str] = field(default_factory=list)
    # Efectos del Art. 11 dichos con palabras de faena («hay que relocalizar a 12 familias»).
    circunstancias: list[CircunstanciaDicha] = field(default_factory=list)
    # Otras partes de la faena que pueden hacerla ingresar («un mineroducto de 30 km» → letra j).
    componentes: dict[str, float | bool] = field(default_factory=dict)
    # Las áreas protegidas en que se sitúa el proyecto («el predio está en el parque nacional»), sin polígono.
    areas: list[AreaDicha] = field(default_factory=list)
    # El nombre se dijo como el de un proyecto («el proyecto «X»», «llamado X»), no como un término citado.
    nombre_de_proyecto: bool = False


def extraer_entidades(
    texto: str, *, proyecto_activo: int | None = None, proyecto_mio: int | None = None
) -> Entidades:
    """Proyecto (#12, «nombre», «llamado X», «este proyecto», «mi proyecto»), región, comuna, tipo y
    cantidades."""
    normal = " ".join(sin_tildes(texto).split())
    e = Entidades()
    if numero := re.search(r"(?:#|proyecto\s+(?:n[°º.]?\s*)?)(\d+)\b", texto, re.IGNORECASE):
        e.proyecto_id = int(numero.group(1))
    elif re.search(r"\beste proyecto\b|\besto\b", normal) and proyecto_activo:
        e.proyecto_id = proyecto_activo
    elif MI_PROYECTO.search(normal) and proyecto_mio:
        e.proyecto_id = proyecto_mio
    if citado := re.search(r"[«\"“']([^»\"”']{2,120})[»\"”']", texto):
        e.nombre = citado.group(1).strip()
        # «el proyecto "Mina Sur"» nombra un proyecto; «las DIA con "cargas ambientales"» cita un término.
        e.nombre_de_proyecto = bool(re.search(_ANTES_DE_UN_NOMBRE + r"\s*$", texto[: citado.start()], re.I))
    elif (
        nombrado := re.search(
            r"\bproyecto\s+((?:[A-ZÁÉÍÓÚÑ][\wáéíóúñüÁÉÍÓÚÑ'-]*)(?:\s+(?:de\s+|del\s+)?[A-ZÁÉÍÓÚÑ0-9][\wáéíóúñüÁÉÍÓÚÑ'-]*)*)",
            texto,
        )
    ) and not _es_sigla(nombrado.group(1)):
        e.nombre, e.nombre_de_proyecto = nombrado.group(1).strip(), True
    elif llamado := re.search(
        r"\b(?:llamad[oa]|denominad[oa]|de nombre)\s+"
        r"(.+?)(?=\s+(?:en|de|con|ubicad[oa]|para|que)\s|[,.;:]|$)",
        texto,
        re.IGNORECASE,
    ):
        e.nombre, e.nombre_de_proyecto = llamado.group(1).strip(), True
    e.region = proyectos.region_mencionada(texto=texto)
    if comuna := re.search(r"\bcomuna de ([a-z\s]+?)(?=\s+(?:en|de|con)\s|[,.;]|$)", normal):
        e.comuna = comuna.group(1).strip()
    if not e.region and (nombrada := _comuna_nombrada(texto, e.comuna)):
        # «un pozo en Quillota», «en la comuna de Los Andes»: la comuna dice la región.
        e.comuna, e.region = nombrada.nombre, nombrada.region.nombre
    e.tipo = next((tipo for patron, tipo in _TIPOS if patron.search(normal)), None)
    if e.tipo in _PARTES_DE_UNA_MINA and _MINA.search(normal):
        e.tipo = "explotacion"  # «una mina … con botadero»: el botadero es una parte de la mina
    if cliente := re.search(
        r"\bcliente\s+[«\"“]?(.+?)[»\"”]?(?=\s+(?:en|con|ubicad[oa]|que|llamad[oa])\s|[,.;:]|$)",
        texto,
        re.IGNORECASE,
    ):
        e.cliente = cliente.group(1).strip()
    dichas = cantidades_dichas(normal)
    e.cantidades, e.supuestos = dichas.valores, dichas.supuestos
    e.circunstancias = circunstancias_dichas(texto)
    e.areas = areas_dichas(texto)
    e.componentes = componentes_dichos(normal, e.supuestos)
    if (
        e.tipo is None
        and "capacidad_extraccion_t_mes" in e.cantidades
        and (FAENA_DESCRITA.search(normal) or pide_via(normal))
    ):
        # toneladas al mes de algo que pregunta si ingresa: la capacidad de extracción de una faena
        e.tipo = "explotacion"
    if e.tipo is None and "plataformas" in e.cantidades:
        # plataformas de una campaña («exploración con 39 plataformas»): se cuentan por el literal i.2
        e.tipo = "prospeccion"
    # una cantera de mineral, o medida en toneladas de mineral y no en m³ de áridos, es una explotación
    en_toneladas = "capacidad_extraccion_t_mes" in e.cantidades and not any(
        campo.startswith("aridos_") for campo in e.cantidades
    )
    if e.tipo == "aridos_pozo" and (_CANTERA_DE_MINERAL.search(normal) or en_toneladas):
        e.tipo = "explotacion"
    return e


def _comuna_nombrada(texto: str, comuna: str | None) -> Comuna | None:
    if comuna:
        try:
            return proyectos.comuna_resolver(texto=comuna)
        except proyectos.ErrorDeTerritorio:
            return None
    return proyectos.comuna_mencionada(texto=texto)


# Una pregunta jurídica que trae cifras («¿se puede repartir una faena de 8.000 t/mes entre dos
# sociedades?», «¿en cuántos días se califica la Declaración de una planta de 2.500 t/mes?») es de
# la ley, no un proyecto que evaluar: lo decide la clase de pregunta (sus familias), no una cifra.
_FAMILIAS_JURIDICAS = frozenset(
    {
        "plazo",
        "sancion",
        "definicion",
        "contenido",
        "participacion",
        "consulta_indigena",
        "permiso",
        "caducidad",
        "composicion",
        "recursos",
    }
)
_PIDE_VIA = re.compile(
    r"\b(ingres|entr|va|van|ir|qued)\w*\b[^.?]{0,25}\b(al|del|en el) seia\b"
    # «¿esto obliga a un EIA?», «¿corresponde un Estudio?», «¿tenemos que presentar una DIA?»
    r"|\b(oblig|toca|corresponde|debemos|debe|tenemos que|tiene que|hay que|exige|requiere|necesita)\w*\b"
    r"[^.?]{0,30}(\b(hacer|presentar|ir por|ingresar por|elaborar|un|una)\b[^.?]{0,10})?"
    r"\b(eia|dia|estudio|declaracion)\b"
    r"|\b(que|cual) (instrumento|via)\b|\b(que|cual) (corresponde|aplica)\s*\?"
    # al final de una descripción, «¿ingresa?», «¿cómo entra?», «¿tiene que evaluarse ambientalmente?»
    r"|\b(ingresa|entra|ingresaria|entraria|ingresamos|entramos)\s*\?"
    r"|\b(tiene|tienen|tenemos|tendria|tendriamos|debe|deben|debemos|deberia|deberiamos|hay) que "
    r"(ingresar|entrar|evaluarse)\b|\b(debe|deben|debemos|deberia|deberiamos) (ingresar|entrar)\b"
    r"|\bevaluar\w* ambientalmente\b|\brequiere\w* (de )?evaluacion ambiental\b"
    r"|\b(requiere|requieren|necesita|necesitan|exige|exigen)\b[^.?]{0,12}\bseia\b"
)


def pregunta_juridica(texto: str) -> bool:
    """Indica si el mensaje pregunta por la ley aunque describa un proyecto: pregunta por fraccionar,
    o es de una familia jurídica (plazos, recursos, permisos…) sin preguntar si ingresa ni por qué vía."""
    familias = set(familias_de(texto))
    if "fraccionamiento" in familias:
        return True
    return bool(familias & _FAMILIAS_JURIDICAS) and not pide_via(texto)


def pide_via(texto: str) -> bool:
    """Indica si el mensaje pregunta por el ingreso del proyecto o por su vía (DIA o EIA)."""
    return bool(set(familias_de(texto)) & {"ingreso", "eia_o_dia"}) or bool(_PIDE_VIA.search(texto))


# Un proyecto dicho solo por sus partes («un polvorín para 30 t de explosivos», «un tranque con muro de
# 8 m»): cada parte es de una faena minera, y sus literales (a, b, c, i.6, j, ñ…) no dependen del tipo.
TIPO_DE_LAS_PARTES = "explotacion"


def solo_partes(e: Entidades, texto: str) -> bool:
    """Indica si el mensaje describe un proyecto solo por partes que el motor sabe leer, sin su tipo o
    sin la cantidad del tipo, y pregunta si ingresa: el motor lo evalúa por sus partes."""
    if not hay_partes(e.componentes):
        return False
    if e.tipo is None:
        return pide_via(texto)
    # con un tipo sin su cantidad («una planta que fabricará explosivos»), la pregunta misma pide la vía: «no
    # entraba al SEIA» en lo que se cuenta de un proyecto no la pide
    return not cantidades_del_tipo(e) and pide_via(nucleo_de_la_pregunta(texto))


def cantidades_del_tipo(e: Entidades) -> bool:
    """Indica si el mensaje trae alguna de las cantidades con que se decide el ingreso de su tipo."""
    requeridas = CANTIDADES_REQUERIDAS.get(e.tipo or "", ())
    return any(campo in e.cantidades for campo in requeridas)


def tipo_sin_cantidad(e: Entidades, texto: str) -> bool:
    """Indica si el mensaje describe, con su región, un proyecto cuyo tipo ingresa cualquiera sea su
    tamaño (explotar petróleo o gas, DS 40 Art. 3 i.4) y pregunta si ingresa: sin la región es una
    pregunta por la ley («¿los proyectos de gas ingresan?»)."""
    return (
        e.tipo in CANTIDADES_REQUERIDAS
        and not CANTIDADES_REQUERIDAS[e.tipo]
        and bool(e.region)
        and pide_via(texto)
    )


def _es_sigla(texto: str) -> bool:
    """«EIA», «DIA», «SEIA»: siglas que siguen a «proyecto» sin ser un nombre."""
    return texto.strip().isupper() and len(texto.strip()) <= 5
