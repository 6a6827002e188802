"""Filtrar por muchos ids con un solo parámetro.

`filter(pk__in=[…])` manda un parámetro por id: con cientos de candidatos, armar la consulta y
partirla para los parámetros (psycopg, del lado del cliente) costaba más que ejecutarla. Un arreglo
de PostgreSQL es un parámetro.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models.expressions import RawSQL


def en_arreglo(ids: Iterable[int]) -> RawSQL:
    """Para `filter(pk__in=en_arreglo(ids))`: los ids como un arreglo de enteros."""
    return RawSQL("SELECT unnest(%s::bigint[])", [list(ids)])
