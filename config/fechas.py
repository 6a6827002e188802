"""Aritmética de fechas por meses calendario (el periodo máximo de una lista, «los últimos 6 meses»)."""

from __future__ import annotations

import calendar
from datetime import date


def meses_despues(fecha: date, meses: int) -> date:
    """La misma fecha `meses` después (o antes, si es negativo); un día que el mes no tiene (el 31) pasa
    al último día del mes."""
    indice = fecha.year * 12 + fecha.month - 1 + meses
    anio, mes = divmod(indice, 12)
    return date(anio, mes + 1, min(fecha.day, calendar.monthrange(anio, mes + 1)[1]))
