"""Lecturas de proyectos: proyectos y clientes visibles para cada usuario, y reconocer regiones y
comunas como las escribe un usuario.

«Antofagasta», «Región de Antofagasta», «region de antofagasta», «II», «2»; «O'Higgins»,
«Libertador General Bernardo O'Higgins»; «RM», «Metropolitana»; «Ñuble» o «Nuble». Una comuna se
acepta con o sin tildes y debe pertenecer a la región indicada.
"""

from __future__ import annotations

import re
import unicodedata
from decimal import Decimal
from typing import Any

from django.db.models import OuterRef, QuerySet, Subquery
from rapidfuzz import process
from shapely.geometry import mapping, shape

from config.errores import EntradaNoValida
from config.texto import normalizar
from proyectos.models import Analisis, Cliente, Comuna, ElementoSensible, Proyecto, Region
from proyectos.roles import Usuario

_ROMANOS = {
    "i": 1, "ii": 2, "iii": 3, "iv": 4, "v": 5, "vi": 6, "vii": 7, "viii": 8, "ix": 9, "x": 10,
    "xi": 11, "xii": 12, "xiii": 13, "xiv": 14, "xv": 15, "xvi": 16,
}  # fmt: skip
# Formas habituales de nombrar una región, además del nombre oficial completo. En un texto libre solo
# se buscan estas y los nombres completos: la última palabra de un nombre oficial no sirve («chilena»
# de Magallanes y de la Antártica Chilena, «campo» de Aysén del General Carlos Ibáñez del Campo).
_ALIAS_REGIONES = {
    "rm": "13",
    "santiago": "13",
    "region metropolitana": "13",
    "metropolitana": "13",
    "arica": "15",
    "parinacota": "15",
    "aysen": "11",
    "aisen": "11",
    "ohiggins": "06",
    "o higgins": "06",
    "araucania": "09",
    "magallanes": "12",
    "los rios": "14",
    "los lagos": "10",
    "nuble": "16",
    "bio bio": "08",
}
# «Quinta Región», «III Región», «Región V»: la numeración con que todavía se las nombra (la de sus códigos).
_ORDINALES = {
    "primera": 1, "segunda": 2, "tercera": 3, "cuarta": 4, "quinta": 5, "sexta": 6, "septima": 7,
    "setima": 7, "octava": 8, "novena": 9, "decima": 10, "undecima": 11, "decimoprimera": 11,
    "duodecima": 12, "decimosegunda": 12, "decimotercera": 13, "decimocuarta": 14, "decimoquinta": 15,
    "decimosexta": 16,
}  # fmt: skip
# («región i.1» no es una región: es un literal del Art. 3)
_REGION_NUMERADA = re.compile(
    rf"\b(?:({'|'.join(_ORDINALES)}|[ivx]{{1,4}})\s+region\b|\bregion\s+([ivx]{{1,4}})\b(?!\s*\d))"
)
_claves_de_regiones: list[tuple[str, str]] = []  # (clave normalizada, nombre oficial); ver abajo
_PREFIJO_REGION = re.compile(r"^(?:(?:[ivx]+|\d{1,2})\s*(?:a\s+)?)?region\s+(?:de\s+la\s+|del\s+|de\s+)?")


class ErrorDeTerritorio(EntradaNoValida, ValueError):
    """Región o comuna no reconocida; el mensaje en español dice qué se esperaba."""


def region_resolver(*, texto: str | int) -> Region:
    """Devuelve la región por nombre (con o sin tildes ni «Región de»), número 1–16 o romano."""
    regiones = list(Region.objects.all())
    codigo = _codigo_region(str(texto), regiones)
    if codigo is None:
        raise ErrorDeTerritorio(_mensaje_region_desconocida(str(texto), regiones))
    return next(r for r in regiones if r.codigo == codigo)


def region_mencionada(*, texto: str) -> str | None:
    """Nombre oficial de la región que nombra un texto libre («un rajo en Antofagasta…»), o ninguno.

    Las claves (nombre oficial completo y los alias) se leen de la base una vez por
    proceso: las regiones de Chile no cambian, y el asistente lo pregunta en cada mensaje.
    """
    normal = normalizar(texto)
    for clave, oficial in _claves_region():
        if re.search(rf"\b{re.escape(clave)}\b", normal):
            return oficial
    for m in _REGION_NUMERADA.finditer(normal):
        numero = m.group(1) or m.group(2)
        codigo = _ORDINALES.get(numero) or _ROMANOS.get(numero)
        if codigo:
            return str(Region.objects.get(codigo=f"{codigo:02d}").nombre)
    return None


def comuna_mencionada(*, texto: str) -> Comuna | None:
    """La comuna que nombra un texto libre («una cantera en Quillota», «el río Copiapó»), o ninguna.

    Solo cuenta el nombre escrito con mayúscula inicial: varias comunas son palabras comunes
    («Colina», «Calera», «Independencia») y en minúscula no nombran un lugar. Si el nombre es de más
    de una comuna, no se elige ninguna.
    """
    candidatas: dict[str, list[Comuna]] = {}
    plano = _sin_marcas(texto)
    for comuna in _comunas():
        if re.search(rf"(?<!\w){re.escape(_sin_marcas(comuna.nombre))}(?!\w)", plano):
            candidatas.setdefault(normalizar(comuna.nombre), []).append(comuna)
    if not candidatas:
        return None
    # La más larga gana («Alto del Carmen» antes que «Carmen»); un nombre repetido no decide.
    nombre = max(candidatas, key=len)
    return candidatas[nombre][0] if len(candidatas[nombre]) == 1 else None


def comuna_resolver(*, texto: str, region: Region | None = None) -> Comuna:
    """Devuelve la comuna por nombre (con o sin tildes); si se indica región, debe pertenecer a ella."""
    buscada = _compacto(texto)
    if not buscada:
        raise ErrorDeTerritorio("Indique la comuna.")
    comunas = list(Comuna.objects.select_related("region"))
    coincidencias = [c for c in comunas if _compacto(c.nombre) == buscada]
    if region is not None:
        propias = [c for c in coincidencias if c.region_id == region.codigo]
        if propias:
            return propias[0]
        if coincidencias:
            otra = coincidencias[0]
            raise ErrorDeTerritorio(
                f"La comuna {otra.nombre} pertenece a la {otra.region}, no a la {region}."
            )
        comunas = [c for c in comunas if c.region_id == region.codigo]
    elif len(coincidencias) == 1:
        return coincidencias[0]
    sugerencias = process.extract(
        buscada, {c.codigo: _compacto(c.nombre) for c in comunas}, limit=3, score_cutoff=70
    )
    nombres = [next(c.nombre for c in comunas if c.codigo == codigo) for _, _, codigo in sugerencias]
    donde = f" en la {region}" if region is not None else ""
    sugerencia = f" ¿Quiso decir {', '.join(nombres)}?" if nombres else ""
    raise ErrorDeTerritorio(f"Comuna desconocida{donde}: «{texto}».{sugerencia}")


# --- internos ---------------------------------------------------------------------------------

_comunas_en_memoria: list[Comuna] = []


def _comunas() -> list[Comuna]:
    """Las comunas con su región, leídas una vez por proceso (la división política no cambia)."""
    if not _comunas_en_memoria:
        _comunas_en_memoria[:] = list(Comuna.objects.select_related("region"))
    return _comunas_en_memoria


def _sin_marcas(texto: str) -> str:
    """Sin tildes ni diéresis pero con sus mayúsculas («Copiapó» → «Copiapo»)."""
    return "".join(c for c in unicodedata.normalize("NFD", texto) if unicodedata.category(c) != "Mn")


def _claves_region() -> list[tuple[str, str]]:
    if not _claves_de_regiones:
        regiones = dict(Region.objects.values_list("codigo", "nombre"))
        claves = [(normalizar(nombre), nombre) for nombre in regiones.values()]
        claves += [
            (alias, regiones[codigo]) for alias, codigo in _ALIAS_REGIONES.items() if codigo in regiones
        ]
        _claves_de_regiones[:] = sorted(claves, key=lambda c: -len(c[0]))  # la más larga gana
    return _claves_de_regiones


def _compacto(texto: str) -> str:
    """Forma de comparación: normalizada y sin espacios («Bío Bío» = «Biobío»)."""
    return normalizar(texto).replace(" ", "")


def _codigo_region(texto: str, regiones: list[Region]) -> str | None:
    normal = normalizar(texto)
    if re.fullmatch(r"[0-9]{1,2}", normal) and 1 <= int(normal) <= 16:
        return f"{int(normal):02d}"
    sin_prefijo = _PREFIJO_REGION.sub("", normal).strip() or normal
    romano = re.fullmatch(r"(?:region\s+)?([ivx]+)(?:\s+region)?", normal)
    if romano and romano.group(1) in _ROMANOS:
        return f"{_ROMANOS[romano.group(1)]:02d}"
    for forma in (normal, sin_prefijo):
        if forma in _ALIAS_REGIONES or forma.replace(" ", "") in _ALIAS_REGIONES:
            return _ALIAS_REGIONES.get(forma) or _ALIAS_REGIONES[forma.replace(" ", "")]
    compacto = sin_prefijo.replace(" ", "")
    exactas = [r.codigo for r in regiones if _compacto(r.nombre) == compacto]
    if exactas:
        return exactas[0]
    # «Magallanes», «Aysén», «Arica», «O'Higgins», «Araucanía»: parte inequívoca del nombre oficial.
    parciales = [r.codigo for r in regiones if f" {sin_prefijo} " in f" {normalizar(r.nombre)} "]
    return parciales[0] if len(parciales) == 1 else None


def _mensaje_region_desconocida(texto: str, regiones: list[Region]) -> str:
    nombres = {r.codigo: normalizar(r.nombre) for r in regiones}
    parecida = process.extractOne(normalizar(texto), nombres, score_cutoff=70)
    sugerencia = (
        f" ¿Quiso decir {next(r.nombre for r in regiones if r.codigo == parecida[2])}?" if parecida else ""
    )
    opciones = ", ".join(f"{r.nombre} ({r.numero})" for r in regiones)
    return (
        f"Región desconocida: «{texto}».{sugerencia} Use el nombre (con o sin tildes ni «Región de») "
        f"o el número 1–16: {opciones}."
    )


def clientes_visibles(*, usuario: Usuario) -> QuerySet[Cliente]:
    """Clientes del usuario; el personal ve todos."""
    if getattr(usuario, "is_staff", False):
        return Cliente.objects.all()
    if not usuario.is_authenticated:
        return Cliente.objects.none()
    return Cliente.objects.filter(usuarios__pk=usuario.pk)


def proyectos_visibles(
    *, usuario: Usuario, estado: str = "", region: str = "", cliente: int | None = None
) -> QuerySet[Proyecto]:
    """Proyectos de los clientes del usuario (todos para el personal), con filtros opcionales."""
    proyectos = Proyecto.objects.select_related("cliente", "region", "comuna").defer(
        "region__limite", "comuna__limite"
    )
    if not getattr(usuario, "is_staff", False):
        proyectos = proyectos.filter(cliente__in=clientes_visibles(usuario=usuario))
    if estado:
        proyectos = proyectos.filter(estado=estado)
    if region:
        proyectos = proyectos.filter(region__codigo=region)
    if cliente:
        proyectos = proyectos.filter(cliente_id=cliente)
    return proyectos.annotate(ultima_clasificacion=_ultima_clasificacion())


def proyecto_visible(*, usuario: Usuario, pk: int) -> Proyecto:
    """El proyecto si el usuario puede verlo; si no, `Proyecto.DoesNotExist` (como si no existiera)."""
    return proyectos_visibles(usuario=usuario).get(pk=pk)


def proyectos_parecidos(*, usuario: Usuario, nombre: str, limite: int = 3) -> list[str]:
    """Nombres de proyectos del usuario parecidos a `nombre` (para sugerir ante un error de tipeo)."""
    nombres = list(proyectos_visibles(usuario=usuario).values_list("nombre", flat=True))
    parecidos = process.extract(
        normalizar(nombre), {n: normalizar(n) for n in nombres}, limit=limite, score_cutoff=60
    )
    return [clave for _, _, clave in parecidos]


def analisis_visible(*, usuario: Usuario, pk: int) -> Analisis:
    """El análisis si el usuario puede ver su proyecto; si no, `Analisis.DoesNotExist`."""
    return Analisis.objects.select_related("proyecto").get(
        pk=pk, proyecto__in=proyectos_visibles(usuario=usuario)
    )


def proyecto_como_entrada(proyecto: Proyecto) -> dict[str, Any]:
    """Los datos del proyecto en el contrato de entrada del motor."""
    return {
        "nombre": proyecto.nombre,
        "region": proyecto.region.codigo,
        "comuna": proyecto.comuna.nombre if proyecto.comuna else None,
        "tipo": proyecto.tipo,
        "capacidad_extraccion_t_mes": _float(proyecto.capacidad_extraccion_t_mes),
        "plataformas": proyecto.plataformas,
        "aridos_m3_mes": _float(proyecto.aridos_m3_mes),
        "aridos_m3_total": _float(proyecto.aridos_m3_total),
        "superficie_ha": _float(proyecto.superficie_ha),
        "geometria": proyecto.geometria,
        "circunstancias": list(proyecto.circunstancias or []),
        "componentes": dict(proyecto.componentes or {}),
        "areas_declaradas": list(proyecto.areas_declaradas or []),
    }


def _ultima_clasificacion() -> Subquery:
    return Subquery(
        Analisis.objects.filter(proyecto=OuterRef("pk")).order_by("-fecha").values("clasificacion")[:1]
    )


def _float(valor: Decimal | None) -> float | None:
    return float(valor) if valor is not None else None


def elementos_en_caja(
    *, min_lon: float, min_lat: float, max_lon: float, max_lat: float, limite: int = 400
) -> list[dict[str, Any]]:
    """Elementos sensibles cuya caja toca la indicada (prefiltro en SQL), simplificados para el mapa."""
    elementos = (
        ElementoSensible.objects.filter(
            capa__activa=True,
            min_lon__lte=max_lon,
            max_lon__gte=min_lon,
            min_lat__lte=max_lat,
            max_lat__gte=min_lat,
        )
        .select_related("categoria", "capa")
        .order_by("-max_lat")[:limite]
    )
    tolerancia = max(max_lon - min_lon, max_lat - min_lat) / 2000
    return [_elemento_geojson(e, tolerancia) for e in elementos]


def elementos_por_id(ids: list[int]) -> list[dict[str, Any]]:
    """Elementos citados como evidencia, con su geometría (para el mapa del informe)."""
    elementos = ElementoSensible.objects.filter(pk__in=ids).select_related("categoria", "capa")
    return [_elemento_geojson(e, 0.0002) for e in elementos]


def _elemento_geojson(elemento: ElementoSensible, tolerancia: float) -> dict[str, Any]:
    geometria = shape(elemento.geometria).simplify(tolerancia, preserve_topology=True)
    return {
        "type": "Feature",
        "id": elemento.pk,
        "properties": {
            "nombre": elemento.nombre,
            "categoria": elemento.categoria.codigo,
            "categoria_nombre": elemento.categoria.nombre,
            "capa": elemento.capa.nombre,
        },
        "geometry": mapping(geometria),
    }
