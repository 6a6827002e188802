"""Siglas y jerga: la pregunta coloquial las usa, la norma escribe el nombre.

«Me rechazaron la DIA» no comparte palabras con «Declaración de Impacto Ambiental», ni «concentraducto»
con «ductos mineros»: se agrega el nombre de la norma a la consulta (sin quitar lo que escribió el
usuario) para la búsqueda de texto completo y el reordenamiento.

Las siglas son las de la práctica del SEIA; la jerga, palabras de faena que la ley y el reglamento no
usan (se comprobó que no aparecen en ellos) y el término con que los nombran; también el habla común de
la fiscalización y los juicios («calcular la multa», «testigos», «paralizar la faena») y de los lugares y
aguas que la ley protege («observatorio», «aguas sin recarga») con las palabras de la ley.
"""

from __future__ import annotations

import re

from config.texto import sin_tildes

SIGLAS: dict[str, str] = {
    "DIA": "Declaración de Impacto Ambiental",
    "EIA": "Estudio de Impacto Ambiental",
    "RCA": "resolución de calificación ambiental",
    "SEA": "Servicio de Evaluación Ambiental",
    "SEIA": "Sistema de Evaluación de Impacto Ambiental",
    "SMA": "Superintendencia del Medio Ambiente",
    "MMA": "Ministerio del Medio Ambiente",
    "PAS": "permiso ambiental sectorial",
    "SNASPE": "Sistema Nacional de Áreas Silvestres Protegidas del Estado",
    "SBAP": "Servicio de Biodiversidad y Áreas Protegidas",
    "SINIA": "Sistema Nacional de Información Ambiental",
    "LOSMA": "Ley Orgánica de la Superintendencia del Medio Ambiente",
    "ADI": "área de desarrollo indígena",
    "DGA": "Dirección General de Aguas",
    "CONAF": "Corporación Nacional Forestal",
    "SERNAGEOMIN": "Servicio Nacional de Geología y Minería",
    "CMN": "Consejo de Monumentos Nacionales",
    "ICSARA": "Informe Consolidado de Solicitud de Aclaraciones, Rectificaciones o Ampliaciones",
    "ICE": "Informe Consolidado de Evaluación",
    "PAC": "participación ciudadana",
    "SAG": "Servicio Agrícola y Ganadero",
    "SEREMI": "Secretaría Regional Ministerial",
    "OAECA": "órganos de la Administración del Estado con competencia ambiental",
    "EAE": "Evaluación Ambiental Estratégica",
}

# Agregar después una pieza de la Declaración o del Estudio (ver JERGA).
_DESPUES = r"(despues|luego|mas adelante|posteriormente|mas tarde)"
_AGREGAR = r"(acompan|agreg|adjunt|incorpor|entreg|complet)\w*"
_PIEZA = r"(anexos?|capitulos?|informes?|estudios?|antecedentes|documentos?)"

# Jerga de faena (en minúsculas y sin tildes, como expresión regular) → término de la norma.
JERGA: dict[str, str] = {
    r"(concentra|minero|relave|relavero)ductos?": "ductos mineros",
    r"pozos? lastreros?|lastre|emprestitos?|graveras?": "extracción de áridos en pozos o canteras",
    r"tranques? de relaves?": "depósito de relaves",
    r"botaderos?( de esteriles| de lastre)?": "disposición de residuos y estériles",
    r"plantas? de chancado|chancado": "planta procesadora de minerales",
    r"campanas? de sondajes?|sondajes?": "prospecciones, plataformas de sondaje",
    r"rajo( abierto)?|mina subterranea": "explotación minera, proyecto de desarrollo minero",
    # Desviar, canalizar o entubar un curso de agua es modificar su cauce (Código de Aguas, Art. 41;
    # PAS del Art. 156 del DS 40); regularizarlo o defenderlo es otra obra (Art. 157).
    r"desvi\w*( \w+){0,5} (quebradas?|rios?|esteros?|cauces?)|canaliz\w*|entub\w*|"
    r"(quebradas?|rios?|esteros?) desviad\w*": "modificaciones de cauce",
    # Efectos del Art. 11 letra c) dichos en faena.
    r"relocaliz\w*|reubic\w*( a)? (las |los )?(familias|comunidad\w*|habitantes)": (
        "reasentamiento de comunidades humanas"
    ),
    r"trashumancia|veranadas?|crianceros?|arrieros?": "sistemas de vida y costumbres de grupos humanos",
    r"pirquen\w*|pirquiner\w*": "pequeña minería",
    # El consultor llama «umbral» a lo que el reglamento escribe como una cantidad «igual o superior a»
    # o «superior a» (Art. 3 del DS 40); la palabra no está en ninguna norma del corpus.
    r"umbral(es)?": "cantidad igual o superior a",
    # La Comisión o el Director Ejecutivo «se pronuncian» sobre una Declaración o un Estudio: eso es
    # lo que el consultor llama evaluarla, aprobarla o cuánto se demora.
    r"(evalu\w*|aprob\w*|demor\w*|tard\w*|calific\w*)\b[^.?]{0,25}\b(la|una|el|un|nuestra|nuestro) (dia|eia|"
    r"declaracion|estudio)\b": "plazo para pronunciarse",
    # Quién aprueba o rechaza un proyecto es quién lo califica: «Los proyectos serán calificados por una
    # Comisión…» (Ley 19.300, Art. 86) o el Director Ejecutivo si es interregional (Art. 9).
    r"quien(es)?( \w+){0,4} (aprueba|aprueban|aprobara|rechaza|rechazan|rechazara|vota|votan|decide|deciden"
    r"|resuelve|resuelven)( \w+){0,2} (si )?(se )?(aprueba|rechaza|el proyecto|la dia|el eia|la declaracion"
    r"|el estudio|los proyectos)": "calificación ambiental del proyecto, calificados por una Comisión",
    # «si no lo cumplimos» es, en la ley, el incumplimiento («en caso de incumplirse las obligaciones»).
    r"no (lo |la |los |las |le |les )?(cumpl\w*|cumpla\w*)": "incumplimiento, incumplirse",
    # «Entrar» o «ingresar» al SEIA es, en la ley, someterse al sistema de evaluación (Ley 19.300, Art. 8 y
    # 10); preguntarle antes al Servicio si hay que hacerlo es la consulta de pertinencia (DS 40, Art. 26).
    r"(entr|ingres)\w*( \w+){0,2} al? (seia|sistema de evaluacion)": (
        "someterse al sistema de evaluación de impacto ambiental"
    ),
    r"(pregunt|consult)\w*( \w+){0,3} al? (sea|servicio( de evaluacion ambiental)?)\b": (
        "consulta de pertinencia de ingreso, solicitar un pronunciamiento sobre si debe someterse"
    ),
    # Habla de la práctica del SEIA y de la Superintendencia que ninguna norma del corpus usa: la Coeva es
    # la Comisión de Evaluación (Ley 19.300, Art. 86); el PdC, el programa de cumplimiento (Ley 20.417,
    # Art. 42); la elusión, ejecutar sin la resolución que la ley exige (Art. 35 b) o eludir el ingreso
    # (Ley 19.300, Art. 11 bis); la consulta ciudadana, la participación ciudadana; el pronto pago, pagar
    # la multa sin reclamar dentro de cinco días con la rebaja del 25 % (Ley 20.417, Art. 56).
    r"coeva": "Comisión de Evaluación",
    r"pdc": "programa de cumplimiento",
    r"elusion(es)?": (
        "eludir el ingreso al Sistema de Evaluación, sin contar con Resolución de Calificación Ambiental"
    ),
    r"consultas? ciudadanas?": "participación ciudadana",
    r"pronto pago": "pague la respectiva multa dentro del plazo de cinco días hábiles, se le reducirá",
    r"canchas? de acopio|stock ?piles?": "acopio de minerales",
    # Habla común de la fiscalización y los juicios → las palabras de la ley. Sin ellas, BM25 no une la
    # pregunta con el artículo (ni e5 lo trae: se comprobó con cada una).
    r"testigos?|testimonios?": "prueba testimonial",
    r"(monto|valor|cuantia|calculo) de (la|una|las) (multas?|sancion(es)?)"
    r"|(calcul|fij|determin)\w* (el monto de )?(la|una|las) (multas?|sancion(es)?)"
    r"|cuanto (\w+ ){0,3}(sale|saldria|cuesta|costaria|salir|pagar) (la|una) multa": (
        "determinación de las sanciones, circunstancias que se considerarán"
    ),
    r"(dos|tres|varias|doble|dobles) (multas|sanciones)|(sancion|multa)\w* (dos|mas de una) vez|"
    r"non bis in idem": "dos o más sanciones administrativas por los mismos hechos",
    r"(paralizar|parar|detener|paralizacion|detencion de)( \w+){0,2} (la |las )?"
    r"(faena|obras?|operacion\w*|planta)": (
        "detención del funcionamiento de las instalaciones, clausura temporal"
    ),
    r"carcel|presos?|penalmente|responsabilidad penal": "pena de presidio",
    r"(quitar|quitan|quiten|anular|anulan|cancelar|cancelan|perder|perdemos)\w* (la|nuestra|una) "
    r"(rca|resolucion de calificacion)": "revocación de la resolución de calificación ambiental",
    r"(vence|vencer|expira|expirar|pierde vigencia|perder vigencia)\w*( \w+){0,3} (la |nuestra )?"
    r"(rca|resolucion)": "caducidad de la resolución de calificación ambiental",
    # Que otro revise de oficio lo que resolvió la autoridad es la consulta: la resolución que aplica una
    # clausura o revoca la RCA «deberá siempre ser elevada en consulta al Tribunal Ambiental» (Ley 20.417,
    # Art. 57).
    r"(la|lo|las|los) revisa\w* (alguien|algun|otro|otra|un tribunal|el tribunal)|revision obligatoria"
    r"|pasa\w* (por|al) (el )?tribunal( ambiental)? (igual|de todas formas|siempre|obligatoriamente)": (
        "elevada en consulta al Tribunal Ambiental"
    ),
    # Alargar un plazo es, en la ley, ampliarlo («podrá … ampliar el plazo … hasta por treinta días
    # adicionales»); ninguna norma del corpus dice «alargar» o «estirar» un plazo («extender» sí: «la
    # extensión del plazo» que pide el proponente, DS 40, Art. 50).
    r"(alarg|estir)\w*( \w+){0,2} (el |los |su |sus )?plazos?": "ampliar el plazo, ampliación",
    # Si todavía se puede sancionar o demandar por algo de hace años es si la infracción o la acción
    # prescribió (Ley 20.417, Art. 37; Ley 21.600, Art. 119; Ley 19.300, Art. 63).
    r"(todavia|aun|ya no|igual)( \w+){0,3} (puede|pueden|podria|podrian|podra|podran)( \w+){0,2} "
    r"(sancionar|multar|demandar|perseguir|cursar)\w*": "prescripción de las infracciones y acciones",
    # Lo que se puede hacer contra lo que resolvió el Tribunal Ambiental (su sentencia, la resolución que
    # no admitió la demanda) son los recursos contra sus resoluciones (Ley 20.600, Art. 26; Ley 21.600,
    # Art. 139), no la reclamación ante él que ya se hizo.
    r"((sentencia|fallo)( \w+){0,3} (del |el )?tribunal"
    r"|tribunal( ambiental)?:? (\w+ ){0,3}(rechaz\w*|no (nos )?(admiti\w*|acogi\w*)|declar\w* inadmisible"
    r"|fall\w*|dict\w* sentencia))"
    r"(?=.*\b(apel\w*|recursos?|recurr\w*|impugn\w*|que (nos )?queda|que (podemos|hacemos)))": (
        "recursos contra la sentencia y las resoluciones del Tribunal Ambiental, apelación, casación"
    ),
    # Un proyecto «interregional» (así lo llaman las guías del SEA) es el que puede causar impactos en
    # zonas situadas en distintas regiones: se presenta ante el Director Ejecutivo (Ley 19.300, Art. 9).
    r"interregional(es)?": (
        "impactos ambientales en zonas situadas en distintas regiones, Director Ejecutivo del Servicio"
    ),
    # Presentar ahora y agregar después un anexo o un estudio que falta es incluir antecedentes que
    # quedaron pendientes, lo que el reglamento no acepta una vez presentada la Declaración o el Estudio
    # (DS 40, Art. 28).
    rf"{_DESPUES} (\w+ ){{0,2}}{_AGREGAR} (\w+ ){{0,2}}{_PIEZA}"
    rf"|{_AGREGAR} (\w+ )?{_DESPUES} (\w+ ){{0,2}}{_PIEZA}"
    rf"|{_AGREGAR} (\w+ ){{0,2}}{_PIEZA}( \w+){{0,4}} {_DESPUES}": (
        "inclusión posterior de partes, capítulos, anexos u otros antecedentes que hubieren quedado"
        " pendientes"
    ),
    # Reclamar ante un tribunal que queda lejos: quien tiene su domicilio fuera de la región del Tribunal
    # Ambiental puede presentar la reclamación en el juzgado de letras de su domicilio (Ley 20.600, Art. 20).
    r"(reclam|demand|tribunal)\w*\b[^?]{0,150}\b(viaj\w*|lejos|distancia)"
    r"|(viaj\w*|lejos|distancia)\b[^?]{0,150}\b(reclam|demand|tribunal)\w*": (
        "domicilio del legitimado fuera de la región de asiento del Tribunal, juzgado de letras en lo civil"
    ),
    # Varias obras o ampliaciones chicas que «se suman»: la suma de las partes, obras y acciones que no
    # han sido calificadas puede ser un cambio de consideración (DS 40, Art. 2, letra g).
    # («acumulación» sola no: la de mineral es una obra)
    r"(ampliaciones|modificaciones|cambios|obras|pertinencias)\b[^?]{0,300}\b(se suman|sumarse|sumad[oa]s"
    r"|se acumulan|acumularse|en conjunto)|(se suman|sumad[oa]s)( \w+){0,3} (ampliaciones|modificaciones"
    r"|cambios|obras)": (
        "la suma de las partes, obras y acciones que no han sido calificadas ambientalmente, cambios de"
        " consideración, modificación de proyecto"
    ),
    # Lugares y aguas que la ley nombra por su valor, dichos como los dice un proyecto.
    # La luz de noche de una faena es lo que afecta a la observación astronómica (Ley 19.300, Art. 11 d).
    r"observatorios?( astronomicos?)?|telescopios?|cielos? oscuros?|contaminacion luminica"
    r"|iluminacion (nocturna|artificial|exterior)|luminarias?|luces (nocturnas|artificiales|exteriores)"
    r"|emision\w* (de luz|luminosas?)": (
        "áreas con valor para la observación astronómica con fines de investigación científica"
    ),
    r"aguas? (muy )?antiguas?|(acuiferos?|aguas?) sin recarga|no (se )?recarga\w*": "aguas fósiles",
    r"caminos? cortados?|cort\w* (el|los) caminos?|desvios? de transito|trafico de camiones": (
        "libre circulación, conectividad o tiempos de desplazamiento"
    ),
}

_JERGA = [(re.compile(rf"\b({patron})\b"), termino) for patron, termino in JERGA.items()]
_SIGLA = re.compile(r"\b(" + "|".join(sorted(SIGLAS, key=len, reverse=True)) + r")s?\b")


# El órgano que la pregunta nombra y la ley que lo crea y le da sus potestades: quien pregunta qué
# puede hacer la Superintendencia pregunta por su ley orgánica (Ley 20.417, art. segundo), no por el
# artículo de otra ley que le encarga algo de paso.
NORMA_DEL_ORGANO: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(r"\b(sma|losma|superintendencia del medio ambiente|superintendencia|superintendente)\b"),
        "Ley 20.417",
    ),
    (re.compile(r"\btribunal(es)? ambiental(es)?\b"), "Ley 20.600"),
    (re.compile(r"\b(sbap|servicio de biodiversidad( y areas protegidas)?)\b"), "Ley 21.600"),
)


def normas_de_los_organos(consulta: str) -> frozenset[str]:
    """Las leyes de los órganos que la consulta nombra («¿la SMA puede clausurar?» → Ley 20.417)."""
    texto = " ".join(sin_tildes(consulta).split())
    return frozenset(norma for patron, norma in NORMA_DEL_ORGANO if patron.search(texto))


def expandir_siglas(consulta: str) -> str:
    """«Me rechazaron la DIA» → «Me rechazaron la DIA (Declaración de Impacto Ambiental)».

    Solo siglas en mayúsculas (así se escriben); «sea» o «día» en minúsculas son palabras comunes.
    """
    return _SIGLA.sub(lambda m: f"{m.group(0)} ({SIGLAS[m.group(1)]})", consulta)


def nombrar_siglas(texto: str) -> str:
    """«DIA» → «Declaración de Impacto Ambiental»: la sigla reemplazada por su nombre."""
    return _SIGLA.sub(lambda m: SIGLAS[m.group(1)], texto)


def nombra_sigla(consulta: str) -> bool:
    """La consulta nombra un instrumento o institución del SEIA por su sigla en mayúsculas («la DIA»)."""
    return bool(_SIGLA.search(consulta))


def palabras_de_jerga(consulta: str) -> set[str]:
    """Las palabras (sin tildes, en minúsculas) que forman parte de una expresión de jerga de faena
    reconocida en la consulta: son del dominio aunque la norma no las use."""
    plano = sin_tildes(consulta)
    return {palabra for patron, _ in _JERGA for m in patron.finditer(plano) for palabra in m.group(0).split()}


def nombres_de_las_siglas(consulta: str) -> list[str]:
    """El nombre de cada sigla de la consulta, lo que `expandir_siglas` le agrega."""
    return [SIGLAS[m.group(1)] for m in _SIGLA.finditer(consulta)]


def expandir_consulta(consulta: str) -> str:
    """Las siglas con su nombre y, al final, el término de la norma de cada palabra de jerga:
    «¿El concentraducto entra al SEIA?» → «… SEIA (Sistema de …)? (ductos mineros)»."""
    plano = sin_tildes(consulta)
    terminos = [termino for patron, termino in _JERGA if patron.search(plano)]
    expandida = expandir_siglas(consulta)
    return f"{expandida} ({'; '.join(terminos)})" if terminos else expandida
