"""Palabras ajenas: el tema de una pregunta que el corpus no trata, aunque la búsqueda encuentre algo.

Una pregunta de otra rama del derecho suena jurídica y minera («servidumbre minera», «patente minera
por hectárea», «impuesto específico sobre la renta operacional»), así que e5 la acerca a cualquier
artículo y el corpus conoce casi todas sus palabras. Lo que la delata es su tema: sustantivos que el
español general usa más que el corpus (la «afinidad» con el corpus es baja) y que no están en lo que
se respondería (las oraciones que se mostrarían y sus epígrafes, no el artículo entero: un artículo
largo nombra de paso casi cualquier cosa, «impuesto», «trabajador»). Con dos o más de esas palabras,
la pregunta es de un tema que el corpus no trata, salvo que nombre un instrumento o institución del
SEIA por su sigla («la DIA», «la RCA»): entonces la pregunta es del SEIA aunque se diga coloquialmente.

Qué cuenta como palabra del tema:
- no es de todos los días: su frecuencia en el español general (`wordfreq`, escala Zipf) está bajo
  `COMUN`, medida en la palabra y en su lema (`simplemma`: «empezamos» es «empezar», muy común);
- no es un verbo (su lema termina en -ar, -er o -ir): el tema de una pregunta jurídica es una
  institución, no lo que se hace con ella («¿hay que dividir…?», «¿se nos puede caer…?»);
- no es un nombre propio dentro de la oración (mayúscula que no abre la pregunta, salvo siglas): un
  lugar («en Copiapó») no cambia el tema;
- el español general la conoce (frecuencia > 0): una palabra técnica rara («xerofítica») es del
  dominio; las que el corpus no trae las mide aparte la fracción desconocida de la búsqueda.

Afinidad = log10 de la frecuencia documental en el corpus menos log10 de la frecuencia en el español
general (más una constante): «SEIA» 6,7, «ambiental» 4,3, «minera» 4,2; «hectárea» 2,0, «renta» 1,7,
«IVA» 1,1. No hay lista de temas: la afinidad sale del corpus cargado y cambia cuando crece.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache

import simplemma
from django.db import connection
from wordfreq import zipf_frequency

from config.texto import sin_tildes
from normativa.busqueda.analisis import frecuencias_documentales
from normativa.glosario import nombra_sigla, palabras_de_jerga

COMUN = 5.0  # Zipf: unas 100 veces por millón de palabras o más («todavía», «semana», «tiempo»)
AFINIDAD_AJENA = 3.8  # bajo esto, el español general usa la palabra más de lo que la usa el corpus
MINIMO_AJENAS = 2  # una sola palabra ajena puede ser un detalle; dos son el tema
LARGO_MINIMO = 3
_INTERROGATIVOS = frozenset(
    {
        "que",
        "cual",
        "cuales",
        "cuanto",
        "cuanta",
        "cuantos",
        "cuantas",
        "como",
        "donde",
        "cuando",
        "quien",
        "quienes",
    }
)
# Pronombres que solo van junto a un verbo (no «la», «lo», «los», «las», que también son artículos).
_CLITICOS = frozenset({"me", "te", "se", "nos", "os", "le", "les"})
_PALABRA = re.compile(r"[A-Za-zÁÉÍÓÚÑáéíóúñÜü]+")
_VERBO = re.compile(r"(ar|er|ir)$")


def palabras_ajenas(consulta: str, textos: list[str]) -> list[str]:
    """Las palabras del tema de la consulta con baja afinidad con el corpus que ninguno de `textos`
    (lo que se respondería: las oraciones mostradas y sus epígrafes) contiene, en el orden de la
    consulta."""
    jerga = palabras_de_jerga(consulta)
    candidatas = {p: z for p, z in _palabras_del_tema(consulta).items() if sin_tildes(p) not in jerga}
    if not candidatas:
        return []
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT p.palabra, min(l.lexeme)
              FROM unnest(%s::text[]) AS p(palabra)
              CROSS JOIN LATERAL unnest(to_tsvector('spanish', normativa_sin_tildes(p.palabra))) AS l
             GROUP BY p.palabra
            """,
            [list(candidatas)],
        )
        lexemas = dict(cursor.fetchall())
        cursor.execute(
            "SELECT DISTINCT lexeme FROM unnest(to_tsvector('spanish', normativa_sin_tildes(%s)))",
            ["\n".join(textos)],
        )
        respondidas = {fila[0] for fila in cursor.fetchall()}
    total, documentos = frecuencias_documentales(list(lexemas.values()))
    return [
        palabra
        for palabra in candidatas
        if palabra in lexemas
        and lexemas[palabra] not in respondidas
        and _afinidad(documentos.get(lexemas[palabra], 0), total, candidatas[palabra]) < AFINIDAD_AJENA
    ]


def es_ajena(consulta: str, textos: list[str]) -> bool:
    """La consulta trata un tema que el corpus no trata (ver el módulo)."""
    return not nombra_sigla(consulta) and len(palabras_ajenas(consulta, textos)) >= MINIMO_AJENAS


def precargar() -> None:
    """Carga el diccionario de lemas y las frecuencias del español (más de un segundo la primera vez):
    los procesos que sirven lo hacen al arrancar (`config.recolector`), no en el primer turno."""
    _lema("precargar")
    _zipf("precargar")


def palabras_comunes(consulta: str) -> list[str]:
    """Las palabras de todos los días de la consulta (Zipf ≥ `COMUN` en la palabra o en su lema:
    «todavía», «vamos», «tiempo»): no dicen de qué trata y el corpus legal puede no usarlas nunca."""
    minusculas = dict.fromkeys(m.group(0).lower() for m in _PALABRA.finditer(consulta))
    return [p for p in minusculas if max(_zipf(p), _zipf(_lema(p))) >= COMUN]


def _palabras_del_tema(consulta: str) -> dict[str, float]:
    """Palabra → su frecuencia Zipf en el español general, solo las que pueden ser el tema."""
    palabras: dict[str, float] = {}
    anterior = ""
    for posicion, match in enumerate(_PALABRA.finditer(consulta)):
        palabra = match.group(0)
        minuscula = palabra.lower()
        anterior, previa = minuscula, anterior
        if previa in _CLITICOS:
            continue  # tras «nos», «se», «le»… es un verbo conjugado («nos toca», «se cosecha»)
        if len(palabra) < LARGO_MINIMO or sin_tildes(minuscula) in _INTERROGATIVOS or minuscula in palabras:
            continue
        if posicion > 0 and palabra[0].isupper() and not palabra.isupper():
            continue  # nombre propio: un lugar, una persona
        lema = _lema(minuscula)
        if _VERBO.search(lema):
            continue
        frecuencia = max(_zipf(minuscula), _zipf(lema))
        if 0 < frecuencia < COMUN:
            palabras[minuscula] = frecuencia
    return palabras


def _afinidad(documentos: int, total: float, zipf: float) -> float:
    # Zipf = log10 de la frecuencia por mil millones de palabras.
    return math.log10((documentos + 0.5) / total) + 9 - zipf


@lru_cache(maxsize=4096)
def _lema(palabra: str) -> str:
    return str(simplemma.lemmatize(palabra, lang="es"))


@lru_cache(maxsize=4096)
def _zipf(palabra: str) -> float:
    return float(zipf_frequency(palabra, "es"))
