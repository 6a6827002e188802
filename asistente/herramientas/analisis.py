"""Herramientas de proyectos y análisis (lectura): consultar un proyecto o su análisis, evaluar uno
descrito en la conversación, listar y contar los del usuario."""

from __future__ import annotations

from collections import Counter
from datetime import date
from typing import Any, Literal

from django.db.models import QuerySet
from django.utils import timezone
from pydantic import BaseModel, Field

from asistente.herramientas.comunes import (
    TTL_PROYECTO,
    Tipo,
    analisis_resumen,
    campo_areas_declaradas,
    campo_componentes,
    fuente_de_fundamento,
    grupo_proyecto,
    proyecto_json,
    proyecto_visible,
)
from asistente.registro import MAXIMO_RESULTADOS, Contexto, ErrorDeHerramienta, Fuente, herramienta
from config.fechas import meses_despues
from fuentes_externas.eseia import similares_del_proyecto
from proyectos import selectors as proyectos
from proyectos.analisis.componentes import hay_partes
from proyectos.analisis.entrada import CIRCUNSTANCIAS, ETIQUETAS, EntradaInvalida, validar_entrada
from proyectos.analisis.ingreso import CANTIDADES_REQUERIDAS
from proyectos.analisis.motor import evaluar_entrada
from proyectos.models import Analisis, Cliente, Proyecto
from proyectos.roles import puede_consultar

MAXIMO_CLIENTES_LISTADOS = 10


class ConsultarProyecto(BaseModel):
    proyecto_id: int | None = Field(default=None, description="Número del proyecto (#12).")
    nombre: str | None = Field(default=None, max_length=200, description="Nombre, si no se sabe el número.")


@herramienta(
    permiso=puede_consultar,
    ttl_s=TTL_PROYECTO,
    grupo_cache=grupo_proyecto,
    actividad="Consultando el proyecto…",
)
def consultar_proyecto(entrada: ConsultarProyecto, ctx: Contexto) -> dict[str, Any]:
    """Devuelve los datos de un proyecto del usuario (por número o nombre; sin ninguno, el proyecto
    activo), el resumen de su último análisis y proyectos mineros parecidos presentados al SEIA (misma
    región, aprobados primero; del e-SEIA). Si el nombre no existe, sugiere los parecidos."""
    proyecto = proyecto_visible(entrada.proyecto_id, entrada.nombre, ctx)
    ultimo = proyecto.analisis.first()
    return {
        "proyecto": proyecto_json(proyecto),
        "ultimo_analisis": analisis_resumen(ultimo) if ultimo else None,
        "proyectos_similares_seia": similares_del_proyecto(proyecto),
    }


class ConsultarAnalisis(BaseModel):
    analisis_id: int | None = None
    proyecto_id: int | None = Field(default=None, description="Toma el último análisis del proyecto.")


@herramienta(
    permiso=puede_consultar,
    ttl_s=TTL_PROYECTO,
    grupo_cache=grupo_proyecto,
    actividad="Consultando el análisis…",
)
def consultar_analisis(entrada: ConsultarAnalisis, ctx: Contexto) -> dict[str, Any]:
    """Devuelve un análisis completo: clasificación, tipologías con su motivo, efectos del Art. 11
    con evidencia y artículos citados, permisos ambientales sectoriales, alertas y advertencias. Sirve
    para explicar por qué un proyecto es DIA, EIA o no ingresa."""
    if entrada.analisis_id:
        try:
            analisis = proyectos.analisis_visible(usuario=ctx.usuario, pk=entrada.analisis_id)
        except Analisis.DoesNotExist as error:
            raise ErrorDeHerramienta(
                f"No existe el análisis #{entrada.analisis_id} entre sus proyectos."
            ) from error
    else:
        proyecto = proyecto_visible(entrada.proyecto_id, None, ctx)
        ultimo = proyecto.analisis.first()
        if ultimo is None:
            raise ErrorDeHerramienta(f"El proyecto #{proyecto.pk} «{proyecto.nombre}» aún no tiene análisis.")
        analisis = ultimo
    r = analisis.resultado
    fundamento = [
        f
        for t in r.get("detalle_tipologias", []) + r.get("triggers", []) + r.get("permisos", [])
        for f in t.get("fundamento", [])
    ]
    return {
        # Las fuentes van en el resultado (no como efecto lateral) para que sobrevivan a la caché.
        "fuentes": [fuente_de_fundamento(f) for f in fundamento if f.get("fragmento_id")],
        "analisis_id": analisis.pk,
        "proyecto_id": analisis.proyecto_id,
        "proyecto": analisis.proyecto.nombre,
        "fecha": analisis.fecha.isoformat(),
        "clasificacion": r["clasificacion"],
        "resumen": r.get("resumen", ""),
        "tipologias": r.get("detalle_tipologias", []),
        "triggers": r.get("triggers", []),
        "alertas": r.get("alertas", [])[:MAXIMO_RESULTADOS],
        "advertencias": r.get("advertencias", []),
        "permisos": r.get("permisos", []),
    }


class EvaluarProyecto(BaseModel):
    tipo: Tipo = Field(title="Tipo de proyecto")
    region: str = Field(
        min_length=1, max_length=100, title="Región", description="Región: nombre o número 1–16."
    )
    comuna: str | None = Field(default=None, max_length=100, title="Comuna")
    capacidad_extraccion_t_mes: float | None = Field(default=None, ge=0, title="Extracción (t/mes)")
    plataformas: int | None = Field(default=None, ge=0, title="Plataformas de sondaje")
    aridos_m3_mes: float | None = Field(default=None, ge=0, title="Áridos (m³/mes)")
    aridos_m3_total: float | None = Field(default=None, ge=0, title="Áridos en total (m³)")
    superficie_ha: float | None = Field(default=None, ge=0, title="Superficie (ha)")
    circunstancias: list[str] = Field(
        default_factory=list, title="Circunstancias", description=f"De: {', '.join(CIRCUNSTANCIAS)}."
    )
    componentes: dict[str, float | bool] = campo_componentes()
    areas_declaradas: list[dict[str, str]] = campo_areas_declaradas()


@herramienta(permiso=puede_consultar, actividad="Evaluando el proyecto descrito…")
def evaluar_proyecto(entrada: EvaluarProyecto, ctx: Contexto) -> dict[str, Any]:
    """Evalúa un proyecto descrito en la conversación con el motor de prefactibilidad, sin guardar
    nada: clasificación (NO_INGRESA, DIA o EIA), literal de ingreso y cada cantidad frente a su
    umbral (también cuando no lo alcanza), efectos del Art. 11 declarados, los permisos ambientales
    sectoriales (PAS) que traen sus partes, advertencias (sin geometría no se revisan áreas protegidas) y
    el fundamento. Úsela cuando el usuario describe un proyecto (tipo, cantidades, región) y pregunta si
    debe someterse al SEIA y mediante qué instrumento."""
    datos = {"nombre": "Proyecto descrito en la conversación", **entrada.model_dump()}
    # Un proyecto descrito por sus partes (un polvorín, un tranque, la turba) se evalúa sin la cantidad de
    # su tipo: sus literales no dependen de ella, y el resultado dice que falta.
    try:
        validada = validar_entrada(datos, exigir_cantidades=not hay_partes(entrada.componentes))
    except EntradaInvalida as error:
        raise ErrorDeHerramienta(str(error)) from error
    resultado = evaluar_entrada(validada, espacial=False)
    requeridas = CANTIDADES_REQUERIDAS.get(entrada.tipo, ())
    sin_cantidad_del_tipo = bool(requeridas) and all(datos.get(campo) is None for campo in requeridas)
    if sin_cantidad_del_tipo:
        faltan = " ni ".join(ETIQUETAS[campo] for campo in requeridas)
        resultado["advertencias"].insert(
            0,
            f"No se indicó {faltan}: el resultado sale de las partes declaradas; con ese dato el proyecto "
            "podría ingresar además por el literal de su tipo.",
        )
    fundamento = [
        f
        for grupo in (
            resultado["detalle_tipologias"],
            resultado.get("umbrales", []),
            resultado["triggers"],
        )
        for elemento in grupo
        for f in elemento["fundamento"]
    ] + resultado["fundamento_clasificacion"]
    fundamento += [f for p in resultado.get("permisos", []) for f in p["fundamento"]]
    fuentes: list[Fuente] = []
    for f in fundamento:
        fuente = fuente_de_fundamento(f)
        if f["fragmento_id"] and fuente not in fuentes:
            fuentes.append(fuente)
    return {
        "fuentes": fuentes,
        "region": str(validada.region),
        "comuna": validada.comuna.nombre if validada.comuna else None,
        "clasificacion": resultado["clasificacion"],
        "resumen": resultado["resumen"],
        "tipologias": resultado["detalle_tipologias"],
        "umbrales": resultado.get("umbrales", []),
        "triggers": resultado["triggers"],
        "alertas": resultado["alertas"][:MAXIMO_RESULTADOS],
        "advertencias": resultado["advertencias"],
        "fundamento_clasificacion": resultado["fundamento_clasificacion"],
        "permisos": resultado.get("permisos", []),
        "umbrales_permisos": resultado.get("umbrales_permisos", []),
        "sin_cantidad_del_tipo": sin_cantidad_del_tipo,
    }


MAXIMO_MESES = 24  # el periodo más largo que se lista o se cuenta de una vez


class Periodo(BaseModel):
    desde: date | None = Field(
        default=None, description=f"Creados desde esta fecha (AAAA-MM-DD); a lo más {MAXIMO_MESES} meses."
    )
    hasta: date | None = Field(
        default=None, description="Creados hasta esta fecha, inclusive (hoy si falta)."
    )

    def acotar(self, lista: QuerySet[Proyecto]) -> QuerySet[Proyecto]:
        """La lista de los creados en el periodo. Un periodo al revés o de más de 24 meses (desde «desde»
        hasta «hasta» o, sin ella, hasta hoy) se rechaza con lo que hay que pedir en su lugar."""
        if self.desde and self.hasta and self.desde > self.hasta:
            raise ErrorDeHerramienta("La fecha «desde» es posterior a «hasta»: inviértalas.")
        if self.desde:
            hasta = self.hasta or timezone.localdate()
            if hasta > meses_despues(self.desde, MAXIMO_MESES):
                meses = (hasta.year - self.desde.year) * 12 + hasta.month - self.desde.month
                raise ErrorDeHerramienta(
                    f"El periodo del {self.desde:%d-%m-%Y} al {hasta:%d-%m-%Y} abarca {meses} meses y "
                    f"el máximo es {MAXIMO_MESES}: pida uno de hasta {MAXIMO_MESES} meses (por ejemplo, "
                    f"desde el {meses_despues(hasta, -MAXIMO_MESES):%d-%m-%Y}) o consulte el periodo "
                    "por partes."
                )
        if self.desde:
            lista = lista.filter(creado_at__date__gte=self.desde)
        if self.hasta:
            lista = lista.filter(creado_at__date__lte=self.hasta)
        return lista


class ListarProyectos(Periodo):
    estado: Literal["borrador", "en_analisis", "analizado", "archivado"] | None = None
    region: str | None = Field(default=None, description="Nombre o número de la región.")
    cliente: str | None = Field(default=None, description="Nombre del cliente (uno de los del usuario).")
    limite: int = Field(default=20, ge=1, le=MAXIMO_RESULTADOS)


@herramienta(
    permiso=puede_consultar, ttl_s=60, grupo_cache=grupo_proyecto, actividad="Revisando sus proyectos…"
)
def listar_proyectos(entrada: ListarProyectos, ctx: Contexto) -> dict[str, Any]:
    """Lista los proyectos del usuario, con su última clasificación; filtros opcionales por estado,
    región, cliente y fecha de creación (desde/hasta)."""
    codigo_region = ""
    if entrada.region:
        try:
            codigo_region = proyectos.region_resolver(texto=entrada.region).codigo
        except proyectos.ErrorDeTerritorio as error:
            raise ErrorDeHerramienta(str(error)) from error
    cliente = _cliente_nombrado(entrada.cliente, ctx) if entrada.cliente else None
    lista = entrada.acotar(
        proyectos.proyectos_visibles(
            usuario=ctx.usuario,
            estado=entrada.estado or "",
            region=codigo_region,
            cliente=cliente.pk if cliente else None,
        )
    )
    total = lista.count()
    return {"total": total, "proyectos": [proyecto_json(p, breve=True) for p in lista[: entrada.limite]]}


class ObtenerEstadisticas(Periodo):
    pass


@herramienta(
    permiso=puede_consultar,
    ttl_s=60,
    grupo_cache=grupo_proyecto,
    actividad="Calculando las estadísticas de sus proyectos…",
)
def obtener_estadisticas(entrada: ObtenerEstadisticas, ctx: Contexto) -> dict[str, Any]:
    """Cuenta los proyectos del usuario (los creados en el periodo desde/hasta, si se da) por estado,
    región, tipo, última clasificación y mes de creación."""
    lista = list(entrada.acotar(proyectos.proyectos_visibles(usuario=ctx.usuario)))
    return {
        "total": len(lista),
        "periodo": {"desde": _iso(entrada.desde), "hasta": _iso(entrada.hasta)},
        "por_estado": dict(Counter(p.get_estado_display() for p in lista)),
        "por_region": dict(Counter(p.region.nombre for p in lista)),
        "por_tipo": dict(Counter(p.get_tipo_display() for p in lista)),
        "por_clasificacion": dict(
            Counter(getattr(p, "ultima_clasificacion", None) or "sin análisis" for p in lista)
        ),
        "por_mes": dict(
            sorted(Counter(timezone.localtime(p.creado_at).strftime("%Y-%m") for p in lista).items())
        ),
    }


def _iso(fecha: date | None) -> str | None:
    return fecha.isoformat() if fecha else None


def _cliente_nombrado(nombre: str, ctx: Contexto) -> Cliente:
    """El cliente de ese nombre entre los del usuario (exacto sin mayúsculas, o el único que lo contiene)."""
    clientes = proyectos.clientes_visibles(usuario=ctx.usuario).order_by("nombre")
    nombre = " ".join(nombre.split())
    exacto = clientes.filter(nombre__iexact=nombre).first()
    parecidos = list(clientes.filter(nombre__icontains=nombre)[:2])
    if exacto is not None or len(parecidos) == 1:
        return exacto or parecidos[0]
    lista = ", ".join(f"«{c.nombre}»" for c in clientes[:MAXIMO_CLIENTES_LISTADOS]) or "ninguno"
    raise ErrorDeHerramienta(f"No encuentro el cliente «{nombre}» entre los suyos: {lista}.")
