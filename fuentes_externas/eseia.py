"""e-SEIA: búsqueda de proyectos presentados al SEIA (POST `buscarProyectoResumenAction.php`).

- El formulario es el de `buscarProyectoResumen.php`: `nombre`, `titular`, `selectRegion[]` (código),
  `tipoPresentacion` (DIA, EIA o Ambos), `PresentacionMin`/`PresentacionMax` (dd/mm/aaaa), más
  `offset` y `limit` de DataTables.
- El cuerpo viene en ISO-8859-1 aunque diga JSON.
- La ficha de cada expediente (`expediente.php?id_expediente=…&modo=ficha`) trae, donde el registro
  público los tiene, la Resolución de Calificación Ambiental, sus fechas y los documentos. No hay una
  captura real de esa página (ver `tests/fixtures/seia/SOURCE.md`): el lector busca las etiquetas por
  su texto en cualquier tabla o lista y deja vacío lo que no encuentra, nunca falla por la forma.
- El significado de `offset` no es seguro (en las capturas, offset=1 y 2 dan páginas distintas de 10):
  se pide por número de página, se deduplica por `EXPEDIENTE_ID`, se para al llegar a `recordsTotal`,
  cuando una página no trae nada nuevo o al máximo de páginas. Nunca un bucle sin fin.
"""

from __future__ import annotations

import json
import re
import statistics
from collections import Counter
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from typing import Any
from urllib.parse import urljoin
from zoneinfo import ZoneInfo

from bs4 import BeautifulSoup
from django.conf import settings
from django.db.models import Case, IntegerField, Max, QuerySet, Value, When
from django.utils import timezone

from config.http import ErrorHttp, solicitar
from config.texto import normalizar
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
        "dias_legales": _entero(d.get("DIAS_LEGALES")),
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


def mineros_actualizar(*, regiones: list[str], detalles: int = 0) -> int:
    """Tarea semanal: los proyectos mineros del e-SEIA de las regiones indicadas, guardados; y la ficha
    de hasta `detalles` proyectos calificados que aún no la tienen (la RCA y sus fechas dan la duración
    de su evaluación a las cifras). Una ficha que falla no detiene las demás."""
    total = 0
    with cache_fuentes.ejecucion(fuente="eseia", maximo_s=1800) as resumen:
        for region in regiones:
            total += len(proyectos_buscar(region=region, tipologia="i").datos)
        leidas = fallidas = 0
        pendientes = ProyectoESEIA.objects.filter(
            tipologia__istartswith="i", detalle_at__isnull=True, estado__iregex=r"aprobado|rechazado"
        ).order_by("-fecha_presentacion")
        for proyecto in pendientes[:detalles]:
            try:
                detalle_actualizar(expediente_id=proyecto.expediente_id)
                leidas += 1
            except ErrorHttp:
                fallidas += 1
        resumen["resultado"] = (
            f"{total} proyectos mineros en {len(regiones)} regiones; {leidas} fichas leídas"
            + (f", {fallidas} fallidas" if fallidas else "")
        )
    return total


# --- ficha del expediente ---------------------------------------------------------------------

MAXIMO_DOCUMENTOS = 200
_FECHA = re.compile(r"\b(\d{1,2})[/-](\d{1,2})[/-](\d{4})\b")
_NUMERO_RCA = re.compile(r"(?:n[°º.o]*\s*)?(\d{1,6}\s*/\s*\d{4}|\d{1,6}(?:-\d{4})?)", re.IGNORECASE)
# Etiqueta de la ficha (sin tildes, en minúsculas) → campo. La primera que calce gana.
_ETIQUETAS = (
    ("resolucion de calificacion", "rca"),
    ("rca", "rca"),
    ("fecha de calificacion", "rca_fecha"),
    ("fecha de resolucion", "rca_fecha"),
    ("fecha de presentacion", "fecha_presentacion"),
    ("fecha de ingreso", "fecha_presentacion"),
    ("estado", "estado"),
    ("tipo de presentacion", "tipo_ingreso"),
    ("forma de presentacion", "tipo_ingreso"),
)


def ficha_leer(html: str, *, url_base: str) -> dict[str, Any]:
    """Lo que la ficha de un expediente dice de su calificación: estado, tipo, fechas, número y fecha de
    la RCA y los documentos (título, enlace, fecha). Busca pares etiqueta–valor en filas de tabla
    (`th`/`td` o `td`/`td`), listas de definición y textos «Etiqueta: valor»; lo que no encuentra
    queda vacío."""
    sopa = BeautifulSoup(html, "html.parser")
    campos: dict[str, str] = {}
    for etiqueta, valor in _pares(sopa):
        clave = normalizar(etiqueta)
        campo = next((c for prefijo, c in _ETIQUETAS if clave.startswith(prefijo)), None)
        if campo and valor and campo not in campos:
            campos[campo] = valor
    rca = campos.get("rca", "")
    numero = _NUMERO_RCA.search(_FECHA.sub(" ", rca)) if rca else None
    return {
        "estado": campos.get("estado", "")[:120],
        "tipo_ingreso": campos.get("tipo_ingreso", "")[:3].upper(),
        "fecha_presentacion": _fecha_de_texto(campos.get("fecha_presentacion", "")),
        "rca_numero": numero.group(1).replace(" ", "") if numero else "",
        "rca_fecha": _fecha_de_texto(campos.get("rca_fecha", "")) or _fecha_de_texto(rca),
        "documentos": _documentos(sopa, url_base),
    }


def _pares(sopa: BeautifulSoup) -> list[tuple[str, str]]:
    pares: list[tuple[str, str]] = []
    for fila in sopa.find_all("tr"):
        celdas = [" ".join(c.get_text(" ").split()) for c in fila.find_all(["th", "td"], recursive=False)]
        if len(celdas) >= 2 and celdas[0] and len(celdas[0]) <= 60:
            pares.append((celdas[0].rstrip(":"), celdas[1]))
    for termino in sopa.find_all("dt"):
        definicion = termino.find_next_sibling("dd")
        if definicion is not None:
            pares.append(
                (termino.get_text(" ").strip().rstrip(":"), " ".join(definicion.get_text(" ").split()))
            )
    for texto in sopa.find_all(string=re.compile(r"^\s*[^:\n]{3,60}:\s*\S")):
        etiqueta, _, valor = str(texto).partition(":")
        pares.append((etiqueta.strip(), " ".join(valor.split())))
    return pares


def _documentos(sopa: BeautifulSoup, url_base: str) -> list[dict[str, Any]]:
    """Enlaces a documentos del expediente (PDF o el visor de documentos del e-SEIA), sin repetir."""
    vistos: dict[str, dict[str, Any]] = {}
    for enlace in sopa.find_all("a", href=True):
        href = str(enlace["href"])
        if not re.search(r"\.pdf\b|documento|archivos|docs?/", href, re.IGNORECASE):
            continue
        url = urljoin(url_base, href)
        fila = enlace.find_parent("tr")
        fecha = _fecha_de_texto(fila.get_text(" ")) if fila is not None else None
        titulo = " ".join(enlace.get_text(" ").split()) or url.rsplit("/", 1)[-1]
        vistos.setdefault(url, {"titulo": titulo[:300], "url": url, "fecha": fecha})
        if len(vistos) >= MAXIMO_DOCUMENTOS:
            break
    return list(vistos.values())


def _fecha_de_texto(texto: str) -> str | None:
    if coincidencia := _FECHA.search(texto or ""):
        dia, mes, anio = (int(g) for g in coincidencia.groups())
        try:
            return date(anio, mes, dia).isoformat()
        except ValueError:
            return None
    return None


def detalle_actualizar(*, expediente_id: str) -> cache_fuentes.Consulta[dict[str, Any]]:
    """El detalle del expediente: lo indexado del listado más lo que trae su ficha (caché de 7 días: la
    ficha de un proyecto cambia poco; respaldo vencido si el e-SEIA no responde). Lo leído queda
    guardado en `ProyectoESEIA`."""
    proyecto = ProyectoESEIA.objects.filter(expediente_id=expediente_id).first()
    url = f"{settings.ESEIA_URL}/expediente/expediente.php?id_expediente={expediente_id}&modo=ficha"

    def obtener() -> dict[str, Any]:
        respuesta = solicitar(url=url, metodo="GET")
        return ficha_leer(respuesta.texto(codificacion="iso-8859-1"), url_base=url)

    consulta = cache_fuentes.consultar(
        fuente="eseia", clave=f"ficha:{expediente_id}", obtener=obtener, vigencia="eseia_proyecto"
    )
    ficha = consulta.datos
    if proyecto is not None:
        proyecto.rca_numero = ficha["rca_numero"] or proyecto.rca_numero
        proyecto.rca_fecha = (
            date.fromisoformat(ficha["rca_fecha"]) if ficha["rca_fecha"] else proyecto.rca_fecha
        )
        proyecto.documentos = ficha["documentos"] or proyecto.documentos
        proyecto.estado = ficha["estado"] or proyecto.estado
        proyecto.detalle_at = timezone.now()
        proyecto.save()
    return cache_fuentes.Consulta(
        detalle_json(proyecto, ficha), consulta.desde_cache, consulta.guardado_at, consulta.advertencia
    )


def detalle_json(proyecto: ProyectoESEIA | None, ficha: dict[str, Any]) -> dict[str, Any]:
    """Estado, fechas, RCA, duración de la evaluación y documentos; de la ficha lo que traiga, si no, del
    listado indexado."""
    presentacion = ficha.get("fecha_presentacion") or (
        proyecto.fecha_presentacion.isoformat() if proyecto and proyecto.fecha_presentacion else None
    )
    rca_fecha = ficha.get("rca_fecha") or (
        proyecto.rca_fecha.isoformat() if proyecto and proyecto.rca_fecha else None
    )
    return {
        "expediente_id": proyecto.expediente_id if proyecto else "",
        "nombre": proyecto.nombre if proyecto else "",
        "tipo_ingreso": ficha.get("tipo_ingreso") or (proyecto.tipo_ingreso if proyecto else ""),
        "region": proyecto.region if proyecto else "",
        "tipologia": proyecto.tipologia if proyecto else "",
        "estado": ficha.get("estado") or (proyecto.estado if proyecto else ""),
        "fecha_presentacion": presentacion,
        "rca_numero": ficha.get("rca_numero") or (proyecto.rca_numero if proyecto else ""),
        "rca_fecha": rca_fecha,
        "dias_corridos": _dias_entre(presentacion, rca_fecha),
        "dias_legales": proyecto.dias_legales if proyecto else None,
        "documentos": ficha.get("documentos") or (proyecto.documentos if proyecto else []),
        "url": proyecto.url_expediente if proyecto else "",
    }


def _dias_entre(desde: str | None, hasta: str | None) -> int | None:
    if not desde or not hasta:
        return None
    dias = (date.fromisoformat(hasta) - date.fromisoformat(desde)).days
    return dias if dias >= 0 else None


# --- estadísticas de lo indexado --------------------------------------------------------------

CALIFICADOS = ("aprobado", "rechazado")


def estadisticas(*, region: str = "", tipo: str = "", tipologia: str = "i") -> dict[str, Any]:
    """Cifras de los proyectos indexados del e-SEIA (los mineros, por omisión) de una región y tipo:
    cuántos hay por estado, cuántos calificados y cuántos aprobados, y cuánto duró su evaluación —en
    días corridos de la presentación a la RCA, donde la ficha los trae, y en los días hábiles legales
    que informa el listado—. Son los indexados, no todo el e-SEIA: la respuesta dice cuántos y hasta
    cuándo."""
    filas = (
        ProyectoESEIA.objects.filter(tipologia__istartswith=tipologia)
        if tipologia
        else ProyectoESEIA.objects.all()
    )
    if tipo:
        filas = filas.filter(tipo_ingreso__iexact=tipo)
    buscada = normalizar(region).removeprefix("region de ").removeprefix("region del ").strip()
    proyectos = [p for p in filas if not buscada or _contiene(p.region, buscada)]
    calificados = [p for p in proyectos if any(e in normalizar(p.estado) for e in CALIFICADOS)]
    por_estado = Counter(p.estado or "sin informar" for p in proyectos)
    corridos = [
        d
        for p in calificados
        if (d := _dias_entre(_iso(p.fecha_presentacion), _iso(p.rca_fecha))) is not None
    ]
    legales = [p.dias_legales for p in calificados if p.dias_legales is not None]
    return {
        "region": region,
        "tipo": tipo.upper(),
        "tipologia": tipologia,
        "total": len(proyectos),
        "por_estado": dict(por_estado.most_common()),
        "calificados": len(calificados),
        "aprobados": sum("aprobado" in normalizar(p.estado) for p in calificados),
        "dias_corridos": _cifras(corridos),
        "dias_legales": _cifras(legales),
        "indexados_hasta": _iso(filas.aggregate(ultimo=Max("actualizado_at"))["ultimo"]),
    }


def _contiene(region: str, buscada: str) -> bool:
    """Si la región guardada nombra la buscada. Las capturas del listado traen cada letra con tilde como
    U+FFFD («Regi�n de Valpara�so»): ahí vale cualquier letra."""
    # «9» (ningún nombre de región lleva cifras) sobrevive a `normalizar` y luego marca el comodín.
    plano = normalizar(region.replace("\ufffd", "9")).replace("9", "?")
    for inicio in range(len(plano) - len(buscada) + 1):
        tramo = plano[inicio : inicio + len(buscada)]
        if all(a == b or a == "?" for a, b in zip(tramo, buscada, strict=True)):
            return True
    return False


def _cifras(valores: list[int]) -> dict[str, Any] | None:
    if not valores:
        return None
    return {
        "n": len(valores),
        "promedio": round(statistics.fmean(valores), 1),
        "mediana": statistics.median(valores),
        "minimo": min(valores),
        "maximo": max(valores),
    }


def _iso(valor: date | datetime | None) -> str | None:
    if valor is None:
        return None
    return (valor.date() if isinstance(valor, datetime) else valor).isoformat()
