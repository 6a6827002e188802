"""Markdown de normas de la BCN: legalize-cl (front-matter YAML, `##### Artículo N`) y la
representación de pisanvs/ley-chile del DS 40 (`#### Artículo N (art. primero)` + `<!-- parte:N -->`).

La jerarquía sale de los encabezados `##`/`###` (Título, Párrafo); el artículo, del encabezado que
empieza por «Artículo», cualquiera sea su nivel. Los encabezados espurios que el conversor dejó
dentro del texto (p. ej. «## Título VII — de este Reglamento…») no abren títulos.
"""

from __future__ import annotations

import re

from normativa.parsers.base import (
    Articulo,
    DocumentoParseado,
    ErrorDeParseo,
    fecha_iso,
    normalizar_articulo,
    normalizar_espacios,
    ordinal_a_numero,
)

_ENCABEZADO = re.compile(r"^(#{1,6})\s+(.*)$")
_ARTICULO = re.compile(r"^Art[íi]culo\s+(.+?)(?:\s*\((art\.[^)]*)\))?\s*$", re.IGNORECASE)
_TRANSITORIO = re.compile(r"\btransitori[oa]s?\b", re.IGNORECASE)
_PARTE = re.compile(r"<!--\s*parte:(\d+)\s*-->")
# «## Artículos transitorios» abre la sección de transitorios como un título (no es un artículo).
_TITULO_VALIDO = re.compile(
    r"^(T[ÍI]TULO|P[áa]rrafo|Disposiciones|Libro|Cap[íi]tulo|Art[íi]culos\s+transitori)", re.IGNORECASE
)
_ESPURIO = re.compile(r"—\s*(de|del)\s")


def parsear(texto: str) -> DocumentoParseado:
    """Devuelve la estructura de una norma en Markdown de la BCN."""
    metadatos, cuerpo = _front_matter(texto)
    lineas = cuerpo.split("\n")
    if not any(_es_articulo(linea) for linea in lineas):
        raise ErrorDeParseo("El Markdown no tiene encabezados «Artículo N»: no parece una norma de la BCN.")
    documento = DocumentoParseado(
        titulo=metadatos.get("title", "") or _primer_titulo(lineas),
        fecha_version=fecha_iso(metadatos.get("last_updated")),
        metadatos=metadatos,
    )
    niveles: dict[int, str] = {}
    actual: Articulo | None = None
    texto_actual: list[str] = []
    transitorios = False

    def cerrar() -> None:
        if actual is not None:
            actual.texto = normalizar_espacios(
                "\n".join(" " + linea if linea else "" for linea in texto_actual)
            )
            actual.derogado = bool(
                re.match(r"^(Derogado|DEROGADO)\.?$", actual.texto.split("\n")[-1].strip())
            )
            documento.articulos.append(actual)

    for linea in lineas:
        encabezado = _ENCABEZADO.match(linea)
        if encabezado and _es_articulo(linea):
            cerrar()
            nombre = encabezado.group(2).strip()
            coincidencia = _ARTICULO.match(nombre)
            assert coincidencia is not None
            numero = coincidencia.group(1)
            es_transitorio = transitorios or bool(_TRANSITORIO.search(numero))
            numero = _TRANSITORIO.sub("", numero).strip()
            numero_normalizado = normalizar_articulo(numero)
            if not numero_normalizado:
                actual = None  # encabezado contenedor («Artículo transitorio») sin texto propio
                continue
            actual = Articulo(
                numero=ordinal_a_numero(numero_normalizado) if es_transitorio else numero_normalizado,
                texto="",
                jerarquia=[niveles[n] for n in sorted(niveles)],
                transitorio=es_transitorio,
            )
            texto_actual = [f"Artículo {numero}.-"]
        elif encabezado and len(encabezado.group(1)) > 1 and _es_titulo(encabezado.group(2)):
            cerrar()
            actual = None
            nivel, titulo = len(encabezado.group(1)), re.sub(r"\s+", " ", encabezado.group(2).strip())
            niveles = {n: t for n, t in niveles.items() if n < nivel}
            niveles[nivel] = titulo
            transitorios = transitorios or bool(_TRANSITORIO.search(titulo))
        elif actual is not None:
            parte = _PARTE.search(linea)
            if parte:
                actual.id_parte = actual.id_parte or parte.group(1)
            elif linea.strip():
                texto_actual.append(linea.strip())
    cerrar()
    return documento


def _es_articulo(linea: str) -> bool:
    encabezado = _ENCABEZADO.match(linea)
    return bool(encabezado and _ARTICULO.match(encabezado.group(2).strip()))


def _es_titulo(texto: str) -> bool:
    return bool(_TITULO_VALIDO.match(texto.strip())) and not _ESPURIO.search(texto)


def _front_matter(texto: str) -> tuple[dict[str, str], str]:
    if not texto.startswith("---\n"):
        return {}, texto
    fin = texto.find("\n---\n", 4)
    if fin < 0:
        return {}, texto
    metadatos = {}
    for linea in texto[4:fin].split("\n"):
        clave, _, valor = linea.partition(":")
        metadatos[clave.strip()] = valor.strip().strip('"')
    return metadatos, texto[fin + 5 :]


def _primer_titulo(lineas: list[str]) -> str:
    return next((linea.lstrip("# ").strip() for linea in lineas if linea.startswith("# ")), "")
