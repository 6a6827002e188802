"""Parsers por estructura: cada formato produce un `DocumentoParseado` (ver `base`)."""

from pathlib import Path

from normativa.parsers.base import DocumentoParseado, ErrorDeParseo, Fragmento, fragmentar

__all__ = [
    "VERSION_PARSERS",
    "DocumentoParseado",
    "ErrorDeParseo",
    "Fragmento",
    "fragmentar",
    "parsear_archivo",
]

# Forma parte de la huella de cada versión: si un parser cambia cómo divide o limpia el texto, el
# mismo archivo produce una versión nueva (y solo se re-embeben los fragmentos que cambiaron).
VERSION_PARSERS = "2026-11-22.1"


def parsear_archivo(ruta: Path, *, formato: str | None = None) -> DocumentoParseado:
    """Elige el parser por extensión (o `formato`) y verifica que el contenido lo sea de verdad."""
    from normativa.parsers import bcn_xml, guia_pdf, leychile_pdf, markdown

    formato = formato or ruta.suffix.lower().lstrip(".")
    lectores = {
        "xml": lambda: bcn_xml.parsear(ruta.read_bytes()),
        "md": lambda: markdown.parsear(ruta.read_text(encoding="utf-8")),
        "pdf-ley": lambda: leychile_pdf.parsear(ruta),
        "pdf": lambda: guia_pdf.parsear(ruta),
    }
    if formato not in lectores:
        raise ErrorDeParseo(f"Formato no soportado: «{formato}». Use PDF, XML o Markdown (.md).")
    return lectores[formato]()
