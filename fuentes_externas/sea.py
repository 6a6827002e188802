"""Sitio del SEA: noticias (`/noticias?page=N`) y la página de guías y criterios.

El sitio no tiene API: se lee su HTML con BeautifulSoup de forma tolerante, sin depender de clases
CSS que cambian con cada rediseño:

- Noticias: cada enlace a `/noticias/<algo>` es una noticia; su contenedor más cercano (`article`,
  `li`, fila) aporta la fecha (`<time datetime>`, «21 de noviembre de 2025», «21-11-2025») y el
  resumen (su primer párrafo que no es el título ni la fecha).
- Guías: cada enlace a un PDF en la página de guías es un documento; su título es el texto del
  enlace (o el de su fila, si el enlace dice «Descargar»), su sección el encabezado anterior y su año
  el último año que aparece en el título.

Las páginas pasan por la caché del SEA (6 h, con respaldo vencido si el sitio no responde). Un PDF
nuevo o cambiado se descarga (solo PDF, con límite de tamaño; con `If-None-Match` o
`If-Modified-Since` si ya se había bajado) y se ingiere por el camino de la normativa como carga en
segundo plano, con su avance en el admin. Una guía del corpus cuyo PDF no cambió no se vuelve a
ingerir. El texto del sitio es dato: el asistente lo recibe delimitado y nunca lo obedece.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import PurePosixPath
from typing import Any, NamedTuple
from urllib.parse import urljoin, urlsplit

import structlog
from bs4 import BeautifulSoup, Tag
from django.conf import settings
from django.contrib.postgres.search import SearchQuery, SearchRank, SearchVector
from django.db.models import Q
from django.utils import timezone

from config.http import NO_MODIFICADO, ErrorHttp, solicitar
from fuentes_externas import cache as cache_fuentes
from fuentes_externas.models import DocumentoSEA, NoticiaSEA
from normativa.ingesta.cargas import carga_crear
from normativa.ingesta.documentos import huella_contenido
from normativa.models import Norma, VersionNorma
from normativa.parsers import ErrorDeParseo

registro = structlog.get_logger(__name__)

RUTA_NOTICIAS = "/noticias"
MAXIMO_HTML_BYTES = 5 * 1024 * 1024
MAXIMO_PDF_BYTES = 30 * 1024 * 1024
TIPOS_HTML = ("text/html", "application/xhtml+xml")
# Hay servidores que entregan los PDF como binario genérico: se acepta y se verifica la firma %PDF.
TIPOS_PDF = ("application/pdf", "application/octet-stream", "binary/octet-stream")
MAXIMO_REVISION_S = 3600
ORGANISMO = "Servicio de Evaluación Ambiental"
MAXIMO_SIGLA = 60

_MESES = {
    "ene": 1, "feb": 2, "mar": 3, "abr": 4, "may": 5, "jun": 6,
    "jul": 7, "ago": 8, "sep": 9, "set": 9, "oct": 10, "nov": 11, "dic": 12,
}  # fmt: skip
_FECHA_TEXTO = re.compile(
    r"\b(\d{1,2})\s+(?:de\s+)?(ene|feb|mar|abr|may|jun|jul|ago|sep|set|oct|nov|dic)[a-zé]*\.?,?\s+"
    r"(?:de\s+|del\s+)?(\d{4})\b",
    re.IGNORECASE,
)
_FECHA_NUMERICA = re.compile(r"\b(\d{1,2})[-/.](\d{1,2})[-/.](\d{4})\b")
_ANIO = re.compile(r"\b(19[89]\d|20\d\d)\b")
_RUTA_NOTICIA = re.compile(r"^/noticias/[^/?#]+/?$")
_GENERICOS = {"descargar", "descarga", "ver", "ver documento", "documento", "pdf", "aquí", "aqui", "leer más"}
_PESO_PDF = re.compile(r"\(\s*(?:pdf|archivo)[^)]*\)|\b\d+(?:[.,]\d+)?\s*(?:kb|mb)\b", re.IGNORECASE)
_CONTENEDORES = ("article", "li", "tr")


@dataclass(frozen=True)
class NoticiaPublicada:
    titulo: str
    url: str
    fecha: date | None
    resumen: str


@dataclass(frozen=True)
class GuiaPublicada:
    titulo: str
    url: str
    seccion: str
    anio: int | None


@dataclass
class RevisionSitio:
    noticias: int = 0
    noticias_nuevas: int = 0
    guias: int = 0
    nuevas: list[str] = field(default_factory=list)
    actualizadas: list[str] = field(default_factory=list)
    sin_cambios: int = 0
    errores: list[str] = field(default_factory=list)

    def resumen(self) -> str:
        partes = [
            f"{self.noticias} noticias ({self.noticias_nuevas} nuevas)",
            f"{self.guias} guías: {len(self.nuevas)} nuevas, {len(self.actualizadas)} actualizadas, "
            f"{self.sin_cambios} sin cambios",
        ]
        if self.errores:
            partes.append(f"{len(self.errores)} con error")
        return "; ".join(partes)


# --- lectura del HTML --------------------------------------------------------------------------


def noticias_leer(html: str, *, base: str) -> list[NoticiaPublicada]:
    """Las noticias de una página del listado, en su orden y sin repetir."""
    sopa = BeautifulSoup(html, "html.parser")
    por_url: dict[str, list[Tag]] = {}
    for enlace in sopa.find_all("a", href=True):
        url = urljoin(base, str(enlace["href"]))
        if _es_del_sea(url, base) and _RUTA_NOTICIA.match(urlsplit(url).path):
            por_url.setdefault(url.split("#")[0], []).append(enlace)
    noticias = []
    for url, enlaces in por_url.items():
        titulo = max((_texto(e) for e in enlaces if _texto(e).lower() not in _GENERICOS), key=len, default="")
        if not titulo:
            continue
        contenedor = _contenedor(enlaces[0])
        noticias.append(
            NoticiaPublicada(
                titulo=titulo[:500], url=url, fecha=_fecha(contenedor), resumen=_resumen(contenedor, titulo)
            )
        )
    return noticias


def guias_leer(html: str, *, base: str) -> list[GuiaPublicada]:
    """Los PDF enlazados en la página de guías, con título, sección y año."""
    sopa = BeautifulSoup(html, "html.parser")
    guias: dict[str, GuiaPublicada] = {}
    for enlace in sopa.find_all("a", href=True):
        url = urljoin(base, str(enlace["href"])).split("#")[0]
        if not urlsplit(url).path.lower().endswith(".pdf") or url in guias or not _es_del_sea(url, base):
            continue
        titulo, contexto = _titulo_guia(enlace, url)
        encabezado = enlace.find_previous(["h1", "h2", "h3", "h4"])
        anios = _ANIO.findall(titulo) or _ANIO.findall(contexto)
        guias[url] = GuiaPublicada(
            titulo=titulo[:500],
            url=url,
            seccion=_texto(encabezado)[:300] if encabezado else "",
            anio=int(anios[-1]) if anios else None,
        )
    return list(guias.values())


def _titulo_guia(enlace: Tag, url: str) -> tuple[str, str]:
    """(título, texto de su fila): el del enlace o, si dice «Descargar», el de su fila o celda más larga."""
    propio = _sin_peso(_texto(enlace))
    if len(propio) >= 8 and propio.lower() not in _GENERICOS:
        return propio, propio
    fila = enlace.find_parent(["li", "tr", "p"])
    archivo = PurePosixPath(urlsplit(url).path).stem.replace("_", " ")
    if fila is None:
        return archivo, ""
    if fila.name == "tr":
        celdas = [_sin_peso(_texto(c)) for c in fila.find_all(["td", "th"]) if not c.find("a")]
        titulo = max(celdas, key=len, default="")
    else:
        titulo = _sin_peso(_texto(fila).replace(_texto(enlace), ""))
    return titulo or archivo, _texto(fila)


def _sin_peso(texto: str) -> str:
    return _PESO_PDF.sub("", texto).strip(" -–:")


def _contenedor(enlace: Tag) -> Tag:
    for padre in enlace.parents:
        if padre.name in _CONTENEDORES:
            return padre
        clases = " ".join(padre.get_attribute_list("class") or [])
        if re.search(r"views-row|noticia|card|item", clases):
            return padre
    return enlace.parent or enlace


def _fecha(contenedor: Tag) -> date | None:
    marca = contenedor.find("time")
    if isinstance(marca, Tag) and marca.get("datetime"):
        try:
            return date.fromisoformat(str(marca["datetime"])[:10])
        except ValueError:
            pass
    texto = _texto(contenedor)
    if m := _FECHA_TEXTO.search(texto):
        dia, mes, anio = int(m.group(1)), _MESES[m.group(2).lower()[:3]], int(m.group(3))
    elif m := _FECHA_NUMERICA.search(texto):
        dia, mes, anio = int(m.group(1)), int(m.group(2)), int(m.group(3))
    else:
        return None
    try:
        return date(anio, mes, dia)
    except ValueError:
        return None


def _resumen(contenedor: Tag, titulo: str) -> str:
    for parrafo in contenedor.find_all(["p", "div"]):
        texto = _texto(parrafo)
        if parrafo.find(["p", "div", "a"]) or not texto or texto == titulo:
            continue
        if len(texto) > 30 and not _FECHA_TEXTO.fullmatch(texto):
            return texto[:600]
    return ""


def _texto(elemento: Tag | None) -> str:
    return " ".join(elemento.get_text(" ").split()) if elemento is not None else ""


def _es_del_sea(url: str, base: str) -> bool:
    host = urlsplit(url).hostname or ""
    return host == urlsplit(base).hostname or host.endswith("sea.gob.cl")


# --- descarga --------------------------------------------------------------------------------


def pagina_con_cache(*, url: str) -> cache_fuentes.Consulta[str]:
    """Una página HTML del sitio con la caché de 6 h (y respaldo vencido si el sitio no responde)."""
    return cache_fuentes.consultar(fuente="sea", clave=url, obtener=lambda: _pagina(url))


def _pagina(url: str) -> str:
    return solicitar(url=url, tipos_aceptados=TIPOS_HTML, maximo_bytes=MAXIMO_HTML_BYTES).texto()


class LecturaNoticias(NamedTuple):
    vistas: int
    nuevas: int
    advertencia: str  # «datos de caché del …» si el sitio no respondió


def noticias_actualizar(*, paginas: int | None = None) -> LecturaNoticias:
    """Lee las primeras páginas del listado y guarda las noticias.

    Se detiene en una página vacía o que no trae nada nuevo (un sitio que repite la última página
    no hace girar la lectura para siempre).
    """
    vistas: dict[str, NoticiaPublicada] = {}
    advertencia = ""
    for numero in range(paginas or settings.SEA_PAGINAS_NOTICIAS):
        url = f"{settings.SEA_URL}{RUTA_NOTICIAS}?page={numero}"
        consulta = pagina_con_cache(url=url)
        advertencia = advertencia or consulta.advertencia
        nuevas = [n for n in noticias_leer(consulta.datos, base=settings.SEA_URL) if n.url not in vistas]
        if not nuevas:
            break
        vistas.update((n.url, n) for n in nuevas)
    existentes = set(NoticiaSEA.objects.filter(url__in=vistas).values_list("url", flat=True))
    for noticia in vistas.values():
        NoticiaSEA.objects.update_or_create(
            url=noticia.url,
            defaults={"titulo": noticia.titulo, "fecha": noticia.fecha, "resumen": noticia.resumen},
        )
    return LecturaNoticias(len(vistas), len(set(vistas) - existentes), advertencia)


def guias_actualizar(*, revision: RevisionSitio) -> None:
    """Revisa los PDF de la página de guías: descarga los nuevos o cambiados y los encola para ingerir."""
    for ruta in settings.SEA_RUTAS_GUIAS:
        consulta = pagina_con_cache(url=f"{settings.SEA_URL}{ruta}")
        for guia in guias_leer(consulta.datos, base=settings.SEA_URL):
            revision.guias += 1
            try:
                resultado = guia_revisar(guia=guia)
            except (ErrorHttp, ErrorDeParseo) as error:
                DocumentoSEA.objects.filter(url=guia.url).update(error=str(error)[:2000])
                revision.errores.append(f"{guia.titulo}: {error}")
                continue
            if resultado == "nueva":
                revision.nuevas.append(guia.titulo)
            elif resultado == "actualizada":
                revision.actualizadas.append(guia.titulo)
            else:
                revision.sin_cambios += 1


def guia_revisar(*, guia: GuiaPublicada) -> str:
    """Descarga el PDF si cambió y lo encola como carga; devuelve «nueva», «actualizada» o «sin_cambios»."""
    documento = DocumentoSEA.objects.filter(url=guia.url).first()
    cabeceras = {}
    if documento and documento.etag:
        cabeceras["If-None-Match"] = documento.etag
    if documento and documento.modificado:
        cabeceras["If-Modified-Since"] = documento.modificado
    respuesta = solicitar(
        url=guia.url, cabeceras=cabeceras, tipos_aceptados=TIPOS_PDF, maximo_bytes=MAXIMO_PDF_BYTES
    )
    if documento is None:
        documento = DocumentoSEA(url=guia.url, sigla=_sigla_para(guia))
    documento.titulo, documento.seccion, documento.anio = guia.titulo, guia.seccion, guia.anio
    documento.revisado_at, documento.error = timezone.now(), ""
    if respuesta.estado == NO_MODIFICADO:
        documento.save()
        return "sin_cambios"
    contenido = respuesta.contenido
    if not contenido.startswith(b"%PDF-"):
        raise ErrorHttp(f"{guia.url} no entregó un PDF.", permanente=False, url=guia.url)
    sha = hashlib.sha256(contenido).hexdigest()
    documento.etag = respuesta.cabeceras.get("etag", "")[:200]
    documento.modificado = respuesta.cabeceras.get("last-modified", "")[:100]
    vigente = VersionNorma.objects.filter(
        norma__sigla=documento.sigla, hash=huella_contenido(contenido), vigente=True
    ).exists()
    if sha == documento.sha256 or vigente:
        documento.sha256 = sha
        documento.save()
        return "sin_cambios"
    nueva = not Norma.objects.filter(sigla=documento.sigla).exists()
    documento.carga = carga_crear(
        nombre_archivo=PurePosixPath(urlsplit(guia.url).path).name or "guia.pdf",
        contenido=contenido,
        sigla=documento.sigla,
        formato="pdf",
        tipo=Norma.Tipo.GUIA,
        nombre=guia.titulo.rstrip("."),
        url=guia.url,
        anio=guia.anio,
        organismo=ORGANISMO,
        temas=("guías SEA",),
        metadatos={"tipo_guia": guia.seccion, "origen": "sitio del SEA"},
    )
    documento.sha256 = sha
    documento.save()
    registro.info("sea_guia_encolada", sigla=documento.sigla, nueva=nueva, bytes=len(contenido))
    return "nueva" if nueva else "actualizada"


def _sigla_para(guia: GuiaPublicada) -> str:
    """La sigla de la guía del corpus con el mismo PDF (misma ruta), o una nueva y única."""
    ruta = urlsplit(guia.url).path
    for norma in Norma.objects.filter(tipo=Norma.Tipo.GUIA).exclude(url=""):
        if urlsplit(norma.url).path == ruta:
            return norma.sigla
    cuerpo = re.sub(
        r"^(gu[ií]a|criterios?)\s+((de|para|sobre)\s+)?((la|el|los|las)\s+)?",
        "",
        guia.titulo,
        flags=re.IGNORECASE,
    )
    base = _cortar(f"Guía SEA {cuerpo.rstrip('.')}", MAXIMO_SIGLA)
    sigla, numero = base, 1
    ocupadas = set(Norma.objects.values_list("sigla", flat=True)) | set(
        DocumentoSEA.objects.values_list("sigla", flat=True)
    )
    while sigla in ocupadas:
        numero += 1
        sigla = f"{_cortar(base, MAXIMO_SIGLA - 4)} ({numero})"
    return sigla


def _cortar(texto: str, largo: int) -> str:
    if len(texto) <= largo:
        return texto
    return texto[:largo].rsplit(" ", 1)[0].rstrip(" ,;:-")


def sitio_revisar() -> RevisionSitio:
    """Tarea semanal: noticias y guías del sitio del SEA, a lo más una revisión a la vez."""
    revision = RevisionSitio()
    with cache_fuentes.ejecucion(fuente="sea", maximo_s=MAXIMO_REVISION_S) as resumen:
        revision.noticias, revision.noticias_nuevas, _ = noticias_actualizar()
        guias_actualizar(revision=revision)
        resumen["resultado"] = revision.resumen()
        if revision.errores:
            cache_fuentes.estado_falla(fuente="sea", error="; ".join(revision.errores)[:2000])
    return revision


# --- consulta --------------------------------------------------------------------------------


def noticias_buscar(*, consulta: str, dias: int = 365, limite: int = 5) -> list[dict[str, Any]]:
    """Noticias guardadas del último año que responden a la consulta (texto completo en español);
    si la consulta solo pide «noticias», las más recientes."""
    desde = timezone.localdate() - timedelta(days=dias)
    recientes = NoticiaSEA.objects.filter(Q(fecha__gte=desde) | Q(fecha__isnull=True))
    vector = SearchVector("titulo", weight="A", config="spanish") + SearchVector(
        "resumen", weight="B", config="spanish"
    )
    pedido = SearchQuery(consulta, config="spanish", search_type="websearch")
    encontradas: list[NoticiaSEA] = list(
        recientes.annotate(documento=vector, rango=SearchRank(vector, pedido))
        .filter(documento=pedido)  # ts_rank da un valor mínimo, no cero, a lo que no coincide
        .order_by("-rango")[:limite]
    )
    if not encontradas and re.search(r"noticia|novedad|reciente|comunicado", consulta, re.IGNORECASE):
        encontradas = list(recientes[:limite])
    return [noticia_json(n) for n in encontradas]


def noticia_json(noticia: NoticiaSEA) -> dict[str, Any]:
    return {
        "titulo": noticia.titulo,
        "fecha": noticia.fecha.isoformat() if noticia.fecha else None,
        "resumen": noticia.resumen,
        "url": noticia.url,
    }
