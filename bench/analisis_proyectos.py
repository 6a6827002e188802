"""Latencia del motor de prefactibilidad (p50/p95) con polígonos de 1 000 ha contra todas las capas
incluidas, y contra 10 veces sus elementos (copias desplazadas, solo en memoria).

Los polígonos caen un tercio sobre elementos reales (intersección), un tercio cerca de ellos (a
pocos kilómetros: distancias y alertas) y un tercio al azar dentro de Chile continental. Se mide la
llamada completa del contrato: validar la entrada, consultar el índice, medir en metros y resolver
el fundamento en el corpus. Como contraste se mide una pasada sin índice (todas las geometrías).
"""

from __future__ import annotations

import math
import random
import statistics
import time
from collections.abc import Callable, Mapping
from typing import Any

import shapely
from shapely.affinity import translate
from shapely.geometry import mapping

from proyectos.analisis.entrada import validar_entrada
from proyectos.analisis.espacial import ElementoIndexado, IndiceEspacial, indice_actual, indice_construir
from proyectos.analisis.motor import evaluar_entrada
from proyectos.capas import capas_cargar
from proyectos.models import Region

MUESTRAS = 300
HECTAREAS = 1000
SEMILLA = 20261122


def ejecutar() -> None:
    capas_cargar()
    inicio = time.perf_counter()
    indice = indice_construir()
    print(f"Índice en frío: {time.perf_counter() - inicio:.2f} s para {len(indice.elementos)} elementos")
    azar = random.Random(SEMILLA)
    entradas = [_entrada(poligono, region) for poligono, region in _poligonos(indice, azar)]
    evaluar_entrada(entradas[0], indice=indice)  # calienta cachés de Django y PROJ

    print(f"\n{'escenario':<44} {'elementos':>9} {'p50 ms':>8} {'p95 ms':>8} {'máx ms':>8} {'efectos':>8}")
    # Camino real de la API: índice del proceso, verificando en la base que las capas no cambiaron.
    indice_actual()
    _fila("capas incluidas (STRtree, camino de la API)", indice, entradas, lambda e: evaluar_entrada(e))
    inicio = time.perf_counter()
    diez_veces = _multiplicar(indice, azar, veces=10)
    construccion = time.perf_counter() - inicio
    _fila("10× elementos sintéticos (STRtree)", diez_veces, entradas)
    print(f"(índice de 10×: {construccion:.1f} s en construirse)")
    _sin_indice(indice, entradas[:30])
    _sin_indice(diez_veces, entradas[:30])


def _fila(
    nombre: str,
    indice: IndiceEspacial,
    entradas: list[Any],
    funcion: Callable[[Any], Mapping[str, Any]] | None = None,
) -> None:
    tiempos, efectos = _medir(funcion or (lambda e: evaluar_entrada(e, indice=indice)), entradas)
    print(
        f"{nombre:<44} {len(indice.elementos):>9} {_p(tiempos, 50):>8.1f} {_p(tiempos, 95):>8.1f} "
        f"{max(tiempos):>8.1f} {efectos:>8}"
    )


def _medir(funcion: Callable[[Any], Mapping[str, Any]], entradas: list[Any]) -> tuple[list[float], int]:
    tiempos: list[float] = []
    efectos = 0
    for entrada in entradas:
        inicio = time.perf_counter()
        resultado = funcion(entrada)
        tiempos.append((time.perf_counter() - inicio) * 1000)
        efectos += len(resultado["triggers"])
    return tiempos, efectos


def _sin_indice(indice: IndiceEspacial, entradas: list[Any]) -> None:
    """Contraste: distancia a cada geometría, sin prefiltro (lo que el índice evita)."""
    tiempos = []
    for entrada in entradas:
        inicio = time.perf_counter()
        for elemento in indice.elementos:
            shapely.distance(elemento.geometria, entrada.geometria)
        tiempos.append((time.perf_counter() - inicio) * 1000)
    nombre = "sin índice (solo distancias en grados)"
    print(f"{nombre:<44} {len(indice.elementos):>9} {_p(tiempos, 50):>8.1f} {_p(tiempos, 95):>8.1f}")


def _poligonos(indice: IndiceEspacial, azar: random.Random) -> list[tuple[shapely.Polygon, str]]:
    regiones = {
        r.codigo: shapely.geometry.shape(r.limite)
        for r in Region.objects.defer(None).exclude(limite__isnull=True)
    }
    continentales = [c for c in regiones if c not in ("11", "12")]
    resultado = []
    for n in range(MUESTRAS):
        if n % 3 == 2:
            codigo = azar.choice(continentales)
            minx, miny, maxx, maxy = regiones[codigo].bounds
            while True:
                punto = shapely.Point(azar.uniform(minx, maxx), azar.uniform(miny, maxy))
                if regiones[codigo].contains(punto):
                    break
        else:
            elemento = azar.choice(indice.elementos)
            punto = elemento.geometria.representative_point()
            if n % 3 == 1:
                punto = shapely.Point(
                    punto.x + azar.uniform(-0.05, 0.05), punto.y + azar.uniform(-0.05, 0.05)
                )
        poligono = _cuadrado_de_hectareas(punto, HECTAREAS)
        region = next((c for c, g in regiones.items() if g.intersects(poligono)), "02")
        resultado.append((poligono, region))
    return resultado


def _cuadrado_de_hectareas(centro: shapely.Point, hectareas: float) -> shapely.Polygon:
    lado_m = math.sqrt(hectareas * 10_000)
    dlat = lado_m / 111_320 / 2
    dlon = lado_m / (111_320 * math.cos(math.radians(centro.y))) / 2
    return shapely.box(centro.x - dlon, centro.y - dlat, centro.x + dlon, centro.y + dlat)


def _entrada(poligono: shapely.Polygon, region: str) -> Any:
    return validar_entrada(
        {
            "nombre": "Bench",
            "region": region,
            "tipo": "explotacion",
            "capacidad_extraccion_t_mes": 8000,
            "geometria": mapping(poligono),
        }
    )


def _multiplicar(indice: IndiceEspacial, azar: random.Random, *, veces: int) -> IndiceEspacial:
    copias = list(indice.elementos)
    for n in range(veces - 1):
        for e in indice.elementos:
            desplazada = translate(e.geometria, azar.uniform(-0.3, 0.3), azar.uniform(-0.3, 0.3))
            copias.append(
                ElementoIndexado(
                    -(n * 100_000 + e.id), e.nombre, e.identificador, e.capa_id, e.categoria_id, desplazada
                )
            )
    return IndiceEspacial(copias, indice.regiones, indice.comunas)


def _p(valores: list[float], percentil: int) -> float:
    return statistics.quantiles(valores, n=100)[percentil - 1] if len(valores) > 1 else valores[0]
