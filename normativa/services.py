"""Curaduría del corpus desde el admin: corregir, retirar, restaurar y volver a embeber fragmentos."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from normativa.embeddings import embeber_pasajes
from normativa.indice import (
    actualizar_texto_completo,
    estadisticas_refrescar,
    hash_texto,
    oraciones_asignar,
    texto_para_embeber,
)
from normativa.models import FragmentoLegal


@transaction.atomic
def fragmento_actualizar_texto(*, fragmento: FragmentoLegal, texto: str) -> FragmentoLegal:
    """Corrige el texto de un fragmento (curaduría) y recalcula su embedding y su índice de texto."""
    fragmento.texto = texto.strip()
    fragmento.hash_contenido = hash_texto(texto_para_embeber(fragmento))
    (vector,), _ = embeber_pasajes([texto_para_embeber(fragmento)])
    fragmento.embedding = vector
    oraciones_asignar([fragmento])
    fragmento.save()
    actualizar_texto_completo(ids=[fragmento.pk])
    estadisticas_refrescar()
    return fragmento


def fragmentos_eliminar(*, ids: list[int]) -> int:
    """Borrado lógico: dejan de buscarse (y de contar en BM25) pero se conservan para restaurarlos."""
    cantidad = FragmentoLegal.todos.filter(pk__in=ids, eliminado_at__isnull=True).update(
        eliminado_at=timezone.now()
    )
    estadisticas_refrescar()
    return cantidad


def fragmentos_restaurar(*, ids: list[int]) -> int:
    """Devuelve a la búsqueda fragmentos eliminados."""
    cantidad = FragmentoLegal.todos.filter(pk__in=ids, eliminado_at__isnull=False).update(eliminado_at=None)
    estadisticas_refrescar()
    return cantidad


def fragmentos_reembeber(*, ids: list[int]) -> int:
    """Recalcula los embeddings de los fragmentos indicados (acción de administración)."""
    fragmentos = list(FragmentoLegal.todos.filter(pk__in=ids))
    vectores, _ = embeber_pasajes([texto_para_embeber(f) for f in fragmentos])
    for fragmento, vector in zip(fragmentos, vectores, strict=True):
        fragmento.embedding = vector
    FragmentoLegal.todos.bulk_update(fragmentos, ["embedding"])
    return len(fragmentos)
