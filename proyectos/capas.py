"""Servicios de capas geográficas: categorías, capas incluidas en el repositorio y cargas del personal.

Las capas incluidas (`proyectos/datos/capas/`, procedencia en su SOURCE.md) se cargan con
`manage.py cargar_capas`: idempotente (una capa cuyo archivo no cambió no se toca) y con barra de
progreso. Las categorías se crean con valores por defecto una sola vez; después son del personal,
que las edita en el admin, y ninguna recarga las sobrescribe.
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import io
import json
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import shapely
from django.db import transaction
from shapely.geometry.base import BaseGeometry

from proyectos.geo import CapaLeida, ElementoLeido, ErrorDeCapa, como_geojson, leer_capa, reparar
from proyectos.models import CapaGeografica, CategoriaCapa, Comuna, ElementoSensible, Region

DIRECTORIO = Path(__file__).resolve().parent / "datos" / "capas"
TODAS_SALVO_AUSTRALES = ("15", "01", "02", "03", "04", "05", "13", "06", "07", "16", "08", "09", "14", "10")


@dataclass(frozen=True)
class CategoriaPorDefecto:
    codigo: str
    nombre: str
    letras: tuple[str, ...]
    proteccion_oficial: bool
    severidad: str
    buffer_alerta_m: int
    interseccion_es_efecto: bool = True
    buffer_efecto_m: int = 0
    descripcion: str = ""


# Valores iniciales, editables en el admin. «Protección oficial» sigue la lista de áreas colocadas
# bajo protección oficial del SEA (Of. Ord. N° 130844/2013): áreas silvestres protegidas del Estado,
# santuarios de la naturaleza, sitios Ramsar, entre otras. Los sitios prioritarios informan la
# letra d) del Art. 11 pero no la letra p) del Art. 10.
CATEGORIAS: tuple[CategoriaPorDefecto, ...] = (
    CategoriaPorDefecto("parque_nacional", "Parque nacional", ("d",), True, "critica", 5000),
    CategoriaPorDefecto("reserva_nacional", "Reserva nacional", ("d",), True, "critica", 5000),
    CategoriaPorDefecto("monumento_natural", "Monumento natural", ("d",), True, "critica", 5000),
    CategoriaPorDefecto("santuario_naturaleza", "Santuario de la naturaleza", ("d",), True, "critica", 5000),
    CategoriaPorDefecto(
        "humedal_ramsar", "Humedal de importancia internacional (sitio Ramsar)", ("d",), True, "critica", 5000
    ),
    CategoriaPorDefecto(
        "sitio_prioritario", "Sitio prioritario para la conservación", ("d",), False, "alta", 5000
    ),
    CategoriaPorDefecto("glaciar", "Glaciar", ("b", "d"), False, "critica", 3000),
    CategoriaPorDefecto(
        "humedal_inventario",
        "Humedal del inventario nacional (sin protección oficial)",
        ("d",),
        False,
        "media",
        2000,
        interseccion_es_efecto=False,
        descripcion=(
            "humedal inventariado sin protección oficial: no es un efecto por sí solo; "
            "revise su estado y la línea de base"
        ),
    ),
    CategoriaPorDefecto("humedal_urbano", "Humedal urbano (Ley 21.202)", ("d",), False, "alta", 2000),
    CategoriaPorDefecto(
        "area_desarrollo_indigena", "Área de desarrollo indígena (ADI)", ("c", "d"), False, "alta", 5000
    ),
    CategoriaPorDefecto(
        "area_observacion_astronomica",
        "Área de valor para la observación astronómica, Decreto 2/2023",
        ("d",),
        False,
        "media",
        0,
        interseccion_es_efecto=False,
        descripcion=(
            "comuna declarada de valor para la observación astronómica; la letra d) del Art. 11 incluye "
            "estas áreas cuando son susceptibles de ser afectadas (p. ej., por iluminación): revise la "
            "norma lumínica"
        ),
    ),
)


@dataclass(frozen=True)
class CapaIncluida:
    """Capa que viaja con el repositorio y cómo leer sus atributos."""

    codigo: str
    nombre: str
    archivos: tuple[str, ...]
    categoria: str
    fuente: str
    url_fuente: str
    nombre_de: Callable[[dict[str, Any]], str]
    identificador_de: Callable[[dict[str, Any]], str]
    categoria_de: Callable[[dict[str, Any]], str] | None = None
    cobertura_regiones: tuple[str, ...] = ()
    cobertura_nota: str = ""
    letras: tuple[str, ...] = ()
    unir_por_identificador: bool = False
    extra: dict[str, str] = field(default_factory=dict)


_CATEGORIA_SNASPE = {
    "Parque Nacional": "parque_nacional",
    "Reserva Nacional": "reserva_nacional",
    "Monumento Natural": "monumento_natural",
}


def _nombre_glaciar(a: dict[str, Any]) -> str:
    nombre = str(a.get("nombre") or "").strip()
    sin_nombre = nombre.lower() in ("", "s/n", "sin nombre")
    base = (
        f"{a.get('class') or 'Glaciar'} {a.get('cod_glacia', '')}".strip()
        if sin_nombre
        else f"Glaciar {nombre}"
    )
    return f"{base} ({a.get('comuna')})" if a.get("comuna") else base


def _nombre_humedal(a: dict[str, Any]) -> str:
    nombre = str(a.get("nombre_hum") or "").strip()
    if nombre and nombre.lower() != "sin informacion":
        return f"Humedal {nombre}"
    return (
        f"Humedal {str(a.get('orden4') or '').lower()} {a.get('cod_humeda', '')} ({a.get('nombre_cue', '')})"
    )


CAPAS_INCLUIDAS: tuple[CapaIncluida, ...] = (
    CapaIncluida(
        codigo="snaspe",
        nombre="SNASPE: parques nacionales, reservas nacionales y monumentos naturales",
        # El orden decide qué archivo aporta la geometría de una unidad repetida: el catastro
        # reproyectado (norte y centro) primero, luego reservas y monumentos de todo el país.
        archivos=(
            "SNASPE_PN_RN_MN_norte_centro_utm19s.geojson.gz",
            "SNASPE_Reserva_Nacional.geojson.gz",
            "SNASPE_Monumento_Natural.geojson.gz",
        ),
        categoria="parque_nacional",
        categoria_de=lambda a: _CATEGORIA_SNASPE.get(str(a.get("CATEGORIA")), "parque_nacional"),
        fuente="Ministerio de Bienes Nacionales, catastro del SNASPE (vía geocalculo/nemo)",
        url_fuente="https://github.com/geocalculo/nemo",
        nombre_de=lambda a: " ".join(str(a.get("NOMBRE_TOT") or a.get("NOMBRE_UNI") or "").split()),
        identificador_de=lambda a: str(a.get("ID_CATASTR") or ""),
        cobertura_regiones=TODAS_SALVO_AUSTRALES,
        unir_por_identificador=True,
    ),
    CapaIncluida(
        codigo="sitios_prioritarios",
        nombre="Sitios prioritarios para la conservación según Ley 19.300",
        archivos=("sitios_prioritarios_ley19300.geojson.gz",),
        categoria="sitio_prioritario",
        fuente="Ministerio del Medio Ambiente, Líneas de Base Públicas (SIMBIO)",
        url_fuente="https://simbio.mma.gob.cl",
        nombre_de=lambda a: f"Sitio prioritario {a.get('nombre_ap')}",
        identificador_de=lambda a: str(a.get("cod_rnap") or a.get("objectid") or ""),
    ),
    CapaIncluida(
        codigo="ramsar",
        nombre="Sitios Ramsar (parcial)",
        archivos=("Sitios_Ramsar_parcial.geojson.gz",),
        categoria="humedal_ramsar",
        fuente="Sitios Ramsar de Chile (vía geocalculo/nemo; fuente original no declarada)",
        url_fuente="https://github.com/geocalculo/nemo",
        nombre_de=lambda a: f"Sitio Ramsar {a.get('Nombre')}".replace("Hidroltgico", "Hidrológico"),
        identificador_de=lambda a: f"ramsar-{a.get('Id')}",
        cobertura_nota="solo 8 sitios Ramsar (altiplano, Atacama y Humedal El Yali).",
        unir_por_identificador=True,
    ),
    CapaIncluida(
        codigo="glaciares_antofagasta",
        nombre="Glaciares del Inventario Público de la DGA, Región de Antofagasta",
        archivos=("glaciares_dga_antofagasta.geojson.gz",),
        categoria="glaciar",
        fuente="Dirección General de Aguas, Inventario Público de Glaciares (vía MMA Líneas de Base)",
        url_fuente="https://dga.mop.gob.cl",
        nombre_de=_nombre_glaciar,
        identificador_de=lambda a: str(a.get("cod_glacia") or a.get("objectid") or ""),
        cobertura_regiones=("02",),
    ),
    CapaIncluida(
        codigo="humedales_antofagasta",
        nombre="Inventario nacional de humedales (MMA), Región de Antofagasta",
        archivos=("humedales_mma_antofagasta.geojson.gz",),
        categoria="humedal_inventario",
        fuente="Ministerio del Medio Ambiente, Inventario Nacional de Humedales",
        url_fuente="https://simbio.mma.gob.cl",
        nombre_de=_nombre_humedal,
        identificador_de=lambda a: str(a.get("cod_humeda") or a.get("objectid") or ""),
        cobertura_regiones=("02",),
    ),
)

# Capa derivada: comunas del Decreto 2/2023 unidas a sus límites BCN.
CAPA_ASTRONOMICA = "observacion_astronomica"
ARCHIVO_ASTRONOMICO = "comunas_area_astronomica_decreto2_2023.csv"


@dataclass
class ResumenCarga:
    codigo: str
    elementos: int
    cargada: bool
    descartados: list[str] = field(default_factory=list)


Progreso = Callable[[str, int, int], None]


def capas_cargar(*, progreso: Progreso | None = None, forzar: bool = False) -> list[ResumenCarga]:
    """Carga categorías, límites territoriales y las capas incluidas (idempotente)."""
    categorias_asegurar()
    limites_territoriales_cargar()
    resumenes = [_capa_incluida_cargar(capa, progreso=progreso, forzar=forzar) for capa in CAPAS_INCLUIDAS]
    resumenes.append(_capa_astronomica_cargar(forzar=forzar))
    return resumenes


def categorias_asegurar() -> None:
    """Crea las categorías que falten con sus valores por defecto (nunca modifica las existentes)."""
    for c in CATEGORIAS:
        CategoriaCapa.objects.get_or_create(
            codigo=c.codigo,
            defaults={
                "nombre": c.nombre,
                "letras_art11": list(c.letras),
                "proteccion_oficial": c.proteccion_oficial,
                "severidad": c.severidad,
                "buffer_alerta_m": c.buffer_alerta_m,
                "buffer_efecto_m": c.buffer_efecto_m,
                "interseccion_es_efecto": c.interseccion_es_efecto,
                "descripcion": c.descripcion,
            },
        )


@transaction.atomic
def limites_territoriales_cargar() -> None:
    """Guarda los límites BCN de regiones y comunas (por código CUT) si aún no están."""
    if not Comuna.objects.filter(limite__isnull=True).exclude(codigo="12202").exists():
        return
    for modelo, archivo, campo, largo in (
        (Region, "regiones_bcn.geojson.gz", "codregion", 2),
        (Comuna, "comunas_bcn.geojson.gz", "cod_comuna", 5),
    ):
        datos = json.loads(gzip.decompress((DIRECTORIO / archivo).read_bytes()))
        # Los límites BCN vienen simplificados y algunos quedan inválidos: se reparan al guardar.
        por_codigo = {
            str(f["properties"][campo]).zfill(largo): como_geojson(
                reparar(shapely.geometry.shape(f["geometry"]))
            )
            for f in datos["features"]
            if f["properties"].get(campo)
        }
        for objeto in modelo.objects.all():
            if objeto.codigo in por_codigo:
                objeto.limite = por_codigo[objeto.codigo]
                objeto.save(update_fields=["limite"])


@transaction.atomic
def capa_importar(
    *,
    nombre: str,
    codigo: str,
    categoria: CategoriaCapa,
    contenido: bytes,
    nombre_archivo: str,
    fuente: str,
    letras: Iterable[str] = (),
    campo_nombre: str = "",
    url_fuente: str = "",
) -> ResumenCarga:
    """Crea o reemplaza una capa subida por el personal (GeoJSON o shapefile .zip, cualquier CRS)."""
    leida = leer_capa(contenido=contenido, nombre_archivo=nombre_archivo)
    if not leida.elementos:
        raise ErrorDeCapa("La capa no tiene elementos con geometría.")
    capa, _ = CapaGeografica.objects.update_or_create(
        codigo=codigo,
        defaults={
            "nombre": nombre,
            "categoria": categoria,
            "letras_art11": sorted(set(letras)),
            "fuente": fuente,
            "url_fuente": url_fuente,
            "archivo": nombre_archivo,
            "hash": hashlib.sha256(contenido).hexdigest(),
        },
    )
    capa.elementos.all().delete()
    _elementos_crear(
        capa,
        [
            (
                e.geometria,
                _nombre_libre(e.atributos, campo_nombre, posicion, nombre),
                categoria,
                "",
                e.atributos,
            )
            for posicion, e in enumerate(leida.elementos, start=1)
        ],
    )
    capa.cobertura_regiones.set(regiones_que_toca(leida))
    return ResumenCarga(codigo, len(leida.elementos), True, leida.descartados)


def regiones_que_toca(leida: CapaLeida) -> list[Region]:
    """Regiones cuyo límite intersecta algún elemento (cobertura sugerida de una capa subida)."""
    union = shapely.union_all([e.geometria for e in leida.elementos])
    return [
        r
        for r in Region.objects.defer(None).exclude(limite__isnull=True)
        if shapely.intersects(shapely.geometry.shape(r.limite), union)
    ]


def _capa_incluida_cargar(capa: CapaIncluida, *, progreso: Progreso | None, forzar: bool) -> ResumenCarga:
    contenidos = [(DIRECTORIO / a).read_bytes() for a in capa.archivos]
    huella = hashlib.sha256(b"".join(hashlib.sha256(c).digest() for c in contenidos)).hexdigest()
    existente = CapaGeografica.objects.filter(codigo=capa.codigo).first()
    if existente and existente.hash == huella and not forzar:
        return ResumenCarga(capa.codigo, existente.elementos.count(), False)
    categorias = {c.codigo: c for c in CategoriaCapa.objects.all()}
    filas: list[tuple[BaseGeometry, str, CategoriaCapa, str, dict[str, Any]]] = []
    descartados: list[str] = []
    vistos: set[str] = set()
    for indice, (archivo, contenido) in enumerate(zip(capa.archivos, contenidos, strict=True), start=1):
        if progreso:
            progreso(capa.codigo, indice - 1, len(capa.archivos))
        leida = leer_capa(contenido=contenido, nombre_archivo=archivo)
        descartados += [f"{archivo}: {d}" for d in leida.descartados]
        for identificador, partes in _agrupar(leida.elementos, capa).items():
            if identificador in vistos:
                continue  # la unidad ya vino de un archivo anterior
            vistos.add(identificador)
            atributos = partes[0].atributos
            geometria = (
                shapely.union_all([p.geometria for p in partes]) if len(partes) > 1 else partes[0].geometria
            )
            codigo_categoria = capa.categoria_de(atributos) if capa.categoria_de else capa.categoria
            filas.append(
                (geometria, capa.nombre_de(atributos), categorias[codigo_categoria], identificador, atributos)
            )
    if progreso:
        progreso(capa.codigo, len(capa.archivos), len(capa.archivos))
    with transaction.atomic():
        registro, _ = CapaGeografica.objects.update_or_create(
            codigo=capa.codigo,
            defaults={
                "nombre": capa.nombre,
                "categoria": categorias[capa.categoria],
                "letras_art11": list(capa.letras),
                "fuente": capa.fuente,
                "url_fuente": capa.url_fuente,
                "archivo": ", ".join(capa.archivos),
                "hash": huella,
                "cobertura_nota": capa.cobertura_nota,
            },
        )
        registro.elementos.all().delete()
        _elementos_crear(registro, filas)
        registro.cobertura_regiones.set(Region.objects.filter(codigo__in=capa.cobertura_regiones))
    return ResumenCarga(capa.codigo, len(filas), True, descartados)


def _capa_astronomica_cargar(*, forzar: bool) -> ResumenCarga:
    contenido = (DIRECTORIO / ARCHIVO_ASTRONOMICO).read_bytes()
    huella = hashlib.sha256(contenido).hexdigest()
    existente = CapaGeografica.objects.filter(codigo=CAPA_ASTRONOMICA).first()
    if existente and existente.hash == huella and not forzar:
        return ResumenCarga(CAPA_ASTRONOMICA, existente.elementos.count(), False)
    filas = list(csv.DictReader(io.StringIO(contenido.decode("utf-8"))))
    comunas = {c.codigo: c for c in Comuna.objects.filter(codigo__in=[f["cut_comuna"] for f in filas])}
    categoria = CategoriaCapa.objects.get(codigo="area_observacion_astronomica")
    elementos = [
        (
            shapely.geometry.shape(comunas[f["cut_comuna"]].limite),
            f"Comuna de {comunas[f['cut_comuna']].nombre}",
            categoria,
            f["cut_comuna"],
            dict(f),
        )
        for f in filas
        if f["cut_comuna"] in comunas and comunas[f["cut_comuna"]].limite
    ]
    with transaction.atomic():
        capa, _ = CapaGeografica.objects.update_or_create(
            codigo=CAPA_ASTRONOMICA,
            defaults={
                "nombre": "Comunas de valor para la observación astronómica (Decreto 2/2023)",
                "categoria": categoria,
                "fuente": "Ministerio de Ciencia, Decreto N° 2 de 2023 (listado de prensa; límites BCN)",
                "archivo": ARCHIVO_ASTRONOMICO,
                "hash": huella,
            },
        )
        capa.elementos.all().delete()
        _elementos_crear(capa, elementos)
    return ResumenCarga(CAPA_ASTRONOMICA, len(elementos), True)


def _agrupar(elementos: list[ElementoLeido], capa: CapaIncluida) -> dict[str, list[ElementoLeido]]:
    grupos: dict[str, list[ElementoLeido]] = defaultdict(list)
    for posicion, elemento in enumerate(elementos):
        identificador = capa.identificador_de(elemento.atributos) or f"{capa.codigo}-{posicion}"
        clave = identificador if capa.unir_por_identificador else f"{identificador}#{posicion}"
        grupos[clave].append(elemento)
    return grupos


def _elementos_crear(
    capa: CapaGeografica, filas: list[tuple[BaseGeometry, str, CategoriaCapa, str, dict[str, Any]]]
) -> None:
    objetos = []
    for geometria, nombre, categoria, identificador, atributos in filas:
        minx, miny, maxx, maxy = geometria.bounds
        objetos.append(
            ElementoSensible(
                capa=capa,
                categoria=categoria,
                nombre=nombre[:300],
                fuente=capa.fuente[:300],
                identificador=identificador.split("#")[0][:100],
                atributos=_atributos_json(atributos),
                geometria=como_geojson(geometria),
                min_lon=minx,
                min_lat=miny,
                max_lon=maxx,
                max_lat=maxy,
            )
        )
    ElementoSensible.objects.bulk_create(objetos, batch_size=200)


def _atributos_json(atributos: dict[str, Any]) -> dict[str, Any]:
    """Atributos serializables (las fechas de un .dbf pasan a texto)."""
    serializables: dict[str, Any] = json.loads(json.dumps(atributos, default=str))
    return serializables


def _nombre_libre(atributos: dict[str, Any], campo: str, posicion: int, capa: str) -> str:
    if campo and atributos.get(campo):
        return str(atributos[campo])
    for candidato in ("nombre", "NOMBRE", "Nombre", "name", "nombre_ap", "NOMBRE_TOT"):
        if atributos.get(candidato):
            return str(atributos[candidato])
    return f"{capa} #{posicion}"
