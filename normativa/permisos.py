"""Catálogo de los permisos ambientales sectoriales (PAS), leído del Título VII del DS 40.

Cada artículo de los párrafos 2º y 3º del Título VII es un PAS y sigue la estructura que el propio
reglamento anuncia (Art. 107: «Los permisos ambientales sectoriales, los requisitos para su otorgamiento,
y los contenidos técnicos y formales para acreditar su cumplimiento, son los que se señalan en el presente
Título»): el epígrafe es el nombre del permiso; la oración «El permiso … será el establecido en …» dice
qué norma sectorial lo crea; «El requisito para su otorgamiento consiste en …» (o «Los requisitos … consisten
en …») es el requisito; y las letras que siguen a «Los contenidos técnicos y formales …» son sus contenidos.
El párrafo dice su clase (Art. 108): el 2º, «De los permisos ambientales sectoriales de contenidos
únicamente ambientales»; el 3º, «De los permisos ambientales sectoriales mixtos».

La guía trámite del SEA de un PAS, si el corpus la trae, se reconoce por su título («Guía trámite PAS del
artículo 135 …»), y el órgano que revisa los contenidos, por la oración de su capítulo de otorgamiento
(«Corresponderá a … revisar los contenidos ambientales del PAS»).

Cada entrada guarda el hash del texto del que se leyó (`config.texto.hash_de_texto`, como las reglas del
motor): cuando llega otra versión del artículo queda «revisar», sigue mostrando lo leído y el personal la
acepta (se vuelve a leer del texto nuevo) en el admin.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TypedDict

from django.db import transaction
from django.utils import timezone

from config.texto import hash_de_texto, sin_tildes
from normativa.models import FragmentoLegal, Norma, PermisoSectorial
from normativa.selectors import url_de

NORMA_DE_LOS_PAS = "DS 40"
# Los párrafos del Título VII que traen permisos, por su número, y la clase que su epígrafe declara.
TIPO_POR_PARRAFO = {2: PermisoSectorial.Tipo.AMBIENTAL, 3: PermisoSectorial.Tipo.MIXTO}
ORGANO_CURADO = "curado por el personal"

_TITULO_VII = re.compile(r"\btitulo vii\b")
_PARRAFO = re.compile(r"p[áa]rrafo\s*(\d+)", re.IGNORECASE)
_ESTABLECIDO = re.compile(r"\b(?:ser[áa] el establecid[oa] en|corresponder[áa] a)\s+(.+?)\.?$", re.IGNORECASE)
_REQUISITO = re.compile(
    r"^(?:El|Los) requisitos?(?: ambientales?)? para su otorgamiento consisten? en\b", re.IGNORECASE
)
_CONTENIDOS = re.compile(r"^(?:El|Los) contenidos? técnicos? y formal(?:es)?\b", re.IGNORECASE)
_LETRA = re.compile(r"^([a-zñ](?:\.\d+)*)[.)]\s*(.+)$")
_NUMERO_DEL_ARTICULO = re.compile(r"^art[íi]culo\s+\d+\s*[.º°]*\s*-?\s*", re.IGNORECASE)
_GUIA_DEL_PAS = re.compile(r"\bPAS\s+del\s+art[íi]culo\s+(\d+)", re.IGNORECASE)
_ORGANO = re.compile(
    r"Corresponder[áa] a\s+(.+?),?\s+revisar los contenidos ambientales del (?:PAS|permiso)", re.IGNORECASE
)


@dataclass(frozen=True)
class Lectura:
    """Lo que el texto de un artículo del Título VII dice de su permiso."""

    numero: int
    nombre: str
    tipo: str
    norma_sectorial: str
    requisito: str
    contenidos: list[dict[str, str]] = field(default_factory=list)


class PermisoDelCatalogo(TypedDict):
    """Una entrada del catálogo como la leen los motores y la API (sin modelos de Django)."""

    numero: int
    nombre: str
    tipo: str
    tipo_nombre: str
    norma_sectorial: str
    requisito: str
    contenidos: list[dict[str, str]]
    organo: str
    organo_fuente: str
    guia: str  # título de la guía trámite del SEA («» si el corpus no la trae)
    guia_url: str
    url: str  # el artículo en LeyChile
    fragmento_id: int | None
    estado: str
    fecha_texto: str | None


def leer_articulo(
    *, numero: int, texto: str, jerarquia: list[str], letras: Iterable[tuple[str, str]] = ()
) -> Lectura | None:
    """Lee el permiso de un artículo del Título VII; `None` si el artículo no es un PAS (normas generales,
    pronunciamientos) o no tiene la estructura que el reglamento anuncia."""
    tipo = _tipo_de(jerarquia)
    lineas = [" ".join(linea.split()) for linea in texto.splitlines() if linea.strip()]
    if tipo is None or not lineas:
        return None
    lineas[0] = _NUMERO_DEL_ARTICULO.sub("", lineas[0]).strip()
    lineas = [linea for linea in lineas if linea]
    requisito = next((linea for linea in lineas if _REQUISITO.match(linea)), "")
    if not lineas or not requisito:
        return None
    norma = next((m.group(1) for linea in lineas[1:3] if (m := _ESTABLECIDO.search(linea))), "")
    return Lectura(
        numero=numero,
        nombre=lineas[0].rstrip(" ."),
        tipo=tipo,
        norma_sectorial=norma,
        requisito=requisito,
        contenidos=_contenidos(lineas, letras),
    )


@transaction.atomic
def permisos_catalogar() -> list[PermisoSectorial]:
    """Lee los PAS del DS 40 vigente y pone al día el catálogo: crea los que faltan, compara los que hay
    con su texto vigente y les asocia su guía y su órgano. Devuelve las entradas que acaban de pasar a
    «revisar» (para avisar al personal una sola vez). Sin el DS 40 cargado no hace nada."""
    articulos = _articulos_del_titulo_vii()
    if not articulos and not PermisoSectorial.objects.exists():
        return []
    guias = _guias_de_pas()
    existentes = {p.numero: p for p in PermisoSectorial.objects.all()}
    ahora = timezone.now()
    nuevas_revisar: list[PermisoSectorial] = []
    for numero, (fragmento, lectura) in articulos.items():
        permiso = existentes.pop(numero, None)
        anterior = permiso.estado if permiso else None
        huella = hash_de_texto(fragmento.texto)
        permiso = permiso or PermisoSectorial(numero=numero, hash_texto=huella)
        if huella == permiso.hash_texto:  # el mismo texto: lo leído se refresca (quizá con un lector mejor)
            _aplicar(permiso, lectura)
        permiso.fragmento = fragmento
        permiso.texto_vigente = fragmento.texto
        permiso.hash_vigente = huella
        permiso.fecha_texto = fragmento.version.fecha_version
        permiso.estado = (
            PermisoSectorial.Estado.VIGENTE
            if huella == permiso.hash_texto
            else PermisoSectorial.Estado.REVISAR
        )
        _guia_y_organo(permiso, guias.get(numero))
        permiso.revisado_at = ahora
        permiso.save()
        if permiso.estado == PermisoSectorial.Estado.REVISAR and anterior != PermisoSectorial.Estado.REVISAR:
            nuevas_revisar.append(permiso)
    for permiso in existentes.values():  # ya no están en el texto vigente
        permiso.estado, permiso.fragmento, permiso.revisado_at = (
            PermisoSectorial.Estado.SIN_TEXTO,
            None,
            ahora,
        )
        permiso.save(update_fields=["estado", "fragmento", "revisado_at"])
    return nuevas_revisar


@transaction.atomic
def permisos_aceptar(*, numeros: Iterable[int]) -> int:
    """El personal revisó el texto nuevo: la entrada se vuelve a leer de él y queda vigente. Devuelve
    cuántas se aceptaron (solo las que estaban en «revisar» y cuyo texto nuevo aún es un PAS)."""
    aceptadas = 0
    pendientes = PermisoSectorial.objects.filter(
        numero__in=list(numeros), estado=PermisoSectorial.Estado.REVISAR
    ).select_related("fragmento")
    for permiso in pendientes:
        fragmento = permiso.fragmento
        lectura = (
            leer_articulo(
                numero=permiso.numero,
                texto=fragmento.texto,
                jerarquia=fragmento.jerarquia,
                letras=_letras_de(fragmento),
            )
            if fragmento
            else None
        )
        if lectura is None:
            continue
        _aplicar(permiso, lectura)
        permiso.hash_texto, permiso.estado = permiso.hash_vigente, PermisoSectorial.Estado.VIGENTE
        permiso.save()
        aceptadas += 1
    return aceptadas


def permisos_del_catalogo(numeros: Iterable[int] | None = None) -> dict[int, PermisoDelCatalogo]:
    """Las entradas del catálogo (todas, o las de `numeros`) por número de artículo."""
    filas = PermisoSectorial.objects.select_related("guia", "fragmento__norma")
    if numeros is not None:
        filas = filas.filter(numero__in=list(numeros))
    return {p.numero: permiso_como_dato(p) for p in filas}


def permiso_como_dato(p: PermisoSectorial) -> PermisoDelCatalogo:
    """La entrada como diccionario tipado, con los enlaces al artículo y a la guía."""
    return {
        "numero": p.numero,
        "nombre": p.nombre,
        "tipo": p.tipo,
        "tipo_nombre": p.get_tipo_display(),
        "norma_sectorial": p.norma_sectorial,
        "requisito": p.requisito,
        "contenidos": list(p.contenidos),
        "organo": p.organo,
        "organo_fuente": p.organo_fuente,
        "guia": p.guia.nombre if p.guia else "",
        "guia_url": p.guia.url if p.guia else "",
        "url": url_de(p.fragmento) if p.fragmento else "",
        "fragmento_id": p.fragmento_id,
        "estado": p.estado,
        "fecha_texto": p.fecha_texto.isoformat() if p.fecha_texto else None,
    }


# --- ayudas -------------------------------------------------------------------------------------


def _tipo_de(jerarquia: list[str]) -> str | None:
    """La clase del PAS por el párrafo del Título VII en que está; `None` fuera de los párrafos de
    permisos. Si la jerarquía trae el epígrafe del párrafo (XML de la BCN), manda su texto."""
    if not any(_TITULO_VII.search(sin_tildes(nivel)) for nivel in jerarquia):
        return None
    parrafo = next((nivel for nivel in jerarquia if _PARRAFO.search(nivel)), "")
    epigrafe = sin_tildes(parrafo)
    if "unicamente ambientales" in epigrafe:
        return PermisoSectorial.Tipo.AMBIENTAL
    if "mixtos" in epigrafe:
        return PermisoSectorial.Tipo.MIXTO
    numero = _PARRAFO.search(parrafo)
    return TIPO_POR_PARRAFO.get(int(numero.group(1))) if numero else None


def _contenidos(lineas: list[str], letras: Iterable[tuple[str, str]]) -> list[dict[str, str]]:
    """Los contenidos técnicos y formales: las letras del artículo (y sus literales) o, si el artículo
    los dice en una oración («corresponde al estudio de seguridad …»), esa oración."""
    de_letras = [
        {"letra": letra, "texto": " ".join(texto.split())}
        for letra, texto in letras
        if letra and texto.strip()
    ]
    if de_letras:
        return de_letras
    inicio = next((n for n, linea in enumerate(lineas) if _CONTENIDOS.match(linea)), None)
    if inicio is None:
        return []
    contenidos: list[dict[str, str]] = []
    for linea in lineas[inicio + 1 :]:
        if m := _LETRA.match(linea):
            contenidos.append({"letra": m.group(1), "texto": m.group(2)})
        elif contenidos:
            contenidos[-1]["texto"] += " " + linea
    return contenidos or [{"letra": "", "texto": lineas[inicio]}]


def _articulos_del_titulo_vii() -> dict[int, tuple[FragmentoLegal, Lectura]]:
    """Número → (fragmento del artículo completo, lectura) de los PAS del DS 40 vigente."""
    fragmentos = list(
        FragmentoLegal.objects.filter(
            norma__sigla=NORMA_DE_LOS_PAS, version__vigente=True, transitorio=False, derogado=False
        )
        .select_related("version", "norma")
        .order_by("orden")
    )
    letras: dict[str, list[FragmentoLegal]] = {}
    for f in fragmentos:
        if f.letra:
            letras.setdefault(f.articulo, []).append(f)
    articulos: dict[int, tuple[FragmentoLegal, Lectura]] = {}
    for f in fragmentos:
        if f.letra or not f.articulo.isdigit():
            continue
        lectura = leer_articulo(
            numero=int(f.articulo),
            texto=f.texto,
            jerarquia=f.jerarquia,
            letras=_de_cada_letra(letras.get(f.articulo, [])),
        )
        if lectura is not None:
            articulos[lectura.numero] = (f, lectura)
    return articulos


def _letras_de(fragmento: FragmentoLegal) -> list[tuple[str, str]]:
    hermanas = FragmentoLegal.objects.filter(version_id=fragmento.version_id, articulo=fragmento.articulo)
    return _de_cada_letra(list(hermanas.exclude(letra="").order_by("orden")))


def _de_cada_letra(fragmentos: list[FragmentoLegal]) -> list[tuple[str, str]]:
    """(letra, texto sin su marca) de cada letra y literal; una letra con literales («a) De tratarse de
    subdivisiones: a.1 …») aporta solo su encabezado, porque sus literales vienen aparte."""
    letras = {f.letra for f in fragmentos}
    resultado = []
    for f in fragmentos:
        con_literales = any(otra.startswith(f"{f.letra}.") for otra in letras)
        texto = f.texto.strip().splitlines()[0] if con_literales else f.texto
        linea = " ".join(texto.split())
        m = _LETRA.match(linea)
        resultado.append((f.letra, m.group(2) if m else linea))
    return resultado


def _aplicar(permiso: PermisoSectorial, lectura: Lectura) -> None:
    permiso.nombre = lectura.nombre
    permiso.tipo = lectura.tipo
    permiso.norma_sectorial = lectura.norma_sectorial
    permiso.requisito = lectura.requisito
    permiso.contenidos = lectura.contenidos


@dataclass(frozen=True)
class _Guia:
    norma: Norma
    organo: str
    seccion: str


def _guias_de_pas() -> dict[int, _Guia]:
    """Número de artículo → su guía trámite del SEA en el corpus y el órgano que su capítulo de
    otorgamiento nombra («» si no lo nombra)."""
    guias: dict[int, _Guia] = {}
    for norma in Norma.objects.filter(tipo=Norma.Tipo.GUIA):
        m = _GUIA_DEL_PAS.search(norma.nombre) or _GUIA_DEL_PAS.search(norma.sigla)
        if m is None:
            continue
        organo, seccion = "", ""
        textos = FragmentoLegal.objects.filter(
            norma=norma, version__vigente=True, texto__icontains="revisar los contenidos ambientales"
        )
        for f in textos.only("texto", "breadcrumb").order_by("orden"):
            if encontrado := _ORGANO.search(" ".join(f.texto.split())):
                organo, seccion = encontrado.group(1), f.breadcrumb
                break
        guias[int(m.group(1))] = _Guia(norma, organo, seccion)
    return guias


def _guia_y_organo(permiso: PermisoSectorial, guia: _Guia | None) -> None:
    """La guía del PAS y, salvo que el personal lo haya escrito, el órgano que ella nombra."""
    permiso.guia = guia.norma if guia else None
    if permiso.organo_fuente == ORGANO_CURADO:
        return
    if guia and guia.organo:
        permiso.organo, permiso.organo_fuente = guia.organo, guia.seccion
    else:
        permiso.organo, permiso.organo_fuente = "", ""
