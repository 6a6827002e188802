"""Herramientas de la ley: la búsqueda en el corpus normativo y el catálogo de permisos ambientales
sectoriales (PAS) con las partes que los traen."""

from __future__ import annotations

import dataclasses
from typing import Any

from pydantic import BaseModel, Field

from asistente.herramientas.comunes import (
    TTL_NORMATIVA,
    TTL_PROYECTO,
    Tipo,
    fuente_de_fundamento,
    fuente_de_resultado,
    grupo_proyecto,
    hay_corpus,
    proyecto_visible,
)
from asistente.politicas import politica_rag
from asistente.registro import Contexto, ErrorDeHerramienta, Fuente, herramienta
from normativa import busqueda as corpus
from normativa.permisos import NORMA_DE_LOS_PAS, permisos_del_catalogo
from proyectos import selectors as proyectos
from proyectos.analisis import componentes as partes_de_la_faena
from proyectos.analisis import fundamentos
from proyectos.analisis.entrada import EntradaInvalida, validar_componentes, validar_entrada
from proyectos.analisis.motor import evaluar_entrada
from proyectos.analisis.permisos import permisos_de
from proyectos.analisis.resultado import PermisoAplicable
from proyectos.roles import puede_consultar

CONFIANZAS = ["NONE", "LOW", "MEDIUM", "HIGH"]


class BuscarNormativa(BaseModel):
    consulta: str = Field(min_length=2, max_length=500, description="Pregunta o términos en español.")
    top_k: int = Field(default=5, ge=1, le=20)
    normas: list[str] = Field(default_factory=list, description="Siglas para acotar, p. ej. «Ley 19.300».")
    temas: list[str] = Field(default_factory=list, description="Temas para acotar (curados en el admin).")


def _acotar_al_dominio(entrada: BuscarNormativa, ctx: Contexto) -> BuscarNormativa:
    """Las políticas del dominio valen con cualquier motor: a lo más `top_k` resultados (y no más que
    RAG_MAX_DOCUMENTS), solo las normas y los temas en alcance (lo pedido se intersecta con ellos; sin
    intersección, el alcance)."""
    dominio = ctx.conversacion.dominio if ctx.conversacion is not None else None
    cambios: dict[str, Any] = {"top_k": min(entrada.top_k, politica_rag(dominio).maximo_documentos)}
    if dominio is None:
        return entrada.model_copy(update=cambios)
    for campo in ("normas", "temas"):
        alcance = list(getattr(dominio, campo) or [])
        if alcance:
            pedidas = [v for v in getattr(entrada, campo) if v in alcance]
            cambios[campo] = pedidas or alcance
    return entrada.model_copy(update=cambios)


@herramienta(
    permiso=puede_consultar,
    ttl_s=TTL_NORMATIVA,
    disponible=hay_corpus,
    actividad="Buscando en la normativa…",
    acotar=_acotar_al_dominio,
    recupera=True,
)
def buscar_normativa(entrada: BuscarNormativa, ctx: Contexto) -> dict[str, Any]:
    """Busca en el corpus normativo (Ley 19.300, DS 40/2012, leyes relacionadas y guías del SEA) y
    devuelve los fragmentos reordenados (el primero es el que mejor responde), cada uno con su cita,
    enlace a LeyChile y la oración que responde; la familia de la pregunta (plazo, sanción,
    definición…) y la confianza (HIGH, MEDIUM, LOW o NONE). `confianza_suficiente` es falso si está
    bajo el mínimo del dominio: advierta que la base es débil. Con NONE no hay base: dígalo y no cite.
    `seguridad` dice si el primer artículo responde lo preguntado («bastante», «medianamente», «poco», con
    su motivo): dígalo al final de la respuesta («Qué tan seguro estoy: …»); con «poco», presente los
    artículos como pistas, no como la respuesta. Úsela antes de afirmar algo sobre la ley."""
    dominio = ctx.conversacion.dominio if ctx.conversacion is not None else None
    busqueda = _con_similitud_minima(
        corpus.buscar_normativa(
            consulta=entrada.consulta,
            top_k=entrada.top_k,
            normas=entrada.normas or None,
            temas=entrada.temas or None,
        ),
        politica_rag(dominio).similitud_minima,
    )
    fuentes = [fuente_de_resultado(r) for r in busqueda.resultados] if busqueda.confianza != "NONE" else []
    minima = dominio.confianza_minima if dominio is not None else "LOW"
    seguridad = corpus.seguridad_de(entrada.consulta, busqueda)
    return {
        "confianza": busqueda.confianza,
        "seguridad": {"nivel": seguridad.nivel, "motivo": seguridad.motivo},
        # Cuánto de la pregunta cubre la oración de cada fuente (0 a 1), en el orden de «fuentes».
        "coberturas": [r.cobertura or 0.0 for r in busqueda.resultados] if fuentes else [],
        "confianza_suficiente": CONFIANZAS.index(busqueda.confianza) >= CONFIANZAS.index(minima),
        # La similitud coseno del fragmento más parecido a la pregunta (None en la búsqueda solo léxica).
        "similitud_maxima": max(
            (r.similitud for r in busqueda.resultados if r.similitud is not None), default=None
        )
        if fuentes
        else None,
        "familias": list(busqueda.familias),
        "fuentes": fuentes,
    }


def _con_similitud_minima(busqueda: corpus.ResultadoBusqueda, minima: float) -> corpus.ResultadoBusqueda:
    """Sin los fragmentos cuya similitud con la pregunta no llega a `minima` (RAG_MIN_CONFIDENCE o la
    del dominio); si no queda ninguno, no hay contexto (confianza NONE). Los resultados sin similitud
    (búsqueda solo léxica) se conservan."""
    quedan = [r for r in busqueda.resultados if r.similitud is None or r.similitud >= minima]
    if len(quedan) == len(busqueda.resultados):
        return busqueda
    return dataclasses.replace(
        busqueda, resultados=quedan, confianza=busqueda.confianza if quedan else "NONE"
    )


class ConsultarPermisos(BaseModel):
    articulos: list[int] = Field(
        default_factory=list,
        max_length=20,
        description="Artículos del DS 40 de los permisos (111 a 160), si se conocen («PAS 142» → 142).",
    )
    partes: dict[str, float | bool] = Field(
        default_factory=dict,
        description="Las partes u obras del proyecto, con los campos del motor: "
        + "; ".join(
            f"{campo}: {partes_de_la_faena.ETIQUETAS[campo]}" for campo in partes_de_la_faena.PAS_DE_CAMPO
        )
        + ".",
    )
    tipo: Tipo | None = Field(
        default=None, description="Tipo de proyecto, si se sabe (una mina trae el PAS 137)."
    )
    proyecto_id: int | None = Field(
        default=None, description="Un proyecto del usuario: los permisos que traen sus partes guardadas."
    )
    consulta: str = Field(
        default="",
        max_length=300,
        description="La obra o actividad en palabras, si no es ninguna de `partes`.",
    )


@herramienta(
    permiso=puede_consultar,
    ttl_s=TTL_PROYECTO,
    grupo_cache=grupo_proyecto,
    disponible=hay_corpus,
    actividad="Revisando los permisos ambientales sectoriales…",
)
def consultar_permisos(entrada: ConsultarPermisos, ctx: Contexto) -> dict[str, Any]:
    """Permisos ambientales sectoriales (PAS, Título VII del DS 40) del catálogo leído del reglamento: el
    artículo que establece cada uno, su nombre, su clase (mixto o únicamente ambiental), el requisito para
    su otorgamiento, sus contenidos, la guía trámite del SEA y el órgano que revisa sus contenidos cuando
    el corpus los trae; y la parte del proyecto que lo trae. Úsela cuando pregunten qué permiso necesita
    una parte u obra (depósito de relaves, bodega de residuos peligrosos, planta de aguas servidas, captura
    de fauna, obras en un cauce…) o qué permisos necesita un proyecto (`proyecto_id`, o sus `partes`).
    Responda con el artículo del permiso primero y su requisito; los arts. 107 y 108 (qué es un PAS en
    general) no responden por un permiso."""
    advertencias: list[str] = []
    if entrada.proyecto_id is not None:
        permisos, umbrales, advertencias, origen = _permisos_del_proyecto(entrada.proyecto_id, ctx)
    elif entrada.articulos:
        permisos, umbrales, origen = _permisos_del_catalogo(entrada.articulos), [], "articulos"
    elif entrada.partes or entrada.tipo:
        try:
            componentes = validar_componentes(entrada.partes)
        except EntradaInvalida as error:
            raise ErrorDeHerramienta(str(error)) from None
        del_las_partes = permisos_de(tipo=entrada.tipo or "", componentes=componentes)
        permisos, umbrales, advertencias = (
            del_las_partes.permisos,
            del_las_partes.umbrales,
            del_las_partes.advertencias,
        )
        origen = "partes"
    elif entrada.consulta.strip():
        permisos, umbrales, origen = (
            _permisos_del_catalogo(_articulos_buscados(entrada.consulta)),
            [],
            "busqueda",
        )
    else:
        raise ErrorDeHerramienta(
            "Indique el artículo del permiso, las partes del proyecto, el proyecto o la obra."
        )
    fuentes: list[Fuente] = []
    for permiso in permisos:
        for f in permiso["fundamento"]:
            fuente = fuente_de_fundamento(f)
            if f["fragmento_id"] and fuente not in fuentes:
                fuentes.append(fuente)
    return {
        "origen": origen,
        "permisos": [_permiso_para_el_modelo(p) for p in permisos],
        "umbrales": umbrales,
        "advertencias": advertencias,
        "fuentes": fuentes,
    }


def _permisos_del_proyecto(
    proyecto_id: int, ctx: Contexto
) -> tuple[list[PermisoAplicable], list[Any], list[str], str]:
    """Los permisos del proyecto según sus datos guardados (con sus capas, si tiene polígono)."""
    proyecto = proyecto_visible(proyecto_id, None, ctx)
    try:
        validada = validar_entrada(proyectos.proyecto_como_entrada(proyecto), exigir_cantidades=False)
    except EntradaInvalida as error:
        raise ErrorDeHerramienta(
            f"El proyecto #{proyecto.pk} tiene datos que el motor no acepta: {error}"
        ) from None
    resultado = evaluar_entrada(validada, espacial=validada.geometria is not None)
    advertencias = [a for a in resultado["advertencias"] if "permiso" in a or "Art. 107" in a]
    return resultado.get("permisos", []), resultado.get("umbrales_permisos", []), advertencias, "proyecto"


def _permisos_del_catalogo(numeros: list[int]) -> list[PermisoAplicable]:
    """Los permisos de esos artículos, del catálogo, en el orden pedido (sin partes que los traigan)."""
    catalogo = permisos_del_catalogo(numeros)
    presentes = [n for n in dict.fromkeys(numeros) if n in catalogo]
    referencias = [fundamentos.Referencia(NORMA_DE_LOS_PAS, str(n), clave="otorgamiento") for n in presentes]
    citas = fundamentos.resolver(referencias)
    return [
        {
            "articulo": str(n),
            "nombre": catalogo[n]["nombre"],
            "tipo": catalogo[n]["tipo"],
            "tipo_nombre": catalogo[n]["tipo_nombre"],
            "partes": [],
            "requisito": catalogo[n]["requisito"],
            "organo": catalogo[n]["organo"],
            "guia": catalogo[n]["guia"],
            "guia_url": catalogo[n]["guia_url"],
            "condicion": "",
            "fundamento": [cita],
        }
        for n, cita in zip(presentes, citas, strict=True)
    ]


def _articulos_buscados(consulta: str) -> list[int]:
    """El PAS cuyo artículo la búsqueda pone primero para una obra dicha en palabras."""
    catalogo = permisos_del_catalogo()
    busqueda = corpus.buscar_normativa(consulta=consulta, top_k=8, normas=[NORMA_DE_LOS_PAS])
    articulos = [
        int(r.articulo) for r in busqueda.resultados if r.articulo.isdigit() and int(r.articulo) in catalogo
    ]
    return articulos[:1]


def _permiso_para_el_modelo(p: PermisoAplicable) -> dict[str, Any]:
    """El permiso sin su fundamento repetido (las citas van en «fuentes»)."""
    return {clave: valor for clave, valor in p.items() if clave != "fundamento"}
