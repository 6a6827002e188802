"""Redacción sin modelo de un proyecto descrito en el chat: en la primera oración la vía y por qué (la
cifra que alcanza su umbral, los efectos del Art. 11 con la frase del usuario), luego las cuentas hechas,
lo que no alcanza su umbral, los permisos que traen sus partes y lo que podría cambiar el resultado."""

from __future__ import annotations

import re
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
    "DIA": "ingresa al SEIA mediante una **Declaración de Impacto Ambiental (DIA)**",
    "EIA": "ingresa al SEIA mediante un **Estudio de Impacto Ambiental (EIA)**",
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
    """La respuesta a un proyecto descrito, desde el resultado de `evaluar_proyecto`: la vía y por qué
    (lo que alcanza su umbral y los efectos del Art. 11 con la frase del usuario que declaró cada uno:
    `dichas`, circunstancia → frase), las cuentas hechas para llegar a las unidades del motor
    (`supuestos`), lo que no alcanza su umbral, lo que falta y podría cambiar el resultado, las
    cantidades que no se pudieron leer (`no_leidas`: con ellas no se descarta el ingreso), las que no
    cambian que ingrese (`sin_efecto`: el volumen de una extracción de turba, que ingresa cualquiera sea)
    y qué tan seguro es.
    Devuelve el texto y las fuentes en el orden de sus [n]."""
    marca = _Marcas(resultado["fuentes"])
    dichas = dichas or {}
    clasificacion = resultado["clasificacion"]
    parrafos = [_la_via(resultado, no_leidas=bool(no_leidas), dichas=dichas, marca=marca)]
    if supuestos:
        parrafos.append("Cuentas hechas con sus datos: " + "; ".join(supuestos) + ".")
    if sin_efecto:
        parrafos.append(
            f"Lo que indica ({', '.join(f'«{c}»' for c in sin_efecto)}) no cambia que ingrese: basta una "
            "causa de ingreso para ello."
        )
    parrafos += _no_alcanzados(resultado, marca)
    parrafos += _efectos(resultado, dichas, marca)
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
        seguridad = "bastante; comparé sus cantidades con los umbrales del reglamento"
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


# Un proyecto descrito sin región se evalúa igual si nada de lo descrito tiene un umbral regional.
SIN_REGION = "no indicó la región, pero los umbrales de lo que describe son los mismos en todo el país"


def _la_via(resultado: dict[str, Any], *, no_leidas: bool, dichas: Mapping[str, str], marca: _Marcas) -> str:
    """El primer párrafo: la vía y, en la misma oración, por qué (lo que hace ingresar el proyecto con su
    cifra frente al umbral, y los efectos del Art. 11 con la frase del usuario), o por qué no se puede
    descartar el ingreso."""
    clasificacion = resultado["clasificacion"]
    lugar = ", ".join(x for x in (resultado.get("comuna"), resultado.get("region")) if x) or SIN_REGION
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
    via = f"Con sus datos ({lugar}), el proyecto {_VIA[clasificacion]}"
    if clasificacion == "NO_INGRESA":
        return f"{via}."
    # con varias causas de ingreso, por qué es un Estudio va antes que ellas (es lo que decide la vía): se
    # numera primero lo que se dice primero
    varias = len(_causas_de_ingreso(resultado, _Marcas([]))) > 1
    efectos = _efectos_dichos(resultado, dichas, marca) if clasificacion == "EIA" and varias else ""
    causas = _causas_de_ingreso(resultado, marca)
    if clasificacion == "EIA" and not varias:
        efectos = _efectos_dichos(resultado, dichas, marca)
    if len(causas) == 1:
        return f"{via}: {causas[0]}{f', y {efectos}' if efectos else ''}."
    partes = [f"{via}."]
    if efectos:
        partes.append(f"Es EIA por {efectos}.")
    if causas:
        partes.append(f"Ingresa por {len(causas)} causas (basta una): {'; '.join(causas)}.")
    return " ".join(partes)


def _causas_de_ingreso(resultado: dict[str, Any], marca: _Marcas) -> list[str]:
    """Cada literal que el proyecto alcanza, con su cifra frente al umbral, y cada letra del Art. 10 que
    se aplica sin umbral (la p): un área protegida)."""
    causas = []
    umbrales = resultado.get("umbrales", [])
    literales = list(dict.fromkeys(u["literal"] for u in umbrales))
    for literal in literales:
        cumplidos = "; ".join(u["texto"] for u in umbrales if u["literal"] == literal and u["cumple"])
        if not cumplidos:
            continue
        letra = literal.split(".")[0]
        if literal in SOLO_LEY:  # la letra s) de la ley no tiene literal en el DS 40 de 2014
            marcas = marca(("Ley 19.300", "10", literal))
            causas.append(f"{cumplidos}, según la letra {literal}) del Art. 10 de la Ley 19.300{marcas}")
            continue
        causas.append(
            f"{cumplidos}, según {_nombre_del_literal(literal)} del Art. 3 del DS 40 y la letra {letra}) del "
            f"Art. 10 de la Ley 19.300{_marcas_del_literal(marca, literal)}"
        )
    for tipologia in resultado.get("tipologias", []):
        literal = tipologia["tipologia"]
        if literal in literales:
            continue  # ya dicha con su umbral
        causas.append(
            f"{tipologia['motivo']}, según la letra {literal.split('.')[0]}) del Art. 10 de la Ley 19.300"
            f"{_marcas_del_literal(marca, literal)}"
        )
    return causas


def _nombre_del_literal(literal: str, *, de: bool = False) -> str:
    """«el literal i.1» («del literal i.1»), pero «la letra j)» («de la letra j)»): una letra del Art. 3
    sin literales se cita como letra."""
    if "." in literal:
        return f"{'del' if de else 'el'} literal {literal}"
    return f"{'de ' if de else ''}la letra {literal})"


def _marcas_del_literal(marca: _Marcas, literal: str) -> str:
    """Las marcas de la letra del Art. 10 de la ley y del literal del Art. 3 del DS 40 que la detalla."""
    return marca(("Ley 19.300", "10", literal.split(".")[0]), ("DS 40", "3", literal))


def _no_alcanzados(resultado: dict[str, Any], marca: _Marcas) -> list[str]:
    """Cada literal que el proyecto no alcanza, con lo que exige y la cifra dicha (los que alcanza ya van
    en el primer párrafo)."""
    parrafos = []
    umbrales = resultado.get("umbrales", [])
    alcanzados = {u["literal"] for u in umbrales if u["cumple"]}
    for literal in dict.fromkeys(u["literal"] for u in umbrales):
        if literal in alcanzados:
            continue
        del_literal = [u for u in umbrales if u["literal"] == literal]
        letra = literal.split(".")[0]
        textos = "; ".join(u["texto"] for u in del_literal)
        if literal in SOLO_LEY:
            parrafos.append(
                f"No alcanza la letra {literal}) del Art. 10 de la Ley 19.300: {textos}"
                f"{marca(('Ley 19.300', '10', literal))}."
            )
            continue
        # la comparación primero (es el hecho: su cifra frente al umbral), y luego el literal y lo que exige
        exige = "; ".join(f"«{c}»" for c in _las_comparadas(del_literal[0].get("exige", ()), textos))
        dice = f", que exige {exige}" if exige else ""
        parrafos.append(
            f"{textos[:1].upper()}{textos[1:]}: no alcanza el umbral {_nombre_del_literal(literal, de=True)} "
            f"del Art. 3 del DS 40{dice} (letra {letra}) del Art. 10 de la Ley 19.300)"
            f"{_marcas_del_literal(marca, literal)}."
        )
    return parrafos


_ENTRE_PARENTESIS = re.compile(r"\(([^()]+)\)")


def _las_comparadas(citas: Sequence[str], comparacion: str) -> list[str]:
    """De las palabras que fijan los umbrales de un literal, las del umbral que se comparó: «(80.000 kg)»
    si la comparación es «42.500 kg < 80.000 kg», no también «(80.000 kg/día)»; todas si no se sabe."""
    comparadas = [
        cita
        for cita in citas
        if (cifra := _ENTRE_PARENTESIS.findall(cita))
        and re.search(rf"{re.escape(cifra[-1])}(?![\w/])", comparacion)
    ]
    return comparadas or list(citas)


def _efectos_dichos(resultado: dict[str, Any], dichas: Mapping[str, str], marca: _Marcas) -> str:
    """Los efectos del Art. 11 que obligan a un EIA, cada letra con lo que significa y la frase del
    usuario que la activó (es el hecho que la respuesta debe mostrar primero)."""
    # por letra, el primer efecto que el usuario declaró con sus palabras y esas palabras
    del_usuario_por_letra: dict[str, tuple[dict[str, Any], str]] = {}
    for efecto in resultado["triggers"]:
        circunstancia = (efecto.get("evidencia") or {}).get("circunstancia", "")
        if circunstancia in dichas:
            del_usuario_por_letra.setdefault(efecto["letra"], (efecto, dichas[circunstancia]))
    partes = []
    for letra in sorted({t["letra"] for t in resultado["triggers"]}):
        nombre = f"letra {letra}) del Art. 11 de la Ley 19.300"
        del_usuario = del_usuario_por_letra.get(letra)
        if del_usuario is None:
            partes.append(f"efectos de la {nombre}{marca(('Ley 19.300', '11', letra))}")
            continue
        efecto, frase = del_usuario
        articulo = ARTICULO_DEL_REGLAMENTO[letra]
        descripcion = _DECLARADA.sub("", oracion_de(efecto["descripcion"]))
        marcas = marca(("Ley 19.300", "11", letra), ("DS 40", articulo, ""))
        partes.append(
            f"{descripcion[:1].lower()}{descripcion[1:]}, por lo que usted indicó («{frase}»), según la "
            f"{nombre}, que desarrolla el Art. {articulo} del DS 40{marcas}"
        )
    return ", y ".join(partes)


def _efectos(resultado: dict[str, Any], dichas: Mapping[str, str], marca: _Marcas) -> list[str]:
    """Lo que sigue a la vía según cuál sea: sin efectos del Art. 11, por qué es DIA; si no ingresa, la
    consulta de pertinencia y lo que el usuario indicó. (Los efectos de un EIA van en la primera oración.)"""
    clasificacion = resultado["clasificacion"]
    if clasificacion == "DIA":
        return [
            "Es DIA porque no indicó efectos, características o circunstancias del Art. 11 de la Ley 19.300"
            f"{marca(('DS 40', '4', ''))}."
        ]
    if clasificacion == "NO_INGRESA":
        parrafos = [
            "Ante dudas o si el proyecto cambia, puede consultar la pertinencia de ingreso al SEA"
            f"{marca(('DS 40', '26', ''))}."
        ]
        for alerta in resultado.get("alertas", []):
            circunstancia = (alerta.get("evidencia") or {}).get("circunstancia", "")
            if circunstancia in dichas:
                parrafos.append(f"Sobre lo que indicó, «{dichas[circunstancia]}»: {alerta['mensaje']}")
        return parrafos
    return []  # los efectos que obligan a un EIA van en el primer párrafo, con la vía


_DECLARADA = re.compile(r"\s*\(circunstancia declarada\)")
