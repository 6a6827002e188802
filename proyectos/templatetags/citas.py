"""`{{ fundamento.fecha_version|texto_del }}`: la fecha del texto citado junto a la cita («texto del
06-10-2014»)."""

from __future__ import annotations

from django import template

from config import texto

register = template.Library()


@register.filter
def texto_del(fecha_iso: str | None) -> str:
    return texto.texto_del(fecha_iso)
