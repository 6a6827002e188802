"""Validación de la entrada del motor: o una `Entrada` completa, o todos los problemas a la vez.

El contrato es el JSON del motor (ver `docs/motor_prefactibilidad.md`). Nada se guarda si la
entrada es inválida; el error enumera cada problema con su campo, en castellano.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import shapely
from shapely.geometry.base import BaseGeometry

from config.errores import EntradaNoValida
from proyectos.analisis import componentes as partes
from proyectos.analisis.componentes import Componentes
from proyectos.analisis.ingreso import CANTIDADES_REQUERIDAS, TIPOS, Cantidades, numero_cl, numero_json
from proyectos.geo import CAJA_CHILE, ErrorDeCapa, geometria_de_geojson
from proyectos.models import Comuna, Region
from proyectos.selectors import ErrorDeTerritorio, comuna_resolver, region_resolver

# Circunstancias declarables y la letra del Art. 11 de la Ley 19.300 que cada una configura.
CIRCUNSTANCIAS: dict[str, tuple[str, str]] = {
    "riesgo_salud_poblacion": ("a", "Riesgo para la salud de la población"),
    "efectos_adversos_recursos_naturales": (
        "b",
        "Efectos adversos significativos sobre la cantidad y calidad de los recursos naturales renovables",
    ),
    "reasentamiento_comunidades": ("c", "Reasentamiento de comunidades humanas"),
    "alteracion_sistemas_vida": (
        "c",
        "Alteración significativa de los sistemas de vida y costumbres de grupos humanos",
    ),
    "localizacion_proxima_areas_protegidas": (
        "d",
        "Localización en o próxima a poblaciones, recursos y áreas protegidas, sitios prioritarios para la "
        "conservación, humedales protegidos o glaciares susceptibles de ser afectados",
    ),
    "alteracion_valor_paisajistico_turistico": (
        "e",
        "Alteración significativa del valor paisajístico o turístico de una zona",
    ),
    "intervencion_monumentos": (
        "f",
        "Alteración de monumentos, sitios con valor antropológico, arqueológico, histórico o cultural",
    ),
}

CAMPOS_NUMERICOS = ("capacidad_extraccion_t_mes", "aridos_m3_mes", "aridos_m3_total", "superficie_ha")
CAMPOS = {
    "nombre",
    "region",
    "comuna",
    "tipo",
    "plataformas",
    "geometria",
    "circunstancias",
    "componentes",
    "areas_declaradas",
    *CAMPOS_NUMERICOS,
}
# Áreas en que el proyecto dice estar cuando no hay polígono («el predio está en el parque nacional»): la
# categoría de capa que les corresponde y cómo se nombran. «area_protegida» es un área colocada bajo
# protección oficial sin más precisión.
AREAS_DECLARABLES = {
    "parque_nacional": "un parque nacional",
    "reserva_nacional": "una reserva nacional",
    "monumento_natural": "un monumento natural",
    "santuario_naturaleza": "un santuario de la naturaleza",
    "humedal_ramsar": "un humedal Ramsar",
    "area_protegida": "un área colocada bajo protección oficial",
    "sitio_prioritario": "un sitio prioritario para la conservación",
}
LARGO_NOMBRE_AREA = 200
ETIQUETAS = {
    "capacidad_extraccion_t_mes": "la capacidad de extracción (t/mes)",
    "plataformas": "el número de plataformas",
    "aridos_m3_mes": "la extracción de áridos (m³/mes)",
    "aridos_m3_total": "el volumen total de áridos (m³)",
    "superficie_ha": "la superficie (ha)",
}
# Lo que cabe en las columnas del proyecto: DecimalField(max_digits=14, decimal_places=2) y
# PositiveIntegerField. Más allá no es un proyecto minero sino un error de tipeo.
CANTIDAD_MAXIMA = Decimal("999999999999.99")
PLATAFORMAS_MAXIMAS = 2_147_483_647
# Más allá de ~50 km de cualquier región la geometría no está en Chile (p. ej. lat/lon invertidas).
DISTANCIA_MAXIMA_A_CHILE_GRADOS = 0.5


@dataclass(frozen=True)
class AreaDeclarada:
    """Un área en que el proyecto dice estar: su categoría y, si se dijo, su nombre."""

    categoria: str
    nombre: str = ""

    @property
    def nombrada(self) -> str:
        """«Reserva Nacional Los Flamencos» o, sin nombre, «una reserva nacional»."""
        return self.nombre or AREAS_DECLARABLES[self.categoria]


@dataclass(frozen=True)
class Entrada:
    nombre: str
    region: Region
    comuna: Comuna | None
    tipo: str
    cantidades: Cantidades
    geometria: BaseGeometry | None
    geometria_geojson: dict[str, Any] | None
    circunstancias: tuple[str, ...]
    # Las partes que pueden hacerla ingresar por otras letras del Art. 10 (`componentes.py`).
    componentes: Componentes = field(default_factory=Componentes)
    # Las áreas en que se dice que está, sin polígono (`AREAS_DECLARABLES`).
    areas_declaradas: tuple[AreaDeclarada, ...] = ()

    def como_json(self) -> dict[str, Any]:
        """La entrada normalizada, tal como se evaluó (se congela en el `Analisis`); `componentes` solo
        si se dijo alguno."""
        c = self.cantidades
        componentes = self.componentes.como_json()
        datos: dict[str, Any] = {
            "nombre": self.nombre,
            "region": self.region.nombre,
            "codigo_region": self.region.codigo,
            "comuna": self.comuna.nombre if self.comuna else None,
            "codigo_comuna": self.comuna.codigo if self.comuna else None,
            "tipo": self.tipo,
            "capacidad_extraccion_t_mes": numero_json(c.capacidad_extraccion_t_mes),
            "plataformas": c.plataformas,
            "aridos_m3_mes": numero_json(c.aridos_m3_mes),
            "aridos_m3_total": numero_json(c.aridos_m3_total),
            "superficie_ha": numero_json(c.superficie_ha),
            "geometria": self.geometria_geojson,
            "circunstancias": list(self.circunstancias),
        }
        if componentes:
            datos["componentes"] = componentes
        if self.areas_declaradas:
            datos["areas_declaradas"] = [
                {"categoria": a.categoria, "nombre": a.nombre} for a in self.areas_declaradas
            ]
        return datos


class EntradaInvalida(EntradaNoValida, ValueError):
    """Entrada rechazada; `errores` tiene cada problema como {"campo", "mensaje"}."""

    errores: list[dict[str, str]]

    def __init__(self, errores: list[dict[str, str]]) -> None:
        super().__init__("La entrada no es válida; corrija lo siguiente.", errores=errores)

    def __str__(self) -> str:
        return "; ".join(f"{e['campo']}: {e['mensaje']}" for e in self.errores)


def validar_entrada(datos: Any, *, exigir_cantidades: bool = True) -> Entrada:
    """Devuelve la entrada validada o lanza `EntradaInvalida` con todos los problemas.

    Un proyecto en borrador puede guardarse sin la cantidad que su tipo necesita
    (`exigir_cantidades=False`); analizarlo sí la exige.
    """
    if not isinstance(datos, dict):
        raise EntradaInvalida(
            [{"campo": "entrada", "mensaje": "Se esperaba un objeto JSON con los datos del proyecto."}]
        )
    errores: list[dict[str, str]] = []

    def error(campo: str, mensaje: str) -> None:
        errores.append({"campo": campo, "mensaje": mensaje})

    for desconocido in sorted(set(datos) - CAMPOS):
        error(desconocido, f"Campo desconocido «{desconocido}». Campos válidos: {', '.join(sorted(CAMPOS))}.")

    nombre = datos.get("nombre")
    if not isinstance(nombre, str) or not nombre.strip():
        error("nombre", "Indique el nombre del proyecto.")
    elif len(nombre) > 200:
        error("nombre", "El nombre no puede superar 200 caracteres.")

    region = comuna = None
    try:
        region = region_resolver(texto=_texto(datos.get("region")))
    except ErrorDeTerritorio as e:
        error("region", str(e))
    if datos.get("comuna") not in (None, "") and region is not None:
        try:
            comuna = comuna_resolver(texto=_texto(datos.get("comuna")), region=region)
        except ErrorDeTerritorio as e:
            error("comuna", str(e))

    tipo = datos.get("tipo")
    if tipo not in TIPOS:
        error("tipo", f"Tipo desconocido «{tipo}». Use uno de: {', '.join(TIPOS)}.")

    valores: dict[str, Decimal | None] = {}
    for campo in CAMPOS_NUMERICOS:
        valores[campo] = _cantidad(datos.get(campo), campo, error)
    plataformas = _plataformas(datos.get("plataformas"), error)
    cantidades = Cantidades(plataformas=plataformas, **valores)
    if exigir_cantidades and isinstance(tipo, str) and tipo in CANTIDADES_REQUERIDAS:
        requeridas = CANTIDADES_REQUERIDAS[tipo]
        presentes = {**valores, "plataformas": plataformas}
        if requeridas and all(presentes[c] is None and datos.get(c) is None for c in requeridas):
            faltan = " o ".join(ETIQUETAS[c] for c in requeridas)
            error(
                requeridas[0],
                f"Para el tipo «{tipo}» indique {faltan}: sin ese dato no se puede decidir el ingreso.",
            )

    geometria, geojson = _geometria(datos.get("geometria"), error)
    circunstancias = _circunstancias(datos.get("circunstancias"), error)
    componentes = _componentes(datos.get("componentes"), error)
    areas = _areas_declaradas(datos.get("areas_declaradas"), error)

    if errores or region is None or not isinstance(nombre, str) or not isinstance(tipo, str):
        raise EntradaInvalida(errores)
    return Entrada(
        nombre=nombre.strip(),
        region=region,
        comuna=comuna,
        tipo=tipo,
        cantidades=cantidades,
        geometria=geometria,
        geometria_geojson=geojson,
        circunstancias=circunstancias,
        componentes=componentes,
        areas_declaradas=areas,
    )


def _texto(valor: Any) -> str:
    return str(valor) if isinstance(valor, (str, int)) and not isinstance(valor, bool) else ""


def _cantidad(valor: Any, campo: str, error: Any, *, etiqueta: str = "") -> Decimal | None:
    if valor is None:
        return None
    etiqueta = etiqueta or ETIQUETAS[campo]
    if isinstance(valor, bool) or not isinstance(valor, (int, float)):
        error(campo, f"Indique {etiqueta} como número (recibido: {valor!r}).")
        return None
    if isinstance(valor, float) and not math.isfinite(valor):
        error(campo, f"{etiqueta.capitalize()} debe ser un número finito.")
        return None
    if valor < 0:
        error(campo, f"{etiqueta.capitalize()} no puede ser negativa ({valor}).")
        return None
    if valor > CANTIDAD_MAXIMA:
        error(campo, f"{etiqueta.capitalize()} supera el máximo admitido ({numero_cl(CANTIDAD_MAXIMA)}).")
        return None
    return Decimal(str(valor))


def _plataformas(valor: Any, error: Any) -> int | None:
    if valor is None:
        return None
    if (
        isinstance(valor, bool)
        or not isinstance(valor, (int, float))
        or (isinstance(valor, float) and not math.isfinite(valor))
    ):
        error("plataformas", f"Indique el número de plataformas como entero (recibido: {valor!r}).")
        return None
    if valor > PLATAFORMAS_MAXIMAS:
        error("plataformas", f"El número de plataformas supera el máximo admitido ({PLATAFORMAS_MAXIMAS}).")
        return None
    if valor != int(valor):
        error("plataformas", f"El número de plataformas debe ser entero (recibido: {valor}).")
        return None
    if valor < 0:
        error("plataformas", f"El número de plataformas no puede ser negativo ({int(valor)}).")
        return None
    return int(valor)


def _geometria(valor: Any, error: Any) -> tuple[BaseGeometry | None, dict[str, Any] | None]:
    if valor is None:
        return None, None
    try:
        geometria = geometria_de_geojson(valor)
    except ErrorDeCapa as e:
        error("geometria", str(e))
        return None, None
    if geometria.geom_type not in ("Polygon", "MultiPolygon"):
        error("geometria", f"La geometría debe ser Polygon o MultiPolygon (recibido: {geometria.geom_type}).")
        return None, None
    if geometria.is_empty:
        error("geometria", "La geometría está vacía.")
        return None, None
    minx, miny, maxx, maxy = geometria.bounds
    if not (-180 <= minx <= maxx <= 180 and -90 <= miny <= maxy <= 90):
        error(
            "geometria",
            "Las coordenadas no son longitud/latitud WGS84 (¿UTM?): el polígono va en grados (lon, lat).",
        )
        return None, None
    if not geometria.is_valid:
        error("geometria", _motivo_invalidez(geometria))
        return None, None
    if _lejos_de_chile(geometria):
        error(
            "geometria",
            f"El polígono está fuera de Chile (centro en lon {geometria.centroid.x:.3f}, lat "
            f"{geometria.centroid.y:.3f}); revise que las coordenadas estén en orden (lon, lat).",
        )
        return None, None
    # Ida y vuelta por JSON: listas en vez de tuplas, igual a como queda guardado.
    return geometria, json.loads(json.dumps(shapely.geometry.mapping(geometria)))


def _motivo_invalidez(geometria: BaseGeometry) -> str:
    motivo = shapely.is_valid_reason(geometria)
    if "Self-intersection" in motivo or "Ring Self-intersection" in motivo:
        donde = motivo[motivo.find("[") :] if "[" in motivo else ""
        return f"El polígono se auto-intersecta {donde}: sus bordes se cruzan; corrija el trazado."
    if "Too few points" in motivo:
        return "El polígono tiene muy pocos vértices (se necesitan al menos 3 distintos y cerrar el anillo)."
    if "Hole lies outside shell" in motivo or "Holes are nested" in motivo:
        return "Un hueco del polígono queda fuera de su borde exterior."
    if "Nested shells" in motivo or "Self-intersection" in motivo:
        return "Las partes del MultiPolygon se superponen."
    return f"La geometría no es válida ({motivo})."


_CHILE: BaseGeometry | None = None


def _lejos_de_chile(geometria: BaseGeometry) -> bool:
    """Fuera de la caja de Chile, o a más de ~50 km de toda región si los límites están cargados."""
    global _CHILE
    minx, miny, maxx, maxy = CAJA_CHILE
    if not shapely.intersects(geometria, shapely.box(minx, miny, maxx, maxy)):
        return True
    if _CHILE is None:
        limites = [
            shapely.geometry.shape(r)
            for r in Region.objects.exclude(limite__isnull=True).values_list("limite", flat=True)
        ]
        if not limites:
            return False
        _CHILE = shapely.union_all(limites).simplify(0.01)
        shapely.prepare(_CHILE)
    return bool(shapely.distance(_CHILE, geometria) > DISTANCIA_MAXIMA_A_CHILE_GRADOS)


def _circunstancias(valor: Any, error: Any) -> tuple[str, ...]:
    if valor is None:
        return ()
    if not isinstance(valor, list):
        error("circunstancias", "Indique las circunstancias como una lista.")
        return ()
    desconocidas = [c for c in valor if not isinstance(c, str) or c not in CIRCUNSTANCIAS]
    for c in desconocidas:
        error(
            "circunstancias", f"Circunstancia desconocida «{str(c)[:60]}». Use: {', '.join(CIRCUNSTANCIAS)}."
        )
    return tuple(dict.fromkeys(c for c in valor if isinstance(c, str) and c in CIRCUNSTANCIAS))


def _areas_declaradas(valor: Any, error: Any) -> tuple[AreaDeclarada, ...]:
    """`[{"categoria": "reserva_nacional", "nombre": "Reserva Nacional Los Flamencos"}]` (el nombre es
    opcional; también se acepta solo la categoría como texto)."""
    if valor is None:
        return ()
    if not isinstance(valor, list):
        error(
            "areas_declaradas",
            'Indique las áreas como una lista, p. ej. [{"categoria": "reserva_nacional"}].',
        )
        return ()
    areas: list[AreaDeclarada] = []
    for n, area in enumerate(valor):
        campo = f"areas_declaradas.{n}"
        datos = {"categoria": area} if isinstance(area, str) else area
        if not isinstance(datos, dict) or set(datos) - {"categoria", "nombre"}:
            error(campo, "Cada área lleva «categoria» y, si se quiere, «nombre».")
            continue
        categoria, nombre = datos.get("categoria"), datos.get("nombre") or ""
        if categoria not in AREAS_DECLARABLES:
            error(
                campo, f"Categoría desconocida «{str(categoria)[:60]}». Use: {', '.join(AREAS_DECLARABLES)}."
            )
        elif not isinstance(nombre, str) or len(nombre) > LARGO_NOMBRE_AREA:
            error(campo, f"El nombre del área debe ser un texto de hasta {LARGO_NOMBRE_AREA} caracteres.")
        else:
            areas.append(AreaDeclarada(categoria, " ".join(nombre.split())))
    return tuple(dict.fromkeys(areas))


def validar_componentes(valor: Any) -> Componentes:
    """Las partes de la faena solas (`{"deposito_relaves": true, …}`), validadas como en la entrada del
    motor; lanza `EntradaInvalida` con cada problema."""
    errores: list[dict[str, str]] = []
    componentes = _componentes(
        valor, lambda campo, mensaje: errores.append({"campo": campo, "mensaje": mensaje})
    )
    if errores:
        raise EntradaInvalida(errores)
    return componentes


def _componentes(valor: Any, error: Any) -> Componentes:
    """`{"ducto_minero_km": 30, "obras_en_glaciar": true, …}`: números no negativos y sí/no."""
    if valor is None:
        return Componentes()
    if not isinstance(valor, dict):
        error("componentes", 'Indique los componentes como un objeto, p. ej. {"ducto_minero_km": 30}.')
        return Componentes()
    for desconocido in sorted(set(valor) - set(partes.ETIQUETAS)):
        error(
            f"componentes.{desconocido}",
            f"Componente desconocido «{str(desconocido)[:60]}». Use: {', '.join(partes.ETIQUETAS)}.",
        )
    datos: dict[str, Any] = {}
    for campo, etiqueta in partes.ETIQUETAS.items():
        dato = valor.get(campo)
        if dato is None:
            continue
        if campo in partes.CAMPOS_SI_NO:
            if not isinstance(dato, bool):
                error(f"componentes.{campo}", f"Indique {etiqueta} con true o false (recibido: {dato!r}).")
            else:
                datos[campo] = dato
            continue
        datos[campo] = _cantidad(dato, f"componentes.{campo}", error, etiqueta=etiqueta)
    return Componentes(**datos)
