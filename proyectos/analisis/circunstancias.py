"""Efectos dichos con palabras de faena → la circunstancia declarada del motor (Art. 11, Ley 19.300).

Un consultor no escribe «reasentamiento de comunidades humanas»: escribe «hay que relocalizar a las
familias». Cada patrón sale del texto de la letra del Art. 11 y del artículo del DS 40 que la
desarrolla (Arts. 5 a 10), más el vocabulario con que se dice en terreno:

- a) riesgo para la salud de la población (DS 40 Art. 5): superar una norma de calidad o de emisión,
  material particulado (MP10, MP2,5) o emisiones sobre la población;
- b) efectos adversos significativos sobre recursos naturales renovables (Art. 6): secar o afectar
  vegas, bofedales, humedales, lagunas o acuíferos; el hábitat o la población de una especie en peligro
  o amenazada; pérdida significativa de suelo, flora o fauna;
- c) reasentamiento (Art. 7 inc. 1º y su definición en el Art. 2): relocalizar, reasentar o trasladar
  familias o comunidades; alteración significativa de los sistemas de vida (letras a–d del Art. 7):
  trashumancia, veranadas, rutas de arrieros o pastoreo, acceso a recursos naturales de un grupo
  humano, costumbres;
- d) localización en o próxima a áreas protegidas, sitios prioritarios, humedales protegidos o
  glaciares (Art. 8): santuario de la naturaleza, parque o reserva nacional, monumento natural,
  humedal Ramsar (o un sitio Ramsar) o urbano, una laguna o un salar protegidos, glaciar;
- e) alteración significativa del valor paisajístico o turístico (Art. 9);
- f) monumentos y patrimonio cultural (Art. 10): sitios arqueológicos, monumentos nacionales o
  históricos, petroglifos, patrimonio cultural.

Una mención negada en su propia cláusula («lejos de cualquier parque nacional», «sin glaciares») no
declara nada: describir lo que no hay no es declararlo.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from config.texto import sin_tildes

_PATRONES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (circunstancia, re.compile(patron))
    for circunstancia, patron in (
        (
            "riesgo_salud_poblacion",
            r"\b(super\w*|sobrepas\w*|exced\w*|incumpl\w*)\b[^.;]{0,40}\bnormas? (primaria\w* )?de "
            r"(calidad|emision)\w*|\bmp ?(10|2[.,]5)\b[^.;]{0,60}\b(super\w*|sobre ?pas\w*|exced\w*)\b"
            r"|\b(super\w*|sobre ?pas\w*|exced\w*)\b[^.;]{0,40}\bmp ?(10|2[.,]5)\b"
            r"|\briesgos? (para |a )?(la )?salud\b"
            r"|\bsalud de (la )?(poblacion|las personas|los vecinos|la gente|la comunidad|los habitantes)\b"
            # ruido o vibraciones sobre la norma (DS 40 Art. 5, letra b)
            r"|\b(ruido|ruidos|vibraciones)\b[^.;]{0,50}"
            r"\b(sobre|super\w*|exced\w*|sobrepas\w*|por encima de)\b[^.;]{0,12}\bnormas?\b"
            r"|\b(super\w*|exced\w*|sobrepas\w*)\b[^.;]{0,30}\bnormas? de (ruido|vibracion)",
        ),
        (
            "efectos_adversos_recursos_naturales",
            r"\b(sec\w*|desec\w*|drenar\w*|afect\w*|destru\w*|perd\w*)\b[^.;]{0,40}"
            r"\b(vegas?|bofedal\w*|humedal\w*|laguna\w*|acuifero\w*|napa\w*)\b"
            # dicho al revés («la napa bajo el bofedal se va a secar») o por su causa («el descenso del nivel
            # freático que alimenta la vega», «el abatimiento del acuífero»)
            r"|\b(vegas?|bofedal\w*|humedal\w*|laguna\w*|napa\w*|acuifero\w*)\b[^.;]{0,50}"
            r"\b(se (va a |van a )?sec\w*|secar\w*|desaparec\w*|agot\w*|quedar\w* sin agua)"
            # una especie amenazada que pierde su hábitat o su población (Art. 6, letras a y b)
            r"|\b(afect\w*|destru\w*|perd\w*|elimin\w*|interv\w*)\b[^.;]{0,40}\b(habitat|poblacion\w*"
            r"|ejemplares)\b[^.;]{0,60}\b(en peligro|amenazad\w*|vulnerable|en categoria de conservacion"
            r"|endemic\w*)"
            # o la obra está donde vive (el único lugar de) una especie amenazada
            r"|\b(vive|viven|habita|habitan|crece|crecen|anida|anidan|se reproduce\w*)\b[^.;]{0,50}"
            r"\b(en peligro|amenazad\w*|vulnerable|en categoria de conservacion)"
            r"|\b(descenso|abatimiento|depresion|baja)\w*\b[^.;]{0,20}?"
            r"\b(del? )?(nivel|napa|acuifero|freatico)\w*"
            r"[^.;]{0,50}"
            r"\b(vegas?|bofedal\w*|humedal\w*|laguna\w*)\b",
        ),
        (
            "reasentamiento_comunidades",
            r"\b(relocaliz\w*|reasent\w*|reubic\w*|traslad\w*)\b[^.;]{0,40}"
            r"\b(familias?|comunidad\w*|poblad\w*|habitantes|hogares|vecinos|personas|caserio\w*)\b",
        ),
        (
            "alteracion_sistemas_vida",
            r"\btrashumancia\b|\bveranadas?\b|\b(rutas?|caminos?|senderos?) (de|del|de los) "
            r"(arrieros?|pastores?|pastoreo|ganado|crianceros?)\b|\bsistemas? de vida\b"
            r"|\b(costumbres|practicas culturales) de\b",
        ),
        (
            "localizacion_proxima_areas_protegidas",
            r"\bsantuarios? de la naturaleza\b|\b(parque|reserva)s? nacional\w*\b|\bmonumentos? natural\w*\b"
            r"|\bareas? (silvestres? )?protegidas?\b|\bsitios? prioritarios?\b|\bhumedal\w* (protegid\w*|"
            r"ramsar|urbano\w*)\b|\bramsar\b|\b(laguna|salar|vega|bofedal)\w* (\w+ )?protegid\w*\b"
            # los pueblos indígenas son poblaciones protegidas (DS 40 Art. 8)
            r"|\b(comunidad|comunidades|pueblos?|tierras?|territorios?|poblacion\w*) (indigena|mapuche|aymara"
            r"|atacamen|likan antay|diaguita|colla|quechua|kawesqar|yagan|rapa nui|chango)\w*\b"
            r"|\bareas? de desarrollo indigena\b"
            r"|\bglaciar\w*\b",
        ),
        (
            "alteracion_valor_paisajistico_turistico",
            r"\b(valor|atractivo) (paisajistico|turistico|escenico)\b|\bpaisaj\w*\b[^.;]{0,60}"
            r"\bsignificativ\w*\b|\bsignificativ\w*\b[^.;]{0,60}\b(paisaj\w*|turistic\w*)\b",
        ),
        (
            "intervencion_monumentos",
            r"\b(sitios?|hallazgos?|restos?) arqueologic\w*\b|\bmonumentos? (nacional|historico)\w*\b"
            r"|\bpetroglifos?\b|\bgeoglifos?\b|\bpatrimonio cultural\b"
            r"|\bcementerios? (indigena|antiguo)\w*\b",
        ),
    )
)
# Negación dentro de la misma cláusula, antes de la mención.
_NEGACION = re.compile(r"\b(no|sin|ni|ningun\w*|nada de|tampoco|lejos de)\b")
# Cláusula: hasta un signo que la cierra; la coma o el punto entre cifras («MP2,5», «8.000») no cierra.
_CLAUSULA = re.compile(r"(?:[^.;,:?!]|(?<=\d)[.,](?=\d))+")


@dataclass(frozen=True)
class CircunstanciaDicha:
    circunstancia: str  # la clave del motor (`entrada.CIRCUNSTANCIAS`)
    frase: str  # lo que dijo el usuario, tal cual


def circunstancias_dichas(texto: str) -> list[CircunstanciaDicha]:
    """Las circunstancias del Art. 11 que el texto afirma, cada una con la frase que la dice, en el
    orden del texto y sin repetir."""
    texto = unicodedata.normalize("NFC", texto)
    plano = sin_tildes(texto)  # mismo largo que el texto (NFC): las posiciones sirven para citar la frase
    dichas: dict[str, tuple[int, CircunstanciaDicha]] = {}
    for clausula in _CLAUSULA.finditer(plano):
        for circunstancia, patron in _PATRONES:
            if circunstancia in dichas or not (m := patron.search(clausula.group(0))):
                continue
            if _NEGACION.search(clausula.group(0)[: m.start()]):
                continue
            inicio, fin = clausula.start() + m.start(), clausula.start() + m.end()
            dichas[circunstancia] = (inicio, CircunstanciaDicha(circunstancia, texto[inicio:fin].strip()))
    return [dicha for _, dicha in sorted(dichas.values(), key=lambda par: par[0])]


# --- el área en que se dice que está -------------------------------------------------------------

# Cómo se nombra cada categoría de área en el texto (sin tildes) → su código (`entrada.AREAS_DECLARABLES`).
_AREAS = {
    "parque nacional": "parque_nacional",
    "reserva nacional": "reserva_nacional",
    "monumento natural": "monumento_natural",
    "santuario de la naturaleza": "santuario_naturaleza",
    "sitio ramsar": "humedal_ramsar",
    "humedal ramsar": "humedal_ramsar",
    "humedal de importancia internacional": "humedal_ramsar",
    "area silvestre protegida": "area_protegida",
    "area protegida": "area_protegida",
    "area bajo proteccion oficial": "area_protegida",
    "sitio prioritario": "sitio_prioritario",
}
_AREA = "(" + "|".join(re.escape(nombre) for nombre in _AREAS) + ")"
# Estar dentro (no cerca): «al interior del parque nacional», «el terreno cae en el Parque Nacional …».
_DENTRO_DE_UN_AREA = re.compile(
    r"\b(?:dentro de(?:l)?|al interior de(?:l)?|adentro de(?:l)?|en medio de(?:l)?|en plen[oa]"
    # una obra lineal que lo cruza también está dentro: «la línea atravesará la reserva nacional»
    r"|cruza(?:n|ra|ran|ria|rian)?|atraviesa\w*|atravesara\w*|pasa(?:n|ra|ran|ria|rian)? por(?: medio de\w*)?"
    r"|insert[oa]s? en|(?:queda\w*|esta|estan|estara\w*|se ubica\w*|ubicad[oa]s?|emplazad[oa]s?|cae|caen"
    r"|se encuentra\w*|localizad[oa]s?|situad[oa]s?)\s+"
    r"(?:completamente |totalmente |parcialmente |en parte )?(?:dentro de(?:l)? |en )?)"
    r"\s*(?:(?:el|la|un|una|los|las)\s+)?" + _AREA + r"s?\b"
)
# El nombre propio que sigue a la categoría («Reserva Nacional Los Flamencos»), en el texto original.
_NOMBRE_PROPIO = re.compile(
    r"\s+((?:(?:de|del|la|las|los|el)\s+)?[A-ZÁÉÍÓÚÑ][\wáéíóúñü'-]+(?:\s+(?:(?:de|del|la|las|los|el)\s+)?[A-ZÁÉÍÓÚÑ][\wáéíóúñü'-]+)*)"
)


@dataclass(frozen=True)
class AreaDicha:
    categoria: str  # la de `entrada.AREAS_DECLARABLES`
    nombre: str  # «Reserva Nacional Los Flamencos», o vacío si no se nombró
    frase: str  # lo que dijo el usuario, tal cual


def areas_dichas(texto: str) -> list[AreaDicha]:
    """Las áreas en que el texto dice que está el proyecto (dentro, no cerca), cada una con su nombre si se
    dio y la frase que lo dice; una mención negada en su cláusula («no está en la reserva») no
    cuenta."""
    texto = unicodedata.normalize("NFC", texto)
    plano = sin_tildes(texto)
    dichas: list[AreaDicha] = []
    for m in _DENTRO_DE_UN_AREA.finditer(plano):
        inicio_clausula = max(plano.rfind(signo, 0, m.start()) for signo in ".;,:?!") + 1
        if _NEGACION.search(plano[inicio_clausula : m.start()]) or re.search(
            r"\bfuera\b", plano[inicio_clausula : m.start()]
        ):
            continue
        categoria = _AREAS[m.group(1)]
        nombre = ""
        if propio := _NOMBRE_PROPIO.match(texto, m.end()):
            nombre = f"{texto[m.start(1) : m.end(1)].strip()}{propio.group(0)}".strip()
            nombre = nombre[:1].upper() + nombre[1:]
        area = AreaDicha(categoria, nombre, texto[m.start() : m.end()].strip())
        if all(a.categoria != area.categoria or a.nombre != area.nombre for a in dichas):
            dichas.append(area)
    return dichas
