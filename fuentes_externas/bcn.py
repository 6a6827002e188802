"""BCN LeyChile: el XML oficial de las normas (`obtxml?opt=7&idNorma=…[&idVersion=…]`) y la
detección de cambios del corpus.

El XML se lee con el parser de normativa (espacio de nombres, entidades numéricas, árbol de
`EstructuraFuncional`, `fechaVersion`, derogado, transitorio, notas de margen fuera). Un cuerpo que
no es ese XML (p. ej. una página HTML de aviso) es una falla de la fuente, no una norma vacía.

Una norma que no está en el corpus (`articulo_consultar` con cualquier tipo y número) se busca en el
índice de LeyChile (`indice_normas_busqueda_simple?formato=xml`) para conocer su idNorma, y su texto
sale del mismo XML oficial. No hay captura real de ese índice (ver `tests/fixtures/bcn/SOURCE.md`): el
lector toma cada elemento `Norma` con su `IdNorma`, `Numero`, tipo y título, sin depender de más.

Revisión (`normas_revisar`): para cada norma con idNorma se compara el texto de cada parte (artículo,
letra) con la versión vigente. Si algo cambió, se ingiere como `VersionNorma` nueva por el mismo
camino de la normativa (que reutiliza los embeddings de lo que no cambió y embebe solo lo cambiado),
se guarda la diferencia por artículo en `VersionNorma.cambios` y se emite `normativa_actualizada`.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import structlog
from django.conf import settings
from django.utils import timezone

from config.http import ErrorHttp, solicitar
from config.texto import sin_tildes, texto_comparable
from fuentes_externas import cache as cache_fuentes
from normativa.ingesta.documentos import datos_norma_para, documento_ingerir
from normativa.models import FragmentoLegal, Norma, VersionNorma
from normativa.parsers import bcn_xml
from normativa.parsers.base import (
    DocumentoParseado,
    ErrorDeParseo,
    Fragmento,
    fragmentar,
    normalizar_articulo,
)
from normativa.signals import normativa_actualizada

registro = structlog.get_logger(__name__)

MAXIMO_XML_BYTES = 20 * 1024 * 1024
MAXIMO_REVISION_S = 3600


@dataclass
class RevisionNorma:
    sigla: str
    cambio: bool
    version_id: int | None = None
    cambios: dict[str, list[str]] = field(default_factory=dict)
    embebidos: int = 0
    error: str = ""


def url_xml(*, id_norma: int, id_version: str | None = None) -> str:
    url = f"{settings.LEYCHILE_URL}/Consulta/obtxml?opt=7&idNorma={id_norma}"
    return f"{url}&idVersion={id_version}" if id_version else url


def url_navegar(*, id_norma: int, id_parte: str = "") -> str:
    url = f"https://www.bcn.cl/leychile/navegar?idNorma={id_norma}"
    return f"{url}&idParte={id_parte}" if id_parte else url


def xml_descargar(*, id_norma: int, id_version: str | None = None) -> bytes:
    """El XML de la norma; `ErrorHttp` si la BCN falla o responde algo que no es ese XML."""
    respuesta = solicitar(
        url=url_xml(id_norma=id_norma, id_version=id_version), maximo_bytes=MAXIMO_XML_BYTES
    )
    try:
        bcn_xml.parsear(respuesta.contenido)
    except ErrorDeParseo as error:
        raise ErrorHttp(
            f"La BCN no entregó el XML de la norma {id_norma}: {error}", permanente=False, url=respuesta.url
        ) from None
    return respuesta.contenido


def xml_con_cache(*, id_norma: int) -> cache_fuentes.Consulta[str]:
    """El XML con la caché de 24 h (y respaldo vencido si la BCN no responde)."""
    return cache_fuentes.consultar(
        fuente="bcn",
        clave=f"obtxml:{id_norma}",
        obtener=lambda: xml_descargar(id_norma=id_norma).decode("utf-8", errors="replace"),
    )


def documento_de(contenido: bytes) -> tuple[DocumentoParseado, list[Fragmento]]:
    documento = bcn_xml.parsear(contenido)
    return documento, fragmentar(documento)


def normas_revisar() -> list[RevisionNorma]:
    """Revisa todas las normas con idNorma (tarea diaria); una falla de una no detiene las demás."""
    revisiones: list[RevisionNorma] = []
    with cache_fuentes.ejecucion(fuente="bcn", maximo_s=MAXIMO_REVISION_S) as resumen:
        for norma in Norma.objects.exclude(id_norma_bcn=None).order_by("sigla"):
            try:
                revisiones.append(norma_revisar(norma=norma))
            except ErrorHttp as error:
                cache_fuentes.estado_falla(fuente="bcn", error=f"{norma.sigla}: {error}")
                revisiones.append(RevisionNorma(norma.sigla, cambio=False, error=str(error)))
        cambiadas = [r.sigla for r in revisiones if r.cambio]
        fallidas = [r.sigla for r in revisiones if r.error]
        resumen["resultado"] = (
            f"{len(revisiones)} normas revisadas; con cambios: {', '.join(cambiadas) or 'ninguna'}"
            + (f"; sin respuesta: {', '.join(fallidas)}" if fallidas else "")
        )
        if fallidas and len(fallidas) == len(revisiones):
            raise ErrorHttp(
                f"La BCN no respondió para ninguna norma ({revisiones[0].error}).", permanente=False
            )
    return revisiones


def norma_revisar(*, norma: Norma) -> RevisionNorma:
    """Compara la norma con su XML actual en la BCN e ingiere una versión nueva si cambió."""
    if norma.id_norma_bcn is None:
        raise ValueError(f"{norma.sigla} no tiene idNorma de la BCN.")
    contenido = xml_descargar(id_norma=norma.id_norma_bcn)
    documento, fragmentos = documento_de(contenido)
    vigente = norma.versiones.filter(vigente=True).first()
    anteriores = list(FragmentoLegal.objects.filter(version=vigente)) if vigente else []
    cambios = diferencias(anteriores, fragmentos)
    norma.metadatos = {
        **norma.metadatos,
        "bcn_revisada_at": timezone.now().isoformat(),
        "bcn_fecha_version": documento.fecha_version.isoformat() if documento.fecha_version else "",
    }
    norma.save(update_fields=["metadatos"])
    if vigente is not None and not any(cambios.values()):
        registro.info("bcn_sin_cambios", norma=norma.sigla)
        return RevisionNorma(norma.sigla, cambio=False, version_id=vigente.pk)
    fecha = documento.fecha_version.isoformat() if documento.fecha_version else "sin-fecha"
    with tempfile.TemporaryDirectory() as carpeta:
        ruta = Path(carpeta) / f"bcn_obtxml_{norma.id_norma_bcn}_{fecha}.xml"
        ruta.write_bytes(contenido)
        resultado = documento_ingerir(
            ruta=ruta,
            datos=datos_norma_para(sigla=norma.sigla, fecha_version=documento.fecha_version),
            formato="bcn_xml",
            parseado=(documento, fragmentos),
        )
    version: VersionNorma = resultado.version
    version.cambios = cambios
    version.save(update_fields=["cambios"])
    registro.info("bcn_version_nueva", norma=norma.sigla, version=version.pk, embebidos=resultado.embebidos)
    if vigente is not None:
        normativa_actualizada.send(sender=VersionNorma, norma=norma, version=version, cambios=cambios)
    return RevisionNorma(
        norma.sigla, cambio=True, version_id=version.pk, cambios=cambios, embebidos=resultado.embebidos
    )


def diferencias(anteriores: list[FragmentoLegal], nuevos: list[Fragmento]) -> dict[str, list[str]]:
    """Artículos modificados, agregados, eliminados y derogados entre dos versiones (por parte:
    artículo, letra y si es transitorio; el texto se compara sin diferencias de formato)."""

    def por_parte(filas: list[Any]) -> dict[tuple[bool, str, str, int], tuple[str, bool]]:
        partes: dict[tuple[bool, str, str, int], tuple[str, bool]] = {}
        for fila in filas:
            base = (bool(fila.transitorio), fila.articulo, fila.letra)
            n = sum(1 for clave in partes if clave[:3] == base)
            partes[(*base, n)] = (texto_comparable(fila.texto), bool(fila.derogado))
        return partes

    antes, despues = por_parte(anteriores), por_parte(nuevos)

    def articulo(clave: tuple[bool, str, str, int]) -> str:
        return f"{clave[1]}{' transitorio' if clave[0] else ''}"

    modificados = {articulo(c) for c in antes.keys() & despues.keys() if antes[c][0] != despues[c][0]}
    derogados = {articulo(c) for c in despues if despues[c][1] and not antes.get(c, ("", False))[1]}
    agregados = {articulo(c) for c in despues.keys() - antes.keys()} - {articulo(c) for c in antes}
    eliminados = {articulo(c) for c in antes.keys() - despues.keys()} - {articulo(c) for c in despues}
    modificados |= {articulo(c) for c in antes.keys() ^ despues.keys()} - agregados - eliminados
    return {
        "modificados": sorted(modificados - derogados, key=_orden),
        "agregados": sorted(agregados, key=_orden),
        "eliminados": sorted(eliminados, key=_orden),
        "derogados": sorted(derogados, key=_orden),
    }


def _orden(articulo: str) -> tuple[int, str]:
    numero = "".join(c for c in articulo.split()[0] if c.isdigit()) if articulo else ""
    return (int(numero) if numero else 10_000, articulo)


TIPOS_NORMA = {"ley": Norma.Tipo.LEY, "decreto": Norma.Tipo.DECRETO}
VIGENCIA_REVISION_S = 48 * 3600
RUTA_BUSQUEDA = "/Consulta/indice_normas_busqueda_simple"
# Cómo se escribe cada tipo en la búsqueda de LeyChile y cómo se reconoce en su respuesta.
TIPOS_BUSQUEDA = {
    "ley": ("ley", "ley"),
    "decreto": ("decreto", "decreto"),
    "decreto_ley": ("decreto ley", "decreto ley"),
    "dfl": ("dfl", "decreto con fuerza de ley"),
    "resolucion": ("resolucion", "resolucion"),
}


def articulo_consultar(*, tipo_norma: str, numero: str, articulo: str | None = None) -> dict[str, Any]:
    """Un artículo (o la norma) con su fecha de versión y enlace a LeyChile: del corpus si la norma se
    revisó en la BCN hace poco; si no, del XML de la BCN (caché de 24 h; respaldo vencido con aviso)."""
    digitos = _digitos(numero)
    norma = next(
        (
            n
            for n in Norma.objects.filter(tipo=TIPOS_NORMA.get(tipo_norma, tipo_norma))
            if _digitos(n.numero) == digitos and digitos
        ),
        None,
    )
    if norma is None:
        return _fuera_del_corpus(tipo_norma=tipo_norma, numero=numero, articulo=articulo)
    buscado = normalizar_articulo(articulo) if articulo else None
    revisada = norma.metadatos.get("bcn_revisada_at")
    al_dia = (
        revisada and (timezone.now() - datetime.fromisoformat(revisada)).total_seconds() < VIGENCIA_REVISION_S
    )
    if al_dia or norma.id_norma_bcn is None:
        version = norma.versiones.filter(vigente=True).first()
        filas = FragmentoLegal.objects.filter(version=version).order_by("orden")
        partes = [f for f in filas if buscado is None or f.articulo == buscado]
        origen = "corpus (revisado en la BCN)" if al_dia else "corpus (la norma no tiene idNorma de la BCN)"
        return _respuesta_articulo(norma, partes, version.fecha_version if version else None, origen, "")
    consulta = xml_con_cache(id_norma=norma.id_norma_bcn)
    documento, fragmentos = documento_de(consulta.datos.encode("utf-8"))
    partes_bcn = [f for f in fragmentos if buscado is None or f.articulo == buscado]
    origen = "BCN LeyChile (caché)" if consulta.desde_cache else "BCN LeyChile"
    return _respuesta_articulo(norma, partes_bcn, documento.fecha_version, origen, consulta.advertencia)


def _fuera_del_corpus(*, tipo_norma: str, numero: str, articulo: str | None) -> dict[str, Any]:
    """Una norma que no está en el corpus: su idNorma del índice de LeyChile y su texto del XML oficial."""
    busqueda = normas_buscar(tipo_norma=tipo_norma, numero=numero)
    elegida = busqueda.datos[0] if busqueda.datos else None
    if elegida is None:
        return {
            "encontrada": False,
            "mensaje": f"LeyChile no tiene una {tipo_norma.replace('_', ' ')} {numero}.",
            "advertencia": busqueda.advertencia,
            "url": url_busqueda(tipo_norma=tipo_norma, numero=numero),
        }
    consulta = xml_con_cache(id_norma=elegida["id_norma"])
    documento, fragmentos = documento_de(consulta.datos.encode("utf-8"))
    buscado = normalizar_articulo(articulo) if articulo else None
    partes = [f for f in fragmentos if buscado is None or f.articulo == buscado]
    respuesta = _respuesta_bcn(
        sigla=f"{elegida['tipo'] or tipo_norma} {elegida['numero']}".strip(),
        id_norma=elegida["id_norma"],
        partes=partes,
        fecha=documento.fecha_version,
        origen="BCN LeyChile (fuera del corpus)",
        advertencia=consulta.advertencia or busqueda.advertencia,
    )
    return {**respuesta, "titulo": elegida["titulo"], "en_corpus": False}


def url_busqueda(*, tipo_norma: str, numero: str) -> str:
    escrito = TIPOS_BUSQUEDA.get(tipo_norma, (tipo_norma, ""))[0].replace(" ", "+")
    return f"https://www.bcn.cl/leychile/consulta/listaresultadosimple?cadena={escrito}+{numero}"


def normas_buscar(*, tipo_norma: str, numero: str) -> cache_fuentes.Consulta[list[dict[str, Any]]]:
    """Las normas de LeyChile de ese tipo y número (caché de 24 h; respaldo vencido si no responde)."""
    escrito, _ = TIPOS_BUSQUEDA.get(tipo_norma, (tipo_norma, ""))
    digitos = _digitos(numero)

    def obtener() -> list[dict[str, Any]]:
        respuesta = solicitar(
            url=f"{settings.LEYCHILE_URL}{RUTA_BUSQUEDA}",
            parametros={"formato": "xml", "modo": "1", "busqueda": f"{escrito} {digitos}"},
        )
        return normas_de_busqueda(respuesta.contenido, tipo_norma=tipo_norma, numero=numero)

    return cache_fuentes.consultar(fuente="bcn", clave=f"busqueda:{tipo_norma}:{digitos}", obtener=obtener)


def normas_de_busqueda(contenido: bytes, *, tipo_norma: str, numero: str) -> list[dict[str, Any]]:
    """Las normas del índice cuyo número es el buscado (y su tipo, si lo trae), las vigentes primero.
    Un cuerpo que no es XML es una falla de la fuente."""
    try:
        raiz = ElementTree.fromstring(contenido)
    except ElementTree.ParseError as error:
        raise ErrorHttp(f"La búsqueda de LeyChile no respondió XML: {error}", permanente=False) from None
    digitos = _digitos(numero)
    _, reconocido = TIPOS_BUSQUEDA.get(tipo_norma, ("", tipo_norma))
    encontradas = []
    for elemento in raiz.iter():
        if _local(elemento.tag) != "Norma":
            continue
        campos = {_local(hijo.tag).lower(): " ".join((hijo.text or "").split()) for hijo in elemento.iter()}
        id_norma = _digitos(campos.get("idnorma", ""))
        numero_norma = campos.get("numero", "")
        tipo = campos.get("tipo") or campos.get("tiponorma", "")
        if not id_norma or _digitos(numero_norma.split(" ")[0]) != digitos:
            continue
        if tipo and reconocido and not sin_tildes(tipo).lower().startswith(reconocido):
            continue
        encontradas.append({
            "id_norma": int(id_norma), "numero": numero_norma, "tipo": tipo,
            "titulo": campos.get("titulo") or campos.get("rubro") or campos.get("nombre", ""),
            "derogada": "derog" in campos.get("estado", "").lower(),
        })  # fmt: skip
    return sorted(encontradas, key=lambda n: n["derogada"])


def _digitos(texto: str) -> str:
    """Las cifras de un número de norma como se escriba («19.300», «3240 EXENTA» → «19300», «3240»)."""
    return "".join(c for c in texto if c.isdigit())


def _local(etiqueta: str) -> str:
    return etiqueta.rsplit("}", 1)[-1]


def _respuesta_articulo(
    norma: Norma, partes: list[Any], fecha: date | None, origen: str, advertencia: str
) -> dict[str, Any]:
    return _respuesta_bcn(
        sigla=norma.sigla,
        id_norma=norma.id_norma_bcn,
        partes=partes,
        fecha=fecha,
        origen=origen,
        advertencia=advertencia,
        url=norma.url,
    )


def _respuesta_bcn(
    *,
    sigla: str,
    id_norma: int | None,
    partes: list[Any],
    fecha: date | None,
    origen: str,
    advertencia: str,
    url: str = "",
) -> dict[str, Any]:
    return {
        "encontrada": bool(partes),
        "norma": sigla,
        "fecha_version": fecha.isoformat() if fecha else None,
        "origen": origen,
        "advertencia": advertencia,
        "url": url_navegar(id_norma=id_norma) if id_norma else url,
        "partes": [
            {
                "articulo": p.articulo,
                "letra": p.letra,
                "derogado": p.derogado,
                "texto": p.texto[:3000],
                "url": url_navegar(id_norma=id_norma, id_parte=p.id_parte) if id_norma else url,
            }
            for p in partes[:12]
        ],
    }
