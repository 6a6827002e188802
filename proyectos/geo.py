"""Lectura de capas geográficas (GeoJSON, KML o shapefile comprimido, cualquier CRS) a WGS84.

Devuelve geometrías de shapely en longitud/latitud WGS84 y sus atributos. Un GeoJSON sin miembro
«crs» se entiende en WGS84 (RFC 7946); uno con «crs» (p. ej. EPSG:32719, UTM 19S) se reproyecta.
Un shapefile se reproyecta desde su `.prj`, que es obligatorio.
"""

from __future__ import annotations

import codecs
import gzip
import io
import json
import struct
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any
from xml.etree import ElementTree

import defusedxml
import defusedxml.ElementTree
import numpy as np
import shapefile
import shapely
import shapely.errors
from pyproj import CRS, Transformer
from pyproj.exceptions import CRSError
from shapely.geometry import mapping, shape
from shapely.geometry.base import BaseGeometry

from config.errores import EntradaNoValida
from config.validacion import nombre_visible, problema_json

# Caja amplia de Chile, incluidas Rapa Nui (109° O) y la Antártica chilena hasta 56° S en el
# continente americano; una geometría fuera de ella no es un error de CRS sino otra parte del mundo.
CAJA_CHILE = (-110.0, -56.5, -66.0, -17.0)
WGS84 = CRS.from_epsg(4326)
# Un .gz se descomprime hasta este tamaño, el mismo que se acepta sin comprimir: un archivo pequeño
# que se infla a cientos de MB (bomba de descompresión) se rechaza sin agotar la memoria.
TAMANO_MAXIMO_DESCOMPRIMIDO = 60 * 1024 * 1024
# El polígono de un proyecto subido desde un formulario (una capa entera se carga en el admin).
TAMANO_MAXIMO_ARCHIVO = 10 * 1024 * 1024
# Colecciones dentro de elementos dentro de colecciones…: más allá no es una capa sino un ataque.
ANIDACION_MAXIMA = 8
# Todo lo que shapely, pyshp o numpy lanzan ante un GeoJSON o un shapefile mal formado.
_ERRORES_DE_FORMA = (
    ValueError, TypeError, AttributeError, IndexError, KeyError, RecursionError,
    shapely.errors.ShapelyError, struct.error, shapefile.ShapefileException,
)  # fmt: skip


class ErrorDeCapa(EntradaNoValida, ValueError):
    """El archivo no es una capa legible; el mensaje dice por qué, en castellano."""


@dataclass
class ElementoLeido:
    geometria: BaseGeometry
    atributos: dict[str, Any]


@dataclass
class CapaLeida:
    elementos: list[ElementoLeido]
    crs_origen: str
    descartados: list[str] = field(default_factory=list)

    @property
    def caja(self) -> tuple[float, float, float, float] | None:
        if not self.elementos:
            return None
        minx, miny, maxx, maxy = shapely.total_bounds([e.geometria for e in self.elementos]).tolist()
        return (minx, miny, maxx, maxy)


def leer_capa(*, contenido: bytes, nombre_archivo: str) -> CapaLeida:
    """Lee un GeoJSON (.geojson/.json, opcionalmente .gz), un KML o un shapefile comprimido (.zip)."""
    nombre = nombre_archivo.lower()
    if nombre.endswith(".gz"):
        contenido = _descomprimir(contenido)
        nombre = nombre[:-3]
    if nombre.endswith(".zip"):
        return _leer_shapefile_zip(contenido)
    if nombre.endswith((".geojson", ".json")):
        return _leer_geojson(contenido)
    if nombre.endswith(".kml"):
        return _leer_kml(contenido)
    raise ErrorDeCapa(
        f"Formato no soportado: «{nombre_visible(nombre_archivo)}». Use GeoJSON, KML o un shapefile "
        "comprimido (.zip)."
    )


def geometria_de_archivo(*, contenido: bytes, nombre: str) -> dict[str, Any]:
    """El polígono de un proyecto en un archivo (GeoJSON o shapefile comprimido, cualquier CRS) como
    GeoJSON WGS84: las áreas de todos sus elementos unidas. `ErrorDeCapa` si no hay ninguna."""
    if len(contenido) > TAMANO_MAXIMO_ARCHIVO:
        raise ErrorDeCapa(f"El archivo supera {TAMANO_MAXIMO_ARCHIVO // 1024 // 1024} MB.")
    capa = leer_capa(contenido=contenido, nombre_archivo=nombre)
    areas = solo_areas(shapely.union_all([e.geometria for e in capa.elementos])) if capa.elementos else None
    if areas is None or areas.is_empty or areas.geom_type not in ("Polygon", "MultiPolygon"):
        raise ErrorDeCapa("El archivo no trae un polígono: dibuje el área del proyecto o suba otro archivo.")
    return como_geojson(areas)


def geometria_de_texto(texto: str) -> dict[str, Any]:
    """El polígono que el formulario trae de vuelta (GeoJSON en texto), revisado otra vez."""
    try:
        datos = json.loads(texto)
    except (json.JSONDecodeError, RecursionError):
        raise ErrorDeCapa(
            "El polígono guardado en el formulario no es JSON válido; súbalo de nuevo."
        ) from None
    if problema := problema_json(datos, numeros=False):
        raise ErrorDeCapa(f"El polígono enviado no es válido: {problema}")
    return como_geojson(geometria_de_geojson(datos))


def geometria_de_geojson(datos: Any, *, nivel: int = 1) -> BaseGeometry:
    """Convierte un objeto GeoJSON (geometría, Feature o FeatureCollection) en una geometría."""
    if nivel > ANIDACION_MAXIMA:
        raise ErrorDeCapa(f"El GeoJSON anida colecciones a más de {ANIDACION_MAXIMA} niveles.")
    if isinstance(datos, dict) and datos.get("type") == "Feature":
        datos = datos.get("geometry")
    if isinstance(datos, dict) and datos.get("type") == "FeatureCollection":
        features = datos.get("features") or []
        if not isinstance(features, list):
            raise ErrorDeCapa("«features» de la colección debe ser una lista de elementos.")
        geometrias = [geometria_de_geojson(f, nivel=nivel + 1) for f in features]
        if not geometrias:
            raise ErrorDeCapa("La colección no tiene elementos.")
        return shapely.union_all(geometrias)
    if not isinstance(datos, dict) or "type" not in datos:
        raise ErrorDeCapa("No es una geometría GeoJSON (falta «type»).")
    if datos["type"] not in TIPOS_GEOJSON:
        raise ErrorDeCapa(
            f"Tipo de geometría GeoJSON desconocido: «{str(datos['type'])[:40]}». "
            f"Use {', '.join(TIPOS_GEOJSON)}."
        )
    return forma_de_geojson(datos)


TIPOS_GEOJSON = (
    "Point", "MultiPoint", "LineString", "MultiLineString", "Polygon", "MultiPolygon", "GeometryCollection",
)  # fmt: skip


def forma_de_geojson(datos: Any) -> BaseGeometry:
    """La geometría de un objeto de geometría GeoJSON, o `ErrorDeCapa` si está mal formada o tiene
    coordenadas no numéricas (NaN, infinito)."""
    try:
        forma = shape(datos)
        finitas = bool(np.isfinite(shapely.get_coordinates(forma)).all())
    except _ERRORES_DE_FORMA:
        tipo = nombre_visible(str(datos.get("type"))) if isinstance(datos, dict) else "?"
        raise ErrorDeCapa(
            f"Geometría GeoJSON mal formada: sus coordenadas no forman un «{tipo}» (p. ej. un anillo "
            "con menos de 4 puntos, o números donde van listas)."
        ) from None
    if not finitas:
        raise ErrorDeCapa("La geometría tiene coordenadas que no son números (NaN o infinito).")
    return forma


def como_geojson(geometria: BaseGeometry, *, decimales: int = 7) -> dict[str, Any]:
    """GeoJSON de la geometría con coordenadas redondeadas (≈1 cm con 7 decimales)."""
    geojson: dict[str, Any] = mapping(shapely.set_precision(geometria, 10.0**-decimales))
    return geojson


def _leer_geojson(contenido: bytes) -> CapaLeida:
    try:
        datos = json.loads(contenido)
    except UnicodeDecodeError:
        raise ErrorDeCapa(
            "El archivo no está codificado en UTF-8: guárdelo como UTF-8 y súbalo de nuevo."
        ) from None
    except json.JSONDecodeError as error:
        raise ErrorDeCapa(
            f"El archivo no es JSON válido (línea {error.lineno}, columna {error.colno})."
        ) from None
    except RecursionError:
        raise ErrorDeCapa("El archivo JSON está anidado a demasiada profundidad.") from None
    # Lo mismo que en cualquier entrada: un texto con un carácter que no es texto (un sustituto suelto,
    # el nulo) no llega a un mensaje de error ni a las propiedades que se guardan.
    if problema := problema_json(datos, numeros=False):
        raise ErrorDeCapa(f"El archivo no es un GeoJSON válido: {problema}")
    if not isinstance(datos, dict):
        raise ErrorDeCapa("El GeoJSON debe ser un objeto.")
    crs = _crs(_nombre_crs(datos.get("crs")))
    if datos.get("type") == "FeatureCollection":
        features = datos.get("features") or []
        if not isinstance(features, list):
            raise ErrorDeCapa("«features» de la colección debe ser una lista de elementos.")
    elif datos.get("type") == "Feature":
        features = [datos]
    elif datos.get("type") in TIPOS_GEOJSON:
        features = [{"type": "Feature", "properties": {}, "geometry": datos}]
    else:
        raise ErrorDeCapa(
            f"Tipo GeoJSON desconocido: «{str(datos.get('type'))[:40]}». Use FeatureCollection, Feature "
            "o una geometría."
        )
    elementos: list[ElementoLeido] = []
    descartados: list[str] = []
    for posicion, feature in enumerate(features, start=1):
        geometria = feature.get("geometry") if isinstance(feature, dict) else None
        if not geometria:
            descartados.append(f"elemento {posicion}: sin geometría")
            continue
        try:
            forma = forma_de_geojson(geometria)
        except ErrorDeCapa as error:
            descartados.append(f"elemento {posicion}: {error}")
            continue
        propiedades = feature.get("properties")
        elementos.append(ElementoLeido(forma, dict(propiedades) if isinstance(propiedades, dict) else {}))
    return _a_wgs84(elementos, crs, descartados)


def _leer_kml(contenido: bytes) -> CapaLeida:
    """Los `Placemark` de un KML (Google Earth): cada uno es un elemento con su `name`, su `description`
    y sus `ExtendedData`; su geometría, la de sus `Polygon`, `LineString` y `Point` (también dentro de
    `MultiGeometry`). KML siempre va en longitud/latitud WGS84. Se lee con defusedxml: un KML con
    entidades o DTD (la bomba de mil millones de risas, entidades externas) se rechaza."""
    try:
        raiz = defusedxml.ElementTree.fromstring(contenido)
    except defusedxml.DefusedXmlException:
        raise ErrorDeCapa("El KML declara entidades o un DTD, que no se admiten por seguridad.") from None
    except ElementTree.ParseError as error:
        linea = error.position[0] if error.position else "?"
        raise ErrorDeCapa(f"El archivo KML no es XML válido (línea {linea}).") from None
    if _local(raiz.tag) != "kml":
        raise ErrorDeCapa("El archivo no es un KML: su elemento raíz no es <kml>.")
    elementos: list[ElementoLeido] = []
    descartados: list[str] = []
    for posicion, lugar in enumerate((e for e in raiz.iter() if _local(e.tag) == "Placemark"), start=1):
        try:
            formas = [_forma_kml(g) for g in lugar.iter() if _local(g.tag) in _GEOMETRIAS_KML]
        except ErrorDeCapa as error:
            descartados.append(f"elemento {posicion}: {error}")
            continue
        if not formas:
            descartados.append(f"elemento {posicion}: sin geometría")
            continue
        propiedades = _propiedades_kml(lugar)
        if problema := problema_json(propiedades, numeros=False):
            raise ErrorDeCapa(f"El elemento {posicion} del KML no es válido: {problema}")
        elementos.append(ElementoLeido(shapely.union_all(formas), propiedades))
    return _a_wgs84(elementos, WGS84, descartados)


_GEOMETRIAS_KML = ("Point", "LineString", "Polygon")


def _local(etiqueta: Any) -> str:
    """La etiqueta sin su espacio de nombres («{http://www.opengis.net/kml/2.2}Polygon» → «Polygon»)."""
    return str(etiqueta).rpartition("}")[2]


def _forma_kml(geometria: Any) -> BaseGeometry:
    tipo = _local(geometria.tag)
    if tipo == "Polygon":
        anillos: dict[str, list[list[list[float]]]] = {"outerBoundaryIs": [], "innerBoundaryIs": []}
        for borde in geometria:
            if _local(borde.tag) in anillos:
                anillos[_local(borde.tag)] += [
                    _coordenadas_kml(c) for c in borde.iter() if _local(c.tag) == "coordinates"
                ]
        if len(anillos["outerBoundaryIs"]) != 1:
            raise ErrorDeCapa("un Polygon del KML debe tener un borde exterior")
        datos: dict[str, Any] = {
            "type": "Polygon",
            "coordinates": anillos["outerBoundaryIs"] + anillos["innerBoundaryIs"],
        }
    else:
        coordenadas = [_coordenadas_kml(c) for c in geometria if _local(c.tag) == "coordinates"]
        if len(coordenadas) != 1:
            raise ErrorDeCapa(f"un {tipo} del KML sin sus coordenadas")
        datos = {"type": tipo, "coordinates": coordenadas[0][0] if tipo == "Point" else coordenadas[0]}
    return forma_de_geojson(datos)


def _coordenadas_kml(elemento: Any) -> list[list[float]]:
    """«lon,lat[,alt] lon,lat[,alt] …» → [[lon, lat], …]."""
    try:
        return [[float(x) for x in tupla.split(",")[:2]] for tupla in (elemento.text or "").split()]
    except ValueError:
        raise ErrorDeCapa("coordenadas del KML que no son números") from None


def _propiedades_kml(lugar: Any) -> dict[str, Any]:
    propiedades: dict[str, Any] = {}
    for hijo in lugar:
        if _local(hijo.tag) in ("name", "description") and hijo.text:
            propiedades[_local(hijo.tag)] = hijo.text.strip()
    for dato in lugar.iter():
        if _local(dato.tag) == "Data" and dato.get("name"):
            valor = next((v.text for v in dato if _local(v.tag) == "value"), None)
            propiedades[str(dato.get("name"))] = (valor or "").strip()
        elif _local(dato.tag) == "SimpleData" and dato.get("name"):
            propiedades[str(dato.get("name"))] = (dato.text or "").strip()
    return propiedades


def _leer_shapefile_zip(contenido: bytes) -> CapaLeida:
    try:
        archivo = zipfile.ZipFile(io.BytesIO(contenido))
    except zipfile.BadZipFile as error:
        raise ErrorDeCapa("El .zip está dañado o no es un zip.") from error
    miembros = {
        PurePosixPath(n).suffix.lower(): n for n in archivo.namelist() if not n.startswith("__MACOSX")
    }
    faltan = [ext for ext in (".shp", ".shx", ".dbf", ".prj") if ext not in miembros]
    if faltan:
        raise ErrorDeCapa(
            f"Al shapefile comprimido le falta {', '.join(faltan)}"
            + (" (sin .prj no se sabe su sistema de coordenadas)" if ".prj" in faltan else "")
            + "."
        )
    try:
        crs = _crs(archivo.read(miembros[".prj"]).decode("latin-1"))
        codificacion = _codificacion(archivo.read(miembros[".cpg"])) if ".cpg" in miembros else "latin-1"
        lector = shapefile.Reader(
            shp=io.BytesIO(archivo.read(miembros[".shp"])),
            shx=io.BytesIO(archivo.read(miembros[".shx"])),
            dbf=io.BytesIO(archivo.read(miembros[".dbf"])),
            encoding=codificacion,
            encodingErrors="replace",
        )
        registros = list(lector.iterShapeRecords())
    except ErrorDeCapa:
        raise
    except LookupError:
        raise ErrorDeCapa(
            "No se pudo leer el shapefile: la codificación de su .cpg no se reconoce."
        ) from None
    except (*_ERRORES_DE_FORMA, zipfile.BadZipFile, EOFError, OSError):
        raise ErrorDeCapa(
            "No se pudo leer el shapefile: sus archivos .shp, .shx o .dbf están dañados o incompletos."
        ) from None
    elementos: list[ElementoLeido] = []
    descartados: list[str] = []
    for posicion, registro in enumerate(registros, start=1):
        try:
            interfaz = registro.shape.__geo_interface__
        except _ERRORES_DE_FORMA:
            descartados.append(f"registro {posicion}: geometría ilegible")
            continue
        if not interfaz.get("coordinates") and interfaz.get("type") != "GeometryCollection":
            descartados.append(f"registro {posicion}: sin geometría")
            continue
        try:
            forma = forma_de_geojson(interfaz)
        except ErrorDeCapa as error:
            descartados.append(f"registro {posicion}: {error}")
            continue
        propiedades = dict(registro.record.as_dict())
        if problema := problema_json(propiedades, numeros=False):
            raise ErrorDeCapa(f"El registro {posicion} del shapefile no es válido: {problema}")
        elementos.append(ElementoLeido(forma, propiedades))
    return _a_wgs84(elementos, crs, descartados)


def _descomprimir(contenido: bytes) -> bytes:
    """Descomprime un .gz hasta `TAMANO_MAXIMO_DESCOMPRIMIDO`; más, o un .gz dañado: `ErrorDeCapa`."""
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(contenido)) as archivo:
            datos = archivo.read(TAMANO_MAXIMO_DESCOMPRIMIDO + 1)
    except (OSError, EOFError, zlib.error) as error:
        raise ErrorDeCapa(f"El .gz está dañado o no es un archivo gzip ({error}).") from None
    if len(datos) > TAMANO_MAXIMO_DESCOMPRIMIDO:
        raise ErrorDeCapa(
            f"El .gz descomprimido supera {TAMANO_MAXIMO_DESCOMPRIMIDO // 1024 // 1024} MB; "
            "simplifique la capa o divídala."
        )
    return datos


def _codificacion(cpg: bytes) -> str:
    """La codificación que declara el .cpg, si Python la conoce."""
    try:
        nombre = cpg.decode("ascii").strip()
        codecs.lookup(nombre)
    except (UnicodeDecodeError, LookupError):
        raise ErrorDeCapa(
            f"El .cpg declara una codificación desconocida: «{cpg[:40].decode('latin-1').strip()}»."
        ) from None
    return nombre


def _nombre_crs(crs: Any) -> str:
    """El nombre del CRS de un GeoJSON (miembro «crs» de la especificación de 2008); sin él, WGS84."""
    if not crs:
        return "OGC:CRS84"
    propiedades = crs.get("properties") if isinstance(crs, dict) else None
    nombre = propiedades.get("name") if isinstance(propiedades, dict) else None
    if not isinstance(nombre, str):
        raise ErrorDeCapa('El miembro «crs» no tiene la forma {"type": "name", "properties": {"name": …}}.')
    return nombre


def _crs(texto: str) -> CRS:
    try:
        return CRS.from_user_input(texto)
    except (CRSError, TypeError, ValueError) as error:
        raise ErrorDeCapa(f"Sistema de coordenadas no reconocido: «{texto[:80]}».") from error


def _a_wgs84(elementos: list[ElementoLeido], crs: CRS, descartados: list[str]) -> CapaLeida:
    nombre_crs = crs.to_string()
    if not crs.is_geographic:
        transformador = Transformer.from_crs(crs, WGS84, always_xy=True)

        def reproyectar(coordenadas: np.ndarray) -> np.ndarray:
            x, y = transformador.transform(coordenadas[:, 0], coordenadas[:, 1])
            return np.column_stack([x, y])

        for elemento in elementos:
            elemento.geometria = shapely.transform(elemento.geometria, reproyectar)
    validos: list[ElementoLeido] = []
    for posicion, elemento in enumerate(elementos, start=1):
        geometria = solo_areas(
            elemento.geometria if elemento.geometria.is_valid else shapely.make_valid(elemento.geometria)
        )
        if geometria is None or geometria.is_empty:
            descartados.append(f"elemento {posicion}: geometría vacía tras repararla")
            continue
        minx, miny, maxx, maxy = geometria.bounds
        if minx < -180 or maxx > 180 or miny < -90 or maxy > 90:
            raise ErrorDeCapa(
                "Las coordenadas no son longitud/latitud tras reproyectar "
                f"(caja {minx:.0f}, {miny:.0f}, {maxx:.0f}, {maxy:.0f}): revise el sistema de coordenadas."
            )
        elemento.geometria = geometria
        validos.append(elemento)
    return CapaLeida(validos, nombre_crs, descartados)


def reparar(geometria: BaseGeometry) -> BaseGeometry | None:
    """Geometría válida: `make_valid` y, de lo que resulte, solo las partes útiles."""
    return solo_areas(shapely.make_valid(geometria))


def solo_areas(geometria: BaseGeometry) -> BaseGeometry | None:
    """Tras `make_valid` una colección puede mezclar líneas sueltas: se conservan las partes de área."""
    if geometria.geom_type != "GeometryCollection":
        return geometria
    partes = [g for g in shapely.get_parts(geometria) if g.geom_type in ("Polygon", "MultiPolygon")]
    return shapely.union_all(partes) if partes else None
