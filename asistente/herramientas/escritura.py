"""Herramientas de escritura: crear, analizar y actualizar proyectos. Nunca se ejecutan desde el modelo:
se proponen como una acción pendiente y corren solo cuando el usuario confirma."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field

from asistente.herramientas.analisis import MAXIMO_CLIENTES_LISTADOS
from asistente.herramientas.comunes import (
    Tipo,
    analisis_resumen,
    campo_areas_declaradas,
    campo_componentes,
    proyecto_json,
    proyecto_visible,
)
from asistente.registro import Contexto, ErrorDeHerramienta, herramienta
from proyectos import selectors as proyectos
from proyectos import services as servicios_proyectos
from proyectos.analisis.entrada import CIRCUNSTANCIAS, EntradaInvalida, validar_entrada
from proyectos.analisis.ingreso import numero_cl
from proyectos.models import Analisis, Cliente, Proyecto
from proyectos.roles import puede_escribir


# Los títulos (`title`) son las etiquetas de los parámetros en el diálogo «¿Confirmar acción?», y
# `OPCIONES` los nombres de los valores de un parámetro de opciones fijas (el diálogo ofrece una lista).
class CrearProyecto(BaseModel):
    OPCIONES: ClassVar[dict[str, dict[str, str]]] = {"tipo": dict(Proyecto.Tipo.choices)}

    nombre: str = Field(min_length=2, max_length=200, title="Nombre")
    region: str = Field(
        min_length=1, max_length=100, title="Región", description="Región: nombre o número 1–16."
    )
    comuna: str | None = Field(default=None, max_length=100, title="Comuna")
    tipo: Tipo = Field(default="explotacion", title="Tipo de proyecto")
    cliente: str | None = Field(
        default=None,
        max_length=200,
        title="Cliente",
        description="Nombre del cliente del proyecto; si el usuario tiene uno solo, ese.",
    )
    cliente_id: int | None = Field(
        default=None, title="Cliente (id)", description="Id del cliente, si se sabe."
    )
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

    def datos_del_proyecto(self) -> dict[str, Any]:
        return self.model_dump(exclude={"cliente_id", "cliente"})


def _preparar_creacion(entrada: CrearProyecto, ctx: Contexto) -> CrearProyecto:
    cliente = _cliente(entrada, ctx)
    _validar(entrada.datos_del_proyecto(), exigir_cantidades=False, antes="Para crear el proyecto")
    return entrada.model_copy(update={"cliente_id": cliente.pk, "cliente": cliente.nombre})


def _describir_creacion(entrada: Any, ctx: Contexto) -> str:
    cantidades = []
    if entrada.capacidad_extraccion_t_mes is not None:
        cantidades.append(f"{numero_cl(entrada.capacidad_extraccion_t_mes)} t/mes")
    if entrada.plataformas is not None:
        cantidades.append(f"{entrada.plataformas} plataformas")
    if entrada.componentes:
        cantidades.append(f"{len(entrada.componentes)} otra(s) parte(s) de la faena")
    detalle = f" ({', '.join(cantidades)})" if cantidades else ""
    lugar = f"{entrada.comuna}, " if entrada.comuna else ""
    tipo = Proyecto.Tipo(entrada.tipo).label
    cliente = f" para el cliente «{entrada.cliente}»" if entrada.cliente else ""
    return (
        f"Crear el proyecto «{entrada.nombre}» ({tipo}){cliente} en {lugar}región {entrada.region}{detalle}."
    )


@herramienta(
    permiso=puede_escribir, escritura=True, describir=_describir_creacion, preparar=_preparar_creacion
)
def crear_proyecto(entrada: CrearProyecto, ctx: Contexto) -> dict[str, Any]:
    """Propone crear un proyecto (queda en borrador). Se ejecuta solo cuando el usuario confirma."""
    cliente = _cliente(entrada, ctx)
    try:
        proyecto = servicios_proyectos.proyecto_crear(
            cliente=cliente, datos=entrada.datos_del_proyecto(), usuario=ctx.usuario
        )
    except EntradaInvalida as error:
        raise ErrorDeHerramienta(str(error)) from error
    return {"proyecto": proyecto_json(proyecto)}


class EjecutarAnalisis(BaseModel):
    OPCIONES: ClassVar[dict[str, dict[str, str]]] = {"tipo": dict(Analisis.Tipo.choices)}

    proyecto_id: int = Field(ge=1, le=2**62, title="Proyecto (id)")
    tipo: Literal["rapido", "completo"] = Field(default="completo", title="Tipo de análisis")


def _preparar_analisis(entrada: EjecutarAnalisis, ctx: Contexto) -> EjecutarAnalisis:
    proyecto = proyecto_visible(entrada.proyecto_id, None, ctx)
    _validar(
        proyectos.proyecto_como_entrada(proyecto),
        exigir_cantidades=True,
        antes=f"Para analizar el proyecto #{proyecto.pk} «{proyecto.nombre}»",
        despues="Puedo proponerle actualizar el proyecto con ese dato.",
    )
    return entrada


def _describir_analisis(entrada: Any, ctx: Contexto) -> str:
    proyecto = proyecto_visible(entrada.proyecto_id, None, ctx)
    return f"Ejecutar un análisis {entrada.tipo} del proyecto #{proyecto.pk} «{proyecto.nombre}»."


@herramienta(
    permiso=puede_escribir, escritura=True, describir=_describir_analisis, preparar=_preparar_analisis
)
def ejecutar_analisis(entrada: EjecutarAnalisis, ctx: Contexto) -> dict[str, Any]:
    """Propone analizar un proyecto (ingreso al SEIA, efectos del Art. 11, clasificación). Se
    ejecuta solo cuando el usuario confirma."""
    proyecto = proyecto_visible(entrada.proyecto_id, None, ctx)
    try:
        analisis = servicios_proyectos.analisis_ejecutar(
            proyecto=proyecto, tipo=entrada.tipo, usuario=ctx.usuario
        )
    except EntradaInvalida as error:
        raise ErrorDeHerramienta(str(error)) from error
    return {"analisis": analisis_resumen(analisis), "proyecto_id": proyecto.pk}


class ActualizarProyecto(BaseModel):
    proyecto_id: int = Field(ge=1, le=2**62, title="Proyecto (id)")
    cambios: dict[str, Any] = Field(
        title="Cambios", description="Campos a cambiar (nombre, region, comuna, tipo, cantidades…)."
    )


def _preparar_actualizacion(entrada: ActualizarProyecto, ctx: Contexto) -> ActualizarProyecto:
    proyecto = proyecto_visible(entrada.proyecto_id, None, ctx)
    if not entrada.cambios:
        raise ErrorDeHerramienta(f"¿Qué dato del proyecto #{proyecto.pk} «{proyecto.nombre}» quiere cambiar?")
    _validar(
        {**proyectos.proyecto_como_entrada(proyecto), **entrada.cambios},
        exigir_cantidades=False,
        antes=f"Para actualizar el proyecto #{proyecto.pk} «{proyecto.nombre}»",
    )
    return entrada


def _describir_actualizacion(entrada: Any, ctx: Contexto) -> str:
    proyecto = proyecto_visible(entrada.proyecto_id, None, ctx)
    cambios = ", ".join(f"{k} = {v}" for k, v in entrada.cambios.items())
    return f"Actualizar el proyecto #{proyecto.pk} «{proyecto.nombre}»: {cambios}."


@herramienta(
    permiso=puede_escribir,
    escritura=True,
    describir=_describir_actualizacion,
    preparar=_preparar_actualizacion,
)
def actualizar_proyecto(entrada: ActualizarProyecto, ctx: Contexto) -> dict[str, Any]:
    """Propone cambiar datos de un proyecto. Se ejecuta solo cuando el usuario confirma."""
    proyecto = proyecto_visible(entrada.proyecto_id, None, ctx)
    try:
        proyecto = servicios_proyectos.proyecto_actualizar(proyecto=proyecto, cambios=entrada.cambios)
    except EntradaInvalida as error:
        raise ErrorDeHerramienta(str(error)) from error
    return {"proyecto": proyecto_json(proyecto)}


def _validar(datos: dict[str, Any], *, exigir_cantidades: bool, antes: str, despues: str = "") -> None:
    """Valida los datos del proyecto como lo hará el servicio al confirmar; si algo falta o no sirve,
    `ErrorDeHerramienta` con lo que hay que indicar, para preguntarlo en vez de proponer algo que fallará."""
    try:
        validar_entrada(datos, exigir_cantidades=exigir_cantidades)
    except EntradaInvalida as error:
        problemas = " ".join(e["mensaje"] for e in error.errores)
        raise ErrorDeHerramienta(f"{antes} necesito un dato más: {problemas} {despues}".strip()) from None


def _cliente(entrada: CrearProyecto, ctx: Contexto) -> Cliente:
    """El cliente del proyecto entre los del usuario: por id, por nombre o el único que tiene."""
    clientes = proyectos.clientes_visibles(usuario=ctx.usuario).order_by("nombre")
    if entrada.cliente_id is not None:
        elegido = clientes.filter(pk=entrada.cliente_id).first()
        if elegido is not None:
            return elegido
    elif entrada.cliente:
        nombre = " ".join(entrada.cliente.split())
        exacto = clientes.filter(nombre__iexact=nombre).first()
        parecidos = list(clientes.filter(nombre__icontains=nombre)[:2])
        if exacto is not None or len(parecidos) == 1:
            return exacto or parecidos[0]
    else:
        unicos = list(clientes[:2])
        if len(unicos) == 1:
            return unicos[0]
    nombres = [c.nombre for c in clientes[:MAXIMO_CLIENTES_LISTADOS]]
    if not nombres:
        raise ErrorDeHerramienta(
            "Su usuario no tiene clientes asignados, así que aún no puede crear proyectos: pida a un "
            "administrador que lo asocie a su cliente."
        )
    lista = ", ".join(f"«{n}»" for n in nombres)
    if entrada.cliente or entrada.cliente_id is not None:
        pedido = entrada.cliente or f"#{entrada.cliente_id}"
        raise ErrorDeHerramienta(f"No encuentro el cliente «{pedido}» entre los suyos: {lista}. ¿Cuál es?")
    raise ErrorDeHerramienta(f"¿Para cuál de sus clientes es el proyecto? {lista}.")
