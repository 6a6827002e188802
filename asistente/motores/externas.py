"""Respuestas del motor sin conexión que vienen de fuentes externas: el e-SEIA (proyectos, expedientes y
cifras), BCN LeyChile y el sitio del SEA. Lo que esos sitios traen se muestra tal cual, como datos: nunca
se obedece."""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from asistente.motores.entidades import Entidades
from asistente.registro import ejecutar
from asistente.turno.tipos import Respuesta, Turno

DOCUMENTOS_MOSTRADOS = 5

_ESEIA = re.compile(r"\b(e-?seia)\b|\bproyectos (presentados|ingresados|aprobados|similares)\b.*\bseia\b")
# Noticias del SEA, o una búsqueda explícita en su sitio o en sus guías.
_ESEIA_PROMEDIO = re.compile(
    r"\b(promedio|en la practica|normalmente|historicamente|estadisticas?|cuantos dias (demor|tard)\w*)\b"
    r".*\b(dia|eia|evaluaci\w+|calificaci\w+|seia)\b"
    r"|\b(dia|eia)s?\b.*\b(demora\w*|tarda\w*|dura\w*)\b.*\b(en promedio|normalmente|en la practica)\b"
)
_EXPEDIENTE = re.compile(r"\bexpediente\s*(?:n[°º.o]*\s*|#\s*)?(\d{6,12})\b")
_SEA = re.compile(
    r"\b(noticias?|novedades|comunicados?)\b.*\bsea\b|\bsitio (web )?del sea\b"
    r"|\bbusca\w*\b.*\b(guias?|criterios?)\b.*\bsea\b"
)
_BCN = re.compile(r"\b(leychile|ley chile|bcn|texto oficial|texto vigente|redaccion vigente)\b")
_NORMA_CITADA = re.compile(
    r"\b(ley|decreto ley|dl|decreto|ds|d\.s\.|dfl|d\.f\.l\.|resolucion(?: exenta)?)"
    r"\s*(?:n[°º.o]*\s*)?(\d[\d.]*)"
)
# Cómo se nombra cada tipo de norma en el texto → el tipo de `buscar_bcn` (lo demás es decreto).
_TIPO_CITADO = {
    "ley": "ley",
    "decreto ley": "decreto_ley",
    "dl": "decreto_ley",
    "dfl": "dfl",
    "d.f.l.": "dfl",
}
_ARTICULO_CITADO = re.compile(r"\bart(?:iculo|\.)?\s*(\d+(?:\s*bis)?)")


def eseia_promedio(turno: Turno, texto: str, e: Entidades) -> Respuesta | None:
    """«¿Cuánto demora en promedio una DIA minera en Antofagasta?»: cifras de los proyectos indexados."""
    if not _ESEIA_PROMEDIO.search(texto):
        return None
    tipo = next((t.upper() for t in ("dia", "eia") if re.search(rf"\b{t}s?\b", texto)), "")
    region = e.region or turno.preferencia("region")
    llamada = ejecutar(
        "estadisticas_eseia", {"region": region, "tipo": tipo, "tipologia": "i"}, contexto=turno.contexto
    )
    if llamada["error"]:
        return Respuesta(llamada["error"], llamadas=[llamada])
    r = llamada["resultado"]
    que = f"proyectos mineros{f' por {tipo}' if tipo else ''}{f' de {region}' if region else ''}"
    hasta = f", indexados al {r['indexados_hasta']}" if r["indexados_hasta"] else ""
    if not r["total"]:
        return Respuesta(
            f"No tengo {que} indexados del e-SEIA, así que no puedo dar un promedio con base. Se indexan "
            "con la tarea semanal o al buscarlos («busca en el e-SEIA proyectos mineros DIA en "
            f"{region or 'Antofagasta'}»).",
            llamadas=[llamada],
        )
    estados = ", ".join(f"{k}: {v}" for k, v in r["por_estado"].items())
    if not (r["dias_legales"] or r["dias_corridos"]):
        return Respuesta(
            f"De los {r['total']} {que} del e-SEIA{hasta}, {r['calificados']} tienen calificación y "
            "ninguno trae la duración de su evaluación: no hay cifra que promediar. "
            f"Por estado: {estados}.",
            llamadas=[llamada],
        )
    lineas = [
        f"Según los {que} calificados del e-SEIA (de {r['total']} indexados{hasta}; "
        f"{r['aprobados']} de {r['calificados']} aprobados):"
    ]
    for clave, unidad, origen in (
        ("dias_legales", "días hábiles legales", "según el listado del e-SEIA"),
        ("dias_corridos", "días corridos", "de la presentación a la RCA"),
    ):
        if c := r[clave]:
            lineas.append(
                f"- la evaluación duró en promedio {c['promedio']:g} {unidad} ({origen}; mediana "
                f"{c['mediana']:g}, entre {c['minimo']} y {c['maximo']}; {c['n']} proyecto(s))."
            )
    lineas.append(f"Por estado: {estados}.")
    return Respuesta(
        "\n".join(lineas),
        llamadas=[llamada],
        advertencias=["Cifras de los proyectos indexados del e-SEIA, no de todo el registro: referenciales."],
    )


def eseia_detalle(turno: Turno, texto: str, e: Entidades) -> Respuesta | None:
    """«Detalle del expediente 2168003697»: estado, RCA, fechas, duración y documentos."""
    expediente = _EXPEDIENTE.search(texto)
    if not expediente:
        return None
    llamada = ejecutar("detalle_eseia", {"expediente_id": expediente.group(1)}, contexto=turno.contexto)
    if llamada["error"]:
        return Respuesta(llamada["error"], llamadas=[llamada])
    d = llamada["resultado"]
    # Los textos del e-SEIA son datos del sitio: se muestran tal cual, nunca se obedecen.
    lineas = [
        f"Expediente {expediente.group(1)}"
        + (f" «{d['nombre']}»" if d["nombre"] else "")
        + f": {d['tipo_ingreso'] or 'tipo sin informar'}, {d['estado'] or 'estado sin informar'}"
        + (f", {d['region']}" if d["region"] else "")
        + "."
    ]
    if d["fecha_presentacion"]:
        lineas.append(f"- Presentado el {d['fecha_presentacion']}.")
    if d["rca_numero"] or d["rca_fecha"]:
        lineas.append(
            f"- RCA {d['rca_numero'] or '(número sin informar)'}"
            + (f" del {d['rca_fecha']}" if d["rca_fecha"] else "")
            + (
                f": {d['dias_corridos']} días corridos de evaluación."
                if d["dias_corridos"] is not None
                else "."
            )
        )
    else:
        lineas.append("- La ficha pública no trae una Resolución de Calificación Ambiental.")
    if d["dias_legales"] is not None:
        lineas.append(f"- Días hábiles legales de evaluación según el listado: {d['dias_legales']}.")
    for documento in d["documentos"][:DOCUMENTOS_MOSTRADOS]:
        fecha = f" ({documento['fecha']})" if documento.get("fecha") else ""
        lineas.append(f"- Documento: [{documento['titulo']}]({documento['url']}){fecha}")
    if len(d["documentos"]) > DOCUMENTOS_MOSTRADOS:
        lineas.append(f"- … y {len(d['documentos']) - DOCUMENTOS_MOSTRADOS} documentos más en el expediente.")
    if d["url"]:
        lineas.append(f"Expediente: {d['url']}")
    return _respuesta_externa(lineas, llamada)


def eseia(turno: Turno, texto: str, e: Entidades) -> Respuesta | None:
    if not _ESEIA.search(texto):
        return None
    parametros: dict[str, Any] = {"region": e.region or turno.preferencia("region")}
    if "miner" in texto:
        parametros["tipologia"] = "i"
    for tipo in ("dia", "eia"):
        if re.search(rf"\b{tipo}\b", texto):
            parametros["tipo"] = tipo.upper()
    llamada = ejecutar("buscar_eseia", parametros, contexto=turno.contexto)
    if llamada["error"]:
        return Respuesta(llamada["error"], llamadas=[llamada])
    r = llamada["resultado"]
    if not r["proyectos"]:
        return Respuesta("El e-SEIA no devolvió proyectos con esos criterios.", llamadas=[llamada])
    # Nombres y textos del e-SEIA son datos del sitio: se muestran tal cual, nunca se obedecen.
    lineas = [f"Proyectos en el e-SEIA ({r['total']}; muestro {len(r['proyectos'])}):"] + [
        f"- «{p['nombre']}» — {p['tipo_ingreso']}, {p['region']}"
        + (f", tipología {p['tipologia']}" if p["tipologia"] else "")
        + f", {p['estado'] or 'estado sin informar'}"
        + (f", presentado el {p['fecha_presentacion']}" if p["fecha_presentacion"] else "")
        + f": {p['url_expediente']}"
        for p in r["proyectos"]
    ]
    return _respuesta_externa(lineas, llamada)


def bcn(turno: Turno, texto: str, e: Entidades) -> Respuesta | None:
    norma = _NORMA_CITADA.search(texto)
    if not (_BCN.search(texto) and norma):
        return None
    articulo = _ARTICULO_CITADO.search(texto)
    parametros: dict[str, Any] = {
        "tipo_norma": "resolucion"
        if norma.group(1).startswith("resolucion")
        else _TIPO_CITADO.get(norma.group(1), "decreto"),
        "numero": norma.group(2).rstrip("."),
    }
    if articulo:
        parametros["articulo"] = articulo.group(1)
    llamada = ejecutar("buscar_bcn", parametros, contexto=turno.contexto)
    if llamada["error"]:
        return Respuesta(llamada["error"], llamadas=[llamada])
    r = llamada["resultado"]
    if not r.get("norma"):
        return Respuesta(f"{r['mensaje']} {r['url']}", llamadas=[llamada])
    if not r["partes"]:
        return Respuesta(
            f"No encontré ese artículo en {r['norma']}. Texto completo en LeyChile: {r['url']}",
            llamadas=[llamada],
        )
    version = f"versión del {r['fecha_version']}" if r["fecha_version"] else "versión sin fecha"
    titulo = f" «{r['titulo']}»" if r.get("titulo") else ""
    lineas = [f"{r['norma']}{titulo} ({version}; fuente: {r['origen']}):"] + [
        f"- Art. {p['articulo']}{' letra ' + p['letra'] if p['letra'] else ''}"
        + (" (derogado)" if p["derogado"] else "")
        + f": {' '.join(p['texto'].split())[:700]} — {p['url']}"
        for p in r["partes"][:4]
    ]
    return _respuesta_externa(lineas, llamada)


def sea(turno: Turno, texto: str, e: Entidades) -> Respuesta | None:
    if not _SEA.search(texto):
        return None
    seccion = "noticias" if re.search(r"\b(noticias?|novedades|comunicados?)\b", texto) else "guias"
    consulta = _sin_pedido_sea(turno.pregunta)
    llamada = ejecutar("buscar_sea", {"consulta": consulta, "seccion": seccion}, contexto=turno.contexto)
    if llamada["error"]:
        return Respuesta(llamada["error"], llamadas=[llamada])
    r = llamada["resultado"]
    # Títulos y resúmenes del sitio son datos: se muestran tal cual, nunca se obedecen.
    lineas = [
        f"- «{n['titulo']}»"
        + (f" ({date.fromisoformat(n['fecha']):%d-%m-%Y})" if n["fecha"] else "")
        + (f": {n['resumen'][:240]}" if n["resumen"] else "")
        + f" — {n['url']}"
        for n in r.get("noticias", [])
    ] or [
        f"- {f['cita']}: {' '.join(f['extracto'].split())[:300]} — {f['url']}" for f in r.get("fuentes", [])
    ]
    if not lineas:
        que = "noticias" if seccion == "noticias" else "guías"
        return Respuesta(f"No encontré {que} del SEA sobre «{consulta}».", llamadas=[llamada])
    titulo = "Noticias del SEA:" if seccion == "noticias" else "En las guías del SEA:"
    return _respuesta_externa([titulo, *lineas], llamada)


def _sin_pedido_sea(texto: str) -> str:
    """La consulta sin la forma del pedido («busca en las noticias del SEA …»)."""
    limpio = re.sub(
        r"(?i)\b(busca\w*|muestra\w*|hay|qu[eé]|cu[aá]les|las|los|el|la|en|del|de|sitio|web|sea|sobre|"
        r"noticias?|novedades|comunicados?|gu[ií]as?|criterios?|recientes?|[uú]ltimas?)\b",
        " ",
        texto,
    )
    limpio = " ".join(re.sub(r"[¿?¡!.,;:]", " ", limpio).split())
    return limpio if len(limpio) >= 2 else "noticias recientes"


def _respuesta_externa(lineas: list[str], llamada: dict[str, Any]) -> Respuesta:
    """Respuesta con datos de un sitio externo y, si vinieron de la caché vencida, su advertencia."""
    advertencia = llamada["resultado"].get("advertencia")
    return Respuesta("\n".join(lineas), llamadas=[llamada], advertencias=[advertencia] if advertencia else [])
