"""Parsers por estructura: cada formato produce un `DocumentoParseado` (ver `base`)."""

from pathlib import Path

from normativa.parsers import bcn_xml, documentacion, guia_pdf, json_estructurado, leychile_pdf, markdown
from normativa.parsers.base import DocumentoParseado, ErrorDeParseo, Fragmento, fragmentar

__all__ = [
    "FORMATOS",
    "VERSION_PARSERS",
    "DocumentoParseado",
    "ErrorDeParseo",
    "Fragmento",
    "fragmentar",
    "parsear_archivo",
    "parsear_y_fragmentar",
    "verificar_contenido",
]

# Forma parte de la huella de cada versión: si un parser cambia cómo divide o limpia el texto, el
# mismo archivo produce una versión nueva (y solo se re-embeben los fragmentos que cambiaron).
VERSION_PARSERS = "2026-11-28.7"


FORMATOS = ("xml", "md", "json", "pdf", "pdf-ley", "md-doc")


def parsear_archivo(ruta: Path, *, formato: str | None = None) -> DocumentoParseado:
    """Elige el parser por extensión (o `formato`) y verifica que el contenido lo sea de verdad."""
    formato = (formato or ruta.suffix.lower().lstrip(".")).lower()
    formato = {"markdown": "md"}.get(formato, formato)
    if formato not in FORMATOS:
        raise ErrorDeParseo(f"Formato no soportado: «{formato}». Use PDF, XML, Markdown (.md) o JSON.")
    try:
        contenido = ruta.read_bytes()
    except OSError as error:
        raise ErrorDeParseo(f"No se pudo leer «{ruta.name}»: {error.strerror}.") from None
    verificar_contenido(contenido, formato=formato, nombre=ruta.name)
    lectores = {
        "xml": lambda: bcn_xml.parsear(contenido),
        "md": lambda: markdown.parsear(contenido.decode("utf-8")),
        "json": lambda: json_estructurado.parsear(contenido),
        "md-doc": lambda: documentacion.parsear(contenido.decode("utf-8"), titulo=ruta.name),
        "pdf-ley": lambda: leychile_pdf.parsear(ruta),
        "pdf": lambda: guia_pdf.parsear(ruta),
    }
    return lectores[formato]()


def parsear_y_fragmentar(ruta: Path, formato: str | None = None) -> tuple[DocumentoParseado, list[Fragmento]]:
    """Parsea y divide en fragmentos; un documento sin fragmentos es un error."""
    documento = parsear_archivo(ruta, formato=formato)
    fragmentos = fragmentar(documento)
    if not fragmentos:
        raise ErrorDeParseo(f"«{ruta.name}» no produjo fragmentos.")
    return documento, fragmentos


def verificar_contenido(contenido: bytes, *, formato: str, nombre: str) -> None:
    """Un archivo que no es lo que dice su extensión se rechaza antes de intentar leerlo."""
    es_pdf = contenido.startswith(b"%PDF-")
    if formato.startswith("pdf") and not es_pdf:
        raise ErrorDeParseo(f"«{nombre}» no es un PDF (no empieza con la firma %PDF).")
    if not formato.startswith("pdf"):
        if es_pdf or b"\x00" in contenido[:4096]:
            raise ErrorDeParseo(f"«{nombre}» es un archivo binario, no {formato.upper()} de texto.")
        try:
            contenido.decode("utf-8")
        except UnicodeDecodeError:
            if formato != "xml":  # el XML declara su propia codificación
                raise ErrorDeParseo(f"«{nombre}» no está codificado en UTF-8.") from None
