"""Redacción sin modelo de un proyecto descrito en el chat: la vía primero, las cuentas hechas, cada
cantidad frente a su umbral, los efectos del Art. 11 con la frase del usuario, los permisos que traen sus
partes y lo que podría cambiar el resultado."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from asistente.motores.redaccion import oracion_de
from asistente.registro import Fuente
from config.seia import ARTICULO_REGLAMENTO as ARTICULO_DEL_REGLAMENTO
from config.seia import SOLO_LEY
from proyectos.analisis.permisos import POR_TIPO


def _partes_sin_repetir(partes: Sequence[str]) -> list[str]:
    """Las partes que traen un permiso, sin su motivo y una vez cada una (el muro y el volumen de un mismo
    tranque traen el Art. 155 por la misma obra)."""
    return list(dict.fromkeys(parte.partition(" (")[0] for parte in partes))


def permisos_de_las_partes(permisos: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Los permisos sin las partes que trae solo el tipo del proyecto («la faena minera … (tipo de
    proyecto)»): para un proyecto dicho solo por sus partes, el tipo con que se evaluó no es suyo."""
    propios = []
    for permiso in permisos:
        partes = [parte for parte in permiso["partes"] if not parte.endswith(f"({POR_TIPO})")]
        if partes:
            propios.append({**permiso, "partes": partes})
    return propios


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
    no_leidas: Sequence[str] = (),
    sin_efecto: Sequence[str] = (),
) -> tuple[str, list[Fuente]]:
    """La respuesta a un proyecto descrito, desde el resultado de `evaluar_proyecto`: la vía primero,
    las cuentas hechas para llegar a las unidades del motor (`supuestos`), el literal y cada cantidad
    frente a su umbral, los efectos del Art. 11 (con la frase del usuario que declaró cada uno:
    `dichas`, circunstancia → frase), lo que falta y podría cambiar el resultado, las cantidades que no se
    pudieron leer (`no_leidas`: con ellas no se descarta el ingreso), las que no cambian que ingrese
    (`sin_efecto`: el volumen de una extracción de turba, que ingresa cualquiera sea) y qué tan seguro es.
    Devuelve el texto y las fuentes en el orden de sus [n]."""
    marca = _Marcas(resultado["fuentes"])
    dichas = dichas or {}
    clasificacion = resultado["clasificacion"]
    parrafos = [_la_via(resultado, no_leidas=bool(no_leidas))]
    if supuestos:
        parrafos.append("Cuentas hechas con sus datos: " + "; ".join(supuestos) + ".")
    causas = list(dict.fromkeys(t["tipologia"] for t in resultado.get("tipologias", [])))
    if len(causas) > 1:
        parrafos.append(f"Ingresa por {len(causas)} causas (basta una): {', '.join(causas)}.")
    parrafos += _literales(resultado, marca)
    parrafos += _efectos(resultado, dichas, marca)
    if sin_efecto:
        parrafos.append(
            f"Lo que indica ({', '.join(f'«{c}»' for c in sin_efecto)}) no cambia que ingrese: basta una "
            "causa de ingreso para ello."
        )
    if permisos := resultado.get("permisos"):
        lista = "; ".join(
            f"Art. {p['articulo']} ({', '.join(_partes_sin_repetir(p['partes']))})"
            f"{marca(('DS 40', p['articulo'], ''))}"
            for p in permisos
        )
        parrafos.append(f"Permisos ambientales sectoriales que traen sus partes: {lista}.")
    pendientes = [a for a in resultado["advertencias"] if "pertinencia" not in a]
    if no_leidas:
        pendientes.insert(
            0,
            "No pude leer como parte del proyecto: "
            + ", ".join(f"«{c}»" for c in no_leidas)
            + ". Si alguna es una parte de la faena (una bodega, un estanque, una obra), dígala con su "
            "nombre y su unidad: puede cambiar el resultado.",
        )
    if pendientes:
        parrafos.append("Lo que podría cambiar el resultado:\n" + "\n".join(f"- {a}" for a in pendientes))
    if no_leidas:
        seguridad = "medianamente; hay cantidades de su mensaje que no pude leer"
    elif resultado.get("sin_cantidad_del_tipo") and clasificacion == "NO_INGRESA":
        seguridad = "medianamente; falta la capacidad de la faena"
    else:
        seguridad = (
            "bastante; la vía sale del motor con las cantidades que usted dio, frente a los umbrales del "
            "reglamento"
        )
    parrafos.append(f"_Qué tan seguro estoy: {seguridad}._")
    return "\n\n".join(parrafos), marca.fuentes


class _Marcas:
    """Las marcas [n] de las citas, numeradas en el orden en que la respuesta las usa."""

    def __init__(self, disponibles: Sequence[Fuente]) -> None:
        self.disponibles = disponibles
        self.fuentes: list[Fuente] = []

    def __call__(self, *referencias: tuple[str, str, str]) -> str:
        marcas = []
        for norma, articulo, letra in referencias:
            fuente = next(
                (
                    f
                    for f in self.disponibles
                    if (f["norma"], f["articulo"], f["letra"] or "") == (norma, articulo, letra)
                ),
                None,
            )
            if fuente is None:
                continue
            if fuente not in self.fuentes:
                self.fuentes.append(fuente)
            marcas.append(f"[{self.fuentes.index(fuente) + 1}]")
        return (" " + "".join(marcas)) if marcas else ""


def _la_via(resultado: dict[str, Any], *, no_leidas: bool) -> str:
    """La primera oración: la vía, o por qué no se puede descartar el ingreso."""
    clasificacion = resultado["clasificacion"]
    lugar = ", ".join(x for x in (resultado.get("comuna"), resultado.get("region")) if x)
    if clasificacion == "NO_INGRESA" and resultado.get("sin_cantidad_del_tipo"):
        return (
            f"Con las partes que describe ({lugar}), ninguna hace ingresar el proyecto al SEIA; pero no "
            "indicó la capacidad de la faena, así que no puedo descartar que ingrese por ella."
        )
    if clasificacion == "NO_INGRESA" and no_leidas:
        return (
            f"Con lo que pude leer de su mensaje ({lugar}), el proyecto {_VIA[clasificacion]}; pero hay "
            "cantidades que no pude leer, así que no puedo descartar que ingrese por otra letra."
        )
    return f"Con los datos que indica ({lugar}), el proyecto {_VIA[clasificacion]}."


def _literales(resultado: dict[str, Any], marca: _Marcas) -> list[str]:
    """Cada literal frente a su umbral —primero los que hacen ingresar (son la respuesta), después los que
    no alcanza— y las tipologías sin umbral."""
    parrafos = []
    umbrales = resultado.get("umbrales", [])
    literales = list(dict.fromkeys(u["literal"] for u in umbrales))
    alcanzados = {u["literal"] for u in umbrales if u["cumple"]}
    for literal in sorted(literales, key=lambda x: x not in alcanzados):
        del_literal = [u for u in umbrales if u["literal"] == literal]
        cumplidos = [u["texto"] for u in del_literal if u["cumple"]]
        letra = literal.split(".")[0]
        # «literal i.1», pero «letra j)»: una letra del Art. 3 sin literales se cita como letra.
        nombre = f"del literal {literal}" if "." in literal else f"de la letra {literal})"
        if literal in SOLO_LEY:  # la letra s) de la ley no tiene literal en el DS 40 de 2014
            parrafos.append(
                f"Alcanza la letra {literal}) del Art. 10 de la Ley 19.300: {'; '.join(cumplidos)}"
                f"{marca(('Ley 19.300', '10', literal))}."
            )
            continue
        referencias = marca(("Ley 19.300", "10", letra), ("DS 40", "3", literal))
        if cumplidos:
            parrafos.append(
                f"Alcanza la tipología {nombre} del Art. 3 del DS 40 (letra {letra}) del "
                f"Art. 10 de la Ley 19.300): {'; '.join(cumplidos)}{referencias}."
            )
        else:
            textos = "; ".join(u["texto"] for u in del_literal)
            exige = "; ".join(f"«{c}»" for c in del_literal[0].get("exige", ()))
            dice = f", que exige {exige}" if exige else ""
            parrafos.append(
                f"No alcanza el umbral {nombre} del Art. 3 del DS 40{dice} (letra {letra}) del "
                f"Art. 10 de la Ley 19.300): {textos}{referencias}."
            )
    for tipologia in resultado.get("tipologias", []):
        literal = tipologia["tipologia"]
        if literal in literales:
            continue  # ya dicha con su umbral
        letra = literal.split(".")[0]
        referencias = marca(("Ley 19.300", "10", letra), ("DS 40", "3", literal))
        parrafos.append(
            f"Ingresa por la letra {letra}) del Art. 10 de la Ley 19.300: {tipologia['motivo']}{referencias}."
        )
    return parrafos


def _efectos(resultado: dict[str, Any], dichas: Mapping[str, str], marca: _Marcas) -> list[str]:
    """Por qué esa vía: los efectos del Art. 11 (con la frase del usuario que declaró cada uno), su
    ausencia, o la consulta de pertinencia y lo que el usuario indicó si no ingresa."""
    clasificacion = resultado["clasificacion"]
    if clasificacion == "DIA":
        return [
            "No se indicaron efectos, características o circunstancias del Art. 11 de la Ley 19.300; sin "
            f"ellos, el ingreso es por DIA{marca(('DS 40', '4', ''))}."
        ]
    if clasificacion == "NO_INGRESA":
        parrafos = [
            "Si hay dudas sobre las cantidades o el proyecto cambia, puede consultar la pertinencia de "
            f"ingreso al SEA{marca(('DS 40', '26', ''))}."
        ]
        for alerta in resultado.get("alertas", []):
            circunstancia = (alerta.get("evidencia") or {}).get("circunstancia", "")
            if circunstancia in dichas:
                parrafos.append(f"Sobre lo que indicó, «{dichas[circunstancia]}»: {alerta['mensaje']}")
        return parrafos
    letras = sorted({t["letra"] for t in resultado["triggers"]})
    referencias = marca(*(("Ley 19.300", "11", letra) for letra in letras))
    parrafos = [
        f"Presenta efectos del Art. 11 de la Ley 19.300, letra(s) {', '.join(letras)}), que obligan a "
        f"un EIA{referencias}."
    ]
    for efecto in resultado["triggers"]:
        circunstancia = (efecto.get("evidencia") or {}).get("circunstancia", "")
        if circunstancia in dichas:
            articulo = ARTICULO_DEL_REGLAMENTO[efecto["letra"]]
            parrafos.append(
                f"- Lo que usted indicó, «{dichas[circunstancia]}», es la letra {efecto['letra']}) del "
                f"Art. 11: {oracion_de(efecto['descripcion'])}; la desarrolla el Art. {articulo} del "
                f"DS 40{marca(('Ley 19.300', '11', efecto['letra']), ('DS 40', articulo, ''))}."
            )
    return parrafos
