"""Las oraciones de un texto y sus raíces, como las lee el reordenador de la búsqueda.

La ingesta las guarda con cada fragmento (`FragmentoLegal.oraciones` y `.raices`, ver
`indice.actualizar_texto_completo`), así la búsqueda no parte ni lematiza en cada pregunta el texto de
un candidato que el proceso no había visto. Lo guardado lleva la `VERSION` del análisis: si cambia
cómo se parte o se lematiza, lo guardado deja de valer (la búsqueda vuelve a calcularlo y
`cargar_corpus` lo rehace).
"""

from __future__ import annotations

import hashlib
import re

from django.db import connection

MAXIMO_ORACIONES = 80
LARGO_MINIMO = 15  # menos que eso es un número de letra o un resto de tabla, no una oración
LARGO_RAIZ = 5
# Configuración de texto completo de PostgreSQL con que se lematiza (la misma de BM25).
CONFIGURACION = "spanish"

_ORACIONES = re.compile(r"(?<=[.;:])\s+(?=[A-ZÁÉÍÓÚÑ¿«(\d])|\n+")
# LeyChile corta las líneas de listas y tablas a mitad de oración («la caracterización y\nanálisis de
# los aspectos…»): un salto entre minúsculas (o tras una coma) no termina la oración.
_SALTO_DENTRO_DE_ORACION = re.compile(r"(?<=[a-záéíóúñü,])[ \t]*\n(?=[ \t]*[a-záéíóúñü])")
_LEXEMA_Y_POSICIONES = re.compile(r"'((?:[^']|'')*)':([\d,]+)")

# Cambia sola si cambia cómo se parte o se lematiza un texto (sube REVISION si cambia algo que no
# está aquí, como la función `normativa_sin_tildes` de la base).
REVISION = 1
VERSION = hashlib.sha256(
    repr(
        (
            REVISION,
            _ORACIONES.pattern,
            _SALTO_DENTRO_DE_ORACION.pattern,
            MAXIMO_ORACIONES,
            LARGO_MINIMO,
            LARGO_RAIZ,
            CONFIGURACION,
        )
    ).encode()
).hexdigest()[:16]


def oraciones_de(texto: str) -> tuple[str, ...]:
    """Las oraciones del texto (a lo más `MAXIMO_ORACIONES`), con los espacios normalizados. Sin memoria
    en el proceso: la ingesta parte aquí todo el corpus una vez, y la búsqueda solo lo que no trae
    oraciones guardadas."""
    partes = [" ".join(p.split()) for p in _ORACIONES.split(_SALTO_DENTRO_DE_ORACION.sub(" ", texto))]
    return tuple(p for p in partes if len(p) >= LARGO_MINIMO)[:MAXIMO_ORACIONES]


_CONTINUA_LA_ANTERIOR = re.compile(
    r"(vencido|transcurrido|cumplido|expirado) (este|dicho|el|ese) (plazo|termino)"
    r"|(en tal caso|en dicho caso|en caso contrario|si asi no|con todo|sin embargo|no obstante|todo ello"
    r"|en ambos casos)\b"
    # la consecuencia de no cumplir el deber que la anterior impone («La falta de pronunciamiento…») y
    # lo que se hace para cumplirlo («Para tal efecto, …»)
    r"|(la falta de|el incumplimiento de|la omision de|para (tal|este|dicho|estos|tales) efectos?)\b"
    # lo que se dice de la regla anterior («Lo anterior, sujeto a que…», «Dicho procedimiento se
    # reiniciará…»)
    r"|(lo anterior|lo (senalado|dispuesto|indicado) (precedentemente|anteriormente|en el inciso anterior)"
    r"|dich[oa]s? \w+)\b"
)


def continua_la_anterior(plegado: str) -> bool:
    """La oración (en minúsculas y sin tildes) depende de la anterior («Vencido este plazo, …», «No
    obstante, …»): es parte de su regla, la consecuencia o la excepción."""
    return bool(_CONTINUA_LA_ANTERIOR.match(plegado))


def raices_en_orden(textos: list[str]) -> list[list[str]]:
    """Las raíces de cada texto en el orden en que aparecen (en español, sin tildes ni palabras
    vacías), en una sola consulta: PostgreSQL devuelve el tsvector como texto («'consej':1
    'minis':3») y aquí se ordena por posición."""
    if not textos:
        return []
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            SELECT to_tsvector('{CONFIGURACION}', normativa_sin_tildes(s.t))::text
              FROM unnest(%s::text[]) WITH ORDINALITY AS s(t, n)
             ORDER BY s.n
            """,
            [textos],
        )
        return [_en_orden(vector) for (vector,) in cursor.fetchall()]


def raiz(lexema: str) -> str:
    """Los primeros cinco caracteres del lexema: el lematizador español de PostgreSQL da raíces
    distintas a formas de la misma palabra («glaciares» → glaciar, «glaciar» → glaci)."""
    return lexema[:LARGO_RAIZ]


def _en_orden(vector: str) -> list[str]:
    posiciones = [
        (int(posicion), raiz(lexema.replace("''", "'")))
        for lexema, lista in _LEXEMA_Y_POSICIONES.findall(vector)
        for posicion in lista.split(",")
    ]
    return [una for _, una in sorted(posiciones)]
