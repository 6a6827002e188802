"""PDF de guías y criterios del SEA: secciones por sus encabezados numerados.

Se quitan la cabecera y el pie que se repiten en las páginas (título corto de la guía, «SERVICIO
DE EVALUACIÓN AMBIENTAL», números de página) y se divide el texto en secciones por encabezados
como «1. Disposiciones generales», «3.2.1 Área de influencia» o «ANEXO 1». Cada sección recuerda su
página; las largas se parten luego por párrafos conservando el encabezado (ver `base.fragmentar`).
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import json
import re
from collections import Counter
from pathlib import Path

from normativa.parsers.base import DocumentoParseado, ErrorDeParseo, Seccion

# «1. INTRODUCCIÓN», «2.5 Descripción de la fase…», «3.4.1. Actividades»; no «8 Referencia…» (nota
# al pie: número sin punto) ni entradas largas de glosario («2. Faena minera Conjunto de…»).
_ENCABEZADO = re.compile(r"^(\d{1,2}(?:\.\d{1,2}){1,3}\.?|\d{1,2}\.)\s+([A-ZÁÉÍÓÚÑ¿][^.]{2,70})$")
_ANEXO = re.compile(r"^(ANEXO|Anexo)\s+[\dIVX]+\b.{0,100}$")
_INDICE = re.compile(r"(\s|\.{3,})\d{1,3}\s*$")
_SOLO_NUMERO = re.compile(r"^\s*\d{1,3}\s*$")
MINIMO_CARACTERES = 200


def parsear(ruta: Path, *, titulo: str = "") -> DocumentoParseado:
    """Devuelve las secciones de una guía del SEA en PDF."""
    paginas = _leer_paginas(ruta)
    if sum(len(linea.strip()) for lineas in paginas for linea in lineas) < MINIMO_CARACTERES:
        raise ErrorDeParseo("El PDF no tiene texto extraíble (¿es un documento escaneado?).")
    repetidas = _lineas_repetidas(paginas)
    documento = DocumentoParseado(titulo=titulo or ruta.stem)
    pila: list[tuple[int, str]] = []
    actual: list[str] = []
    pagina_actual = 1

    def cerrar() -> None:
        texto = _unir_parrafos(actual)
        if texto.strip():
            jerarquia = [t for _, t in pila] or ["Introducción"]
            documento.secciones.append(Seccion(jerarquia=jerarquia, texto=texto, pagina=pagina_actual))

    for numero_pagina, lineas in enumerate(paginas, start=1):
        for linea in lineas:
            limpia = linea.strip()
            if not limpia or limpia in repetidas or _SOLO_NUMERO.match(limpia):
                continue
            encabezado = _ENCABEZADO.match(limpia)
            if (encabezado or _ANEXO.match(limpia)) and _INDICE.search(limpia):
                continue  # línea del índice («2.5 Fase de construcción 40»), no un encabezado
            if encabezado or _ANEXO.match(limpia):
                cerrar()
                actual = []
                pagina_actual = numero_pagina
                nivel = encabezado.group(1).rstrip(".").count(".") + 1 if encabezado else 1
                pila = [(n, t) for n, t in pila if n < nivel] + [(nivel, limpia)]
            else:
                actual.append(limpia)
    cerrar()
    if not documento.secciones:
        raise ErrorDeParseo("No se encontraron secciones en el PDF de la guía.")
    return documento


# El texto de cada página de los PDF del corpus, ya extraído: pypdf toma ~25 s de CPU en leer las
# guías incluidas. Va por huella de los bytes y versión de pypdf (la extracción depende solo de eso): un
# PDF cambiado, uno subido por el personal u otra versión de pypdf se leen de nuevo.
TEXTOS_PRECALCULADOS = Path(__file__).resolve().parents[1] / "corpus" / "textos_pdf.json.gz"


def _leer_paginas(ruta: Path) -> list[list[str]]:
    try:
        contenido = ruta.read_bytes()
    except OSError as error:
        raise ErrorDeParseo(f"No se pudo leer el PDF: {error.strerror}.") from None
    textos = textos_precalculados().get(huella_pdf(contenido))
    if textos is None:
        textos = extraer_textos(ruta)
    return [texto.split("\n") for texto in textos]


def extraer_textos(ruta: Path) -> list[str]:
    import pypdf

    try:
        return [pagina.extract_text() or "" for pagina in pypdf.PdfReader(ruta).pages]
    except Exception as error:  # pypdf lanza varios tipos ante archivos dañados
        raise ErrorDeParseo(f"No se pudo leer el PDF: {error}.") from None


def huella_pdf(contenido: bytes) -> str:
    import pypdf

    return hashlib.sha256(pypdf.__version__.encode() + b"\n" + contenido).hexdigest()


@functools.cache
def textos_precalculados(archivo: Path = TEXTOS_PRECALCULADOS) -> dict[str, list[str]]:
    if not archivo.exists():
        return {}
    with gzip.open(archivo, "rt", encoding="utf-8") as entrada:
        textos: dict[str, list[str]] = json.load(entrada)
    return textos


def textos_precalculados_exportar(rutas: list[Path], *, archivo: Path = TEXTOS_PRECALCULADOS) -> int:
    """Reescribe el texto ya extraído de estos PDF (`cargar_corpus --exportar-embeddings`); devuelve
    cuántos."""
    textos = {huella_pdf(ruta.read_bytes()): extraer_textos(ruta) for ruta in rutas}
    datos = json.dumps(textos, ensure_ascii=False, sort_keys=True).encode("utf-8")
    # sin fecha en la cabecera: el mismo texto da el mismo archivo
    with gzip.GzipFile(archivo, "wb", compresslevel=9, mtime=0) as salida:
        salida.write(datos)
    textos_precalculados.cache_clear()
    return len(textos)


def _lineas_repetidas(paginas: list[list[str]]) -> set[str]:
    """Líneas que aparecen en al menos un cuarto de las páginas: cabeceras y pies."""
    conteo: Counter[str] = Counter()
    for lineas in paginas:
        conteo.update({linea.strip() for linea in lineas if linea.strip()})
    umbral = max(3, len(paginas) // 4)
    return {linea for linea, veces in conteo.items() if veces >= umbral}


def _unir_parrafos(lineas: list[str]) -> str:
    """Une líneas cortadas; un párrafo termina en punto, dos puntos o punto y coma."""
    parrafos: list[str] = []
    for linea in lineas:
        if parrafos and not re.search(r"[.:;]$", parrafos[-1]) and not re.match(r"^([•\-–]|[a-z]\))", linea):
            parrafos[-1] += " " + linea
        else:
            parrafos.append(linea)
    return "\n".join(parrafos)
