"""Filtrar por muchos ids con un solo parámetro: `filter(pk__en_arreglo=ids)`.

`filter(pk__in=[…])` manda un parámetro por id: con cientos de candidatos, armar la consulta y
partirla para los parámetros (psycopg, del lado del cliente) costaba más que ejecutarla. Un arreglo
de PostgreSQL es un parámetro, y con `= ANY(arreglo)` el planificador sabe cuántos son y lee por el
índice (con `IN (SELECT unnest(…))` suponía 200 y recorría la tabla entera).
"""

from __future__ import annotations

from typing import Any

from django.db.models import IntegerField, Lookup


class EnArreglo(Lookup):
    lookup_name = "en_arreglo"

    def get_prep_lookup(self) -> list[int]:
        return [int(valor) for valor in self.rhs]

    def as_sql(self, compiler: Any, connection: Any) -> tuple[str, list[Any]]:  # type: ignore[override]
        lhs, parametros = self.process_lhs(compiler, connection)
        return f"{lhs} = ANY(%s::bigint[])", [*parametros, self.rhs]


def registrar() -> None:
    """Lo llama `NormativaConfig.ready`: desde entonces toda clave entera acepta `__en_arreglo`."""
    IntegerField.register_lookup(EnArreglo)
