"""e-SEIA: búsqueda de proyectos presentados al SEIA (POST `buscarProyectoResumenAction.php`).

- El formulario es el de `buscarProyectoResumen.php`: `nombre`, `titular`, `selectRegion[]` (código),
  `tipoPresentacion` (DIA, EIA o Ambos), `PresentacionMin`/`PresentacionMax` (dd/mm/aaaa), más
  `offset` y `limit` de DataTables.
- El cuerpo viene en ISO-8859-1 aunque diga JSON.
- El significado de `offset` no es seguro (en las capturas, offset=1 y 2 dan páginas distintas de 10):
  se pide por número de página, se deduplica por `EXPEDIENTE_ID`, se para al llegar a `recordsTotal`,
  cuando una página no trae nada nuevo o al máximo de páginas. Nunca un bucle sin fin.
"""

from __future__ import annotations

import json
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from typing import Any
from zoneinfo import ZoneInfo

from django.conf import settings
from django.db.models import Case, IntegerField, QuerySet, Value, When

from config.http import ErrorHttp, solicitar
from fuentes_externas import cache as cache_fuentes
from fuentes_externas.models import ProyectoESEIA
from proyectos.models import Proyecto

RUTA = "/busqueda/buscarProyectoResumenAction.php"
POR_PAGINA = 50
MAXIMO_PAGINAS = 10
# Códigos de región del formulario del e-SEIA.
REGIONES = {
    "Arica y Parinacota": "15", "Tarapacá": "1", "Antofagasta": "2", "Atacama": "3", "Coquimbo": "4",
    "Valparaíso": "5", "Metropolitana": "13", "O'Higgins": "6", "Maule": "7", "Ñuble": "16", "Biobío": "8",
    "La Araucanía": "9", "Los Ríos": "2420135", "Los Lagos": "10", "Aysén": "11", "Magallanes": "12",
    "Interregional": "14",
}  # fmt: skip
# Tipologías de minería (letra i del Art. 3, en DS 95, DS 40 y DS 17) del formulario del e-SEIA.
TIPOLOGIAS_MINERAS = [
    "138", "700", "2167549386", "139", "701", "2167549387", "702", "2167549388", "703", "2167549389",
    "142", "143-704-2167549390",
]  # fmt: skip


def proyectos_buscar(
    *,
    nombre: str = "",
    region: str = "",
    tipo: str = "",
    anio: int | None = None,
    tipologia: str = "",
) -> cache_fuentes.Consulta[list[dict[str, Any]]]:
    """Proyectos del e-SEIA que cumplen los filtros (caché de 24 h; respaldo vencido si no responde).
    Los encontrados se guardan en `ProyectoESEIA`. La tipología «i» (minería) se filtra en el e-SEIA;
    una más fina (p. ej. «i1»), además, aquí."""
    formulario: dict[str, str | list[str]] = {"nombre": nombre, "tipoPresentacion": tipo.upper() or "Ambos"}
    if region:
        formulario["selectRegion[]"] = _codigo_region(region)
    if tipologia.lower().startswith("i"):
        formulario["id_tipoexpediente[]"] = TIPOLOGIAS_MINERAS
    if anio:
        formulario |= {"PresentacionMin": f"01/01/{anio}", "PresentacionMax": f"31/12/{anio}"}
    consulta = cache_fuentes.consultar(
        fuente="eseia",
        clave=json.dumps(formulario, sort_keys=True),
        obtener=lambda: [_fila(d) for d in _paginas(formulario)],
    )
    filas = [
        f
        for f in consulta.datos
        if (not tipologia or f["tipologia"].lower().startswith(tipologia.lower().replace(".", "")))
        and (not anio or (f["fecha_presentacion"] or "").startswith(str(anio)))
    ]
    if not consulta.desde_cache:
        guardar(filas=consulta.datos)
    return cache_fuentes.Consulta(filas, consulta.desde_cache, consulta.guardado_at, consulta.advertencia)


def guardar(*, filas: list[dict[str, Any]]) -> int:
    for fila in filas:
        ProyectoESEIA.objects.update_or_create(
            expediente_id=fila["expediente_id"],
            defaults={k: v for k, v in fila.items() if k != "expediente_id"},
        )
    return len(filas)


def proyectos_similares(*, region: str, limite: int = 5) -> QuerySet[ProyectoESEIA]:
    """Proyectos mineros (tipología i) de la misma región, primero los aprobados y los más recientes."""
    return (
        ProyectoESEIA.objects.filter(region__icontains=region, tipologia__istartswith="i")
        .annotate(
            aprobado=Case(
                When(estado__icontains="aprobado", then=Value(0)),
                default=Value(1),
                output_field=IntegerField(),
            )
        )
        .order_by("aprobado", "-fecha_presentacion")[:limite]
    )


def similares_del_proyecto(proyecto: Proyecto) -> list[dict[str, Any]]:
    """Cómo ingresaron al SEIA proyectos mineros de la región del proyecto (referencia, no fundamento)."""
    return [similar_json(p) for p in proyectos_similares(region=proyecto.region.nombre)]


def similar_json(p: ProyectoESEIA) -> dict[str, Any]:
    return {
        "nombre": p.nombre,
        "tipo_ingreso": p.tipo_ingreso,
        "tipologia": p.tipologia,
        "estado": p.estado,
        "fecha_presentacion": p.fecha_presentacion.isoformat() if p.fecha_presentacion else None,
        "url": p.url_expediente,
    }


def _paginas(formulario: dict[str, str | list[str]]) -> list[dict[str, Any]]:
    vistos: dict[str, dict[str, Any]] = {}
    total: int | None = None
    for pagina in range(1, MAXIMO_PAGINAS + 1):
        respuesta = solicitar(
            url=f"{settings.ESEIA_URL}{RUTA}",
            metodo="POST",
            formulario={**formulario, "offset": str(pagina), "limit": str(POR_PAGINA)},
        )
        datos = respuesta.json(codificacion="iso-8859-1")
        if not isinstance(datos, dict) or not isinstance(datos.get("data"), list):
            raise ErrorHttp("El e-SEIA respondió un formato inesperado.", permanente=False, url=respuesta.url)
        total = _entero(datos.get("recordsTotal")) if total is None else total
        nuevos = [d for d in datos["data"] if d.get("EXPEDIENTE_ID") and d["EXPEDIENTE_ID"] not in vistos]
        for d in nuevos:
            vistos[d["EXPEDIENTE_ID"]] = d
        if not nuevos or (total is not None and len(vistos) >= total):
            break
    return list(vistos.values())


def _fila(d: dict[str, Any]) -> dict[str, Any]:
    return {
        "expediente_id": str(d["EXPEDIENTE_ID"]),
        "nombre": str(d.get("EXPEDIENTE_NOMBRE") or "")[:500],
        "tipo_ingreso": str(d.get("WORKFLOW_DESCRIPCION") or "")[:3],
        "region": str(d.get("REGION_NOMBRE") or ""),
        "comuna": str(d.get("COMUNA_NOMBRE") or ""),
        "tipologia": str(d.get("TIPO_PROYECTO") or ""),
        "descripcion_tipologia": str(d.get("DESCRIPCION_TIPOLOGIA") or ""),
        "razon_ingreso": str(d.get("RAZON_INGRESO") or "")[:200],
        "titular": str(d.get("TITULAR") or "")[:300],
        "inversion_mmusd": _millones(d.get("INVERSION_MM")),
        "fecha_presentacion": _fecha(d.get("FECHA_PRESENTACION")),
        "estado": str(d.get("ESTADO_PROYECTO") or ""),
        "url_expediente": str(d.get("EXPEDIENTE_URL_PPAL") or ""),
        "url_ficha": str(d.get("EXPEDIENTE_URL_FICHA") or ""),
    }


def _codigo_region(region: str) -> str:
    buscada = region.lower().removeprefix("región de ").removeprefix("region de ").strip()
    for nombre, codigo in REGIONES.items():
        if buscada in nombre.lower() or nombre.lower() in buscada:
            return codigo
    raise ValueError(f"Región desconocida para el e-SEIA: «{region}».")


def _entero(valor: Any) -> int | None:
    try:
        return int(str(valor).replace(".", ""))
    except ValueError:
        return None


def _millones(valor: Any) -> str | None:
    try:
        return str((Decimal(str(valor)) / 1_000_000).quantize(Decimal("0.0001")))
    except (InvalidOperation, TypeError):
        return None


def _fecha(valor: Any) -> str | None:
    try:
        return date.isoformat(datetime.fromtimestamp(int(valor), tz=ZoneInfo("America/Santiago")).date())
    except (TypeError, ValueError):
        return None


def mineros_actualizar(*, regiones: list[str]) -> int:
    """Tarea semanal: los proyectos mineros del e-SEIA de las regiones indicadas, guardados."""
    total = 0
    with cache_fuentes.ejecucion(fuente="eseia", maximo_s=1800) as resumen:
        for region in regiones:
            total += len(proyectos_buscar(region=region, tipologia="i").datos)
        resumen["resultado"] = f"{total} proyectos mineros en {len(regiones)} regiones"
    return total
