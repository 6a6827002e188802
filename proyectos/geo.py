"""Lectura de capas geográficas (GeoJSON o shapefile comprimido, cualquier CRS) a WGS84.

Devuelve geometrías de shapely en longitud/latitud WGS84 y sus atributos. Un GeoJSON sin miembro
«crs» se entiende en WGS84 (RFC 7946); uno con «crs» (p. ej. EPSG:32719, UTM 19S) se reproyecta.
Un shapefile se reproyecta desde su `.prj`, que es obligatorio.
"""

from __future__ import annotations

import gzip
import io
import json
import zipfile
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

import numpy as np
import shapefile
import shapely
from pyproj import CRS, Transformer
from pyproj.exceptions import CRSError
from shapely.geometry import mapping, shape
from shapely.geometry.base import BaseGeometry

# Caja amplia de Chile, incluidas Rapa Nui (109° O) y la Antártica chilena hasta 56° S en el
# continente americano; una geometría fuera de ella no es un error de CRS sino otra parte del mundo.
CAJA_CHILE = (-110.0, -56.5, -66.0, -17.0)
WGS84 = CRS.from_epsg(4326)


class ErrorDeCapa(ValueError):
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
    """Lee un GeoJSON (.geojson/.json, opcionalmente .gz) o un shapefile comprimido (.zip)."""
    nombre = nombre_archivo.lower()
    if nombre.endswith(".gz"):
        contenido = gzip.decompress(contenido)
        nombre = nombre[:-3]
    if nombre.endswith(".zip"):
        return _leer_shapefile_zip(contenido)
    if nombre.endswith((".geojson", ".json")):
        return _leer_geojson(contenido)
    raise ErrorDeCapa(
        f"Formato no soportado: «{nombre_archivo}». Use GeoJSON o un shapefile comprimido (.zip)."
    )


def geometria_de_geojson(datos: Any) -> BaseGeometry:
    """Convierte un objeto GeoJSON (geometría, Feature o FeatureCollection) en una geometría."""
    if isinstance(datos, dict) and datos.get("type") == "Feature":
        datos = datos.get("geometry")
    if isinstance(datos, dict) and datos.get("type") == "FeatureCollection":
        geometrias = [geometria_de_geojson(f) for f in datos.get("features") or []]
        if not geometrias:
            raise ErrorDeCapa("La colección no tiene elementos.")
        return shapely.union_all(geometrias)
    if not isinstance(datos, dict) or "type" not in datos:
        raise ErrorDeCapa("No es una geometría GeoJSON (falta «type»).")
    try:
        return shape(datos)
    except (ValueError, TypeError, AttributeError, IndexError, KeyError) as error:
        raise ErrorDeCapa(f"Geometría GeoJSON mal formada: {error}.") from error


def como_geojson(geometria: BaseGeometry, *, decimales: int = 7) -> dict[str, Any]:
    """GeoJSON de la geometría con coordenadas redondeadas (≈1 cm con 7 decimales)."""
    geojson: dict[str, Any] = mapping(shapely.set_precision(geometria, 10.0**-decimales))
    return geojson


def _leer_geojson(contenido: bytes) -> CapaLeida:
    try:
        datos = json.loads(contenido)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ErrorDeCapa(f"El archivo no es JSON válido: {error}.") from error
    if not isinstance(datos, dict):
        raise ErrorDeCapa("El GeoJSON debe ser un objeto.")
    crs_texto = ((datos.get("crs") or {}).get("properties") or {}).get("name") or "OGC:CRS84"
    crs = _crs(crs_texto)
    if datos.get("type") == "FeatureCollection":
        features = datos.get("features") or []
    elif datos.get("type") == "Feature":
        features = [datos]
    else:
        features = [{"type": "Feature", "properties": {}, "geometry": datos}]
    elementos: list[ElementoLeido] = []
    descartados: list[str] = []
    for posicion, feature in enumerate(features, start=1):
        geometria = (feature or {}).get("geometry")
        if not geometria:
            descartados.append(f"elemento {posicion}: sin geometría")
            continue
        try:
            forma = shape(geometria)
        except (ValueError, TypeError, AttributeError, IndexError, KeyError) as error:
            descartados.append(f"elemento {posicion}: geometría mal formada ({error})")
            continue
        elementos.append(ElementoLeido(forma, dict(feature.get("properties") or {})))
    return _a_wgs84(elementos, crs, descartados)


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
    crs = _crs(archivo.read(miembros[".prj"]).decode("latin-1"))
    codificacion = archivo.read(miembros[".cpg"]).decode("ascii").strip() if ".cpg" in miembros else "latin-1"
    try:
        lector = shapefile.Reader(
            shp=io.BytesIO(archivo.read(miembros[".shp"])),
            shx=io.BytesIO(archivo.read(miembros[".shx"])),
            dbf=io.BytesIO(archivo.read(miembros[".dbf"])),
            encoding=codificacion,
            encodingErrors="replace",
        )
        registros = list(lector.iterShapeRecords())
    except (shapefile.ShapefileException, LookupError, ValueError) as error:
        raise ErrorDeCapa(f"No se pudo leer el shapefile: {error}.") from error
    elementos: list[ElementoLeido] = []
    descartados: list[str] = []
    for posicion, registro in enumerate(registros, start=1):
        interfaz = registro.shape.__geo_interface__
        if not interfaz.get("coordinates") and interfaz.get("type") != "GeometryCollection":
            descartados.append(f"registro {posicion}: sin geometría")
            continue
        elementos.append(ElementoLeido(shape(interfaz), dict(registro.record.as_dict())))
    return _a_wgs84(elementos, crs, descartados)


def _crs(texto: str) -> CRS:
    try:
        return CRS.from_user_input(texto)
    except CRSError as error:
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
