"""Motor de reglas (sin conexión): intención determinista, extracción de entidades, las mismas
herramientas y respuestas extractivas en castellano construidas solo con lo que ellas devuelven.

También es el respaldo cuando Claude falla a mitad de un turno.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from asistente.acciones import accion_proponer, texto_de_propuesta
from asistente.motores.descripcion import cantidades_dichas, componentes_dichos
from asistente.motores.redaccion import (
    MAXIMO_FUENTES,
    cuantas_fuentes,
    elegir_fuentes,
    redactar,
    redactar_evaluacion,
)
from asistente.registro import ErrorDeHerramienta, Fuente, ejecutar
from asistente.turno.memoria import solo_preferencias
from asistente.turno.tipos import Respuesta, Turno
from config.texto import sin_tildes
from normativa.busqueda.familias import familias_de
from proyectos import selectors as proyectos
from proyectos.analisis.circunstancias import CircunstanciaDicha, circunstancias_dichas
from proyectos.analisis.ingreso import CANTIDADES_REQUERIDAS
from proyectos.models import Comuna

NOMBRE = "reglas"
SIN_BASE = (
    "No tengo base suficiente en el corpus normativo para responder esto con fundamento. Puede "
    "reformular la pregunta (por ejemplo, nombrando la norma o el artículo) o consultarlo al SEA."
)
DOCUMENTOS_MOSTRADOS = 5
ENLACE_MEMORIA = "Puede verlo o borrarlo en [Mi memoria](/asistente/memoria/)."
ETIQUETA_SIN_MODELO = "(Respuesta armada sin modelo de lenguaje, a partir de la documentación del sistema.)"

_SALUDO = re.compile(r"^(hola|buen[oa]s? (dias|tardes|noches)|buenas|saludos|hey)\b")
_GRACIAS = re.compile(r"\b(gracias|muchas gracias|te agradezco)\b")
_IDENTIDAD = re.compile(r"\b(quien eres|que eres|como te llamas|eres un (bot|robot|humano))\b")
_AYUDA = re.compile(r"\b(ayuda|que puedes hacer|que sabes hacer|como te uso|que haces)\b")
_CREAR = re.compile(
    r"\b(crea|crear|creame|registra|registrar|agrega|agregar|ingresa un nuevo|nuevo)\b.*\bproyecto\b"
)
_ANALIZAR = re.compile(
    r"\b(analiza|analizar|analizalo|evalua|evaluar|ejecuta\w*|corre\w*)\b.*\b(proyecto|analisis|#\d+)"
)
_ACTUALIZAR = re.compile(r"\b(cambia|cambiar|actualiza|actualizar|modifica|modificar)\b.*\b(proyecto|#\d+)")
_EXPLICAR = re.compile(
    r"(por ?que\b.*\b(eia|dia|no ingresa|ingresa)\b)|(explica\w* .*\b(analisis|resultado|clasificacion)\b)"
)
_ESTADISTICAS = re.compile(r"\b(cuantos proyectos|estadistica\w*|resumen de (mis |los )?proyectos)\b")
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
_LISTAR = re.compile(r"\b(lista\w*|muestra\w*|mostrar|cuales son|ver|tengo)\b.*\bproyectos\b")
_CONSULTAR = re.compile(r"\b(proyecto #?\d+|#\d+|este proyecto)\b")
# «mi proyecto»: el activo o, sin uno, el que el usuario más consulta (su memoria).
_MI_PROYECTO = re.compile(r"\bmi (proyecto|mina|faena)\b")
_SISTEMA = re.compile(
    r"\b(como funciona|explica\w*|que es)\b.*\b(sistema|motor|busqueda|asistente|aplicacion|api|plataforma)\b"
)
# Proponer un cambio al sistema (no «qué medida tenemos que proponer» en una evaluación: eso es ley).
_PROPONER = re.compile(
    r"\b(propon\w*|como (implemento|implementar|agrego|agregar|anado|anadir))\b.*"
    r"\b(implementa\w*|funcionalidad\w*|sistema|aplicacion|plataforma|codigo|herramienta\w*|pantalla\w*|"
    r"integracion\w*|api|capa\w*|modulo\w*|reporte\w*|campo\w*)\b"
)

_TIPOS = [
    (re.compile(r"prospecc|sondaje"), "prospeccion"),
    (re.compile(r"\bplanta\b"), "planta_procesamiento"),
    (re.compile(r"relave"), "deposito_relaves"),
    (re.compile(r"botadero|esteril"), "botadero_esteriles"),
    (
        re.compile(
            r"(arido|ripio|grava|arena|bolon)\w*.*\b(cauce|rio)\b|\b(cauce|rio)\b.*(arido|ripio|grava)"
        ),
        "aridos_cauce",
    ),
    (re.compile(r"arena.*playa|playa"), "aridos_playa"),
    (re.compile(r"arido|cantera|\bpozo\b|lastre|ripio|grava"), "aridos_pozo"),
    (re.compile(r"petroleo|\bgas\b|hidrocarburo"), "hidrocarburos"),
]
# Un proyecto descrito con su extracción de mineral es una explotación aunque no lo diga; con toneladas
# al mes, «faena» es la faena minera.
_EXPLOTACION = re.compile(r"\b(mina|rajo|yacimiento|mineral|explotacion|faena|subterranea|concentrado)\b")


@dataclass
class Entidades:
    proyecto_id: int | None = None
    nombre: str | None = None
    region: str | None = None
    comuna: str | None = None
    tipo: str | None = None
    cliente: str | None = None
    cantidades: dict[str, float] = field(default_factory=dict)
    # Conversiones hechas para llegar a las unidades del motor («66.000 t/año ÷ 12 = 5.500 t/mes»).
    supuestos: list[str] = field(default_factory=list)
    # Efectos del Art. 11 dichos con palabras de faena («hay que relocalizar a 12 familias»).
    circunstancias: list[CircunstanciaDicha] = field(default_factory=list)
    # Otras partes de la faena que pueden hacerla ingresar («un mineroducto de 30 km» → letra j).
    componentes: dict[str, float | bool] = field(default_factory=dict)


class MotorReglas:
    nombre = NOMBRE

    def responder(self, turno: Turno) -> Respuesta:
        texto = " ".join(sin_tildes(turno.pregunta).split()).lstrip("¡¿ ")  # «¡Hola!» es un saludo
        if turno.inyeccion:
            return Respuesta(
                "No puedo cambiar mis reglas ni omitir confirmaciones o permisos. Las acciones que modifican "
                "datos siempre requieren su confirmación explícita. ¿En qué más le puedo ayudar?",
                advertencias=["El mensaje intentaba cambiar las reglas del asistente; no se ejecutó nada."],
                motor=NOMBRE,
            )
        if turno.anotadas and solo_preferencias(turno.texto):
            return Respuesta(
                f"Anotado: {'; '.join(turno.anotadas)}. Lo tendré en cuenta desde ahora. {ENLACE_MEMORIA}",
                motor=NOMBRE,
            )
        respuesta = self._responder(turno, texto)
        respuesta.motor = NOMBRE
        if turno.anotadas:
            respuesta.texto += f"\n\n(Anoté en su memoria: {'; '.join(turno.anotadas)}. {ENLACE_MEMORIA})"
        return respuesta

    def _responder(self, turno: Turno, texto: str) -> Respuesta:
        activo = turno.contexto.proyecto_activo_id
        frecuente = turno.proyecto_frecuente if _MI_PROYECTO.search(texto) and activo is None else None
        entidades = extraer_entidades(
            turno.pregunta,
            proyecto_activo=activo,
            proyecto_mio=activo or (frecuente.pk if frecuente else None),
        )
        for intencion in (
            self._conversacion,
            self._crear,
            self._analizar,
            self._actualizar,
            self._proyecto_descrito,
            self._explicar,
            self._eseia_promedio,
            self._eseia_detalle,
            self._estadisticas,
            self._eseia,
            self._bcn,
            self._sea,
            self._listar,
            self._proponer,
            self._sistema,
            self._consultar,
        ):
            respuesta = intencion(turno, texto, entidades)
            if respuesta is not None:
                return respuesta
        return self._normativa(turno)

    # --- intenciones --------------------------------------------------------------------------

    def _conversacion(self, turno: Turno, texto: str, e: Entidades) -> Respuesta | None:
        palabras = len(texto.split())
        if _SALUDO.search(texto) and palabras <= 6:
            return Respuesta(
                "¡Hola! Soy el asistente de prefactibilidad ambiental minera. Puedo responder preguntas "
                "sobre la Ley 19.300 y el Reglamento del SEIA con citas, explicar los análisis de sus "
                "proyectos y proponer acciones (crear, actualizar o analizar proyectos) que usted confirma.",
                sugerencias=_SUGERENCIAS_INICIO,
            )
        if _GRACIAS.search(texto) and palabras <= 8:
            return Respuesta(
                "De nada. ¿Hay algo más en que le pueda ayudar?", sugerencias=_SUGERENCIAS_INICIO
            )
        if _IDENTIDAD.search(texto):
            return Respuesta(
                "Soy el asistente de prefactibilidad ambiental minera: respondo con base en el corpus "
                "normativo cargado (Ley 19.300, DS 40/2012 y guías del SEA) y en sus proyectos. Mis "
                "respuestas son referenciales y no constituyen asesoría legal.",
                sugerencias=_SUGERENCIAS_INICIO,
            )
        if _AYUDA.search(texto) and palabras <= 8:
            return Respuesta(
                "Puedo:\n- responder preguntas sobre la normativa del SEIA, citando artículos;\n"
                "- mostrar y listar sus proyectos y sus estadísticas;\n"
                "- explicar por qué un proyecto es DIA, EIA o no ingresa;\n"
                "- proponer crear, actualizar o analizar un proyecto (usted confirma antes de ejecutar).\n"
                "Ejemplo: «crea un proyecto llamado Mina Norte en Atacama de 8.000 toneladas al mes».",
                sugerencias=_SUGERENCIAS_INICIO,
            )
        return None

    def _crear(self, turno: Turno, texto: str, e: Entidades) -> Respuesta | None:
        if not _CREAR.search(texto):
            return None
        if not e.nombre:
            return Respuesta(
                "¿Cómo se llamará el proyecto? Por ejemplo: «crea un proyecto llamado Mina Norte en Atacama»."
            )
        if not e.region:
            return Respuesta(
                f"¿En qué región estará «{e.nombre}»?", sugerencias=["En Antofagasta", "En Atacama"]
            )
        parametros: dict[str, Any] = {"nombre": e.nombre, "region": e.region, "tipo": e.tipo or "explotacion"}
        if e.comuna:
            parametros["comuna"] = e.comuna
        if cliente := e.cliente or turno.cliente_preferido:  # «trabajo con el cliente X»
            parametros["cliente"] = cliente
        parametros.update(e.cantidades)
        if e.componentes:
            parametros["componentes"] = e.componentes
        return self._proponer_accion(turno, "crear_proyecto", parametros)

    def _analizar(self, turno: Turno, texto: str, e: Entidades) -> Respuesta | None:
        if not _ANALIZAR.search(texto) or _EXPLICAR.search(texto):
            return None
        proyecto = self._resolver_proyecto(turno, e)
        if isinstance(proyecto, Respuesta):
            return proyecto
        tipo = "rapido" if "rapido" in texto else "completo"
        return self._proponer_accion(turno, "ejecutar_analisis", {"proyecto_id": proyecto, "tipo": tipo})

    def _actualizar(self, turno: Turno, texto: str, e: Entidades) -> Respuesta | None:
        if not _ACTUALIZAR.search(texto):
            return None
        proyecto = self._resolver_proyecto(turno, e)
        if isinstance(proyecto, Respuesta):
            return proyecto
        cambios: dict[str, Any] = dict(e.cantidades)
        if e.region:
            cambios["region"] = e.region
        if e.comuna:
            cambios["comuna"] = e.comuna
        if not cambios:
            return Respuesta(
                "¿Qué dato quiere cambiar? Por ejemplo: «cambia la capacidad del proyecto #3 a 8.000 t/mes»."
            )
        return self._proponer_accion(
            turno, "actualizar_proyecto", {"proyecto_id": proyecto, "cambios": cambios}
        )

    def _proyecto_descrito(self, turno: Turno, texto: str, e: Entidades) -> Respuesta | None:
        """Un proyecto descrito en el mensaje (tipo y cantidades, sin ser uno guardado): lo evalúa el
        motor de prefactibilidad, sin guardar nada; si falta la región, la pregunta."""
        if e.proyecto_id or not e.tipo or not _cantidades_del_tipo(e) or _pregunta_juridica(texto):
            return None
        if not e.region:
            depende = e.tipo in ("prospeccion", "aridos_cauce")
            return Respuesta(
                "¿En qué región está el proyecto? "
                + (
                    "El umbral de ingreso depende de ella (de Arica y Parinacota a Coquimbo es distinto "
                    "que de Valparaíso al sur)."
                    if depende
                    else "La necesito para evaluarlo con el motor de prefactibilidad."
                ),
                sugerencias=["En Antofagasta", "En Atacama", "En Valparaíso"],
            )
        parametros: dict[str, Any] = {"tipo": e.tipo, "region": e.region, **e.cantidades}
        if e.comuna:
            parametros["comuna"] = e.comuna
        if e.circunstancias:
            parametros["circunstancias"] = [d.circunstancia for d in e.circunstancias]
        if e.componentes:
            parametros["componentes"] = e.componentes
        llamada = ejecutar("evaluar_proyecto", parametros, contexto=turno.contexto)
        if llamada["error"]:
            return Respuesta(f"No pude evaluar el proyecto descrito: {llamada['error']}", llamadas=[llamada])
        texto_respuesta, fuentes = redactar_evaluacion(
            llamada["resultado"],
            supuestos=e.supuestos,
            dichas={d.circunstancia: d.frase for d in e.circunstancias},
        )
        turno.contexto.fuentes[:] = fuentes
        return Respuesta(
            texto_respuesta,
            llamadas=[llamada],
            advertencias=[
                "Evaluación preliminar de un proyecto descrito en el chat; no se guardó. Cree el proyecto "
                "para un análisis completo con su geometría.",
                *([turno.dominio.aviso_clasificacion] if turno.dominio.aviso_clasificacion else []),
            ],
        )

    def _explicar(self, turno: Turno, texto: str, e: Entidades) -> Respuesta | None:
        if not _EXPLICAR.search(texto):
            return None
        proyecto = self._resolver_proyecto(turno, e)
        if isinstance(proyecto, Respuesta):
            return proyecto
        llamada = ejecutar("consultar_analisis", {"proyecto_id": proyecto}, contexto=turno.contexto)
        if llamada["error"]:
            return Respuesta(llamada["error"], llamadas=[llamada])
        return Respuesta(
            _texto_explicacion(llamada["resultado"], turno.contexto.fuentes),
            llamadas=[llamada],
            advertencias=[turno.dominio.aviso_clasificacion] if turno.dominio.aviso_clasificacion else [],
            sugerencias=[f"Muéstrame el proyecto #{proyecto}", "¿Qué es un EIA?"],
        )

    def _estadisticas(self, turno: Turno, texto: str, e: Entidades) -> Respuesta | None:
        if not _ESTADISTICAS.search(texto):
            return None
        llamada = ejecutar("obtener_estadisticas", {}, contexto=turno.contexto)
        r = llamada["resultado"] or {}
        if llamada["error"] or not r.get("total"):
            return Respuesta(llamada["error"] or "Aún no tiene proyectos.", llamadas=[llamada])
        lineas = [f"Tiene {r['total']} proyecto(s)."]
        for titulo, clave in (
            ("Por estado", "por_estado"),
            ("Por clasificación", "por_clasificacion"),
            ("Por región", "por_region"),
        ):
            lineas.append(f"- {titulo}: " + ", ".join(f"{k}: {v}" for k, v in r[clave].items()))
        return Respuesta("\n".join(lineas), llamadas=[llamada])

    def _eseia_promedio(self, turno: Turno, texto: str, e: Entidades) -> Respuesta | None:
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
            advertencias=[
                "Cifras de los proyectos indexados del e-SEIA, no de todo el registro: referenciales."
            ],
        )

    def _eseia_detalle(self, turno: Turno, texto: str, e: Entidades) -> Respuesta | None:
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
            lineas.append(
                f"- … y {len(d['documentos']) - DOCUMENTOS_MOSTRADOS} documentos más en el expediente."
            )
        if d["url"]:
            lineas.append(f"Expediente: {d['url']}")
        return _respuesta_externa(lineas, llamada)

    def _eseia(self, turno: Turno, texto: str, e: Entidades) -> Respuesta | None:
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

    def _bcn(self, turno: Turno, texto: str, e: Entidades) -> Respuesta | None:
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

    def _sea(self, turno: Turno, texto: str, e: Entidades) -> Respuesta | None:
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
            f"- {f['cita']}: {' '.join(f['extracto'].split())[:300]} — {f['url']}"
            for f in r.get("fuentes", [])
        ]
        if not lineas:
            que = "noticias" if seccion == "noticias" else "guías"
            return Respuesta(f"No encontré {que} del SEA sobre «{consulta}».", llamadas=[llamada])
        titulo = "Noticias del SEA:" if seccion == "noticias" else "En las guías del SEA:"
        return _respuesta_externa([titulo, *lineas], llamada)

    def _listar(self, turno: Turno, texto: str, e: Entidades) -> Respuesta | None:
        if not _LISTAR.search(texto):
            return None
        parametros: dict[str, Any] = {"region": e.region} if e.region else {}
        for estado in ("borrador", "analizado", "archivado"):
            if estado in texto:
                parametros["estado"] = estado
        llamada = ejecutar("listar_proyectos", parametros, contexto=turno.contexto)
        r = llamada["resultado"] or {}
        if llamada["error"]:
            return Respuesta(llamada["error"], llamadas=[llamada])
        if not r.get("proyectos"):
            return Respuesta("No encontré proyectos con esos criterios.", llamadas=[llamada])
        lineas = [f"{r['total']} proyecto(s):"] + [
            f"- #{p['id']} «{p['nombre']}» — {p['region']}, {p['estado']}"
            + (f", {p['ultima_clasificacion']}" if p["ultima_clasificacion"] else "")
            for p in r["proyectos"]
        ]
        return Respuesta("\n".join(lineas), llamadas=[llamada])

    def _consultar(self, turno: Turno, texto: str, e: Entidades) -> Respuesta | None:
        if not (_CONSULTAR.search(texto) or (e.nombre and "proyecto" in texto)):
            return None
        parametros: dict[str, Any] = {"proyecto_id": e.proyecto_id} if e.proyecto_id else {"nombre": e.nombre}
        llamada = ejecutar("consultar_proyecto", parametros, contexto=turno.contexto)
        if llamada["error"]:
            return Respuesta(llamada["error"], llamadas=[llamada])
        p = llamada["resultado"]["proyecto"]
        ultimo = llamada["resultado"]["ultimo_analisis"]
        lineas = [
            f"Proyecto #{p['id']} «{p['nombre']}» ({p['cliente']}): {p['tipo_nombre']}, Región {p['region']}"
            + (f", comuna de {p['comuna']}" if p["comuna"] else "")
            + f". Estado: {p['estado']}. Polígono: {p['geometria']}."
        ]
        if ultimo:
            lineas.append(
                f"Último análisis ({ultimo['fecha'][:10]}): {ultimo['clasificacion']}. {ultimo['resumen']}"
            )
        else:
            lineas.append("Aún no tiene análisis.")
        return Respuesta(
            "\n".join(lineas),
            llamadas=[llamada],
            sugerencias=[
                f"¿Por qué el proyecto #{p['id']} es {ultimo['clasificacion']}?"
                if ultimo
                else f"Analiza el proyecto #{p['id']}"
            ],
        )

    def _sistema(self, turno: Turno, texto: str, e: Entidades) -> Respuesta | None:
        if not _SISTEMA.search(texto):
            return None
        return self._esquema_documentacion(turno, "explicar_sistema", {"tema": turno.pregunta})

    def _proponer(self, turno: Turno, texto: str, e: Entidades) -> Respuesta | None:
        if not _PROPONER.search(texto):
            return None
        return self._esquema_documentacion(turno, "proponer_implementacion", {"objetivo": turno.pregunta})

    def _normativa(self, turno: Turno) -> Respuesta:
        """La búsqueda (reordenada y acotada al dominio por la herramienta) y una respuesta que empieza
        por las oraciones que responden, con a lo más tres fuentes."""
        maximo = cuantas_fuentes(turno.pregunta)
        if turno.preferencia("largo") == "breve" and maximo <= MAXIMO_FUENTES:
            maximo = 1  # «respóndeme breve»: la oración que responde y su fuente
        pedido = {"consulta": consulta_de(turno.pregunta), "top_k": maximo + 2}
        llamada = ejecutar("buscar_normativa", pedido, contexto=turno.contexto)
        if llamada["error"]:
            return Respuesta(f"No pude buscar en la normativa: {llamada['error']}", llamadas=[llamada])
        resultado = llamada["resultado"]
        if resultado["confianza"] == "NONE" or not turno.contexto.fuentes:
            turno.contexto.fuentes.clear()
            return Respuesta(SIN_BASE, llamadas=[llamada], advertencias=["Sin base suficiente en el corpus."])
        advertencias = []
        if not resultado["confianza_suficiente"]:
            advertencias.append("Confianza baja de la búsqueda: verifique las citas antes de usarlas.")
        elegidas = elegir_fuentes(turno.contexto.fuentes, maximo=maximo)
        turno.contexto.fuentes[:] = elegidas
        texto = f"{redactar(elegidas)}\n\n{_SEGURIDAD[resultado['confianza']]}"
        return Respuesta(texto, llamadas=[llamada], advertencias=advertencias)

    # --- ayudas -------------------------------------------------------------------------------

    def _proponer_accion(self, turno: Turno, herramienta: str, parametros: dict[str, Any]) -> Respuesta:
        try:
            accion = accion_proponer(turno=turno, herramienta=herramienta, parametros=parametros)
        except ErrorDeHerramienta as error:
            return Respuesta(str(error))
        return Respuesta(texto_de_propuesta(accion), accion=accion)

    def _resolver_proyecto(self, turno: Turno, e: Entidades) -> int | Respuesta:
        if e.proyecto_id:
            return e.proyecto_id
        if e.nombre:
            llamada = ejecutar("consultar_proyecto", {"nombre": e.nombre}, contexto=turno.contexto)
            if llamada["error"]:
                return Respuesta(llamada["error"], llamadas=[llamada])
            return int(llamada["resultado"]["proyecto"]["id"])
        return Respuesta("¿De qué proyecto? Indique su número (por ejemplo, #12) o su nombre entre comillas.")

    def _esquema_documentacion(self, turno: Turno, herramienta: str, parametros: dict[str, Any]) -> Respuesta:
        llamada = ejecutar(herramienta, parametros, contexto=turno.contexto)
        if llamada["error"]:
            return Respuesta(llamada["error"], llamadas=[llamada])
        secciones = llamada["resultado"]["secciones"]
        if not secciones:
            return Respuesta("No encontré documentación del sistema sobre eso.", llamadas=[llamada])
        lineas = ["Esto es lo que dice la documentación del sistema:"]
        for s in secciones[:5]:
            lineas.append(f"- **{s['documento']} › {s['seccion']}**: {s['extracto']}")
        if herramienta == "proponer_implementacion":
            propuesta = llamada["resultado"]
            estimacion = propuesta["estimacion"]
            if propuesta["archivos"]:
                lineas.append(
                    "Archivos que tocaría: " + ", ".join(f"`{a}`" for a in propuesta["archivos"]) + "."
                )
            lineas += [f"{n}. {paso}" for n, paso in enumerate(propuesta["pasos"], start=1)]
            tamano = f"{estimacion['tamano']} ({estimacion['archivos']} archivos)"
            lineas.append(f"Estimación: {tamano}. {estimacion['nota']}")
        lineas.append(ETIQUETA_SIN_MODELO)
        return Respuesta("\n".join(lineas), llamadas=[llamada])


_RELLENO = re.compile(
    r"^\W*(?:(?:me )?(?:puedes|podrias|podria) (?:decir|explicar)(?:me)? )?(?:que|qué) "
    r"(?:dice|establece|señala|senala|indica|exige|dispone)n? "
    r"(?:la ley|la normativa|el reglamento|la norma)?\s*"
    r"(?:sobre|de|respecto (?:a|de)|acerca de|en cuanto a)\s+",
    re.IGNORECASE,
)


def consulta_de(texto: str) -> str:
    """La pregunta sin el relleno conversacional («¿qué dice la ley sobre …?» → «…»)."""
    limpia = _RELLENO.sub("", texto.strip()).strip(" ?¿!¡.")
    return (limpia if len(limpia) >= 3 else texto)[:500]


def extraer_entidades(
    texto: str, *, proyecto_activo: int | None = None, proyecto_mio: int | None = None
) -> Entidades:
    """Proyecto (#12, «nombre», «llamado X», «este proyecto», «mi proyecto»), región, comuna, tipo y
    cantidades."""
    normal = " ".join(sin_tildes(texto).split())
    e = Entidades()
    if numero := re.search(r"(?:#|proyecto\s+(?:n[°º.]?\s*)?)(\d+)\b", texto, re.IGNORECASE):
        e.proyecto_id = int(numero.group(1))
    elif re.search(r"\beste proyecto\b|\besto\b", normal) and proyecto_activo:
        e.proyecto_id = proyecto_activo
    elif _MI_PROYECTO.search(normal) and proyecto_mio:
        e.proyecto_id = proyecto_mio
    if citado := re.search(r"[«\"“']([^»\"”']{2,120})[»\"”']", texto):
        e.nombre = citado.group(1).strip()
    elif (
        nombrado := re.search(
            r"\bproyecto\s+((?:[A-ZÁÉÍÓÚÑ][\wáéíóúñüÁÉÍÓÚÑ'-]*)(?:\s+(?:de\s+|del\s+)?[A-ZÁÉÍÓÚÑ0-9][\wáéíóúñüÁÉÍÓÚÑ'-]*)*)",
            texto,
        )
    ) and not _es_sigla(nombrado.group(1)):
        e.nombre = nombrado.group(1).strip()
    elif llamado := re.search(
        r"\b(?:llamad[oa]|denominad[oa]|de nombre)\s+"
        r"(.+?)(?=\s+(?:en|de|con|ubicad[oa]|para|que)\s|[,.;:]|$)",
        texto,
        re.IGNORECASE,
    ):
        e.nombre = llamado.group(1).strip()
    e.region = proyectos.region_mencionada(texto=texto)
    if comuna := re.search(r"\bcomuna de ([a-z\s]+?)(?=\s+(?:en|de|con)\s|[,.;]|$)", normal):
        e.comuna = comuna.group(1).strip()
    if not e.region and (nombrada := _comuna_nombrada(texto, e.comuna)):
        # «un pozo en Quillota», «en la comuna de Los Andes»: la comuna dice la región.
        e.comuna, e.region = nombrada.nombre, nombrada.region.nombre
    e.tipo = next((tipo for patron, tipo in _TIPOS if patron.search(normal)), None)
    if cliente := re.search(
        r"\bcliente\s+[«\"“]?(.+?)[»\"”]?(?=\s+(?:en|con|ubicad[oa]|que|llamad[oa])\s|[,.;:]|$)",
        texto,
        re.IGNORECASE,
    ):
        e.cliente = cliente.group(1).strip()
    dichas = cantidades_dichas(normal)
    e.cantidades, e.supuestos = dichas.valores, dichas.supuestos
    e.circunstancias = circunstancias_dichas(texto)
    e.componentes = componentes_dichos(normal)
    if e.tipo is None and "capacidad_extraccion_t_mes" in e.cantidades and _EXPLOTACION.search(normal):
        e.tipo = "explotacion"
    return e


def _comuna_nombrada(texto: str, comuna: str | None) -> Comuna | None:
    if comuna:
        try:
            return proyectos.comuna_resolver(texto=comuna)
        except proyectos.ErrorDeTerritorio:
            return None
    return proyectos.comuna_mencionada(texto=texto)


# Una pregunta jurídica que trae cifras («¿se puede repartir una faena de 8.000 t/mes entre dos
# sociedades?», «¿en cuántos días se califica la Declaración de una planta de 2.500 t/mes?») es de
# la ley, no un proyecto que evaluar: lo decide la clase de pregunta (sus familias), no una cifra.
_FAMILIAS_JURIDICAS = frozenset(
    {
        "plazo",
        "sancion",
        "definicion",
        "contenido",
        "participacion",
        "consulta_indigena",
        "permiso",
        "caducidad",
        "composicion",
        "recursos",
    }
)
_PIDE_VIA = re.compile(r"\b(ingres|entr|va|van|ir|qued)\w*\b[^.?]{0,25}\b(al|del|en el) seia\b")


def _pregunta_juridica(texto: str) -> bool:
    """Indica si el mensaje pregunta por la ley aunque describa un proyecto: pregunta por fraccionar,
    o es de una familia jurídica (plazos, recursos, permisos…) sin preguntar si ingresa ni por qué vía."""
    familias = set(familias_de(texto))
    if "fraccionamiento" in familias:
        return True
    pide_via = bool(familias & {"ingreso", "eia_o_dia"}) or bool(_PIDE_VIA.search(texto))
    return bool(familias & _FAMILIAS_JURIDICAS) and not pide_via


def _cantidades_del_tipo(e: Entidades) -> bool:
    """Indica si el mensaje trae alguna de las cantidades con que se decide el ingreso de su tipo."""
    requeridas = CANTIDADES_REQUERIDAS.get(e.tipo or "", ())
    return any(campo in e.cantidades for campo in requeridas)


def _es_sigla(texto: str) -> bool:
    """«EIA», «DIA», «SEIA»: siglas que siguen a «proyecto» sin ser un nombre."""
    return texto.strip().isupper() and len(texto.strip()) <= 5


def _texto_explicacion(r: dict[str, Any], fuentes: list[Fuente]) -> str:
    indice = {f["fragmento_id"]: n for n, f in enumerate(fuentes, start=1)}

    def citas(fundamento: list[dict[str, Any]]) -> str:
        partes = []
        for f in fundamento:
            marca = f" [{indice[f['fragmento_id']]}]" if f.get("fragmento_id") in indice else ""
            partes.append(
                f"{f['norma']}, Art. {f['articulo']}"
                + (f" letra {f['letra']}" if f.get("letra") else "")
                + marca
            )
        return "; ".join(partes)

    lineas = [
        f"El proyecto #{r['proyecto_id']} «{r['proyecto']}» es {r['clasificacion']} según el análisis "
        f"del {r['fecha'][:10]}. {r['resumen']}"
    ]
    if r["tipologias"]:
        lineas.append("Ingreso al SEIA:")
        lineas += [
            f"- Tipología {t['tipologia']}: {t['motivo']} ({citas(t['fundamento'])})."
            for t in r["tipologias"]
        ]
    if r["triggers"]:
        lineas.append("Efectos del Art. 11 que exigen un EIA:")
        lineas += [
            f"- Letra {t['letra']}) ({t['severidad']}): {t['descripcion']} "
            f"Fundamento: {citas(t['fundamento'])}."
            for t in r["triggers"]
        ]
    if r["alertas"]:
        lineas.append(f"Además hay {len(r['alertas'])} alerta(s) para revisar.")
    return "\n".join(lineas)


# Cuán segura es la respuesta, dicho al usuario: la confianza de la búsqueda en palabras.
_SEGURIDAD = {
    "HIGH": "_Qué tan seguro estoy: bastante; los artículos citados tratan directamente lo que pregunta._",
    "MEDIUM": "_Qué tan seguro estoy: medianamente; revise que los artículos citados calcen con su caso._",
    "LOW": "_Qué tan seguro estoy: poco; es la base más cercana que encontré en el corpus: verifíquela._",
}

_SUGERENCIAS_INICIO = [
    "¿Cuándo un proyecto minero debe ingresar al SEIA?",
    "¿Cuándo corresponde un EIA en vez de una DIA?",
    "Lista mis proyectos",
]


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
