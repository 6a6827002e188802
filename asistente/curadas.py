"""Respuestas curadas: servirlas cuando la pregunta coincide, cargar las que trae el repositorio y
pasarlas a «revisar» cuando cambia la ley en que descansan.

Coincidencia: la pregunta y cada formulación se comparan normalizadas (minúsculas, sin tildes ni
puntuación) con `token_sort_ratio` de rapidfuzz; se sirve la mejor si llega a `UMBRAL_COINCIDENCIA`.
Es deliberadamente estricto: una respuesta curada es la respuesta a *esa* pregunta, y una parecida
pero distinta («¿qué es una DIA?» frente a «¿qué es una DIA y cuánto dura?») debe ir a la búsqueda.
Medido en los cuatro conjuntos de evaluación (85 preguntas): ninguna coincide con una respuesta
curada que no le corresponda (ver `docs/busqueda_normativa.md`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.db import transaction
from rapidfuzz import fuzz

from asistente.models import Dominio, FuenteCurada, RespuestaCurada
from asistente.registro import Fuente
from config.texto import normalizar, texto_del
from normativa.models import FragmentoLegal, Norma, VersionNorma
from normativa.selectors import cita_de, url_de

UMBRAL_COINCIDENCIA = 90
INCLUIDAS = Path(__file__).resolve().parent / "curadas" / "respuestas.json"
LARGO_EXTRACTO = 400


def respuesta_curada_para(*, texto: str, dominio: Dominio | None) -> RespuestaCurada | None:
    """La respuesta curada vigente de este dominio (o de todos) que coincide con la pregunta."""
    buscada = normalizar(texto)
    if not buscada:
        return None
    candidatas = RespuestaCurada.objects.filter(estado=RespuestaCurada.Estado.VIGENTE)
    candidatas = candidatas.filter(dominio__isnull=True) | candidatas.filter(dominio=dominio)
    mejor, puntaje = None, 0.0
    for respuesta in candidatas:
        for formulacion in respuesta.formulaciones():
            valor = fuzz.token_sort_ratio(buscada, normalizar(formulacion))
            if valor > puntaje:
                mejor, puntaje = respuesta, valor
    return mejor if puntaje >= UMBRAL_COINCIDENCIA else None


def fuentes_de(respuesta: RespuestaCurada) -> list[Fuente]:
    """Las fuentes de la respuesta en el orden de sus marcadores [n]."""
    fuentes: list[Fuente] = []
    for fuente in respuesta.fuentes.select_related("fragmento__norma", "fragmento__version"):
        fragmento = fuente.fragmento
        texto = " ".join(fragmento.texto.split())
        fuentes.append(
            {
                "fragmento_id": fragmento.pk,
                "norma": fragmento.norma.sigla,
                "articulo": fragmento.articulo,
                "letra": fragmento.letra,
                "cita": cita_de(fragmento),
                "url": url_de(fragmento),
                "extracto": texto if len(texto) <= LARGO_EXTRACTO else texto[:LARGO_EXTRACTO] + " …",
                "advertencia": fragmento.version.advertencia,
                "vigencia": texto_del(f.isoformat() if (f := fragmento.version.fecha_version) else None),
            }
        )
    return fuentes


@transaction.atomic
def respuestas_curadas_revisar(*, norma: Norma, version: VersionNorma) -> list[RespuestaCurada]:
    """Tras una versión nueva de `norma`: cada fuente curada que apuntaba a un fragmento de una
    versión anterior pasa al fragmento equivalente de la nueva si su texto no cambió; si cambió o ya
    no existe, la respuesta pasa a «revisar» (y deja de servirse) con el motivo. Devuelve las que
    pasaron a «revisar»."""
    revisadas: dict[int, RespuestaCurada] = {}
    antiguas = FuenteCurada.objects.filter(fragmento__norma=norma).exclude(fragmento__version=version)
    for fuente in antiguas.select_related("respuesta", "fragmento__norma"):
        anterior = fuente.fragmento
        equivalentes = FragmentoLegal.objects.filter(
            version=version,
            articulo=anterior.articulo,
            letra=anterior.letra,
            transitorio=anterior.transitorio,
        )
        if not anterior.articulo:  # sección de una guía: la identifica su título
            equivalentes = equivalentes.filter(jerarquia=anterior.jerarquia)
        nuevo = equivalentes.first()
        if nuevo is not None and _mismo_texto(nuevo.texto, anterior.texto) and not nuevo.derogado:
            fuente.fragmento = nuevo
            fuente.save(update_fields=["fragmento"])
            continue
        respuesta = revisadas.setdefault(fuente.respuesta_id, fuente.respuesta)
        que = "se derogó" if nuevo is not None and nuevo.derogado else "cambió" if nuevo else "ya no está"
        fecha = version.fecha_version.strftime("%d-%m-%Y") if version.fecha_version else "nueva"
        motivo = f"{cita_de(anterior)} {que} en la versión del {fecha} de la BCN."
        respuesta.motivo_revision = "\n".join(filter(None, [respuesta.motivo_revision, motivo]))
    for respuesta in revisadas.values():
        respuesta.estado = RespuestaCurada.Estado.REVISAR
        respuesta.save(update_fields=["estado", "motivo_revision", "actualizado_at"])
    return list(revisadas.values())


def al_actualizarse_normativa(*, norma: Norma, version: VersionNorma, **_: Any) -> None:
    """Señal `normativa_actualizada` (detección de cambios en la BCN)."""
    respuestas_curadas_revisar(norma=norma, version=version)


@transaction.atomic
def respuestas_curadas_cargar(*, archivo: Path = INCLUIDAS) -> tuple[int, list[str]]:
    """Crea las respuestas curadas que trae el repositorio y aún no existen (por su pregunta); nunca
    sobrescribe lo que el personal editó. Devuelve cuántas creó y las que no pudo (una fuente que el
    corpus cargado no tiene)."""
    creadas, omitidas = 0, []
    for datos in json.loads(archivo.read_text(encoding="utf-8")):
        if RespuestaCurada.objects.filter(pregunta=datos["pregunta"]).exists():
            continue
        fragmentos = [_fragmento_vigente(f) for f in datos["fuentes"]]
        if any(f is None for f in fragmentos):
            omitidas.append(datos["pregunta"])
            continue
        respuesta = RespuestaCurada.objects.create(
            pregunta=datos["pregunta"], variantes="\n".join(datos.get("variantes", [])), texto=datos["texto"]
        )
        FuenteCurada.objects.bulk_create(
            FuenteCurada(respuesta=respuesta, fragmento=f, orden=n)
            for n, f in enumerate(fragmentos, start=1)
            if f is not None
        )
        creadas += 1
    return creadas, omitidas


def _fragmento_vigente(referencia: dict[str, str]) -> FragmentoLegal | None:
    return FragmentoLegal.objects.filter(
        norma__sigla=referencia["norma"],
        articulo=referencia["articulo"],
        letra=referencia.get("letra", ""),
        transitorio=False,
        version__vigente=True,
    ).first()


def _mismo_texto(uno: str, otro: str) -> bool:
    return " ".join(uno.split()) == " ".join(otro.split())
