"""Markdown de la documentación del sistema (README, CONTRIBUTING, docs/): secciones por encabezado.

Cada encabezado `#`…`####` abre una sección cuya jerarquía son los encabezados que la contienen;
los bloques de código se conservan como texto (un `#` dentro de ellos no es un encabezado).
"""

from __future__ import annotations

import re

from normativa.parsers.base import DocumentoParseado, ErrorDeParseo, Seccion

_ENCABEZADO = re.compile(r"^(#{1,4})\s+(.+?)\s*#*\s*$")


def parsear(texto: str, *, titulo: str = "") -> DocumentoParseado:
    """Devuelve las secciones de un documento Markdown del sistema."""
    documento = DocumentoParseado(titulo=titulo)
    pila: list[tuple[int, str]] = []
    actual: list[str] = []
    en_codigo = False

    def cerrar() -> None:
        contenido = "\n".join(actual).strip()
        if contenido:
            jerarquia = [t for _, t in pila] or [titulo or "Documento"]
            documento.secciones.append(Seccion(jerarquia=jerarquia, texto=contenido))

    for linea in texto.replace("\r\n", "\n").split("\n"):
        if linea.lstrip().startswith("```"):
            en_codigo = not en_codigo
        encabezado = None if en_codigo else _ENCABEZADO.match(linea)
        if encabezado:
            cerrar()
            actual = []
            nivel = len(encabezado.group(1))
            pila = [(n, t) for n, t in pila if n < nivel] + [(nivel, encabezado.group(2))]
        else:
            actual.append(linea.rstrip())
    cerrar()
    if not documento.secciones:
        raise ErrorDeParseo("El documento Markdown no tiene contenido.")
    return documento
