"""Familias de pregunta, reconocidas sin modelo (como el enrutador de la semilla 001).

Cada familia tiene dos lados:
- `pregunta`: expresiones que la reconocen en la consulta (en minúsculas y sin tildes);
- `afinidad`: expresiones que reconocen los fragmentos de esa clase en el encabezado del artículo o
  en el texto del fragmento (el epígrafe «Reserva de información», el inicio «Los proyectos … que
  deberán someterse…», «Permiso para la corta…»).

La búsqueda usa la afinidad como rasgo del reordenamiento y para traer sus anclas (los artículos de
ley o reglamento de esa clase) al grupo que se reordena; la respuesta usa la familia para elegir la
oración (la de los días en una pregunta de plazo). Una pregunta puede tener varias familias o
ninguna. Son expresiones de la estructura de la ley, no de preguntas concretas: siguen valiendo
cuando crece el corpus.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
from django.db import connection

from config.texto import sin_tildes
from normativa.models import FragmentoLegal, Norma
from normativa.selectors import por_estado_del_corpus


@dataclass(frozen=True)
class Familia:
    nombre: str
    descripcion: str
    pregunta: re.Pattern[str]
    afinidad: re.Pattern[str]
    # Una familia que es una forma de preguntar (cuánto tiempo) y no un tema: cuenta solo si lo
    # preguntado la dice; «se vencieron los plazos…, ¿se entiende aprobada?» no pide un plazo.
    solo_preguntada: bool = False


def _re(patron: str) -> re.Pattern[str]:
    return re.compile(patron)


# Expresión de tiempo o de veces en un texto legal: «quince días», «30 días hábiles», «dos veces».
_NUMERAL = (
    r"(\d+|un|una|dos|tres|cuatro|cinco|seis|siete|ocho|nueve|diez|once|doce|quince|veinte|treinta|"
    r"cuarenta|cincuenta|sesenta|noventa|ciento (?:veinte|ochenta)|doscientos)"
)
TIEMPO = re.compile(rf"\b{_NUMERAL}\s*(\(\d+\)\s*)?(dias|meses|anos|horas|veces)\b|\b\d{{1,2}}:\d{{2}}\b")

FAMILIAS: tuple[Familia, ...] = (
    Familia(
        "plazo",
        "plazos, prórrogas y número de veces",
        _re(
            r"\bplazos?\b|\bcuant[oa]s? (dias|meses|anos|tiempo|veces)\b|\bmas tiempo\b|\bprorrog|"
            r"\bextension\b|\bampliar? el plazo|\bvence\w*\b|\bdentro de cuanto|"
            # «¿cuánto demora?», «¿cuánto se puede demorar?», «¿cuánto nos va a tardar?»
            r"\bcuanto( \w+){0,3} (demor|tard|dur)(a|an|ar|aria|ara)\b|"
            r"\bhorario\b|\ben que (momento|fecha)|\bhasta cuando\b"
            # «¿a estas alturas se admite?», «¿todavía podemos?», «¿estamos a tiempo?»: si algo aún se
            # puede hacer lo decide un plazo
            r"|\ba (esta|estas) alturas?\b|\btodavia (se )?(puede|pueden|podemos|podria|estamos)\b"
            r"|\b(estamos|esta|estan) a tiempo\b|\b(fuera|dentro) de plazo\b"
        ),
        _re(r"\bplazos?\b|\bdentro de(l)? (los )?\w+ dias\b|\bextension del plazo|\bprorroga"),
        solo_preguntada=True,
    ),
    Familia(
        "sancion",
        "infracciones y sanciones",
        _re(r"\bsancion\w*|\bmultas?\b|\binfraccion\w*|\bclausura|\bsancionar|\bcastig"),
        _re(r"\binfraccion\w*|\bsancion\w*|\bmultas?\b"),
    ),
    Familia(
        "definicion",
        "definiciones legales",
        _re(r"^\W*(que (es|son|significa|se entiende por)|como (se )?define|definicion)"),
        _re(r"se entendera por|para los efectos de (esta ley|este reglamento)"),
    ),
    Familia(
        "contenido",
        "contenido y requisitos de un documento",
        _re(
            r"\bque (debe|deben|tiene que|tienen que) (contener|incluir|traer|llevar)"
            r"|\bcontenidos? (minimo )?de\b"
            r"|\brequisitos?\b|\bque (antecedentes|informacion|documentos)\b"
        ),
        _re(r"\bcontenidos? minimos?\b|\bdebera(n)? contener\b|\brequisitos?\b|\bantecedentes\b"),
    ),
    Familia(
        "eia_o_dia",
        "cuándo corresponde un EIA y no una DIA",
        _re(
            r"\beia\b.*\bdia\b|\bdia\b.*\beia\b|\bestudio\b.*\bdeclaracion\b|\bdeclaracion\b.*\bestudio\b"
            r"|\bestudio de impacto\b|\bcuando (se )?(requiere|exige|corresponde) un (eia|estudio)"
        ),
        _re(
            r"requeriran la elaboracion de un estudio|generan? o presenta\w* (alguno de )?los efectos"
            r"|efectos, caracteristicas o circunstancias|\bestudio de impacto ambiental, si\b"
        ),
    ),
    Familia(
        "ingreso",
        "ingreso al SEIA por tipología",
        _re(
            r"\b(debe|deben|tiene que|tienen que|necesita|requiere|obligad\w*) (a )?"
            r"(entrar|ingresar|someterse)"
            r"|\b(entrar|ingresar|ingreso|someterse)( \w+)? al (seia|sistema)|\brequiere (rca|evaluacion)"
            r"|\bevaluacion ambiental\b|\bpor si sol[oa]\b|\btipologia|\bnecesita rca\b"
        ),
        _re(
            r"deberan someterse al sistema|tipos de proyectos o actividades"
            r"|\bsometerse al sistema de evaluacion"
        ),
    ),
    Familia(
        "pertinencia",
        "consulta de pertinencia de ingreso",
        _re(
            r"\bpertinencia\b|\bconsult\w* (al sea )?si (debo|debe|tengo|tiene)"
            # preguntar al SEA «si» se ingresa: la consulta de pertinencia sin nombrarla
            r"|\b(pregunt|consult)\w* (al|a la) (sea|servicio|direccion regional)\b[^.?]*\bsi\b"
        ),
        _re(r"\bpertinencia\b"),
    ),
    Familia(
        "modificacion",
        "modificación de un proyecto o de su RCA",
        _re(r"\bmodific\w*|\bampliaci\w*|\bcambios? de consideracion|\bampliar (el|la|nuestr\w*)\b"),
        _re(r"\bmodificaci\w*|\bcambios? de consideracion"),
    ),
    Familia(
        "fraccionamiento",
        "fraccionamiento de proyectos",
        _re(
            r"\bfraccion\w*|\bpor partes\b|\bpor etapas\b"
            # dividir o separar en varios proyectos: fraccionar dicho en la faena
            r"|\b(divid|separ)\w*\b[^.?]*\bproyectos?\b"
        ),
        _re(r"\bfraccion\w*|\bpor etapas\b"),
    ),
    Familia(
        "participacion",
        "participación ciudadana",
        _re(
            r"\bparticipacion (ciudadana|de la comunidad)|\bobservaciones ciudadanas|\bavisos?\b|\bradial\w*"
            r"|\bextracto\b|\bla comunidad\b|\bciudadan\w*"
        ),
        _re(r"\bparticipacion\b|\bobservaciones\b|\bextracto\b|\bradiodifusion\b|\bavisos?\b"),
    ),
    Familia(
        "consulta_indigena",
        "consulta a pueblos indígenas",
        _re(
            r"\bindigena\w*|\bpueblos? originario\w*|\bconvenio 169\b"
            r"|\bcomunidades? (mapuche|aymara|atacamen)"
        ),
        _re(r"\bindigena\w*|\bpueblos? originario\w*"),
    ),
    Familia(
        "permiso",
        "permisos ambientales sectoriales (PAS)",
        _re(r"\bpas\b|\bpermisos? (ambiental(es)? )?sectorial\w*|\bque permisos?\b|\bpermisos? (de|para)\b"),
        # el epígrafe del permiso abre una línea del artículo, aunque sea largo (no se lee como epígrafe)
        _re(
            r"(?m)^permiso (para|de)\b|\bpermisos? ambientales? sectoriales?\b"
            r"|\brequisitos para su otorgamiento"
        ),
    ),
    Familia(
        "caducidad",
        "caducidad de la RCA",
        _re(
            r"\bcaduc\w*|\bpierde (su )?vigencia|\bsin (ejecutar|iniciar|comenzar)\b.*\banos\b"
            # que la RCA «se caiga», que no se haya empezado la obra: caducidad dicha en la faena
            r"|\bcae\w*\b[^.?]*\b(rca|resolucion|calificacion)\b|\b(rca|resolucion)\b[^.?]*\bcae\w*\b"
            r"|\bno (hemos |han |hayamos )?(empez|comenz|inici)\w* "
            r"(a construir|la (construccion|ejecucion|obra))"
        ),
        _re(r"\bcaduc\w*"),
    ),
    Familia(
        "composicion",
        "quiénes integran un órgano o cuáles son sus funciones: la respuesta es una lista",
        _re(
            r"\b(quienes|que|cuales)\b[^.?]*\b(integran|componen|conforman|forman parte)\b"
            r"|\bcuales son (las|los|sus) (funciones|atribuciones|facultades|integrantes|miembros)\b"
            r"|\bque (funciones|atribuciones|facultades) tiene\b"
            r"|\b(que|cuales) (son )?(los |las )?(criterios|circunstancias|factores)\b"
            # «¿qué toma en cuenta el juez al decidir?»: preguntar eso es preguntar por sus criterios
            r"|\bque (se )?(toma|toman|tomara|tomaran|tiene|tienen) en (cuenta|consideracion)\b"
            r"|\bque (considera|consideran|considerara|consideraran|pondera|ponderan)\b"
            r"( \w+){0,4} (para|al)\b"
        ),
        # «integrado por:», «Corresponderá al Servicio:»: así anuncia la ley a los miembros o las funciones
        _re(
            r"\bintegrad[oa]s? por\b|\bcompuest[oa]s? por\b|\bfunciones y atribuciones\b"
            r"|\bcorrespondera (especialmente )?(al|a la|a los) [^:.]{3,80}:"
            r"|\b(las|los) siguientes (circunstancias|criterios|factores)\b"
        ),
    ),
    Familia(
        "recursos",
        "recursos y reclamaciones",
        _re(
            r"\breclam\w*|\brecurs\w* (de|contra|ante)\b|\bimpugn\w*|\brecurrir\b|\bapelar\b"
            r"|\btribunal(es)? ambiental\w*|\bcomite de ministros\b|\brechaz\w*"
        ),
        _re(r"\breclamacion\b|\brecursos?\b|\btribunal ambiental\b|\bcomite de ministros\b"),
    ),
    # DS 40, Título VI: lo que no se puede mitigar se repara, y lo que no se puede reparar se compensa.
    Familia(
        "medidas",
        "medidas de mitigación, reparación y compensación",
        # «reparar», no «repartir»: mitigar, reparar y compensar son las tres clases de medida.
        _re(r"\bmitig\w*|\brepar(a|an|ar|amos|acion|aciones|e|en|emos|ad[oa]s?)\b|\bcompens\w*"),
        _re(r"\bmedidas de (mitigacion|reparacion|compensacion)\b"),
    ),
    # Ley 19.300 Arts. 31 bis y siguientes: el derecho a la información ambiental en poder del Estado.
    Familia(
        "informacion",
        "acceso a la información ambiental",
        _re(
            r"\bacceso a la informacion\b|\binformacion (ambiental|publica)\b|\btransparencia\b"
            r"|\bderecho a (pedir|ver|conocer|acceder|solicitar|saber)\b"
            r"|\b(pedir|solicitar|ver|conocer|revisar)\w* (los |las )?(monitoreos|reportes|informes|datos)\b"
        ),
        _re(r"\binformacion ambiental\b|\bacceso a la informacion\b"),
    ),
    # DS 40 Art. 76: el Servicio interpreta las resoluciones de calificación ambiental.
    Familia(
        "interpretacion",
        "interpretación de una resolución de calificación ambiental",
        _re(
            r"\binterpret\w*|\bquis\w* decir\b|\b(entiende|entienden|lee|leen)\w* (distinto|diferente)"
            r"|\bsentido y alcance\b"
        ),
        _re(r"\binterpret\w*"),
    ),
    # DS 40 Art. 164: someter un proyecto al SEIA sin estar obligado.
    Familia(
        "voluntario",
        "ingreso voluntario al SEIA",
        _re(r"\bvoluntari\w*|\bsin estar obligad\w*|\baunque no (sea|este) obligatori\w*"),
        _re(r"\bvoluntari\w*"),
    ),
)
POR_NOMBRE = {f.nombre: f for f in FAMILIAS}


def familias_de(consulta: str, *, preguntado: str | None = None) -> tuple[str, ...]:
    """Nombres de las familias que reconoce la consulta, en el orden de `FAMILIAS`. Con `preguntado`
    (lo que la consulta pregunta, sin la historia que lo antecede), las familias que son una forma de
    preguntar cuentan solo si están en él."""
    texto = " ".join(sin_tildes(consulta).split())
    nucleo = texto if preguntado is None else " ".join(sin_tildes(preguntado).split())
    return tuple(
        f.nombre
        for f in FAMILIAS
        if f.pregunta.search(texto) and (not f.solo_preguntada or f.pregunta.search(nucleo))
    )


def afin(familias: tuple[str, ...], texto: str) -> bool:
    """Indica si el texto (encabezado o inicio del fragmento, sin tildes) es de la clase de alguna familia."""
    return any(POR_NOMBRE[nombre].afinidad.search(texto) for nombre in familias)


_PLAZO = next(f for f in FAMILIAS if f.nombre == "plazo")

# Las raíces con que se pregunta por un plazo («¿con cuántos días de anticipación?», «¿cuánto
# tiempo?», «¿cuántas veces?»): dicen qué clase de dato se pide, no de qué trata la pregunta.
RAICES_DE_PLAZO = frozenset(
    {"plaz", "dias", "mes", "anos", "hor", "habil", "antic", "tiemp", "cuant", "vec", "demor", "tard", "dur"}
)


# «¿cuánto…?», «¿qué monto…?», «¿qué umbral?», el máximo o el mínimo de una multa: pide una cifra.
_PIDE_CIFRA = re.compile(
    r"\bcuant[oa]s?\b(?! (tiempo|dias|meses|anos|demora|tarda|dura))|\bmonto\b|\bumbral\b"
    # «como mínimo», «lo máximo posible» no piden una cifra: dicen cuánto de algo se pide
    r"|(?<!como )(?<!lo )\b(maxim|minim)[oa]s?\b"
)
# «¿qué criterios considera para determinar el monto…?» pide la lista de criterios, no el monto
_PIDE_LOS_CRITERIOS = re.compile(
    r"\b(criterios?|circunstancias?|factores|elementos)\b.*\bmonto\b|\bcomo se (determina|calcula|fija)"
)


def _plano(texto: str) -> str:
    """En minúsculas, sin tildes y con un solo espacio entre palabras: como se escriben los patrones."""
    return " ".join(sin_tildes(texto).split())


def pide_cifra(consulta: str) -> bool:
    """Indica si la consulta pide una cifra: un monto, un umbral, un máximo."""
    normal = _plano(consulta)
    return bool(_PIDE_CIFRA.search(normal)) and not _PIDE_LOS_CRITERIOS.search(normal)


def pide_plazo(consulta: str) -> bool:
    """Indica si la consulta pide un plazo: «¿en cuánto tiempo?», «¿hasta cuándo?»."""
    return bool(_PLAZO.pregunta.search(_plano(consulta)))


# Lo que se hace en el plazo preguntado: el verbo en infinitivo que sigue a «¿qué plazo…?», «¿cuántos
# días…?», «¿hasta cuándo…?» («… debe resolver el Comité», «… tiene la SMA para pronunciarse»); no el
# órgano que lo hace, que la ley suele nombrar de otro modo («la autoridad competente resolverá»).
_LO_QUE_SE_HACE_EN_EL_PLAZO = re.compile(
    r"\b(?:plazos?|cuant[oa]s? (?:dias|meses|anos|tiempo|horas)|hasta|dentro de cuanto)\b((?:\s+\S+){0,8})"
)
_INFINITIVO = re.compile(r"\b([a-zñ]{3,})(?:ar|er|ir)(?:se|lo|la|los|las)?\b")
# verbos que solo acompañan («pedir» reposición es interponerla), y palabras que terminan como un
# infinitivo sin serlo
_AUXILIARES = frozenset(
    {
        "ten", "deb", "pod", "hab", "est", "hac", "ped", "titul", "lug", "particul", "simil", "may", "men",
        "anteri", "posteri", "superi", "inferi", "interi", "exteri",
    }
)  # fmt: skip
RAIZ_LARGA = 6  # una raíz más larga que esto y una letra se acorta: «interpon» → «interp» (interpuesto)


def acciones_del_plazo(consulta: str) -> frozenset[str]:
    """La raíz de lo que se hace en el plazo que la consulta pide (el infinitivo sin su terminación):
    «¿En qué plazo debe resolver el Comité…?» → {resolv}, que está en «resolverá» y no en «resolución»;
    «… hay que pagarla?» → {pag}, que está en «pague». Vacío si no pide un plazo o no dice qué se hace."""
    # sin lo que aclara una sigla: «SEA (Servicio de Evaluación Ambiental)»
    normal = re.sub(r"\([^)]*\)", " ", _plano(consulta).lower())
    if not pide_plazo(normal):
        return frozenset()
    return frozenset(
        m.group(1)[:RAIZ_LARGA] if len(m.group(1)) > RAIZ_LARGA + 1 else m.group(1)
        for pedido in _LO_QUE_SE_HACE_EN_EL_PLAZO.finditer(normal)
        for m in _INFINITIVO.finditer(pedido.group(1))
        if m.group(1) not in _AUXILIARES
    )


_CLAUSULA = re.compile(r"(?<=[.;:])\s+")


def hace_en_el_plazo(acciones: frozenset[str], texto: str) -> bool:
    """Si alguna cláusula del texto (entre puntos, puntos y comas o dos puntos) trae un plazo y una de
    las `acciones`: «La autoridad competente resolverá… en un plazo fatal de treinta o sesenta días»
    sí para {resolv}; «De lo resuelto… se podrá reclamar dentro del plazo de treinta días», no."""
    if not acciones:
        return False
    for clausula in _CLAUSULA.split(_plano(texto).lower()):
        if TIEMPO.search(clausula):
            palabras = re.findall(r"[a-zñ]+", clausula)
            if any(p.startswith(accion) for accion in acciones for p in palabras):
                return True
    return False


# Una cifra en palabras es la secuencia entera («cinco mil», «ciento veinte mil»), no su última palabra.
EN_PALABRAS = (
    r"(?:(?:un|una|uno|dos|tres|cuatro|cinco|seis|siete|ocho|nueve|diez|once|doce|quince|veinte|veinticinco"
    r"|treinta|cuarenta|cincuenta|sesenta|setenta|ochenta|noventa|cien|ciento|doscient[oa]s|trescient[oa]s"
    r"|cuatrocient[oa]s|quinient[oa]s|mil|millon|millones)(?: y |\s)?)+"
)

# «¿cuántos avisos…?», «¿cuántas plataformas…?»: pide contar algo que no es tiempo.
_CUANTOS = re.compile(r"\bcuant[oa]s (?!(?:dias|meses|anos|horas|veces)\b)([a-zñ]{4,})")


def lo_que_se_cuenta(consulta: str) -> str:
    """Lo que la consulta pide contar («¿cuántas plataformas…?» → «plataformas»), o «»."""
    m = _CUANTOS.search(_plano(consulta))
    return m.group(1) if m else ""


def contados(nombre: str, texto: str) -> str:
    """«al menos cinco avisos», «cuarenta (40) o más plataformas»: cuántos de `nombre` dice el texto,
    o «»."""
    raiz = re.escape(nombre[:5])
    patron = (
        rf"\b(?:(?:al menos|a lo menos|hasta) )?(?:\d[\d.,]*|{EN_PALABRAS})(?: \([\d.,]+\))?"
        rf"(?: o m[aá]s)? {raiz}\w*"
    )
    m = re.search(patron, texto, re.IGNORECASE)
    return m.group(0).strip() if m else ""


# Un plazo que se suma a otro: la ampliación o prórroga del plazo, la etapa nueva que se abre («esta vez
# por treinta días»), los días adicionales. La ley suele decir el plazo y luego su ampliación.
_AMPLIACION = re.compile(r"\b(ampli\w*|prorrog\w*|adicional\w*|nueva etapa|esta vez|suspend\w*)\b")


_PIDE_AMPLIACION = re.compile(
    r"\b(ampli\w*|prorrog\w*|adicional\w*|extension|suspend\w*|mas tiempo|nuev[oa]s?|nuevamente"
    r"|otra vez|de nuevo|reabr\w*|repit\w*|repet\w*)\b"
)


def pide_ampliacion(consulta: str) -> bool:
    """Indica si la consulta pregunta por la ampliación o prórroga de un plazo o por una etapa que se
    repite («¿se repite la etapa de observaciones?»)."""
    return bool(_PIDE_AMPLIACION.search(_plano(consulta)))


def nombra_ampliacion(texto: str) -> bool:
    """Indica si el texto habla de una ampliación, prórroga o etapa nueva («hasta por sesenta días
    adicionales», «esta vez por diez días»)."""
    return bool(_AMPLIACION.search(_plano(texto)))


def solo_plazo_de_ampliacion(texto: str) -> bool:
    """Indica si el único plazo del texto es el de una ampliación o etapa nueva: «podrá ampliar el
    plazo… hasta por treinta días adicionales» no dice cuánto es el plazo mismo."""
    normal = _plano(texto)
    return len(TIEMPO.findall(normal)) == 1 and bool(_AMPLIACION.search(normal))


# Los trámites del procedimiento que tienen plazo propio: la participación ciudadana, la consulta a los
# pueblos indígenas, los informes de los órganos, la Adenda, la reclamación, la publicación del
# extracto, la admisión a trámite, la calificación. Un plazo de la ley es de uno de ellos: si la
# oración solo nombra trámites que la pregunta no nombra, su plazo es el de otro («la participación
# ciudadana por veinte días» no dice cuánto dura la evaluación de la DIA). Cada trámite, como lo dice
# la ley (estricto: «recursos naturales» no es un recurso) y como lo puede decir quien pregunta
# (amplio: «¿cuánto tiene la comunidad para opinar?»).
TRAMITES: dict[str, tuple[re.Pattern[str], re.Pattern[str]]] = {
    "participacion": (
        re.compile(r"\bparticipacion ciudadana|\bformular observaciones|\bobservaciones (ciudadanas|de la)"),
        re.compile(r"\bparticipacion|\bobserva\w*|\bopin\w*"),
    ),
    "consulta": (re.compile(r"\bconsulta\b|\bpueblos? indigenas?\b"), re.compile(r"\bconsulta|\bindigena")),
    "informe": (
        re.compile(r"\binform(ar|e|es|en|ara|aran)\b"),
        re.compile(r"\binform\w*|\borganismos\b|\borganos\b|\bservicios\b"),
    ),
    "adenda": (
        re.compile(r"\badendas?\b|\baclaraciones\b|\bicsara\b"),
        re.compile(r"\badendas?\b|\baclaraci\w*|\bicsara\b|\brectifica\w*|\bampliaciones\b"),
    ),
    "reclamacion": (
        re.compile(r"\breclam\w*|\brecursos? (de|jerarquico)|\bimpugn\w*"),
        re.compile(r"\breclam\w*|\brecurr\w*|\brecursos?\b|\bimpugn\w*|\bapela\w*"),
    ),
    "publicacion": (
        re.compile(r"\bextractos?\b|\bavisos? radiales\b"),
        re.compile(r"\bextractos?\b|\bavisos?\b|\bpublica\w*|\bradio\w*"),
    ),
    "admision": (
        re.compile(r"\badmi(te|ten|tir|sion|sibilidad|tida|tido)\b|\binadmisib\w*"),
        re.compile(r"\badmi\w*|\binadmisib\w*|\bingres\w*"),
    ),
    "calificacion": (
        re.compile(r"\bpronunci\w*|\bcalificar(a|an|se)?\b|\bcalifique\b"),
        re.compile(r"\bcalific\w*|\bpronunci\w*|\bevalua\w*|\baprob\w*|\baprueb\w*|\brechaz\w*|\bresolver\b"),
    ),
}


def tramites_de(texto: str, *, pregunta: bool = False) -> frozenset[str]:
    """Los trámites con plazo propio que nombra el texto, leído como ley o, con `pregunta`, como
    pregunta."""
    normal = _plano(texto)
    return frozenset(nombre for nombre, patrones in TRAMITES.items() if patrones[pregunta].search(normal))


def tiene_tiempo(texto: str) -> bool:
    """Indica si el texto (sin tildes) trae una expresión de tiempo o de veces."""
    return bool(TIEMPO.search(texto))


@dataclass(frozen=True)
class Aspecto:
    """Algo que la pregunta pide además de su tema, y cómo lo dice una oración de la ley: «¿ante
    quién?» quiere la oración que nombra el órgano; «¿qué arriesgamos?», la de la sanción o el efecto;
    «¿qué condición?», la de la exigencia. La oración que lo trae debe ir en la respuesta."""

    nombre: str
    pregunta: re.Pattern[str]
    respuesta: re.Pattern[str]
    # Cómo se dice, si la pide, que ninguna oración lo trae («la consecuencia»): sin esto, la falta del
    # aspecto no baja la seguridad.
    falta: str = ""
    # Lo que, dicho en la oración, hace que no lo responda aunque lo nombre.
    excepto: re.Pattern[str] | None = None

    def responde(self, texto: str) -> bool:
        """Si la oración (en minúsculas y sin tildes) trae el aspecto."""
        return bool(self.respuesta.search(texto)) and not (self.excepto and self.excepto.search(texto))


# Lo que la ley encarga a un reglamento («El Ministerio establecerá mediante un reglamento los
# requisitos…», «Un reglamento fijará…»).
_DELEGA = _re(
    r"\b(establecera|fijara|determinara|regulara|definira|senalara)n?\b[^.;]{0,30}\b(mediante|por|en) (un|el)"
    r" reglamento\b|\b(un|el) reglamento\b[^.;]{0,30}\b(establecera|fijara|determinara|regulara|definira"
    r"|senalara)n?\b"
)


ASPECTOS: tuple[Aspecto, ...] = (
    Aspecto(
        "quien",
        _re(
            r"\bquien(es)?\b|\bante (que|quien)\b|\b(que|cual) (organismo|autoridad|servicio|organo|tribunal)"
            # «¿la revisa alguien más?»: preguntar si alguien actúa es preguntar quién
            r"|\balguien\b"
            # «¿podemos impugnarla? ¿dónde?»: dónde se reclama es ante quién (el tribunal, el órgano)
            r"|\bdonde\b(?=.*\b(reclam|impugn|recurr|demand|apel|denunci)\w*)"
            r"|\b(reclam|impugn|recurr|demand|apel|denunci)\w*\b.*\bdonde\b"
        ),
        _re(
            r"\b(servicio|superintendencia|comites?|director\w* (ejecutivo|regional)|comision"
            r"|tribunal\w* ambiental\w*|ministerios?|municipalidad(es)?|alcaldes?|direccion\w* de obras"
            r"|consejos?|gobiernos? regional\w*|delegad\w* presidencial\w*|titular"
            r"|interesad\w*|directamente afectad\w*|de oficio|a peticion|cualquier persona"
            r"|organizaciones ciudadanas|personas naturales)\b"
        ),
    ),
    Aspecto(
        # Ser parte de un procedimiento es tener en él la calidad de interesado (Ley 19.880, Art. 21).
        "parte",
        _re(r"\b(es|son|sera|seran|queda\w*|hacer\w*|ser|soy|somos|tiene calidad de) (como )?parte\b"),
        _re(r"\b(calidad de interesad\w*|interesad[oa]s?|parte interesada|directamente afectad\w*)\b"),
    ),
    Aspecto(
        "consecuencia",
        _re(
            # «¿tiene alguna consecuencia?», «¿pasa algo si…?»: también sin «qué»
            r"\bque (pasa|sucede|ocurre|arriesg\w*)\b|\bque efectos?\b|\bconsecuencias?\b|\barriesg\w*"
            r"|\b(pasa|sucede|ocurre) algo\b"
            r"|\by si no\b|\bse (entiende|tiene por|considera) \w*(aprobad|rechazad|otorgad)\w*"
            r"|\bsancion\w*|\bmultas?\b"
        ),
        _re(
            # «hecho infraccional» es el hecho, no su consecuencia; la consecuencia de un acto sobre un
            # plazo es suspenderlo o interrumpirlo
            r"\b(se entendera\w*|se tendra\w* por|sancion\w*|multas?|infraccion(es)?|gravisima\w*|graves?"
            r"|se suspendera\w*|se interrumpira\w*|quedara\w* sin efecto"
            r"|presidio|clausura|revoca\w*|caducara\w*|aprobad[oa]s?|rechazad[oa]s?|fuerza publica"
            # la responsabilidad por el daño, no «el responsable del proyecto» (el titular) ni la «asignación
            # de responsabilidades» de un plan
            r"|responsabilidad(es)? (civil|penal|administrativa|ambiental|solidaria|por|del|de la|de los)\b"
            r"|(sera|seran|hara|haran|quedara|quedaran)\w* responsables?"
            r"|responsables? (del|de la|de los|por el|por la) (dano|perjuicio|infraccion)\w*)\b"
        ),
        falta="la consecuencia",
    ),
    Aspecto(
        "obligacion",
        _re(
            r"\bque (hay|tenemos|tengo|debo|debemos|tiene|tienen) que hacer\b|\bque (debe|deben|debo|debemos)"
            r" hacer\b|\bobligaci\w*|\bestamos obligad\w*"
        ),
        _re(r"\b(deberan?|debe|deben|obligad[oa]s?|tendran? que|estaran? obligad\w*)\b"),
    ),
    Aspecto(
        "condicion",
        _re(
            r"\bque (condicion|requisito|exigencia)\w*|\b(tiene|tienen|debe|deben|hay) que (lograr|cumplir|"
            r"acreditar)\b|\bpara que (lo|la|los|las|se) (den|otorguen|aprueben|autoricen)\b"
            r"|\bque (se )?(necesita\w*|necesito|requier\w*|exige\w*|pide\w*)\b"
        ),
        _re(
            r"\b(siempre que|a condicion de|requisitos?|condicion\w*|a fin de|con el objeto de|de manera que"
            r"|asegur\w*|permit\w*|equivalente\w*|deberan? (ser|tener|poseer|contar|cumplir|acreditar|reunir)"
            r"|se requerira"
            r"|requiere\w*|sera necesari\w*|sujet[oa]s? a que)\b"
        ),
        falta="la condición o el requisito que pide",
        # «Un reglamento establecerá … los requisitos» encarga decirlos a otra norma: no los dice
        excepto=_DELEGA,
    ),
)


# «¿Cada cuánto se revisa…?» pide una periodicidad, no un plazo: la responde «a lo menos cada cuatro
# años» o «anualmente», no el horizonte de un instrumento ni el plazo para dictarlo.
PERIODICIDAD = Aspecto(
    "periodicidad",
    _re(
        r"\bcada cuant[oa]s?\b|\bcon que (frecuencia|periodicidad|regularidad)\b"
        r"|\b(que|cual es la) (frecuencia|periodicidad)\b"
    ),
    _re(
        rf"\bcada {_NUMERAL}( \(\d+\))?( (dias|semanas|meses|anos))?\b|\bcada (dia|semana|mes|ano)\b"
        r"|\b(anual|semestral|trimestral|mensual|periodica)(mente)?\b|\buna vez (al|por) (ano|mes|semestre)\b"
    ),
    falta="cada cuánto",
)

# «¿Qué circunstancias considera…?», «¿cuáles son los requisitos…?»: pide una lista, que la oración
# anuncia («las siguientes circunstancias:») o nombra; la oración que solo comparte el tema no la trae.
_LO_ENUMERADO = (
    r"(circunstancias|criterios|factores|causales|requisitos|contenidos|antecedentes|elementos|materias)"
)
ASPECTOS += (
    PERIODICIDAD,
    # «¿Qué sanciones arriesga…?», «¿con qué se sanciona?»: la responde la sanción misma (la multa, la
    # clausura), no la oración que clasifica las infracciones o describe el procedimiento.
    Aspecto(
        "sancion",
        _re(
            r"\b(que|cuales|cual es la) (sancion|sanciones|penas?|castigos?)\b"
            r"|\b(con que|como) se (sanciona|castiga)"
        ),
        _re(
            r"\b(multas?|amonestacion\w*|clausura\w*|revocacion\w*|presidio|reclusion|suspension\w*|caducidad)\b"
        ),
        falta="la sanción",
    ),
    Aspecto(
        "lista",
        _re(rf"\b(que|cuales|cuales son (las|los)) {_LO_ENUMERADO}\b"),
        _re(rf"\b(las|los) siguientes\b|\blo siguiente\b|\b{_LO_ENUMERADO}\b"),
        falta="la lista que pide",
    ),
)


# La categoría de una infracción (Ley 20.417, Art. 36; Ley 21.600, Arts. 116 a 118): si la pregunta nombra
# una, la oración que la nombra es la que responde (la multa de otra categoría no).
CATEGORIAS = ("leve", "grave", "gravisima")
ASPECTOS += tuple(
    Aspecto(categoria, _re(rf"\b{categoria}s?\b"), _re(rf"\b{categoria}s?\b")) for categoria in CATEGORIAS
)


def categorias_de(texto: str) -> set[str]:
    """Las categorías de infracción que nombra un texto en minúsculas y sin tildes."""
    return {a.nombre for a in ASPECTOS if a.nombre in CATEGORIAS and a.responde(texto)}


def de_otra_categoria(pregunta: str, texto: str) -> bool:
    """El texto (en minúsculas y sin tildes) nombra solo categorías de infracción que la pregunta no
    pide: la multa de las graves no responde por las leves."""
    pedidas, nombradas = categorias_de(sin_tildes(pregunta)), categorias_de(texto)
    return bool(pedidas and nombradas and not pedidas & nombradas)


# «quien» sin tilde es el relativo («se sanciona a quien fracciona»), no la pregunta «¿quién?»; se
# distinguen solo si el texto escribe tildes (sin ninguna, puede ser cualquiera de los dos).
_QUIEN_RELATIVO = re.compile(r"\bquien(es)?\b", re.IGNORECASE)
_CON_TILDES = re.compile(r"[áéíóú]", re.IGNORECASE)


def aspectos_de(consulta: str) -> tuple[Aspecto, ...]:
    """Los aspectos que pide la consulta, además de su tema."""
    if _CON_TILDES.search(consulta):
        consulta = _QUIEN_RELATIVO.sub("aquel", consulta)
    texto = " ".join(sin_tildes(consulta).split())
    return tuple(a for a in ASPECTOS if a.pregunta.search(texto))


LARGO_ANCLA = 300  # el epígrafe y la primera oración del artículo
TIPOS_ANCLA = (Norma.Tipo.LEY, Norma.Tipo.DECRETO)
# «Artículo 156.-» en su propia línea: el inicio que se compara es lo que sigue (el epígrafe).
_NUMERO_DE_ARTICULO = re.compile(r"^\s*articulo\s+[\w° ]{1,30}\.?-?\s*\n", re.IGNORECASE)
# El epígrafe: la línea corta que sigue al número y termina en punto («Permiso para efectuar
# modificaciones de cauce.»).
_EPIGRAFE = re.compile(r"^([^\n.]{3,140})\.\s*\n")


@dataclass(frozen=True)
class _Anclas:
    por_familia: dict[str, list[int]]
    epigrafes: dict[int, frozenset[str]]  # lexemas del epígrafe de las anclas que tienen uno
    # Los embeddings (normalizados) de las anclas de alguna familia, una fila por ancla: la distancia
    # a la pregunta de miles de anclas es un producto de matrices, no una lectura de miles de filas.
    ids: np.ndarray
    vectores: np.ndarray
    filas_de: dict[str, np.ndarray]  # familia → sus filas en `vectores`


def anclas(nombre: str) -> list[int]:
    """Artículos completos (sin letra) de ley o reglamento cuyo inicio es de la clase de la familia.
    Se calculan una vez por estado del corpus (`estado_del_corpus`, que la ingesta refresca): contar
    los fragmentos vigentes en cada búsqueda costaba, a 100 000 fragmentos, la mitad de ella."""
    return _anclas_del_corpus().por_familia.get(nombre, [])


def anclas_por_cercania(familias: tuple[str, ...], vector: np.ndarray) -> dict[str, list[int]]:
    """Las anclas de cada familia que tienen embedding, de la más cercana a la pregunta a la más
    lejana (distancia coseno, como la búsqueda densa; a igual distancia, la de menor id)."""
    del_corpus = _anclas_del_corpus()
    consulta = np.asarray(vector, dtype=np.float32)
    consulta = consulta / (np.linalg.norm(consulta) or 1.0)
    cercanas = {}
    for nombre in familias:
        filas = del_corpus.filas_de.get(nombre, np.zeros(0, dtype=np.int64))
        similitudes = del_corpus.vectores[filas] @ consulta if len(filas) else np.zeros(0)
        orden = filas[np.argsort(-similitudes, kind="stable")]
        cercanas[nombre] = del_corpus.ids[orden].tolist()
    return cercanas


def lexemas_de_epigrafes(ids: list[int]) -> dict[int, frozenset[str]]:
    """Los lexemas del epígrafe de cada ancla de `ids` que lo tiene (los de la búsqueda de texto)."""
    epigrafes = _anclas_del_corpus().epigrafes
    return {pk: epigrafes[pk] for pk in ids if pk in epigrafes}


@por_estado_del_corpus
def _anclas_del_corpus() -> _Anclas:
    vigentes = FragmentoLegal.objects.filter(
        version__vigente=True, letra="", norma__tipo__in=TIPOS_ANCLA
    ).exclude(articulo="")
    inicios = [
        (pk, _NUMERO_DE_ARTICULO.sub("", sin_tildes(texto[:LARGO_ANCLA]), count=1))
        for pk, texto in vigentes.values_list("pk", "texto")
    ]
    por_familia = {f.nombre: [pk for pk, inicio in inicios if f.afinidad.search(inicio)] for f in FAMILIAS}
    de_alguna = {pk for ids in por_familia.values() for pk in ids}
    epigrafes = {
        pk: m.group(1).strip() for pk, inicio in inicios if pk in de_alguna and (m := _EPIGRAFE.match(inicio))
    }
    ids, vectores = _vectores_de(sorted(de_alguna))
    fila = {int(pk): i for i, pk in enumerate(ids)}
    filas_de = {
        nombre: np.asarray([fila[pk] for pk in miembros if pk in fila], dtype=np.int64)
        for nombre, miembros in por_familia.items()
    }
    return _Anclas(por_familia, _lexemas_de(epigrafes), ids, vectores, filas_de)


def _vectores_de(ids: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """(ids con embedding, en orden; sus embeddings normalizados)."""
    filas = FragmentoLegal.objects.filter(pk__en_arreglo=ids, embedding__isnull=False).order_by("pk")
    pares = list(filas.values_list("pk", "embedding"))
    if not pares:
        return np.zeros(0, dtype=np.int64), np.zeros((0, 0), dtype=np.float32)
    vectores = np.asarray([np.asarray(v, dtype=np.float32) for _, v in pares])
    vectores /= np.maximum(np.linalg.norm(vectores, axis=1, keepdims=True), 1e-12)
    return np.asarray([pk for pk, _ in pares], dtype=np.int64), vectores


def _lexemas_de(textos: dict[int, str]) -> dict[int, frozenset[str]]:
    """Los lexemas de cada texto, como los indexa la búsqueda de texto (español, sin tildes)."""
    if not textos:
        return {}
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT e.pk,
                   array(SELECT DISTINCT lexeme
                           FROM unnest(to_tsvector('spanish', normativa_sin_tildes(e.texto))))
              FROM unnest(%s::int[], %s::text[]) AS e(pk, texto)
            """,
            [list(textos), list(textos.values())],
        )
        return {pk: frozenset(lexemas) for pk, lexemas in cursor.fetchall() if lexemas}
