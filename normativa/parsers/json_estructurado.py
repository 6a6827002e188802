"""JSON estructurado: una norma ya dividida por quien la prepara (curaduría, otras fuentes).

Formato::

    {"titulo": "…", "fecha_version": "2025-01-31",
     "articulos": [{"numero": "11 bis", "texto": "…", "jerarquia": ["TÍTULO II …"],
                    "derogado": false, "transitorio": false, "id_parte": "…"}],
     "secciones": [{"jerarquia": ["1. Introducción"], "texto": "…", "pagina": 3}]}

Se exige al menos un artículo o una sección con texto.
"""

from __future__ import annotations

import json
from datetime import date
from typing import Any

from normativa.parsers.base import Articulo, DocumentoParseado, ErrorDeParseo, Seccion, normalizar_articulo


def parsear(contenido: bytes) -> DocumentoParseado:
    """Devuelve la estructura de una norma descrita en JSON (formato del docstring del módulo)."""
    try:
        datos = json.loads(contenido.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ErrorDeParseo(f"JSON inválido: {error}.") from None
    if not isinstance(datos, dict):
        raise ErrorDeParseo("El JSON debe ser un objeto con «articulos» o «secciones».")
    documento = DocumentoParseado(
        titulo=str(datos.get("titulo", "")), fecha_version=_fecha(datos.get("fecha_version"))
    )
    for posicion, articulo in enumerate(_lista(datos, "articulos"), start=1):
        numero, texto = str(articulo.get("numero", "")).strip(), str(articulo.get("texto", "")).strip()
        if not numero or not texto:
            raise ErrorDeParseo(f"El artículo {posicion} del JSON no tiene «numero» y «texto».")
        documento.articulos.append(
            Articulo(
                numero=normalizar_articulo(numero),
                texto=texto,
                jerarquia=[str(j) for j in articulo.get("jerarquia", [])],
                id_parte=str(articulo.get("id_parte", "")),
                derogado=bool(articulo.get("derogado", False)),
                transitorio=bool(articulo.get("transitorio", False)),
            )
        )
    for posicion, seccion in enumerate(_lista(datos, "secciones"), start=1):
        texto = str(seccion.get("texto", "")).strip()
        if not texto:
            raise ErrorDeParseo(f"La sección {posicion} del JSON no tiene «texto».")
        pagina = seccion.get("pagina")
        documento.secciones.append(
            Seccion(
                jerarquia=[str(j) for j in seccion.get("jerarquia", [])] or ["Sin título"],
                texto=texto,
                pagina=int(pagina) if isinstance(pagina, int) else None,
            )
        )
    if not documento.articulos and not documento.secciones:
        raise ErrorDeParseo("El JSON no contiene artículos ni secciones.")
    return documento


def _lista(datos: dict[str, Any], clave: str) -> list[dict[str, Any]]:
    valor = datos.get(clave, [])
    if not isinstance(valor, list) or not all(isinstance(v, dict) for v in valor):
        raise ErrorDeParseo(f"«{clave}» debe ser una lista de objetos.")
    return valor


def _fecha(valor: object) -> date | None:
    try:
        return date.fromisoformat(str(valor)) if valor else None
    except ValueError:
        raise ErrorDeParseo(f"fecha_version inválida: «{valor}» (use AAAA-MM-DD).") from None
