"""El periodo que un mensaje nombra en palabras, para listar o contar proyectos por fecha de creación:
«desde marzo de 2024», «entre 2021 y 2024», «del 01-03-2024 al 30-06-2024», «en 2025», «los últimos
6 meses», «este año». Un punto de inicio es el primer día de lo nombrado y uno de término, el último."""

from __future__ import annotations

import calendar
import re
from datetime import date

from config.fechas import meses_despues
from config.texto import sin_tildes

MESES = {
    "enero": 1, "febrero": 2, "marzo": 3, "abril": 4, "mayo": 5, "junio": 6, "julio": 7, "agosto": 8,
    "septiembre": 9, "setiembre": 9, "octubre": 10, "noviembre": 11, "diciembre": 12,
}  # fmt: skip
_MES = "|".join(MESES)
# Una fecha: «01-03-2024», «1/3/2024», «marzo de 2024», «marzo 2024» o «2024».
_FECHA = (
    rf"(?:\d{{1,2}}[-/]\d{{1,2}}[-/](?:19|20)\d\d|(?:{_MES})(?:\s+de(?:l)?)?\s+(?:19|20)\d\d|(?:19|20)\d\d)"
)
_ENTRE = re.compile(
    rf"\b(?:entre|del?)\s+(?:el\s+|(?:el\s+)?ano\s+)?({_FECHA})\s+(?:y|al|hasta)\s+(?:el\s+)?({_FECHA})"
)
_DESDE = re.compile(rf"\b(?:desde|a partir de)\s+(?:el\s+|(?:el\s+)?ano\s+)?({_FECHA})")
_HASTA = re.compile(rf"\b(?:hasta|antes de)\s+(?:el\s+|(?:el\s+)?ano\s+)?({_FECHA})")
_EN = re.compile(rf"\b(?:en|de|durante|del)\s+(?:el\s+)?(?:ano\s+)?({_FECHA})\b")
_ULTIMOS = re.compile(r"\b(?:los |las )?ultim[oa]s\s+(\d{1,3})\s+(dias|semanas|meses|anos)\b")
_ESTE = re.compile(r"\beste (ano|mes)\b")


def periodo_de(texto: str, hoy: date) -> tuple[date | None, date | None]:
    """(desde, hasta) que nombra el texto; (None, None) si no nombra ninguno."""
    plano = " ".join(sin_tildes(texto).split())
    if m := _ENTRE.search(plano):
        return _inicio(m.group(1)), _fin(m.group(2))
    if m := _ULTIMOS.search(plano):
        cantidad, unidad = int(m.group(1)), m.group(2)
        if unidad in ("dias", "semanas"):
            return date.fromordinal(hoy.toordinal() - cantidad * (7 if unidad == "semanas" else 1)), None
        return meses_despues(hoy, -cantidad * (12 if unidad == "anos" else 1)), None
    if m := _ESTE.search(plano):
        return (date(hoy.year, 1, 1) if m.group(1) == "ano" else hoy.replace(day=1)), None
    desde = _inicio(m.group(1)) if (m := _DESDE.search(plano)) else None
    hasta = _fin(m.group(1)) if (m := _HASTA.search(plano)) else None
    if desde or hasta:
        return desde, hasta
    if m := _EN.search(plano):
        return _inicio(m.group(1)), _fin(m.group(1))
    return None, None


def _partes(fecha: str) -> tuple[int, int | None, int | None]:
    """Año, mes y día de una fecha nombrada (mes y día None si no los dice)."""
    if m := re.fullmatch(r"(\d{1,2})[-/](\d{1,2})[-/](\d{4})", fecha):
        return int(m.group(3)), int(m.group(2)), int(m.group(1))
    anio = int(fecha[-4:])
    mes = next((numero for nombre, numero in MESES.items() if fecha.startswith(nombre)), None)
    return anio, mes, None


def _inicio(fecha: str) -> date | None:
    anio, mes, dia = _partes(fecha)
    try:
        return date(anio, mes or 1, dia or 1)
    except ValueError:
        return None


def _fin(fecha: str) -> date | None:
    anio, mes, dia = _partes(fecha)
    mes = mes or 12
    try:
        return date(anio, mes, dia or calendar.monthrange(anio, mes)[1])
    except ValueError:
        return None
