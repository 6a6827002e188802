"""Redacción de la respuesta sin modelo: primero lo que responde, con su fundamento, y pocas fuentes.

La búsqueda entrega, por fragmento, la oración que mejor responde (la de los días, el umbral, la
condición). La respuesta son esas oraciones, cada una con su [n], de a lo más tres fuentes de
artículos distintos: la mejor primero y luego ley, reglamento y guías, en ese orden.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from asistente.registro import Fuente
from config.texto import sin_tildes
from proyectos.analisis.fundamentos import ARTICULO_REGLAMENTO as ARTICULO_DEL_REGLAMENTO
from proyectos.analisis.fundamentos import SOLO_LEY

MAXIMO_FUENTES = 3
MAXIMO_FUENTES_A_PEDIDO = 6
CANDIDATAS = 4  # las fuentes que acompañan a la primera salen de los primeros cuatro artículos
_PIDE_MAS = re.compile(r"\b(mas|todas las|otras) (fuentes|citas|referencias)\b|\bcita(r|me)? todo\b")
_ORDEN_NORMA = {"ley": 0, "decreto": 1, "guia": 2}


def cuantas_fuentes(pregunta: str) -> int:
    """Tres fuentes; más solo si la pregunta las pide («muéstrame más fuentes»)."""
    return MAXIMO_FUENTES_A_PEDIDO if _PIDE_MAS.search(sin_tildes(pregunta)) else MAXIMO_FUENTES


def elegir_fuentes(fuentes: list[Fuente], *, maximo: int = MAXIMO_FUENTES) -> list[Fuente]:
    """La mejor fuente y, de los artículos siguientes, una fuente por artículo; ley, reglamento y
    guías. Varias letras de un mismo artículo cuentan como un artículo: no dejan fuera a los otros."""
    if not fuentes:
        return []
    primera = fuentes[0]
    elegidas: list[Fuente] = []
    vistos = {_articulo(primera)}
    for fuente in fuentes[1:]:
        if len(elegidas) + 1 >= maximo or len(vistos) >= max(CANDIDATAS, maximo):
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
            lineas.append(f"Según {_nombre(fuente)}{_epigrafe(fuente)}: «{oracion}» [{numero}]")
        elif _tipo(fuente) == "guia":
            lineas.append(f"La {_nombre(fuente)} (guía del SEA) orienta: «{oracion}» [{numero}]")
        else:
            lineas.append(f"En relación con lo anterior, {_nombre(fuente)}: «{oracion}» [{numero}]")
    return "\n\n".join(lineas)


def _epigrafe(fuente: Fuente) -> str:
    """« (Consulta de pertinencia de ingreso)»: el nombre de la institución que el artículo regula,
    si el artículo lo trae y la oración citada no lo repite."""
    epigrafe = fuente.get("epigrafe", "")
    if not epigrafe or sin_tildes(epigrafe).lower() in sin_tildes(fuente["extracto"]).lower():
        return ""
    return f" ({epigrafe})"


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
    """El artículo de la fuente; las secciones de una misma guía cuentan como una sola fuente."""
    return (fuente["norma"], fuente["articulo"])


# --- proyecto descrito ------------------------------------------------------------------------

_VIA = {
    "DIA": "ingresa al SEIA y se evalúa mediante una **Declaración de Impacto Ambiental (DIA)**",
    "EIA": "ingresa al SEIA y se evalúa mediante un **Estudio de Impacto Ambiental (EIA)**",
    "NO_INGRESA": "**no ingresa al SEIA** por la letra i) del Art. 10 de la Ley 19.300",
}


def redactar_evaluacion(
    resultado: dict[str, Any],
    *,
    supuestos: Sequence[str] = (),
    dichas: Mapping[str, str] | None = None,
) -> tuple[str, list[Fuente]]:
    """La respuesta a un proyecto descrito, desde el resultado de `evaluar_proyecto`: la vía primero,
    las cuentas hechas para llegar a las unidades del motor (`supuestos`), el literal y cada cantidad
    frente a su umbral, los efectos del Art. 11 (con la frase del usuario que declaró cada uno:
    `dichas`, circunstancia → frase) y lo que falta y podría cambiar el resultado. Devuelve el texto y
    las fuentes en el orden de sus [n]."""
    dichas = dichas or {}
    fuentes: list[Fuente] = []

    def marca(*referencias: tuple[str, str, str]) -> str:
        marcas = []
        for norma, articulo, letra in referencias:
            fuente = next(
                (
                    f
                    for f in resultado["fuentes"]
                    if (f["norma"], f["articulo"], f["letra"] or "") == (norma, articulo, letra)
                ),
                None,
            )
            if fuente is None:
                continue
            if fuente not in fuentes:
                fuentes.append(fuente)
            marcas.append(f"[{fuentes.index(fuente) + 1}]")
        return (" " + "".join(marcas)) if marcas else ""

    clasificacion = resultado["clasificacion"]
    lugar = ", ".join(x for x in (resultado.get("comuna"), resultado.get("region")) if x)
    parrafos = [f"Con los datos que indica ({lugar}), el proyecto {_VIA[clasificacion]}."]
    if supuestos:
        parrafos.append("Cuentas hechas con sus datos: " + "; ".join(supuestos) + ".")
    umbrales = resultado.get("umbrales", [])
    causas = list(dict.fromkeys(t["tipologia"] for t in resultado.get("tipologias", [])))
    if len(causas) > 1:
        parrafos.append(f"Ingresa por {len(causas)} causas (basta una): {', '.join(causas)}.")
    for literal in dict.fromkeys(u["literal"] for u in umbrales):
        del_literal = [u for u in umbrales if u["literal"] == literal]
        cumplidos = [u["texto"] for u in del_literal if u["cumple"]]
        letra = literal.split(".")[0]
        # «literal i.1», pero «letra j)»: una letra del Art. 3 sin literales se cita como letra.
        nombre = f"del literal {literal}" if "." in literal else f"de la letra {literal})"
        referencias = marca(("Ley 19.300", "10", letra), ("DS 40", "3", literal))
        if literal in SOLO_LEY:  # la letra s) de la ley no tiene literal en el DS 40 de 2014
            parrafos.append(
                f"Alcanza la letra {literal}) del Art. 10 de la Ley 19.300: {'; '.join(cumplidos)}"
                f"{marca(('Ley 19.300', '10', literal))}."
            )
            continue
        if cumplidos:
            parrafos.append(
                f"Alcanza la tipología {nombre} del Art. 3 del DS 40 (letra {letra}) del "
                f"Art. 10 de la Ley 19.300): {'; '.join(cumplidos)}{referencias}."
            )
        else:
            textos = "; ".join(u["texto"] for u in del_literal)
            parrafos.append(
                f"No alcanza el umbral {nombre} del Art. 3 del DS 40 (letra {letra}) del "
                f"Art. 10 de la Ley 19.300): {textos}{referencias}."
            )
    con_umbral = {u["literal"] for u in umbrales}
    for tipologia in resultado.get("tipologias", []):
        literal = tipologia["tipologia"]
        if literal in con_umbral:
            continue  # ya dicha con su umbral
        letra = literal.split(".")[0]
        referencias = marca(("Ley 19.300", "10", letra), ("DS 40", "3", literal))
        parrafos.append(
            f"Ingresa por la letra {letra}) del Art. 10 de la Ley 19.300: {tipologia['motivo']}{referencias}."
        )
    if clasificacion == "EIA":
        letras = sorted({t["letra"] for t in resultado["triggers"]})
        referencias = marca(*(("Ley 19.300", "11", letra) for letra in letras))
        parrafos.append(
            f"Presenta efectos del Art. 11 de la Ley 19.300, letra(s) {', '.join(letras)}), que obligan a "
            f"un EIA{referencias}."
        )
        for efecto in resultado["triggers"]:
            circunstancia = (efecto.get("evidencia") or {}).get("circunstancia", "")
            if circunstancia in dichas:
                articulo = ARTICULO_DEL_REGLAMENTO[efecto["letra"]]
                parrafos.append(
                    f"- Lo que usted indicó, «{dichas[circunstancia]}», es la letra {efecto['letra']}) del "
                    f"Art. 11: {_oracion(efecto['descripcion'])}; la desarrolla el Art. {articulo} del "
                    f"DS 40{marca(('Ley 19.300', '11', efecto['letra']), ('DS 40', articulo, ''))}."
                )
    elif clasificacion == "DIA":
        parrafos.append(
            "No se indicaron efectos, características o circunstancias del Art. 11 de la Ley 19.300; sin "
            f"ellos, el ingreso es por DIA{marca(('DS 40', '4', ''))}."
        )
    else:
        parrafos.append(
            "Si hay dudas sobre las cantidades o el proyecto cambia, puede consultar la pertinencia de "
            f"ingreso al SEA{marca(('DS 40', '26', ''))}."
        )
    if clasificacion == "NO_INGRESA":
        for alerta in resultado.get("alertas", []):
            circunstancia = (alerta.get("evidencia") or {}).get("circunstancia", "")
            if circunstancia in dichas:
                parrafos.append(f"Sobre lo que indicó, «{dichas[circunstancia]}»: {alerta['mensaje']}")
    if permisos := resultado.get("permisos"):
        lista = "; ".join(
            f"Art. {p['articulo']} ({', '.join(parte.partition(' (')[0] for parte in p['partes'])})"
            f"{marca(('DS 40', p['articulo'], ''))}"
            for p in permisos
        )
        parrafos.append(f"Permisos ambientales sectoriales que traen sus partes: {lista}.")
    pendientes = [a for a in resultado["advertencias"] if "pertinencia" not in a]
    if pendientes:
        parrafos.append("Lo que podría cambiar el resultado:\n" + "\n".join(f"- {a}" for a in pendientes))
    return "\n\n".join(parrafos), fuentes
