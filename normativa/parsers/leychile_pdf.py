"""PDF de una ley generado por LeyChile («documento generado el …»).

El texto de la norma va en Courier; cabecera, pie («página N de 50») y metadatos en Helvetica. Las
notas de modificación («Ley 20417 / Art. PRIMERO Nº 8 / D.O. 26.01.2010») van en el margen derecho,
en la misma línea de Courier a partir de la columna 64. Se conserva solo el texto del cuerpo y se
reconstruye la estructura Título › Párrafo › Artículo.
"""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path
from typing import Any

from normativa.parsers.base import (
    Articulo,
    DocumentoParseado,
    ErrorDeParseo,
    normalizar_articulo,
    normalizar_espacios,
    quitar_columna_de_notas,
)

COLUMNA_MARGEN = 64
_FUENTE_CUERPO = "/Courier"
_ARTICULO = re.compile(
    r"^\s*Art[íi]culo\s+(\d+\s*[°º]?(?:\s*(?:bis|ter|qu[aá]ter|quinquies|sexies))?|[A-ZÁÉÍÓÚ]+)\s*[°º]?\.?\s*-",
    re.IGNORECASE,
)
_TITULO = re.compile(r"^\s*\"?T[IÍ]TULO\s+([IVXL]+|FINAL)\b", re.IGNORECASE)
_PARRAFO = re.compile(r"^\s*P[áa]rrafo\s+(\d+\s*[°º]?(?:\s*(?:bis|ter))?|final)", re.IGNORECASE)
_TRANSITORIOS = re.compile(r"^\s*(ART[IÍ]CULOS|DISPOSICIONES)\s+TRANSITORI", re.IGNORECASE)
# Anotaciones editoriales de LeyChile («NOTA», «NOTA 1:») y fórmula de promulgación: no son norma.
_FIN_DEL_CUERPO = re.compile(
    r"^\s*(NOTA(\s*\d+)?:?\s*$|Habiéndose cumplido con lo establecido|Y por cuanto he tenido a bien)"
)
_VERSION = re.compile(r"Versi[óo]n De\s*:\s*(\d{2})-([A-Z]{3})-(\d{4})")
_MESES = {
    m: i
    for i, m in enumerate(
        ["ENE", "FEB", "MAR", "ABR", "MAY", "JUN", "JUL", "AGO", "SEP", "OCT", "NOV", "DIC"], start=1
    )
}


def parsear(ruta: Path) -> DocumentoParseado:
    """Devuelve los artículos del PDF de LeyChile sin cabeceras, pies ni notas de margen."""
    cuerpo, metadatos = _leer(ruta)
    if not cuerpo.strip():
        raise ErrorDeParseo("El PDF no tiene texto de LeyChile extraíble (¿escaneado o de otro origen?).")
    documento = DocumentoParseado(titulo=metadatos.get("titulo", ""), fecha_version=_fecha(metadatos))
    _estructurar(cuerpo, documento)
    if not documento.articulos:
        raise ErrorDeParseo("No se encontraron artículos en el PDF: no parece una ley de LeyChile.")
    return documento


def _leer(ruta: Path) -> tuple[str, dict[str, str]]:
    import pypdf

    try:
        lector = pypdf.PdfReader(ruta)
    except Exception as error:  # pypdf lanza varios tipos ante archivos dañados
        raise ErrorDeParseo(f"No se pudo leer el PDF: {error}.") from None
    lineas: list[str] = []
    textos_helvetica: list[str] = []
    partes: list[str] = []

    def visitar(texto: str, cm: Any, tm: Any, fuente: Any, tamano: Any) -> None:
        nombre = (fuente or {}).get("/BaseFont")
        if nombre == _FUENTE_CUERPO:
            partes.append(texto)
        elif texto.strip():
            textos_helvetica.append(texto.strip())

    for pagina in lector.pages:
        partes.clear()
        pagina.extract_text(visitor_text=visitar)
        lineas.extend(quitar_columna_de_notas("".join(partes), columna=COLUMNA_MARGEN).split("\n"))
    metadatos = {"cabecera": " ".join(textos_helvetica[:12])}
    if len(textos_helvetica) > 4:
        metadatos["titulo"] = textos_helvetica[4]
    return "\n".join(lineas), metadatos


def _estructurar(cuerpo: str, documento: DocumentoParseado) -> None:
    titulo = parrafo = ""
    transitorio = False
    actual: list[str] | None = None
    numero = ""
    lineas = cuerpo.split("\n")

    def cerrar() -> None:
        if actual is not None:
            texto = normalizar_espacios("\n".join(actual))
            documento.articulos.append(
                Articulo(
                    numero=numero,
                    texto=texto,
                    jerarquia=[j for j in (titulo, parrafo) if j],
                    derogado=bool(re.search(r"^Art[íi]culo [^.]+\.-\s*Derogado\.?$", texto)),
                    transitorio=transitorio,
                )
            )

    indice = 0
    while indice < len(lineas):
        linea = lineas[indice]
        if _TITULO.match(linea) or _TRANSITORIOS.match(linea) or _PARRAFO.match(linea):
            cerrar()
            actual = None
            # El encabezado sigue en las líneas siguientes hasta la primera línea en blanco.
            continuacion: list[str] = []
            siguiente_indice = indice + 1
            while siguiente_indice < len(lineas) and not lineas[siguiente_indice].strip():
                siguiente_indice += 1
            while (
                siguiente_indice < len(lineas)
                and lineas[siguiente_indice].strip()
                and len(continuacion) < 3
                and not _es_encabezado(lineas[siguiente_indice])
            ):
                continuacion.append(lineas[siguiente_indice].strip())
                siguiente_indice += 1
            siguiente = " ".join(continuacion)
            siguiente_indice -= 1
            encabezado = re.sub(r"\s+", " ", linea.strip().strip('"')).replace("°", "º")
            if _TRANSITORIOS.match(linea):
                transitorio, titulo, parrafo = True, "Artículos transitorios", ""
            elif _TITULO.match(linea):
                titulo = "Título " + encabezado.split(" ", 1)[1] + (f" {siguiente}" if siguiente else "")
                parrafo = ""
                indice = siguiente_indice
            else:
                parrafo = encabezado + (f" {siguiente}" if siguiente else "")
                indice = siguiente_indice
        elif coincidencia := _ARTICULO.match(linea):
            cerrar()
            numero = normalizar_articulo(coincidencia.group(1))
            actual = [linea]
        elif _FIN_DEL_CUERPO.match(linea):
            cerrar()
            actual = None
        elif actual is not None:
            actual.append(linea)
        indice += 1
    cerrar()


def _es_encabezado(linea: str) -> bool:
    return bool(_ARTICULO.match(linea) or _TITULO.match(linea) or _PARRAFO.match(linea))


def _fecha(metadatos: dict[str, str]) -> date | None:
    coincidencia = _VERSION.search(metadatos.get("cabecera", ""))
    if not coincidencia:
        return None
    dia, mes, anio = coincidencia.groups()
    return date(int(anio), _MESES.get(mes, 1), int(dia))
