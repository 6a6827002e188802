"""Índice espacial de los elementos sensibles y medición de intersección y distancia en metros.

Las geometrías viven en WGS84 (grados). El índice (STRtree de shapely) se construye una vez por
proceso y se reconstruye solo si cambian las capas. Para medir, el proyecto y los candidatos se
proyectan a una Lambert azimutal equivalente centrada en el proyecto: áreas exactas y distancias con
error despreciable a las decenas de kilómetros que importan aquí.
"""

from __future__ import annotations

import functools
import math
import threading
from dataclasses import dataclass
from typing import Any

import numpy as np
import shapely
from django.db.models import Count, Max
from pyproj import CRS, Transformer
from shapely.geometry import shape
from shapely.geometry.base import BaseGeometry

from proyectos.models import CapaGeografica, Comuna, ElementoSensible, Region

METROS_POR_GRADO = 111_320.0


@dataclass(frozen=True)
class ElementoIndexado:
    id: int
    nombre: str
    identificador: str
    capa_id: int
    categoria_id: int
    geometria: BaseGeometry


@dataclass(frozen=True)
class Cercania:
    elemento: ElementoIndexado
    distancia_m: float
    interseccion_ha: float


@dataclass(frozen=True)
class Territorio:
    codigo: str
    nombre: str
    geometria: BaseGeometry


class IndiceEspacial:
    """Elementos sensibles y límites territoriales indexados por su caja envolvente."""

    def __init__(
        self, elementos: list[ElementoIndexado], regiones: list[Territorio], comunas: list[Territorio]
    ) -> None:
        self.elementos = elementos
        self.arbol = shapely.STRtree([e.geometria for e in elementos])
        self.regiones = regiones
        self.arbol_regiones = shapely.STRtree([r.geometria for r in regiones])
        self.comunas = comunas
        self.arbol_comunas = shapely.STRtree([c.geometria for c in comunas])
        for elemento in elementos:
            shapely.prepare(elemento.geometria)

    def cercanos(self, geometria: BaseGeometry, *, radio_m: float) -> list[Cercania]:
        """Elementos que intersectan la geometría o están a `radio_m` metros o menos."""
        if not self.elementos:
            return []
        sobre = _caja_ampliada(geometria, radio_m)
        candidatos = self.arbol.query(sobre, predicate="intersects")
        if len(candidatos) == 0:
            return []
        local = _proyeccion_local(geometria)
        proyecto_m = _transformar(geometria, local)
        resultado = []
        for posicion in candidatos.tolist():
            elemento = self.elementos[posicion]
            if elemento.geometria.intersects(geometria):
                # La intersección cabe en la caja del elemento: recortar antes el proyecto a esa caja da
                # el mismo resultado y evita que GEOS recorra todos los vértices de un polígono grande
                # por cada elemento (1 400 elementos × 6 000 vértices: 2,1 s → ver docs/rendimiento.md).
                recorte_proyecto = shapely.clip_by_rect(geometria, *elemento.geometria.bounds)
                interseccion = _transformar(shapely.intersection(elemento.geometria, recorte_proyecto), local)
                resultado.append(Cercania(elemento, 0.0, interseccion.area / 10_000))
                continue
            # Solo la parte del elemento dentro de la caja ampliada importa para la distancia.
            recorte = shapely.clip_by_rect(elemento.geometria, *sobre.bounds)
            if recorte.is_empty:
                continue
            distancia = shapely.distance(_transformar(recorte, local), proyecto_m)
            if distancia <= radio_m:
                resultado.append(Cercania(elemento, float(distancia), 0.0))
        return sorted(resultado, key=lambda c: c.distancia_m)

    def regiones_de(self, geometria: BaseGeometry) -> list[Territorio]:
        """Regiones que la geometría toca, de mayor a menor superficie compartida (o la más cercana,
        para un polígono costero que cae fuera de los límites simplificados)."""
        if not self.regiones:
            return []
        candidatas = [
            self.regiones[i] for i in self.arbol_regiones.query(geometria, predicate="intersects").tolist()
        ]
        ordenadas = _por_superficie(candidatas, geometria)
        if ordenadas:
            return ordenadas
        return [self.regiones[i] for i in self.arbol_regiones.query_nearest(geometria).tolist()[:1]]

    def comuna_de(self, geometria: BaseGeometry) -> Territorio | None:
        """Comuna que contiene la mayor parte de la geometría (sugerencia para el formulario)."""
        candidatos = [
            self.comunas[i] for i in self.arbol_comunas.query(geometria, predicate="intersects").tolist()
        ]
        ordenadas = _por_superficie(candidatos, geometria)
        return ordenadas[0] if ordenadas else None


_INDICE: tuple[tuple[Any, ...], IndiceEspacial] | None = None
_CANDADO = threading.Lock()


def indice_actual() -> IndiceEspacial:
    """Índice de las capas activas; se reconstruye solo cuando cambian capas o elementos."""
    global _INDICE
    clave = _version_de_capas()
    with _CANDADO:
        if _INDICE is None or _INDICE[0] != clave:
            _INDICE = (clave, indice_construir())
        return _INDICE[1]


def indice_construir(extra: list[ElementoIndexado] | None = None) -> IndiceEspacial:
    """Lee de la base los elementos de capas activas y los límites territoriales."""
    elementos = [
        ElementoIndexado(
            e["id"], e["nombre"], e["identificador"], e["capa_id"], e["categoria_id"], shape(e["geometria"])
        )
        for e in ElementoSensible.objects.filter(capa__activa=True).values(
            "id", "nombre", "identificador", "capa_id", "categoria_id", "geometria"
        )
    ]
    regiones = [
        Territorio(r.codigo, r.nombre, shape(r.limite))
        for r in Region.objects.defer(None).exclude(limite__isnull=True)
    ]
    comunas = [
        Territorio(c.codigo, c.nombre, shape(c.limite))
        for c in Comuna.objects.defer(None).exclude(limite__isnull=True)
    ]
    return IndiceEspacial(elementos + (extra or []), regiones, comunas)


def _version_de_capas() -> tuple[Any, ...]:
    capas = CapaGeografica.objects.aggregate(n=Count("id"), ultima=Max("actualizada_at"))
    elementos = ElementoSensible.objects.aggregate(n=Count("id"), ultimo=Max("id"))
    return (
        capas["n"],
        capas["ultima"],
        elementos["n"],
        elementos["ultimo"],
        Region.objects.filter(limite__isnull=False).count(),
    )


def _caja_ampliada(geometria: BaseGeometry, radio_m: float) -> BaseGeometry:
    minx, miny, maxx, maxy = geometria.bounds
    latitud = max(abs(miny), abs(maxy))
    dlat = radio_m / METROS_POR_GRADO
    dlon = radio_m / (METROS_POR_GRADO * max(math.cos(math.radians(latitud)), 0.1))
    return shapely.box(minx - dlon, miny - dlat, maxx + dlon, maxy + dlat)


def _proyeccion_local(geometria: BaseGeometry) -> Transformer:
    # Centro redondeado a 0,1° (~11 km): la proyección se reutiliza y el error de escala a esa
    # distancia del centro es de millonésimas.
    centro = geometria.centroid
    return _transformador(round(centro.y, 1), round(centro.x, 1))


@functools.lru_cache(maxsize=512)
def _transformador(latitud: float, longitud: float) -> Transformer:
    crs = CRS.from_proj4(f"+proj=laea +lat_0={latitud} +lon_0={longitud} +datum=WGS84 +units=m")
    return Transformer.from_crs(CRS.from_epsg(4326), crs, always_xy=True)


def _transformar(geometria: BaseGeometry, transformador: Transformer) -> BaseGeometry:
    def proyectar(coordenadas: np.ndarray) -> np.ndarray:
        x, y = transformador.transform(coordenadas[:, 0], coordenadas[:, 1])
        return np.column_stack([x, y])

    return shapely.transform(geometria, proyectar)


def _por_superficie(territorios: list[Territorio], geometria: BaseGeometry) -> list[Territorio]:
    pares = [(shapely.intersection(t.geometria, geometria).area, t) for t in territorios]
    return [t for area, t in sorted(pares, key=lambda par: par[0], reverse=True) if area > 0]
