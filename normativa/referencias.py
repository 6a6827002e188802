"""Referencias explícitas en una pregunta: «art. 11 letra d», «artículo 10 i)», «DS 40», «i.1», «19.300»."""

from __future__ import annotations

import re
from dataclasses import dataclass

_SUFIJO = r"(bis|ter|qu[aá]ter|quinquies|sexies)"

_LEY = re.compile(r"\bley\s*(?:n[°º.]?\s*)?(\d{1,2}\.?\d{3})\b", re.IGNORECASE)
# «19.300» suelto es una ley; «15.000 m³», «6.500 toneladas» o «10.000 UTA» son cantidades. Las leyes
# ambientales que se citan así van de la 17.000 a la 22.999 (la Ley 17.288 de monumentos, la 21.600).
_NUMERO_SUELTO = re.compile(
    r"\b(1[7-9]\.\d{3}|2[0-2]\.\d{3})\b(?!\s*(?:m\b|m2|m3|m²|m³|t\b|t/|ton|ha\b|hect|metros|kil|km|pesos|uf\b"
    r"|ut[am]\b|unidades|%|plataformas|kg|kv|kva|mw|dias|días|meses|anos|años|litros|l/s|lts?\b|personas"
    r"|trabajadores|habitantes|familias|usd|us\$|dolares|dólares|\$))",
    re.IGNORECASE,
)
_DECRETO = re.compile(r"\b(?:d\.?\s?s\.?|decreto(?:\s+supremo)?)\s*(?:n[°º.]?\s*)?(\d{1,4})\b", re.IGNORECASE)
_REGLAMENTO_SEIA = re.compile(r"\breglamento\s+del?\s+(seia|sistema\s+de\s+evaluaci[oó]n)", re.IGNORECASE)
_LEY_BASES = re.compile(r"\bley\s+(de\s+)?bases(\s+generales)?\s+del\s+medio\s+ambiente", re.IGNORECASE)
# Las otras leyes del corpus por el nombre con que se las conoce («la ley marco sobre cambio climático»).
_LEYES_POR_SU_NOMBRE = (
    (re.compile(r"\bley\s+marco\s+(de|sobre|del)\s+cambio\s+clim[aá]tico", re.IGNORECASE), "Ley 21.455"),
    (
        re.compile(
            r"\bley\s+(org[aá]nica\s+)?de\s+la\s+superintendencia\s+del\s+medio\s+ambiente|\blosma\b",
            re.IGNORECASE,
        ),
        "Ley 20.417",
    ),
    (
        re.compile(r"\bley\s+(que\s+crea\s+los\s+|de\s+(los\s+)?)tribunales\s+ambientales", re.IGNORECASE),
        "Ley 20.600",
    ),
    (
        re.compile(r"\bley\s+(del\s+servicio\s+)?de\s+biodiversidad|\bley\s+(del\s+)?sbap\b", re.IGNORECASE),
        "Ley 21.600",
    ),
)
_ARTICULO = re.compile(rf"\bart(?:[íi]culo|\.)?\s*(\d{{1,3}})(?:\s*[°º])?(?:\s+{_SUFIJO})?\b", re.IGNORECASE)
_LETRA = re.compile(r"\b(?:letra|literal)\s+([a-zñ])\b\)?", re.IGNORECASE)
_LETRA_TRAS_ARTICULO = re.compile(
    rf"\bart(?:[íi]culo|\.)?\s*\d{{1,3}}(?:\s*[°º])?(?:\s+{_SUFIJO})?,?\s+([a-zñ])\)", re.IGNORECASE
)
_NUMERAL = re.compile(r"(?<![\w.])([a-zñ]\.\d{1,2}(?:\.\d{1,2})?)(?![\w])", re.IGNORECASE)


# «¿Qué es una DIA?», «¿qué significa impacto ambiental?», «definición de línea de base».
_DEFINICION = re.compile(
    r"^\W*(?:qu[ée]\s+(?:es|son|significa|se\s+entiende\s+por)|c[óo]mo\s+(?:se\s+)?define(?:\s+la\s+ley)?|"
    r"definici[óo]n\s+(?:legal\s+)?de|defin[ae])\s+(?:(?:un|una|el|la|los|las|lo)\s+)?(?P<termino>[^?¿]+?)"
    # lo que acota y no es parte del término: «según la ley», «para efectos del SEIA», «en el reglamento»
    r"(?:\s+(?:seg[úu]n|para|en|de\s+acuerdo\s+(?:a|con))\s+(?:la|el|los|las|efectos|fines)\b.*)?\W*$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Referencias:
    normas: tuple[str, ...] = ()
    articulo: str = ""
    letra: str = ""
    termino_definido: str = ""

    @property
    def vacia(self) -> bool:
        return not (self.normas or self.articulo or self.letra or self.termino_definido)


def extraer_referencias(consulta: str) -> Referencias:
    """Devuelve las normas («Ley 19.300», «DS 40»), el artículo y la letra o numeral citados."""
    normas: list[str] = []
    normas.extend(f"Ley {_con_punto(m.group(1))}" for m in _LEY.finditer(consulta))
    normas.extend(f"Ley {m.group(1)}" for m in _NUMERO_SUELTO.finditer(consulta))
    normas.extend(f"DS {int(m.group(1))}" for m in _DECRETO.finditer(consulta))
    if _REGLAMENTO_SEIA.search(consulta):
        normas.append("DS 40")
    if _LEY_BASES.search(consulta):
        normas.append("Ley 19.300")
    normas.extend(sigla for patron, sigla in _LEYES_POR_SU_NOMBRE if patron.search(consulta))
    articulo = ""
    if en_articulo := _ARTICULO.search(consulta):
        sufijo = (en_articulo.group(2) or "").lower().replace("quater", "quáter")
        articulo = f"{int(en_articulo.group(1))} {sufijo}".strip()
    letra = ""
    if numeral := _NUMERAL.search(consulta):
        letra = numeral.group(1).lower()
        if not articulo and (not normas or "DS 40" in normas):
            # «i.1», «a.2.1» son literales del Art. 3 del Reglamento del SEIA.
            normas = normas or ["DS 40"]
            articulo = "3"
    elif en_letra := _LETRA.search(consulta):
        letra = en_letra.group(1).lower()
    elif tras_articulo := _LETRA_TRAS_ARTICULO.search(consulta):
        letra = tras_articulo.group(2).lower()
    definicion = _DEFINICION.match(consulta.strip())
    return Referencias(
        normas=tuple(dict.fromkeys(normas)),
        articulo=articulo,
        letra=letra,
        termino_definido=definicion.group("termino").strip() if definicion and not articulo else "",
    )


def _con_punto(numero: str) -> str:
    digitos = numero.replace(".", "")
    return f"{digitos[:-3]}.{digitos[-3:]}"
