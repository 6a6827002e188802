"""Las cantidades de un proyecto descrito en palabras, en las unidades del motor, y las otras partes
de la faena (`componentes_dichos`): las que pueden hacerlo ingresar (el mineroducto, la línea, la central,
las obras sobre un glaciar, el polvorín, el embalse) y las que traen un permiso ambiental sectorial (el
depósito de relaves, el botadero, la planta de aguas servidas, la bodega de residuos peligrosos…).

El motor decide con t/mes, plataformas, m³/mes, m³ totales y hectáreas (DS 40 Art. 3 letra i). Un
consultor las dice como las piensa: toneladas al año, al día o por hora (con el régimen de turnos que
se trabaja), «12 mil», «1,2 millones», metros cúbicos al mes durante tantos meses. Aquí se convierten,
y cada conversión queda anotada como un supuesto que la respuesta muestra («54.000 t/año ÷ 12 = 4.500 t/mes»).

El texto llega sin tildes y en minúsculas (`config.texto.sin_tildes`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import pairwise

from proyectos.analisis.ingreso import numero_cl

DIAS_POR_MES = 30  # si el mensaje da toneladas diarias sin decir cuántos días al mes se trabaja
_CIFRA = r"(\d{1,3}(?:\.\d{3})+|\d+(?:[.,]\d+)?)(\s*(?:mil(?:lones|lon)?)\b)?"
_TONELADAS = (
    r"\s*(?:de\s+)?(?:toneladas|tons?|tms|tmh|t)\b(?:\s+(?:metricas|secas|humedas)){0,2}(?:\s+de\s+\w+){0,2}"
)
_POR_MES = r"\s*(?:(?:al|por|/|cada)\s*mes\b|mensual\w*|/\s*mes)"
_POR_ANO = r"\s*(?:(?:al|por|/|cada)\s*ano\b|anual\w*|/\s*ano)"
_POR_DIA = r"\s*(?:(?:al|por|/|cada)\s*dia\b|diari\w*|/\s*d(?:ia)?\b)"
_METROS = r"\s*(?:de\s+)?(?:m3|m³|metros cubicos)(?:\s+de\s+\w+(?:\s+y\s+\w+)?)?"

_T_MES = re.compile(_CIFRA + _TONELADAS + _POR_MES + "|" + _CIFRA + r"\s*(?:(?:t|ton|tms)/mes|tpm)\b")
_T_ANO = re.compile(
    _CIFRA + _TONELADAS + _POR_ANO + "|" + _CIFRA + r"\s*(?:t|ton)/a(?:no)?\b|" + _CIFRA + r"\s*tpa\b"
)
_T_DIA = re.compile(_CIFRA + _TONELADAS + _POR_DIA + "|" + _CIFRA + r"\s*(?:tpd|t/d)\b")
_POR_HORA = r"\s*(?:(?:al|por|/|cada|a la)\s*hora\b|/\s*h\b)"
_T_HORA = re.compile(_CIFRA + _TONELADAS + _POR_HORA + "|" + _CIFRA + r"\s*(?:tph|t/h)\b")
# «26 días al mes», «22 días hábiles de trabajo por mes», «24 jornadas efectivas cada mes», «26 días
# mensuales»: hasta dos calificativos entre los días y el mes.
_DIAS_AL_MES = re.compile(
    r"(\d{1,2})\s*(?:dias|jornadas)\s*"
    r"(?:(?:habiles|corridos|trabajad[oa]s|efectiv[oa]s|laborales|de \w+)\s+){0,2}"
    r"(?:(?:al|por|cada|del|en el|/)\s*mes\b|mensuales\b)"
)
_HORAS_AL_DIA = re.compile(
    r"(\d{1,2})\s*(?:horas|hrs?|h)\s*(?:de \w+ )?(?:(?:al|por|cada|/)\s*dia\b|diarias\b)"
)
# «tres turnos de 8 h», «2 turnos de 12 horas»: las horas al día son los turnos por su largo.
_TURNOS = re.compile(r"\b(\d|un|uno|dos|tres|cuatro)\s+turnos?\s+de\s+(\d{1,2})\s*(?:horas|hrs?|h)\b")
# Los números chicos dichos en palabras («dos turnos», «tres rajos»).
_EN_PALABRAS = {"un": 1, "uno": 1, "dos": 2, "tres": 3, "cuatro": 4, "cinco": 5}
HORAS_POR_DIA = 24  # si el mensaje da toneladas por hora sin decir cuántas horas al día se opera
_M3_MES = re.compile(_CIFRA + _METROS + _POR_MES + "|" + r"\bmensual\w*\D{0,30}?" + _CIFRA + _METROS)
_M3 = re.compile(_CIFRA + _METROS)
_M3_DIA = re.compile(_CIFRA + _METROS + _POR_DIA)
# El volumen total dicho además del mensual: «serán 75.000 m³ totales, a razón de 3.000 m³ por mes».
_TOTAL = r"(?:en total|totales|vida util|todo el proyecto|toda la (?:explotacion|operacion|faena))"
_M3_TOTAL = re.compile(
    # sin otra cifra entre el volumen y «en total» («4.000 m³ por mes y 3 ha en total»: el total es de ha)
    _CIFRA + _METROS + r"[^.;\d]{0,40}?" + _TOTAL + "|" + _TOTAL + r"[^.;\d]{0,30}?" + _CIFRA + _METROS
)
# Varias fuentes de lo mismo (dos faenas que alimentan una planta, «una … y la otra …»): se suman. Lo
# que precede a la capacidad que tendrá tras un cambio («de 3.000 a 4.500 t/mes»).
_VARIAS_FUENTES = re.compile(
    r"\b(?:dos|tres|cuatro|varias|ambas) (?:faenas|minas|fuentes|proveedores|yacimientos|rajos)\b"
    r"|\b(?:la|el) otr[oa]\b|\bcada una\b|\bentre (?:las|los) (?:dos|tres)\b"
    r"|\b(?:recib|compr|procesa|trata)\w* (?:ademas|tambien)\b|\bde terceros\b|\bpequenos mineros\b"
)
# «tres rajos con 1.500 t/mes cada uno»: cuántas fuentes aportan esa cantidad cada una.
_CADA_UNA = re.compile(r"^[^.;]{0,15}?\b(?:cada una|cada uno|c/u)\b")
_CUANTAS_FUENTES = re.compile(
    r"\b(\d|dos|tres|cuatro|cinco) (?:minas|faenas|yacimientos|rajos|fuentes|frentes)\b"
)
# «queremos duplicar», «vamos a triplicar la producción»: la capacidad que tendrá es un múltiplo de la dicha.
_MULTIPLICAR = re.compile(r"\b(duplic|dobl|triplic)\w*")
# Lo que dice la cuenta cuando el mensaje da la capacidad de hoy y la que tendrá con un cambio.
CON_EL_CAMBIO = "comparé la capacidad que tendrá con el cambio"
_DE_UNA_A = re.compile(r"\bde " + _CIFRA + r"(?:\s*(?:t|ton)/mes)?\s+a\s+$")
# «queremos subir a 9.000 t/mes», «ampliar la producción hasta 7.500 t/mes»: la capacidad que tendrá.
_SUBIR_A = re.compile(r"\b(?:sub|ampli|aument|lleg|crec|elev)\w*\s+(?:\w+\s+){0,3}?(?:a|hasta)\s+$")
_DURACION = re.compile(
    r"\b(?:durante|por|en|a lo largo de)\s+(?:los\s+|unos\s+|un\s+plazo\s+de\s+)?(\d{1,3})\s*(meses|anos)\b"
)
_PLATAFORMAS = re.compile(_CIFRA + r"\s*plataformas?\b")
# Entre dos campañas de plataformas: la segunda es otra etapa del mismo prospecto.
_OTRA_CAMPANA = re.compile(r"\b(?:otra|otras|segunda|luego|despues|posterior\w*|adicional\w*|mas adelante)\b")
_SONDAJES = re.compile(_CIFRA + r"\s*(?:sondajes?|pozos? de sondaje)\b")
_HECTAREAS = re.compile(_CIFRA + r"\s*(?:hectareas|ha)\b")


# Las partes de la faena, dichas como las dice un consultor (DS 40 Art. 3: j, b.1, c, k.1, a.5, i.6).
_DUCTO = re.compile(
    r"\b(?:mineroducto|concentraducto|relaveducto|ducto minero"
    r"|(?:ducto|tuberia|caneria) (?:de|para el|para los) (?:concentrado|relaves?|pulpa))s?\b"
    r"[^.;]{0,40}?" + _CIFRA + r"\s*(?:km|kilometros)\b"
    # lo que lleva, después del largo: «una tubería de 11 km que conducirá la pulpa»
    r"|\b(?:ducto|tuberia|caneria)s?\b[^.;]{0,20}?" + _CIFRA + r"\s*(?:km|kilometros)\b"
    r"(?=[^.;]{0,40}?\b(?:concentrado|relaves?|pulpa)\b)"
)
_KV = re.compile(r"\blinea\w*\b[^.;]{0,60}?" + _CIFRA + r"\s*kv\b|" + _CIFRA + r"\s*kv\b")
_MW = re.compile(_CIFRA + r"\s*mw\b")
_KVA = re.compile(_CIFRA + r"\s*kva\b")
_MVA = re.compile(_CIFRA + r"\s*mva\b")
# Obras sobre un glaciar (a.5): la obra está en él, no cerca («a 2 km del glaciar» no lo es).
_SOBRE_GLACIAR = re.compile(
    r"\b(?:sobre|encima|dentro|intervenir|intervenimos|remover|removemos|alterar|afectar|cubrir|pasa por)\b"
    r"[^.;]{0,40}?\bglaciar"
    r"|\bglaciar\w*\b[^.;]{0,30}?\b(?:intervenid|removid|cubiert|afectad|alterad)"
)
_TURBA = re.compile(r"\b(?:extra\w*|explot\w*|sacar|sacamos)\b[^.;]{0,30}?\bturba\b|\bturberas?\b")
# Obras hidráulicas (a.1–a.4): el verbo o la obra y su cantidad en la misma frase.
_VEGAS = re.compile(
    r"\b(?:dren\w*|desec\w*|secar|rellen\w*|afect\w*|interven\w*)\b[^.;]{0,40}?\b(?:vegas?|bofedal\w*)\b"
    r"[^.;]{0,30}?" + _CIFRA + r"\s*(?:hectareas|ha)\b"
    # la superficie antes («drenar 15 ha de vegas»)
    r"|\b(?:dren\w*|desec\w*|secar|rellen\w*|afect\w*|interven\w*)\b[^.;]{0,20}?"
    + _CIFRA
    + r"\s*(?:hectareas|ha)\s+(?:de\s+)?(?:vegas?|bofedal\w*)\b"
)
# Secar o drenar vegas o bofedales sin decir cuántas hectáreas (en el norte grande, cualquier superficie
# ingresa por a.2.1): «el bombeo secaría el bofedal», «las vegas se van a secar».
_SECAR_VEGAS = re.compile(
    r"\b(?:dren\w*|desec\w*|secar\w*|secaria\w*)\b[^.;]{0,40}?\b(?:vegas?|bofedal\w*)\b"
    r"|\b(?:vegas?|bofedal\w*)\b[^.;]{0,40}?\b(?:se (?:va a |van a )?sec\w*|secar\w*|desecad\w*|drenad\w*)"
)
_DRAGADO = re.compile(r"\bdrag\w*\b[^.;]{0,40}?" + _CIFRA + _METROS)
_MURO = re.compile(
    r"\b(?:presa|muro|represa|embalse|tranque de agua)\b[^.;]{0,40}?"
    + _CIFRA
    + r"\s*(?:m|metros)\b(?!\s*cub|3|³)"
)
# Obras en un humedal urbano (Ley 19.300 Art. 10 s): rellenarlo, drenarlo, intervenirlo; no estar junto a él.
# Estar en él también es intervenirlo: «el botadero ocupará un sector del humedal urbano», «obras en un
# humedal urbano»; estar cerca no («en las cercanías de…», «a 300 m de…»).
_HUMEDAL_URBANO = re.compile(
    r"\b(?:rellen\w*|dren\w*|sec\w*|interven\w*|afect\w*|alter\w*|dentro|sobre|en|inclu\w*|abarc\w*"
    r"|ocup\w*)\b(?:(?!\bcerca|\bcercan|\bproxim|\bjunto|\bcolind|\baleda|\bvecin|\d)[^.;]){0,30}?"
    r"\bhumedal\w* urban\w*"
)
# Polvorín o almacenamiento de explosivos (ñ.2): la capacidad, en kg o toneladas.
_POLVORIN = re.compile(
    r"\b(?:polvorin\w*|almacen\w*[^.;]{0,20}?\bexplosiv\w*)\b[^.;]{0,40}?"
    + _CIFRA
    + r"\s*(?:kg|kilos|kilogramos|toneladas|tons?|t)\b"
    # la cantidad antes, con el nombre del explosivo («200 t de nitrato de amonio para las tronaduras»)
    + r"|"
    + _CIFRA
    + r"\s*(?:kg|kilos|kilogramos|toneladas|tons?|t)\s+(?:de\s+)?(?:explosiv\w*|nitrato de amonio|anfo"
    r"|emulsion\w*|dinamita|agentes? de tronadura)\b"
)
# Cuántas personas atiende la planta de aguas servidas: la dotación que aloja la faena o las que dice que
# atiende.
_DOTACION = re.compile(_CIFRA + r"\s*(?:trabajadores|personas|habitantes|operarios|camas)\b")
_NEGACION = re.compile(r"\b(?:no|sin|nunca|ningun\w*|lejos)\b")
# El embalse de agua (a.1 y PAS 155) por su capacidad; un tranque o embalse de relaves no es una presa de
# agua (es la parte del PAS 135).
# La capacidad va después de la obra («una represa de 6 m de alto, que embalsaría 120.000 m³») o
# antes del verbo («80.000 m³ embalsados»).
_EMBALSE = re.compile(
    r"(?:\b(?:embals\w*|tranques?|represas?|reservorios?)\b|\b(?:estanque|piscina)s? de agua\b)[^.;]{0,60}?"
    + _CIFRA
    + _METROS
    + r"|"
    + _CIFRA
    + _METROS
    + r"[^.;]{0,20}?\bembals\w*"
)
_CAUDAL = re.compile(
    r"\b(?:acueducto|canal|aduccion|tuberia de agua|conduccion de agua)\w*\b[^.;]{0,60}?"
    + _CIFRA
    + r"\s*(m3/s|m³/s|metros cubicos por segundo|l/s|lt/s|litros por segundo)"
)
_VERBO_MONUMENTO = (
    r"(?:conserv|repar|restaur|remov|destru|transform|constru|excav|edific|demol|interv|afect)\w*"
)
_VERBO_SOBRE = (
    r"(?:cort|tal|despej|elimin|destru|descep|interv|afect|remov|rescat|reubic|relocaliz|traslad)\w*"
)
# Sustancias peligrosas almacenadas (letra ñ del Art. 3): la clase de la NCh 382 por su nombre común, y la
# densidad con que un volumen (m³, litros) pasa a kilos; sin densidad conocida, un volumen no se convierte.
_CLASES_DE_SUSTANCIA: tuple[tuple[str, re.Pattern[str], float | None], ...] = (
    ("toxicas", re.compile(r"\bcianuro\w*|\barsenico\b|\bmercurio\b|\bclase 6[.,]1\b|\btoxic\w*"), None),
    (
        "inflamables",
        re.compile(r"\bdiesel\b|\bpetroleo diesel\b|\bgasolina\b|\bbencina\b|\bclase 3\b"),
        850.0,
    ),
    ("corrosivas", re.compile(r"\bacido sulfurico\b"), 1840.0),
    ("corrosivas", re.compile(r"\bsoda caustica\b|\bhidroxido de sodio\b|\bclase 8\b|\bcorrosiv\w*"), None),
)
_ALMACENADO = re.compile(
    r"\b(?:bodega|estanque|tanque|almacen\w*|acopio|deposito|capacidad|guardar\w*|stock)s?\b[^;]{0,80}?"
    + _CIFRA
    + r"\s*(toneladas|tons?|t|kg|kilos|kilogramos|m3|m³|metros cubicos|litros|lts?)\b"
)
# El transporte terrestre de sustancias peligrosas (ñ.5): por camión, tren o carretera, en t/día o kg/día.
_TRANSPORTADO = re.compile(
    r"\b(?:transport\w*|traer|traeremos|trae|traen|llev\w*|traslad\w*|despach\w*|camion\w*|por tierra"
    r"|por carretera|ferrocarril|tren)\b"
)
_POR_DIA_TRANSPORTADO = re.compile(_CIFRA + r"\s*(toneladas|tons?|t|kg|kilos|kilogramos)" + _POR_DIA)
_PRODUCIDO = re.compile(r"\b(?:produc\w*|fabric\w*|elabor\w*|dispon\w*|reutiliz\w*)\b")
_CANTIDAD_POR_TIEMPO = re.compile(
    _CIFRA + r"\s*(?:toneladas|tons?|t|kg|kilos|kilogramos)\b(?:\s+(?:metricas|secas)){0,2}"
    r"(?:" + _POR_DIA + "|" + _POR_MES + "|" + _POR_ANO + ")"
)
_DE_MINERAL = re.compile(r"\s*del?\s+(?:mineral|mena|roca|material|caliche)")
_EXPLOSIVOS = re.compile(r"\bexplosiv\w*|\bnitrato de amonio\b|\banfo\b|\bemulsion\w*")
# Cada clase de sustancia peligrosa que el motor compara por día (producción o transporte), con su patrón.
_CLASES_PELIGROSAS = (("explosivos", _EXPLOSIVOS), *((c, p) for c, p, _ in _CLASES_DE_SUSTANCIA))
_CANTIDAD_GUARDADA = re.compile(
    _CIFRA + r"\s*(toneladas|tons?|t|kg|kilos|kilogramos|m3|m³|metros cubicos|litros|lts?)\b"
)
# Las partes que traen un permiso ambiental sectorial, dichas como las dice un consultor: campo → patrones.
# Lo que el DS 148 (Reglamento sanitario sobre manejo de residuos peligrosos) trata como residuo peligroso
# y la faena nombra por lo que es: aceites y lubricantes usados, baterías de plomo en desuso, solventes
# usados, tubos fluorescentes, envases de reactivos, trapos o suelos con hidrocarburos.
_RESPEL = (
    r"(?:residuos peligrosos|respel|(?:aceites?|lubricantes?)(?: \w+)? (?:usados?|de desecho|en desuso)"
    r"|baterias?(?: \w+)? (?:usadas?|en desuso|de desecho|agotadas?)|solventes? usados?|tubos? fluorescentes?"
    r"|envases? (?:vacios )?de (?:reactivos|sustancias peligrosas)"
    r"|(?:trapos?|huaipes?|waipes?|suelos?|tierras?) contaminad\w* con (?:hidrocarburos|aceites?))"
)
_PARTES_CON_PERMISO: dict[str, tuple[re.Pattern[str], ...]] = {
    "deposito_relaves": (
        re.compile(r"\b(?:deposito|tranque|embalse|presa|muro)s?\b[^.;?]{0,80}?\brelaves?\b|\brelaveras?\b"),
        re.compile(r"\brelaves? (?:espesad|en pasta|filtrad)\w*"),
    ),
    "botadero_esteriles": (
        re.compile(r"\bbotaderos?\b|\bescombreras?\b|\bstock ?piles?\b"),
        re.compile(r"\b(?:acopio|acumulacion|pila)s? de (?:minerales?|esteriles|lastre|baja ley)\b"),
    ),
    "planta_aguas_servidas": (
        re.compile(r"\baguas servidas\b|\bfosas? septicas?\b|\bptas\b|\balcantarillado particular\b"),
    ),
    "tratamiento_residuos_liquidos": (
        re.compile(r"\briles?\b|\bresiduos? (?:industriales|mineros) liquidos\b|\bresiduos liquidos\b"),
        re.compile(
            r"\btratamiento (?:de|del) (?:los |las )?(?:efluentes?|aguas? de contacto|aguas? acidas?"
            r"|drenajes? acidos?|aguas? de proceso)\b"
        ),
    ),
    "relleno_sanitario": (re.compile(r"\brelleno sanitario\b"),),
    "sitio_residuos": (
        re.compile(
            r"\b(?:patio|sitio|zona|area|bodega|acopio|galpon)\w* (?:de |para )?(?:los )?"
            r"(?:residuos|desechos) (?:no peligrosos|domiciliarios|domesticos|solidos|asimilables"
            r"|industriales no peligrosos)\b"
        ),
        re.compile(
            r"\bpatio de salvataje\b|\bvertederos?\b|\b(?:patio|sitio|lugar|zona|area|acopio|planta)\w*\b"
            r"[^.;]{0,30}?\b(?:basuras?|desperdicios)\b"
        ),
    ),
    "bodega_residuos_peligrosos": (
        re.compile(
            r"\b(?:bodega|sitio|patio|zona|area|galpon|almacen\w*|acopio|acumul\w*)\b[^.;]{0,40}?"
            r"\b" + _RESPEL + r"\b"
        ),
    ),
    "transporte_residuos_peligrosos": (re.compile(r"\btransport\w*\b[^.;]{0,30}?\b" + _RESPEL + r"\b"),),
    "eliminacion_residuos_peligrosos": (
        re.compile(r"\b(?:eliminacion|incinera\w*|destruccion)\b[^.;]{0,30}?\b" + _RESPEL + r"\b"),
    ),
    "reciclaje_residuos_peligrosos": (re.compile(r"\brecicla\w*\b[^.;]{0,30}?\b" + _RESPEL + r"\b"),),
    "captura_fauna": (
        re.compile(
            r"\b(?:captur|rescat|relocaliz|reubic|traslad|perturbacion controlada)\w*\b[^.;]{0,40}?"
            r"\b(?:fauna|ejemplares|reptiles?|lagartijas?|lagartos?|roedores|anfibios?|sapos?|ranas?|"
            r"vizcachas?|chinchillas?|guanacos?|vicunas?|especies? protegidas?)\b"
        ),
        re.compile(r"\b(?:fauna|reptiles?|lagartijas?)\b[^.;]{0,30}?\b(?:captur|rescat|relocaliz|reubic)\w*"),
    ),
    "excavacion_arqueologica": (
        re.compile(
            r"\b(?:rescat|excav|sonde|salvataje|recolec)\w*\b[^.;]{0,40}?\b(?:arqueolog|paleontolog|antropolog)"
        ),
        re.compile(
            r"\b(?:sitios?|hallazgos?|restos?) (?:arqueolog|paleontolog)\w*[^.;]{0,40}?\b" + _VERBO_SOBRE
        ),
        re.compile(
            _VERBO_SOBRE + r"\b[^.;]{0,30}?\b(?:sitios?|hallazgos?|restos?) (?:arqueolog|paleontolog)"
        ),
    ),
    # Lo que el Art. 131 nombra: conservar, reparar, restaurar, remover, destruir, transformar, construir en
    # sus alrededores, excavar o edificar; dicho en la misma frase o en otra del mensaje («hay un monumento
    # histórico en el predio. Queremos restaurarlo»).
    "intervencion_monumento_historico": (
        re.compile(r"(?=.*\bmonumentos? historicos?\b)(?=.*\b" + _VERBO_MONUMENTO + ")", re.DOTALL),
    ),
    "corta_bosque_nativo": (re.compile(_VERBO_SOBRE + r"\b[^.;]{0,30}?\bbosques? nativos?\b"),),
    "corta_plantaciones": (
        re.compile(r"\b(?:cort|cosech|tal)\w*\b[^.;]{0,30}?\bplantaci\w* (?:forestal|de pino|de eucalipto)"),
    ),
    # Art. 150: especies vegetales nativas clasificadas que forman parte de un bosque nativo.
    "intervencion_flora_clasificada": (
        re.compile(
            r"\b(?:especies?|flora|ejemplares|arbol\w*|arbust\w*|plantas?)\b[^.;]{0,40}?"
            r"\b(?:en categoria de conservacion|amenazad\w*|clasificad\w*|en peligro|vulnerables?)\b"
            r"[^.;?]{0,80}?\bbosques? nativos?\b"
        ),
        re.compile(
            r"\bbosques? nativos?\b[^.;?]{0,80}?\b(?:especies?|flora|ejemplares|arbol\w*)\b[^.;]{0,40}?"
            r"\b(?:en categoria de conservacion|amenazad\w*|clasificad\w*|en peligro|vulnerables?)\b"
        ),
    ),
    "corta_formaciones_xerofiticas": (
        re.compile(_VERBO_SOBRE + r"\b[^.;]{0,40}?\b(?:formacion\w* xerofitic\w*|xerofit\w*|cactace\w*)"),
    ),
    "sifon_o_canoa": (
        re.compile(
            r"\b(?:sifon|sifones|canoas?)\b[^.;]{0,40}?\b(?:cauce|quebrada|rio|estero|cruce|cruza)\w*"
        ),
    ),
    "modificacion_cauce": (
        re.compile(
            r"\b(?:desvi|modific|canaliz|encauz|rectific|cambi\w* (?:el )?trazado)\w*\b[^.;]{0,30}?"
            r"\b(?:cauce|rio|estero|quebrada)\b"
        ),
        re.compile(r"\bobras? (?:dentro|en) (?:de )?(?:el |del )?(?:cauce|lecho)\b|\bcanal de desvio\b"),
    ),
    "defensa_cauce": (
        re.compile(
            r"\bdefensas? (?:fluvial|ribere)\w*|\benrocados?\b|\bobras? de (?:defensa|regularizacion)\b"
            r"|\bproteccion de (?:las )?riberas?\b|\bmuros? de defensa\b"
        ),
    ),
    "recarga_acuiferos": (re.compile(r"\brecarga artificial\b|\brecarga de (?:acuiferos?|napas?)\b"),),
    "construcciones_fuera_limite_urbano": (
        re.compile(r"\bfuera de(?:l| los)? limites? urbanos?\b"),
        re.compile(
            r"\b(?:campamento|construcci\w*|edificaci\w*|instalaci\w*)\b[^.;]{0,40}?"
            r"\b(?:zona|area|sector|terreno|predio)s? rural"
        ),
    ),
}


def componentes_dichos(normal: str, supuestos: list[str] | None = None) -> dict[str, float | bool]:
    """Las partes de la faena dichas en el mensaje (ya sin tildes), en los campos de `componentes` del
    motor: «un mineroducto de 30 km» → {"ducto_minero_km": 30}. Las conversiones hechas (un volumen de
    diésel a kilos) se agregan a `supuestos`."""
    dichos: dict[str, float | bool] = {}
    for campo, patron in (
        ("ducto_minero_km", _DUCTO),
        ("linea_transmision_kv", _KV),
        ("generacion_mw", _MW),
        ("potencia_instalada_kva", _KVA),
    ):
        if m := patron.search(normal):
            dichos[campo] = _cifra(m)
    if m := _MVA.search(normal):
        dichos["potencia_instalada_kva"] = _cifra(m) * 1000
    if m := _VEGAS.search(normal):
        dichos["vegas_bofedales_ha"] = _cifra(m)
    elif (m := _SECAR_VEGAS.search(normal)) and not _negada(normal, m):
        dichos["desecacion_vegas_bofedales"] = True
    if m := _DRAGADO.search(normal):
        dichos["dragado_m3"] = _cifra(m)
    if (m := _MURO.search(normal)) and not _de_relaves(normal, m):
        dichos["presa_altura_m"] = _cifra(m)
    if m := _POLVORIN.search(normal):
        en_kg = re.search(r"\d\s*(?:mil\s*)?(?:kg|kilos|kilogramos)\b", m.group(0))
        dichos["explosivos_almacenamiento_kg"] = _cifra(m) * (1 if en_kg else 1000)
    if (m := _HUMEDAL_URBANO.search(normal)) and not _negada(normal, m):
        dichos["obras_en_humedal_urbano"] = True
    if (m := _SOBRE_GLACIAR.search(normal)) and not _negada(normal, m):
        dichos["obras_en_glaciar"] = True
    if (m := _TURBA.search(normal)) and not _negada(normal, m):
        dichos["extraccion_turba"] = True
    if (m := _EMBALSE.search(normal)) and not _de_relaves(normal, m):
        dichos["embalse_m3"] = _cifra(m)
    if m := _CAUDAL.search(normal):
        por_litros = m.group(m.lastindex or 0).startswith(("l", "lt"))
        dichos["acueducto_m3_s"] = _cifra(m) / (1000 if por_litros else 1)
    dichos.update(_sustancias_almacenadas(normal, supuestos if supuestos is not None else []))
    dichos.update(_sustancias_producidas(normal))
    dichos.update(_condiciones_de_los_riles(normal))
    if (t_dia := _sustancias_transportadas(normal)) is not None:
        dichos["transporte_sustancias_t_dia"] = t_dia
    for campo, patrones in _PARTES_CON_PERMISO.items():
        if any((m := p.search(normal)) and not _negada(normal, m) for p in patrones):
            dichos[campo] = True
    if dichos.get("planta_aguas_servidas") and (m := _DOTACION.search(normal)):
        # la planta del campamento atiende a su dotación (o.4 la compara con 2.500 habitantes)
        dichos["aguas_servidas_habitantes"] = _cifra(m)
        if supuestos is not None and "habitantes" not in m.group(0):
            supuestos.append(f"la planta de aguas servidas atiende a {m.group(0)}")
    return dichos


def _de_relaves(normal: str, m: re.Match[str]) -> bool:
    """El muro o el embalse es de relaves (la parte del PAS 135, no una presa de agua): lo dice lo calzado o
    su cláusula antes («el depósito de relaves, con un muro de 40 m»)."""
    inicio = max(normal.rfind(signo, 0, m.start()) for signo in ".;,")
    return "relave" in normal[max(inicio + 1, m.start() - 60) : m.end()]


def _sustancias_almacenadas(normal: str, supuestos: list[str]) -> dict[str, float]:
    """La capacidad de almacenamiento de cada clase de sustancia peligrosa dicha en la misma frase que su
    bodega o estanque, en kg («35 t de cianuro guardadas» → 35.000 kg de tóxicas)."""
    almacenadas: dict[str, float] = {}
    for frase in _frases(normal):
        if not _ALMACENADO.search(frase):
            continue
        cantidades = list(_CANTIDAD_GUARDADA.finditer(frase))
        for clase, patron, densidad in _CLASES_DE_SUSTANCIA:
            sustancia = patron.search(frase)
            if sustancia is None or f"{clase}_almacenamiento_kg" in almacenadas:
                continue
            m = _cantidad_de(sustancia, cantidades)
            unidad, cantidad = m.group(m.lastindex or 0), _cifra(m)
            if unidad in ("kg", "kilos", "kilogramos"):
                kilos = cantidad
            elif unidad in ("toneladas", "ton", "tons", "t"):
                kilos = cantidad * 1000
            elif densidad is not None:
                por_m3 = unidad in ("m3", "m³", "metros cubicos")
                kilos = cantidad * (densidad if por_m3 else densidad / 1000)
                supuestos.append(
                    f"{numero_cl(cantidad)} {'m³' if por_m3 else 'litros'} × {numero_cl(densidad)} kg/m³ "
                    f"(densidad supuesta) = {numero_cl(kilos)} kg"
                )
            else:
                continue  # un volumen sin densidad conocida no se convierte
            almacenadas[f"{clase}_almacenamiento_kg"] = kilos
    return almacenadas


def _frases(normal: str) -> list[str]:
    """Las frases del mensaje: «clase 6.1» y «8.000» no cortan la frase."""
    return re.split(r"(?<!\d)\.(?!\d)|;", normal)


def _en_kg(cantidad: float, unidad: str) -> float:
    """Una cantidad en kg o en toneladas, en kg."""
    return cantidad * (1 if unidad in ("kg", "kilos", "kilogramos") else 1000)


def _es_peligrosa(texto: str) -> bool:
    return any(patron.search(texto) for _, patron in _CLASES_PELIGROSAS)


def _sin_cantidades_de_sustancias(normal: str) -> str:
    """El mensaje sin las cantidades por tiempo que son de una sustancia peligrosa («… 60 t/día de
    ácido»)."""

    def borrar(m: re.Match[str]) -> str:
        # lo que sigue a la cantidad, hasta que empieza otra cosa («… de mineral y usa ácido» no es de ácido)
        de_que = re.match(r"\s*del?\s+(?:(?!\by\b)[^.;,]){0,40}", normal[m.end() :])
        if de_que and _es_peligrosa(de_que.group(0)):
            return " " * len(m.group(0))
        # o la produce una planta de la sustancia («la planta de soda cáustica fabricará 80 t/día»)
        antes = normal[max(0, m.start() - 80) : m.start()]
        antes = re.split(r"[.;]", antes)[-1]
        if _PRODUCIDO.search(antes) and _es_peligrosa(antes) and not _DE_MINERAL.match(normal[m.end() :]):
            return " " * len(m.group(0))
        return m.group(0)

    return _CANTIDAD_POR_TIEMPO.sub(borrar, normal)


# Las condiciones del literal o.7 dichas en la frase de los riles.
_RILES = re.compile(r"\briles?\b|\bresiduos? (?:industriales|mineros) liquidos\b|\befluentes?\b")
_CONDICIONES_DE_LOS_RILES = {
    "riles_lagunas_estabilizacion": re.compile(r"\blagunas? de (?:estabilizacion|oxidacion)\b"),
    "riles_riego_o_infiltracion": re.compile(r"\b(?:riego|regar|infiltr\w*|aspersion|humect\w*)\b"),
    "riles_de_terceros": re.compile(r"\b(?:de|para|a) (?:otras empresas|terceros)\b"),
}


def _condiciones_de_los_riles(normal: str) -> dict[str, bool]:
    """Lo que hace ingresar un tratamiento de riles por el literal o.7 («los efluentes tratados se usarán
    para humectar los caminos» → o.7.2), dicho en la misma frase que los riles o sus efluentes."""
    dichas: dict[str, bool] = {}
    for frase in _frases(normal):
        if not _RILES.search(frase):
            continue
        for campo, patron in _CONDICIONES_DE_LOS_RILES.items():
            if (m := patron.search(frase)) and not _negada(frase, m):
                dichas[campo] = True
    return dichas


def _sustancias_producidas(normal: str) -> dict[str, float]:
    """Lo que se produce, dispone o reutiliza de cada clase de sustancia peligrosa al día, en kg
    («fabricar 9 t diarias de emulsión» → 9.000 kg/día de explosivos)."""
    producidas: dict[str, float] = {}
    for frase in _frases(normal):
        if not _PRODUCIDO.search(frase) or not (m := _POR_DIA_TRANSPORTADO.search(frase)):
            continue
        kilos = _en_kg(_cifra(m), m.group(3))
        # la sustancia que sigue a la cantidad o, si ninguna, la que la frase nombra antes
        clase = next(
            (c for c, patron in _CLASES_PELIGROSAS if patron.search(frase[m.start() :])), None
        ) or next((c for c, patron in _CLASES_PELIGROSAS if patron.search(frase[: m.start()])), None)
        if clase and f"{clase}_kg_dia" not in producidas:
            producidas[f"{clase}_kg_dia"] = kilos
    return producidas


def _sustancias_transportadas(normal: str) -> float | None:
    """Las toneladas diarias de sustancias peligrosas que se transportan por tierra, dichas en la misma
    frase que el transporte y la sustancia («traer en camiones 300 t/día de ácido sulfúrico»)."""
    for frase in _frases(normal):
        if (
            _es_peligrosa(frase)
            and _TRANSPORTADO.search(frase)
            and (m := _POR_DIA_TRANSPORTADO.search(frase))
        ):
            return _en_kg(_cifra(m), m.group(3)) / 1000
    return None


def _cantidad_de(sustancia: re.Match[str], cantidades: list[re.Match[str]]) -> re.Match[str]:
    """La cantidad de una sustancia cuando la frase dice varias («50 t de ácido sulfúrico y 100.000 litros de
    diésel»): la dicha justo antes de su nombre o, si ninguna la precede, la más cercana después."""
    antes = [c for c in cantidades if c.end() <= sustancia.start()]
    if antes:
        return max(antes, key=lambda c: c.end())
    return min(cantidades, key=lambda c: c.start())


def _negada(normal: str, m: re.Match[str]) -> bool:
    """La frase está negada en su cláusula («no tocamos el glaciar», «lejos del glaciar»)."""
    inicio = max(normal.rfind(signo, 0, m.start()) for signo in ".;,")
    return bool(_NEGACION.search(normal[inicio + 1 : m.end()]))


@dataclass
class Cantidades:
    valores: dict[str, float] = field(default_factory=dict)
    supuestos: list[str] = field(default_factory=list)


# Las toneladas dichas en miles o millones, como en los informes de la industria: «150 ktpd», «0,5 Mtpa»,
# «40 kt al mes», «2 Mt/año». Se escriben como las lee el resto («150 mil t/dia»).
_UNIDADES_DE_LA_INDUSTRIA = (
    (re.compile(r"(\d)\s*ktpd\b"), r"\1 mil t/dia"),
    (re.compile(r"(\d)\s*ktpa\b"), r"\1 mil t/ano"),
    (re.compile(r"(\d)\s*mtpa\b"), r"\1 millones t/ano"),
    (re.compile(r"(\d)\s*(?:kt|kilotoneladas)\b"), r"\1 mil t"),
    (
        re.compile(r"(\d)\s*(?:mt|megatoneladas)\b(?=\s*(?:/|al |por |cada |anual|de mineral))"),
        r"\1 millones t",
    ),
)


def en_toneladas(normal: str) -> str:
    """El mensaje (ya sin tildes) con las toneladas en miles o millones dichas en toneladas."""
    for patron, reemplazo in _UNIDADES_DE_LA_INDUSTRIA:
        normal = patron.sub(reemplazo, normal)
    return normal


def cantidades_dichas(normal: str) -> Cantidades:
    """Las cantidades del mensaje (ya sin tildes) en los campos del motor, con sus conversiones. Lo que
    se produce o transporta de una sustancia peligrosa («12 t/día de emulsión») no es la
    capacidad de la faena: lo lee `componentes_dichos`."""
    normal = _sin_cantidades_de_sustancias(en_toneladas(normal))
    c = Cantidades()
    mensuales = list(_T_MES.finditer(normal))
    final = next((m for m in mensuales if _DE_UNA_A.search(normal[max(0, m.start() - 40) : m.start()])), None)
    if final:
        # «ampliar de 3.000 a 4.500 t/mes»: lo que se compara es la capacidad que tendrá
        antes = _DE_UNA_A.search(normal[max(0, final.start() - 40) : final.start()])
        assert antes is not None
        c.valores["capacidad_extraccion_t_mes"] = _cifra(final)
        c.supuestos.append(
            f"de {numero_cl(_cifra(antes))} a {numero_cl(_cifra(final))} t/mes: {CON_EL_CAMBIO}"
        )
    elif len(mensuales) > 1 and (
        tendra := next(
            (m for m in mensuales if _SUBIR_A.search(normal[max(0, m.start() - 40) : m.start()])), None
        )
    ):
        c.valores["capacidad_extraccion_t_mes"] = _cifra(tendra)
        c.supuestos.append(f"{numero_cl(_cifra(tendra))} t/mes: {CON_EL_CAMBIO}")
    elif len(mensuales) == 2 and (
        incremento := next((m for m in mensuales if _es_incremento(normal, m)), None)
    ):
        # «hoy son 2.600 t/mes y se suman 2.900 t/mes adicionales»: la que tendrá es la suma
        base = next(m for m in mensuales if m is not incremento)
        total = _cifra(base) + _cifra(incremento)
        c.valores["capacidad_extraccion_t_mes"] = total
        c.supuestos.append(
            f"{numero_cl(_cifra(base))} + {numero_cl(_cifra(incremento))} = {numero_cl(total)} t/mes: "
            f"{CON_EL_CAMBIO}"
        )
    elif len(mensuales) > 1 and _VARIAS_FUENTES.search(normal):
        # «recibe de dos minas: 1.800 t/mes de una, 3.700 t/mes de la segunda»: la planta trata la suma
        cifras = [_cifra(m) for m in mensuales]
        c.valores["capacidad_extraccion_t_mes"] = sum(cifras)
        c.supuestos.append(
            " + ".join(numero_cl(x) for x in cifras)
            + f" = {numero_cl(sum(cifras))} t/mes (sumé lo que aporta cada una; si no es así, indíquelo)"
        )
    elif m := _T_MES.search(normal):
        c.valores["capacidad_extraccion_t_mes"] = _cifra(m)
        if _CADA_UNA.match(normal[m.end() :]) and (fuentes := _CUANTAS_FUENTES.search(normal)):
            # «tres rajos con 1.500 t/mes cada uno» alimentan lo mismo: se suman
            n = _EN_PALABRAS.get(fuentes.group(1)) or int(fuentes.group(1))
            c.valores["capacidad_extraccion_t_mes"] = _cifra(m) * n
            c.supuestos.append(
                f"{n} × {numero_cl(_cifra(m))} t/mes = {numero_cl(_cifra(m) * n)} t/mes "
                "(sumé lo que aporta cada una; si no es así, indíquelo)"
            )
        elif veces := _MULTIPLICAR.search(normal[m.end() :]):
            factor = 3 if veces.group(1) == "triplic" else 2
            c.valores["capacidad_extraccion_t_mes"] = _cifra(m) * factor
            c.supuestos.append(
                f"{numero_cl(_cifra(m))} t/mes × {factor} = {numero_cl(_cifra(m) * factor)} t/mes: "
                f"{CON_EL_CAMBIO}"
            )
    elif m := _T_ANO.search(normal):
        anual = _cifra(m)
        c.valores["capacidad_extraccion_t_mes"] = anual / 12
        c.supuestos.append(f"{numero_cl(anual)} t/año ÷ 12 = {numero_cl(anual / 12)} t/mes")
    elif m := _T_DIA.search(normal):
        diaria = _cifra(m)
        n, dicho = _dias_al_mes(normal)
        c.valores["capacidad_extraccion_t_mes"] = diaria * n
        cuenta = f"{numero_cl(diaria)} t/día × {n} días = {numero_cl(diaria * n)} t/mes"
        c.supuestos.append(cuenta if dicho else f"{cuenta} (supuse {n} días al mes: indique los reales)")
    elif m := _T_HORA.search(normal):
        # «180 t/h, 20 horas al día, 26 días al mes»: la capacidad horaria por el régimen de operación
        horaria = _cifra(m)
        horas = _horas_al_dia(normal)
        n, dicho = _dias_al_mes(normal)
        mensual = horaria * (horas or HORAS_POR_DIA) * n
        c.valores["capacidad_extraccion_t_mes"] = mensual
        cuenta = (
            f"{numero_cl(horaria)} t/h × {horas or HORAS_POR_DIA} h/día × {n} días "
            f"= {numero_cl(mensual)} t/mes"
        )
        supuse = [f"{HORAS_POR_DIA} horas al día"] * (not horas) + [f"{n} días al mes"] * (not dicho)
        c.supuestos.append(
            f"{cuenta} (supuse {' y '.join(supuse)}: indique los reales)" if supuse else cuenta
        )
    campanas = list(_PLATAFORMAS.finditer(normal))
    if len(campanas) > 1 and all(
        _OTRA_CAMPANA.search(normal[a.end() : b.start()]) for a, b in pairwise(campanas)
    ):
        # «una campaña de 25 plataformas y, al año siguiente, otra de 20»: el mismo prospecto, sumado
        cifras = [int(_cifra(m)) for m in campanas]
        c.valores["plataformas"] = sum(cifras)
        c.supuestos.append(
            " + ".join(str(x) for x in cifras)
            + f" = {sum(cifras)} plataformas: sumé las campañas (fraccionar "
            "un proyecto para eludir el ingreso está prohibido, Art. 11 bis de la Ley 19.300)"
        )
    elif m := _PLATAFORMAS.search(normal):
        c.valores["plataformas"] = int(_cifra(m))
    elif m := _SONDAJES.search(normal):
        c.valores["plataformas"] = int(_cifra(m))
        c.supuestos.append(f"{int(_cifra(m))} sondajes: supuse una plataforma por sondaje")
    meses = _meses(normal)
    m3_mes: float | None = None
    if m := _M3_MES.search(normal):
        m3_mes = _cifra(m)
    elif m := _M3_DIA.search(normal):
        # «400 m³ diarios, 25 días al mes»: el volumen mensual por los días trabajados
        diaria = _cifra(m)
        n, dicho = _dias_al_mes(normal)
        m3_mes = diaria * n
        cuenta = f"{numero_cl(diaria)} m³/día × {n} días = {numero_cl(m3_mes)} m³/mes"
        c.supuestos.append(cuenta if dicho else f"{cuenta} (supuse {n} días al mes: indique los reales)")
    if m3_mes is not None:
        c.valores["aridos_m3_mes"] = m3_mes
        if meses:
            c.valores["aridos_m3_total"] = m3_mes * meses
            c.supuestos.append(
                f"{numero_cl(m3_mes)} m³/mes × {meses} meses = {numero_cl(m3_mes * meses)} m³ en total"
            )
    elif m := _M3.search(normal):
        c.valores["aridos_m3_total"] = _cifra(m)
    mensual_dicho = _M3_MES.search(normal)
    if (m := _M3_TOTAL.search(normal)) and mensual_dicho and not meses and _cifra(m) != _cifra(mensual_dicho):
        c.valores["aridos_m3_total"] = _cifra(m)
    if m := _HECTAREAS.search(normal):
        c.valores["superficie_ha"] = _cifra(m)
    return c


# Lo que se agrega a la capacidad de hoy: «crecer en 900 t/mes», «900 t/mes más», «adicionales».
_AUMENTA_EN = re.compile(r"\b(?:ampli|aument|sub|crec|increment|agreg|sum)\w*\s+(?:\w+\s+){0,3}?en\s+$")
_MAS_DESPUES = re.compile(r"^\s*(?:mas|adicionales|extras?)\b")


def _es_incremento(normal: str, m: re.Match[str]) -> bool:
    return bool(
        _AUMENTA_EN.search(normal[max(0, m.start() - 40) : m.start()])
        or _MAS_DESPUES.match(normal[m.end() :])
    )


def _horas_al_dia(normal: str) -> int:
    """Cuántas horas trabaja la faena en una jornada según el mensaje («20 horas al día», «18 horas
    diarias», «tres turnos de 8 h»), o 0 si no las dice (o dice más de 24)."""
    if turnos := _TURNOS.search(normal):
        cuantos = turnos.group(1)
        horas = int(cuantos if cuantos.isdigit() else _EN_PALABRAS[cuantos]) * int(turnos.group(2))
    elif dichas := _HORAS_AL_DIA.search(normal):
        horas = int(dichas.group(1))
    else:
        return 0
    return horas if 0 < horas <= 24 else 0


def _dias_al_mes(normal: str) -> tuple[int, bool]:
    """Los días al mes que dice el mensaje («26 días al mes») y si los dijo; si no, 30."""
    dias = _DIAS_AL_MES.search(normal)
    if dias and 0 < int(dias.group(1)) <= 31:
        return int(dias.group(1)), True
    return DIAS_POR_MES, False


def _meses(normal: str) -> int | None:
    if not (m := _DURACION.search(normal)):
        return None
    return int(m.group(1)) * (12 if m.group(2) == "anos" else 1)


def _cifra(m: re.Match[str]) -> float:
    """El primer par (cifra, «mil»/«millones») que calzó: «8.000» → 8000; «2,5» → 2,5; «12 mil» →
    12000; «1,2 millones» → 1.200.000."""
    grupos = m.groups()
    for i in range(0, len(grupos), 2):
        if grupos[i] is not None:
            valor = _numero(grupos[i])
            escala = (grupos[i + 1] or "").strip()
            return valor * (1_000_000 if escala.startswith("millon") else 1000 if escala == "mil" else 1)
    raise ValueError("sin cifra")


def _numero(texto: str) -> float:
    """«8.000» → 8000; «2,5» → 2.5; «1.5» (un decimal) → 1.5."""
    if re.fullmatch(r"\d{1,3}(\.\d{3})+", texto):
        return float(texto.replace(".", ""))
    return float(texto.replace(",", "."))


# Una cantidad de proyecto dicha con su unidad (no una distancia «a 3 km de», ni años, días o personas).
_CANTIDAD_DICHA = re.compile(
    _CIFRA
    + r"\s*(?:toneladas|tons?|t/\w+|t|tpd|tpa|m3|m³|metros cubicos|ha|hectareas|km|kilometros|kv|mw|kva|kg"
    r"|kilos|kilogramos|l/s|litros|plataformas|sondajes|metros|m)\b"
)
_DISTANCIA = re.compile(r"\b(?:a|unos|unas|aprox\w*|cerca de|menos de|mas de)\s*$")
# «un abatimiento de 4 m de la napa»: la magnitud de un efecto dicho, no una parte de la faena.
_MAGNITUD_DE_UN_EFECTO = re.compile(
    r"\b(?:descenso|abatimiento|baja|bajada|caida|disminucion)\s+(?:de\s+)?(?:unos?\s+|hasta\s+)?$"
)
# El largo de una línea, un camino o una correa: ningún literal del Art. 3 lo usa (la línea se compara por
# su tensión; el ducto minero, que ingresa por existir, ya se leyó con su largo).
_LARGO_SIN_UMBRAL = re.compile(
    r"\b(?:lineas?|tendidos?|caminos?|accesos?|correas?|cintas?|huellas?)\b(?:(?!\by\b)[^.;,]){0,20}$"
    r"|^\s*(?:de\s+)?(?:lineas?|tendidos?|caminos?|accesos?|correas?|cintas?)\b"
)


def cantidades_no_leidas(normal: str, leidas: Iterable[float], supuestos: Iterable[str] = ()) -> list[str]:
    """Las cantidades del mensaje (ya sin tildes) que ninguna lectura usó, tal como se dijeron («35
    toneladas»): el motor no las evaluó y la respuesta debe decirlo. Una cantidad se da por leída si su
    valor es el de alguna leída o de una conversión común (t ↔ kg, año ↔ mes, día ↔ mes)."""
    normal = en_toneladas(normal)
    candidatas = {round(v * f, 6) for v in leidas for f in (1, 1000, 0.001, 12, 1 / 12, 30, 1 / 30)}
    for supuesto in supuestos:
        candidatas |= {
            round(_numero(n), 6) for n in re.findall(r"\d{1,3}(?:\.\d{3})+|\d+(?:,\d+)?", supuesto)
        }
    no_leidas = []
    for m in _CANTIDAD_DICHA.finditer(normal):
        antes = normal[max(0, m.start() - 24) : m.start()]
        if _DISTANCIA.search(antes[-12:]) or _MAGNITUD_DE_UN_EFECTO.search(antes):
            continue
        largo_de_una_obra = normal[max(0, m.start() - 40) : m.start()], normal[m.end() : m.end() + 25]
        if re.search(r"\b(?:km|kilometros)\b", m.group(0)) and (
            _LARGO_SIN_UMBRAL.search(largo_de_una_obra[0]) or _LARGO_SIN_UMBRAL.match(largo_de_una_obra[1])
        ):
            continue
        if not any(abs(round(_cifra(m), 6) - c) <= 1e-6 * max(1.0, c) for c in candidatas):
            no_leidas.append(m.group(0).strip())
    return list(dict.fromkeys(no_leidas))
