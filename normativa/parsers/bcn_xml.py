"""XML de la BCN: la respuesta real de `obtxml?opt=7` y la variante re-estructurada leychile-epub.

- obtxml: espacio de nombres `http://www.leychile.cl/esquemas`, `EstructuraFuncional` anidadas con
  `idParte`, `tipoParte`, `fechaVersion`, `derogado`, `transitorio`; entidades numéricas; notas de
  margen («Ley 20417 Art. PRIMERO Nº 8 D.O. 26.01.2010») a veces incrustadas en `Texto`.
- leychile-epub: `<ley>` con `<titulo>`, `<parrafo>`, `<seccion>` y `<articulo numero id estado>`.
"""

from __future__ import annotations

import re
from xml.etree import ElementTree

from normativa.parsers.base import (
    Articulo,
    DocumentoParseado,
    ErrorDeParseo,
    fecha_iso,
    normalizar_articulo,
    normalizar_espacios,
    quitar_columna_de_notas,
)

NS_OBTXML = "http://www.leychile.cl/esquemas"
NS_EPUB = "https://leychile.cl/schema/ley/v1"

_ENCABEZADO_ARTICULO = re.compile(r"^\s*Art[íi]culo\s+([\w°º ]+?)\s*[.-]", re.IGNORECASE)


def parsear(contenido: bytes) -> DocumentoParseado:
    """Devuelve la estructura de una norma en XML de la BCN (cualquiera de las dos variantes)."""
    if contenido.lstrip()[:1] != b"<" or b"<html" in contenido[:500].lower():
        raise ErrorDeParseo("El archivo no es XML de la BCN (¿una página HTML de aviso?).")
    try:
        raiz = ElementTree.fromstring(contenido)
    except ElementTree.ParseError as error:
        raise ErrorDeParseo(f"XML mal formado: {error}.") from None
    if raiz.tag == f"{{{NS_OBTXML}}}Norma":
        documento = _parsear_obtxml(raiz)
    elif raiz.tag == f"{{{NS_EPUB}}}ley":
        documento = _parsear_epub(raiz)
    else:
        raise ErrorDeParseo(f"XML desconocido: la raíz es «{raiz.tag}», no una norma de la BCN.")
    if not documento.articulos:
        raise ErrorDeParseo("El XML de la BCN no contiene artículos.")
    return documento


# --- obtxml (respuesta real) ------------------------------------------------------------------


def _parsear_obtxml(raiz: ElementTree.Element) -> DocumentoParseado:
    ns = {"b": NS_OBTXML}
    titulo = (raiz.findtext("b:Metadatos/b:TituloNorma", default="", namespaces=ns) or "").strip()
    tipo_numero = raiz.find("b:Identificador/b:TiposNumeros/b:TipoNumero", ns)
    metadatos = {"id_norma": raiz.get("normaId", "")}
    if tipo_numero is not None:
        metadatos["tipo"] = (tipo_numero.findtext("b:Tipo", default="", namespaces=ns) or "").strip()
        metadatos["numero"] = (tipo_numero.findtext("b:Numero", default="", namespaces=ns) or "").strip()
    documento = DocumentoParseado(
        titulo=titulo, fecha_version=fecha_iso(raiz.get("fechaVersion")), metadatos=metadatos
    )
    estructuras = raiz.find("b:EstructurasFuncionales", ns)
    if estructuras is not None:
        _recorrer_obtxml(estructuras, [], documento, ns)
    return documento


def _recorrer_obtxml(
    nodo: ElementTree.Element, jerarquia: list[str], documento: DocumentoParseado, ns: dict[str, str]
) -> None:
    for parte in nodo.findall("b:EstructuraFuncional", ns):
        tipo = parte.get("tipoParte", "")
        texto = quitar_columna_de_notas(parte.findtext("b:Texto", default="", namespaces=ns) or "")
        hijas = parte.find("b:EstructurasFuncionales", ns)
        if tipo.lower().startswith("art"):
            nombre = (parte.findtext("b:Metadatos/b:NombreParte", default="", namespaces=ns) or "").strip()
            documento.articulos.append(
                Articulo(
                    numero=normalizar_articulo(nombre or _numero_desde_texto(texto)),
                    texto=normalizar_espacios(texto),
                    jerarquia=list(jerarquia),
                    id_parte=parte.get("idParte", ""),
                    derogado=parte.get("derogado") == "derogado",
                    transitorio=parte.get("transitorio") == "transitorio",
                )
            )
        elif hijas is not None:
            titulo = (parte.findtext("b:Metadatos/b:TituloParte", default="", namespaces=ns) or "").strip()
            encabezado = " ".join(filter(None, [tipo, titulo])) or normalizar_espacios(texto)[:120]
            _recorrer_obtxml(hijas, [*jerarquia, encabezado], documento, ns)
        if hijas is not None and tipo.lower().startswith("art"):
            _recorrer_obtxml(hijas, jerarquia, documento, ns)


def _numero_desde_texto(texto: str) -> str:
    coincidencia = _ENCABEZADO_ARTICULO.match(texto.strip())
    return coincidencia.group(1) if coincidencia else "s/n"


# --- leychile-epub ----------------------------------------------------------------------------


def _parsear_epub(raiz: ElementTree.Element) -> DocumentoParseado:
    ns = {"e": NS_EPUB}
    documento = DocumentoParseado(
        titulo=(raiz.findtext("e:metadatos/e:titulo", default="", namespaces=ns) or "").strip(),
        fecha_version=fecha_iso(raiz.get("fecha_version")),
        metadatos={k: raiz.get(k, "") for k in ("id_norma", "tipo", "numero", "url_original")},
    )
    contenido = raiz.find("e:contenido", ns)
    if contenido is not None:
        _recorrer_epub(contenido, [], False, documento, ns)
    return documento


def _recorrer_epub(
    nodo: ElementTree.Element,
    jerarquia: list[str],
    transitorio: bool,
    documento: DocumentoParseado,
    ns: dict[str, str],
) -> None:
    for hijo in nodo:
        etiqueta = hijo.tag.split("}")[-1]
        if etiqueta == "articulo":
            texto = quitar_columna_de_notas(_texto_articulo_epub(hijo, ns))
            documento.articulos.append(
                Articulo(
                    numero=normalizar_articulo(hijo.get("numero", "")),
                    texto=normalizar_espacios(texto),
                    jerarquia=list(jerarquia),
                    id_parte=hijo.get("id", ""),
                    derogado=hijo.get("estado") == "derogado",
                    transitorio=transitorio or hijo.get("transitorio") == "true",
                )
            )
        elif etiqueta in {"titulo", "parrafo", "seccion", "libro", "capitulo"}:
            encabezado = (hijo.findtext("e:titulo_seccion", default="", namespaces=ns) or "").strip()
            _recorrer_epub(
                hijo,
                [*jerarquia, _titulo_legible(encabezado)] if encabezado else jerarquia,
                transitorio or hijo.get("transitorio") == "true",
                documento,
                ns,
            )


def _texto_articulo_epub(articulo: ElementTree.Element, ns: dict[str, str]) -> str:
    """El texto va en `<texto>` o, en artículos con incisos marcados, en `<contenido><parrafo>`."""
    texto = articulo.findtext("e:texto", default="", namespaces=ns) or ""
    if texto.strip():
        return texto
    parrafos = [p.text or "" for p in articulo.findall("e:contenido/e:parrafo", ns)]
    # Cada <parrafo> abre párrafo: se antepone sangría para que normalizar_espacios no los una.
    return "\n".join(" " + p.strip() for p in parrafos if p.strip())


def _titulo_legible(encabezado: str) -> str:
    """«TITULO II De los…» → «Título II De los…»; «ARTICULOS TRANSITORIOS» → «Artículos transitorios»."""
    encabezado = re.sub(r"^T[IÍ]TULO\b", "Título", encabezado)
    if encabezado.isupper():
        encabezado = encabezado.capitalize().replace("Articulos", "Artículos")
    return re.sub(r"\s+", " ", encabezado)
