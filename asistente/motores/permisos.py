"""Respuestas sin modelo sobre permisos ambientales sectoriales (PAS, Título VII del DS 40).

«¿Qué permiso necesito para una bodega de residuos peligrosos?» se responde con el artículo del permiso
primero (el que la parte trae según las reglas del motor), su requisito para el otorgamiento y su guía;
«¿qué permisos necesita mi proyecto?», con los de sus partes. Todo sale de `consultar_permisos`: el catálogo
leído del reglamento y las reglas que unen cada parte a su artículo. Los arts. 107 y 108 (qué es un PAS en
general) no responden por un permiso.
"""

from __future__ import annotations

import re
from typing import Any

from asistente.motores.entidades import FAENA_DESCRITA, Entidades
from asistente.registro import Fuente
from asistente.turno.tipos import Respuesta, Turno
from normativa.busqueda.familias import familias_de

# «PAS 142», «permiso del artículo 135», «art. 160»: un artículo del Título VII nombrado.
_PAS_NOMBRADO = re.compile(
    r"\b(?:pas|permiso|art(?:iculo|\.)?)\s*(?:n[°º.o]*\s*)?(?:del\s+(?:art(?:iculo|\.)?\s*)?)?(1[1-6]\d)\b"
)
_HABLA_DE_PERMISOS = re.compile(r"\bpermisos?\b|\bpas\b")
# Pregunta cuál permiso (o su requisito), no cómo se tramita: «¿qué PAS aplica?», «¿necesito algún
# permiso para …?», «lista de PAS», «¿qué requisitos tiene el permiso …?».
_PIDE_CUAL = re.compile(
    r"\b(?:que|cual(?:es)?|algun|algunos|otros?)\s+(?:permisos?|pas)\b"
    r"|\bcual(?:es)? (?:es|son|seria|serian) (?:el|los|la|las) (?:permisos?|pas)\b"
    r"|\blista\w* (?:de )?(?:los )?(?:permisos|pas)\b"
    r"|\b(?:permisos?|pas)\b[^?.]{0,40}\b(?:necesit|requier|aplica|correspond|debo|debemos|incluir)\w*"
    r"|\b(?:necesit|requier)\w*\b[^?.]{0,20}\b(?:permisos?|pas)\b"
    r"|\brequisitos?\b[^?.]{0,40}\b(?:permisos?|pas)\b|\b(?:permisos?|pas)\b[^?.]{0,60}\brequisitos?\b"
)
# Cómo y cuándo se tramita un permiso (Arts. 107–109: la RCA, la línea de base, dentro o fuera del SEIA): eso
# lo responde el reglamento, no el catálogo.
_PIDE_TRAMITE = re.compile(
    r"\b(?:rca|resolucion de calificacion|linea de base|dentro del seia|fuera del seia|por separado"
    r"|tramit\w* (?:como|dentro|fuera|antes|por separado)|esperar (?:la|el) (?:rca|resolucion|calificacion)"
    r"|mientras (?:la|el) (?:dia|eia|evaluacion|estudio|declaracion))\b"
)
PRIMEROS_ARTICULOS, ULTIMO_ARTICULO = 111, 160
PALABRAS_DEL_REQUISITO = 28
SEGURIDAD_CATALOGO = (
    "_Qué tan seguro estoy: bastante; el permiso sale del Título VII del DS 40 y de la parte que nombró._"
)
SEGURIDAD_BUSQUEDA = (
    "_Qué tan seguro estoy: medianamente; es el permiso cuyo artículo más se acerca a la obra que describe: "
    "revise que calce._"
)


def pide_permisos(texto: str, e: Entidades) -> bool:
    """Indica si el mensaje (sin tildes) pregunta cuál permiso ambiental sectorial (o cuál es su
    requisito) aplica: por una parte u obra, por un artículo nombrado o por un proyecto. Cómo o cuándo se
    tramita no es una pregunta del catálogo."""
    if _PIDE_TRAMITE.search(texto):
        return False
    if articulos_nombrados(texto):
        return bool(_HABLA_DE_PERMISOS.search(texto))
    return bool(_PIDE_CUAL.search(texto)) and (
        "permiso" in familias_de(texto) or bool(e.componentes) or bool(_HABLA_DE_PERMISOS.search(texto))
    )


def articulos_nombrados(texto: str) -> list[int]:
    """Los artículos del Título VII que el mensaje nombra como permisos («PAS 142» → 142)."""
    numeros = [int(m.group(1)) for m in _PAS_NOMBRADO.finditer(texto)]
    return list(dict.fromkeys(n for n in numeros if PRIMEROS_ARTICULOS <= n <= ULTIMO_ARTICULO))


def parametros(texto: str, e: Entidades, *, proyecto_id: int | None, consulta: str) -> dict[str, Any]:
    """Lo que se le pide a `consultar_permisos`: los artículos nombrados, las partes dichas (con el tipo de
    proyecto), el proyecto o, sin nada de eso, la obra en palabras."""
    if articulos := articulos_nombrados(texto):
        return {"articulos": articulos}
    if e.componentes:
        # El tipo, solo si el mensaje describe la faena («una mina de …»): un depósito de relaves nombrado
        # como parte no hace del mensaje un proyecto de relaves.
        tipo = e.tipo if e.tipo and FAENA_DESCRITA.search(texto) else None
        return {"partes": e.componentes, **({"tipo": tipo} if tipo else {})}
    if proyecto_id is not None:
        return {"proyecto_id": proyecto_id}
    return {"consulta": consulta}


def responder(turno: Turno, llamada: dict[str, Any]) -> Respuesta | None:
    """La respuesta con lo que devolvió `consultar_permisos`; `None` si no trajo ningún permiso (la
    pregunta sigue a la búsqueda en la normativa)."""
    if llamada["error"]:
        return Respuesta(f"No pude revisar los permisos: {llamada['error']}", llamadas=[llamada])
    r = llamada["resultado"]
    if not r["permisos"]:
        if r["origen"] in ("partes", "proyecto"):
            return Respuesta(_sin_permisos(r["origen"]), llamadas=[llamada], advertencias=r["advertencias"])
        return None
    fuentes: list[Fuente] = list(r["fuentes"])
    turno.contexto.fuentes[:] = fuentes
    marcas = {f["articulo"]: f"[{n}]" for n, f in enumerate(fuentes, start=1)}
    if len(r["permisos"]) == 1:
        texto = _uno(r["permisos"][0], r["origen"], marcas)
    else:
        texto = _varios(r["permisos"], r["origen"], marcas)
    umbrales = [u["texto"] for u in r["umbrales"] if not u["cumple"]]
    if umbrales:
        texto += (
            "\n\nNo requieren el permiso del Art. 155 (bajo el umbral del Art. 294 del Código de Aguas): "
        )
        texto += "; ".join(umbrales) + "."
    seguridad = SEGURIDAD_BUSQUEDA if r["origen"] == "busqueda" else SEGURIDAD_CATALOGO
    return Respuesta(f"{texto}\n\n{seguridad}", llamadas=[llamada], advertencias=list(r["advertencias"]))


def _uno(p: dict[str, Any], origen: str, marcas: dict[str, str]) -> str:
    marca = marcas.get(p["articulo"], "")
    articulo = f"**PAS del Art. {p['articulo']} del DS 40**"
    if origen in ("partes", "proyecto") and p["partes"]:
        inicio = f"Para {_parte(p['partes'][0])} se necesita el {articulo}: «{p['nombre']}» {marca}."
    elif origen == "busqueda":
        inicio = f"El permiso que corresponde es el {articulo}: «{p['nombre']}» {marca}."
    else:
        inicio = f"El {articulo} es el «{p['nombre']}» {marca}."
    lineas = [inicio.replace(" .", ".")]
    if p["requisito"]:
        lineas.append(f"Requisito para otorgarlo: «{p['requisito'].rstrip('.')}» {marca}".rstrip() + ".")
    lineas += _detalles(p)
    return "\n\n".join(lineas)


def _varios(permisos: list[dict[str, Any]], origen: str, marcas: dict[str, str]) -> str:
    quien = "Su proyecto trae" if origen == "proyecto" else "Lo que describe trae"
    articulos = [p["articulo"] for p in permisos]
    cuales = f"Arts. {', '.join(articulos[:-1])} y {articulos[-1]}"
    # los artículos van en la primera oración: son la respuesta; cada uno se explica después
    lineas = [f"{quien} {len(permisos)} permisos ambientales sectoriales del DS 40, {cuales}:"]
    for p in permisos:
        por = f" — por {', '.join(_parte(parte) for parte in p['partes'])}" if p["partes"] else ""
        requisito = f" Requisito: {_breve(p['requisito'])}" if p["requisito"] else ""
        condicion = f" Aplica {p['condicion']}." if p["condicion"] else ""
        marca = marcas.get(p["articulo"], "")
        lineas.append(f"- **Art. {p['articulo']}**: {p['nombre']}{por} {marca}.{requisito}{condicion}")
    guias = [f"[Art. {p['articulo']}]({p['guia_url']})" for p in permisos if p["guia"] and p["guia_url"]]
    if guias:
        lineas.append("Guías trámite del SEA: " + ", ".join(guias) + ".")
    return "\n".join(linea.replace(" .", ".") for linea in lineas)


def _detalles(p: dict[str, Any]) -> list[str]:
    """La clase del permiso, quién revisa sus contenidos y su guía, si el corpus los trae."""
    lineas = []
    if p["tipo"] == "mixto":
        lineas.append(
            "Es un permiso mixto: la RCA favorable certifica sus requisitos ambientales (Art. 108)."
        )
    elif p["tipo"] == "ambiental":
        lineas.append(
            "Es de contenidos únicamente ambientales: la RCA favorable dispone su otorgamiento (Art. 108)."
        )
    if p["organo"]:
        lineas.append(
            f"Según la guía del SEA, corresponde a {p['organo']} revisar sus contenidos ambientales."
        )
    if p["guia"] and p["guia_url"]:
        lineas.append(f"Guía trámite: [{p['guia'].rstrip('.')}]({p['guia_url']}).")
    if p["condicion"]:
        lineas.append(f"Aplica {p['condicion']}.")
    return lineas


def _parte(parte: str) -> str:
    """«depósito de relaves (declarado)» → «un depósito de relaves»; el motivo, si no es «declarado»."""
    nombre, _, motivo = parte.partition(" (")
    motivo = motivo.rstrip(")")
    return nombre if motivo in ("declarado", "tipo de proyecto", "") else f"{nombre} ({motivo})"


def _breve(requisito: str) -> str:
    """El requisito desde «consiste en …», recortado a unas palabras."""
    _, _, resto = requisito.partition(" en ")
    palabras = (resto or requisito).split()
    texto = " ".join(palabras[:PALABRAS_DEL_REQUISITO])
    return texto + " …" if len(palabras) > PALABRAS_DEL_REQUISITO else texto.rstrip(".") + "."


def _sin_permisos(origen: str) -> str:
    if origen == "proyecto":
        return (
            "Con los datos guardados del proyecto, ninguna de sus partes trae un permiso ambiental "
            "sectorial. Declare las que tenga (depósito de relaves, botadero, aguas servidas, residuos "
            "peligrosos, obras en cauces, construcciones fuera de los límites urbanos…) y vuelva a preguntar."
        )
    return "Las partes que describe no traen un permiso ambiental sectorial del Título VII del DS 40."
