"""Redacción de la respuesta sin modelo: primero lo que responde, con su fundamento, y pocas fuentes.

La búsqueda entrega, por fragmento, la oración que mejor responde (la de los días, el umbral, la
condición). La respuesta son esas oraciones, cada una con su [n], de a lo más tres fuentes de
artículos distintos: la mejor primero y luego ley, reglamento y guías, en ese orden.
"""

from __future__ import annotations

import re

from asistente.registro import Fuente
from config.texto import sin_tildes

MAXIMO_FUENTES = 3
MAXIMO_FUENTES_A_PEDIDO = 6
CANDIDATAS = 4  # las fuentes que acompañan a la primera salen de las primeras cuatro
_PIDE_MAS = re.compile(r"\b(mas|todas las|otras) (fuentes|citas|referencias)\b|\bcita(r|me)? todo\b")
_ORDEN_NORMA = {"ley": 0, "decreto": 1, "guia": 2}


def cuantas_fuentes(pregunta: str) -> int:
    """Tres fuentes; más solo si la pregunta las pide («muéstrame más fuentes»)."""
    return MAXIMO_FUENTES_A_PEDIDO if _PIDE_MAS.search(sin_tildes(pregunta)) else MAXIMO_FUENTES


def elegir_fuentes(fuentes: list[Fuente], *, maximo: int = MAXIMO_FUENTES) -> list[Fuente]:
    """La mejor fuente y, de las siguientes, las de otros artículos; ley, reglamento y guías."""
    if not fuentes:
        return []
    primera = fuentes[0]
    elegidas: list[Fuente] = []
    vistos = {_articulo(primera)}
    for fuente in fuentes[1 : max(CANDIDATAS, maximo + 1)]:
        if len(elegidas) + 1 >= maximo:
            break
        if _articulo(fuente) in vistos:
            continue
        vistos.add(_articulo(fuente))
        elegidas.append(fuente)
    elegidas.sort(key=lambda f: _ORDEN_NORMA.get(_tipo(f), 3))
    return [primera, *elegidas]


def redactar(fuentes: list[Fuente]) -> str:
    """Una oración por fuente, textual y con su marcador: la primera responde, las otras la apoyan."""
    lineas = []
    for numero, fuente in enumerate(fuentes, start=1):
        oracion = _oracion(fuente["extracto"])
        if numero == 1:
            lineas.append(f"Según {_nombre(fuente)}: «{oracion}» [{numero}]")
        elif _tipo(fuente) == "guia":
            lineas.append(f"La {_nombre(fuente)} (guía del SEA) orienta: «{oracion}» [{numero}]")
        else:
            lineas.append(f"En relación con lo anterior, {_nombre(fuente)}: «{oracion}» [{numero}]")
    return "\n\n".join(lineas)


def _oracion(extracto: str) -> str:
    return " ".join(extracto.split()).rstrip(" .;:")


def _nombre(fuente: Fuente) -> str:
    """«la Ley 19.300, Art. 27», «el DS 40, Art. 50», «Guía SEA PAS 137 › …»."""
    cita = fuente["cita"]
    if fuente["norma"].startswith("Ley"):
        return f"la {cita}"
    if fuente["norma"].startswith("DS"):
        return f"el {cita}"
    return cita


def _tipo(fuente: Fuente) -> str:
    norma = fuente["norma"]
    if norma.startswith("Ley"):
        return "ley"
    if norma.startswith(("DS", "Decreto")):
        return "decreto"
    return "guia"


def _articulo(fuente: Fuente) -> tuple[str, str]:
    return (fuente["norma"], fuente["articulo"] or fuente["cita"])
