"""Efectos dichos con palabras de faena → la circunstancia declarada del motor (Art. 11, Ley 19.300).

Un consultor no escribe «reasentamiento de comunidades humanas»: escribe «hay que relocalizar a las
familias». Cada patrón sale del texto de la letra del Art. 11 y del artículo del DS 40 que la
desarrolla (Arts. 5 a 10), más el vocabulario con que se dice en terreno:

- a) riesgo para la salud de la población (DS 40 Art. 5): superar una norma de calidad o de emisión,
  material particulado (MP10, MP2,5) o emisiones sobre la población;
- b) efectos adversos significativos sobre recursos naturales renovables (Art. 6): secar o afectar
  vegas, bofedales, humedales o acuíferos; pérdida significativa de suelo, flora o fauna;
- c) reasentamiento (Art. 7 inc. 1º y su definición en el Art. 2): relocalizar, reasentar o trasladar
  familias o comunidades; alteración de sistemas de vida (Art. 7 letras a–d): trashumancia,
  veranadas, rutas de arrieros o pastoreo, acceso a recursos naturales de un grupo humano, costumbres;
- d) localización en o próxima a áreas protegidas, sitios prioritarios, humedales protegidos o
  glaciares (Art. 8): santuario de la naturaleza, parque o reserva nacional, monumento natural,
  humedal Ramsar o urbano, glaciar;
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
            r"|\briesgo\w* (para|a) la salud\b|\bsalud de (la )?(poblacion|las personas|los vecinos)\b",
        ),
        (
            "efectos_adversos_recursos_naturales",
            r"\b(sec\w*|desec\w*|drenar\w*|afect\w*|destru\w*|perd\w*)\b[^.;]{0,40}"
            r"\b(vegas?|bofedal\w*|humedal\w*|acuifero\w*|napa\w*)\b",
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
            r"ramsar|urbano\w*)\b|\bglaciar\w*\b",
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
