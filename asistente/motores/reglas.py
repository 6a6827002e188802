"""Motor de reglas (sin conexión): intención determinista, extracción de entidades, las mismas
herramientas y respuestas extractivas en castellano construidas solo con lo que ellas devuelven.

También es el respaldo cuando Claude falla a mitad de un turno.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from django.utils import timezone

from asistente.acciones import accion_proponer, texto_de_propuesta
from asistente.motores import externas, permisos
from asistente.motores.descripcion import cantidades_no_leidas
from asistente.motores.entidades import (
    MI_PROYECTO,
    TIPO_DE_LAS_PARTES,
    Entidades,
    cantidades_del_tipo,
    extraer_entidades,
    pide_via,
    pregunta_juridica,
    solo_partes,
    tipo_sin_cantidad,
)
from asistente.motores.periodo import periodo_de
from asistente.motores.redaccion import (
    MAXIMO_FUENTES,
    cuantas_fuentes,
    elegir_fuentes,
    redactar,
)
from asistente.motores.redaccion_proyecto import permisos_de_las_partes, redactar_evaluacion
from asistente.registro import ErrorDeHerramienta, Fuente, ejecutar
from asistente.turno.advertencias import CONFIANZA_BAJA
from asistente.turno.advertencias import SIN_BASE as SIN_BASE_ADVERTENCIA
from asistente.turno.memoria import solo_preferencias
from asistente.turno.tipos import Respuesta, Turno
from config.texto import sin_tildes
from proyectos.analisis.componentes import COMPONENTES_CON_UMBRAL_REGIONAL
from proyectos.analisis.ingreso import TIPOS_CON_UMBRAL_REGIONAL

NOMBRE = "reglas"
# La región con que se evalúa un proyecto descrito sin región cuando ningún umbral de lo descrito depende
# de ella (la respuesta no la nombra).
REGION_CUALQUIERA = "13"
# Quien describe su propio proyecto («tenemos una mina…», «queremos sacar…», «nuestra faena…»).
_EN_PRIMERA_PERSONA = re.compile(
    r"\b(tenemos|tengo|queremos|quiero|vamos a|voy a|nuestr[oa]s?|mi (proyecto|mina|faena|planta)|estamos"
    r"|planeamos|pensamos|proyectamos|operamos|producimos|sacamos|extraemos|somos|haremos|construiremos"
    r"|sacaremos|extraeremos|instalaremos|necesitamos)\b"
)
SIN_BASE = (
    "No tengo base suficiente en el corpus normativo para responder esto con fundamento. Puede "
    "reformular la pregunta (por ejemplo, nombrando la norma o el artículo) o consultarlo al SEA."
)
ENLACE_MEMORIA = "Puede verlo o borrarlo en [Mi memoria](/asistente/memoria/)."
ETIQUETA_SIN_MODELO = "(Respuesta armada sin modelo de lenguaje, a partir de la documentación del sistema.)"

_SALUDO = re.compile(r"^(hola|buen[oa]s? (dias|tardes|noches)|buenas|saludos|hey)\b")
_GRACIAS = re.compile(r"\b(gracias|muchas gracias|te agradezco)\b")
_IDENTIDAD = re.compile(r"\b(quien eres|que eres|como te llamas|eres un (bot|robot|humano))\b")
_AYUDA = re.compile(r"\b(ayuda|que puedes hacer|que sabes hacer|como te uso|que haces)\b")
# Un pedido empieza el mensaje o la cláusula, o sigue a quien lo pide («¿puedes…?», «quiero…»): «el SEA nos
# evalúa todo el proyecto» describe lo que hace otro, no pide un análisis.
_PEDIDO = (
    r"(?:^|[,.;:!?¿¡]\s*|\b(?:por favor|favor|puedes|podrias|podria|puede|quiero|quisiera|necesito|me|te pido"
    r"|hay que|ahora|ya|y)\s+)"
)
_CREAR = re.compile(
    _PEDIDO + r"(crea|crear|creame|registra|registrar|agrega|agregar|ingresa un nuevo|nuevo)\b.*\bproyecto\b"
)
_ANALIZAR = re.compile(
    _PEDIDO
    + r"(analiza\w*|evalua\w*|ejecuta\w*|corre\w*|haz\w* (?:un |el )?analisis)\b.*\b(proyecto|analisis|#\d+)"
)
_ACTUALIZAR = re.compile(_PEDIDO + r"(cambia\w*|actualiza\w*|modifica\w*)\b.*\b(proyecto|#\d+)")
_EXPLICAR = re.compile(
    r"(por ?que\b.*\b(eia|dia|no ingresa|ingresa)\b)|(explica\w* .*\b(analisis|resultado|clasificacion)\b)"
)
_ESTADISTICAS = re.compile(r"\b(cuantos proyectos|estadistica\w*|resumen de (mis |los )?proyectos)\b")
_LISTAR = re.compile(r"\b(lista\w*|muestra\w*|mostrar|cuales son|ver|tengo)\b.*\bproyectos\b")
_CONSULTAR = re.compile(r"\b(proyecto #?\d+|#\d+|este proyecto)\b")
_SISTEMA = re.compile(
    r"\b(como funciona|explica\w*|que es)\b.*\b(sistema|motor|busqueda|asistente|aplicacion|api|plataforma)\b"
)
# Proponer un cambio al sistema (no «qué medida tenemos que proponer» en una evaluación: eso es ley).
_PROPONER = re.compile(
    r"\b(propon\w*|como (implemento|implementar|agrego|agregar|anado|anadir))\b.*"
    r"\b(implementa\w*|funcionalidad\w*|sistema|aplicacion|plataforma|codigo|herramienta\w*|pantalla\w*|"
    r"integracion\w*|api|capa\w*|modulo\w*|reporte\w*|campo\w*)\b"
)


class MotorReglas:
    nombre = NOMBRE

    def responder(self, turno: Turno) -> Respuesta:
        texto = " ".join(sin_tildes(turno.pregunta).split()).lstrip("¡¿ ")  # «¡Hola!» es un saludo
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
        frecuente = turno.proyecto_frecuente if MI_PROYECTO.search(texto) and activo is None else None
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
            self._permisos,
            self._explicar,
            externas.eseia_promedio,
            externas.eseia_detalle,
            self._estadisticas,
            externas.eseia,
            externas.bcn,
            externas.sea,
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
        if e.areas:
            parametros["areas_declaradas"] = [{"categoria": a.categoria, "nombre": a.nombre} for a in e.areas]
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
        por_partes = solo_partes(e, texto)
        if (
            e.proyecto_id
            or pregunta_juridica(texto)
            or not (por_partes or (e.tipo and cantidades_del_tipo(e)) or tipo_sin_cantidad(e, texto))
        ):
            return None
        depende = e.tipo in TIPOS_CON_UMBRAL_REGIONAL
        if not e.region and not (pide_via(texto) and (depende or _EN_PRIMERA_PERSONA.search(texto))):
            # «si una mina produce 4.800 t/mes, ¿se considera…?», «¿una faena de 5.000 t/mes exactas
            # entra?»: pregunta por la ley, y su umbral no depende de la región
            return None
        depende_de_la_region = depende or bool(set(e.componentes) & COMPONENTES_CON_UMBRAL_REGIONAL)
        if not e.region and depende_de_la_region:
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
        # sin región, si nada de lo descrito tiene un umbral regional, cualquiera da el mismo resultado
        region = e.region or REGION_CUALQUIERA
        # por sus partes: las cantidades leídas (el volumen de turba, los m³ del tranque) son de las partes
        parametros: dict[str, Any] = (
            {"tipo": TIPO_DE_LAS_PARTES, "region": region}
            if por_partes
            else {"tipo": e.tipo, "region": region, **e.cantidades}
        )
        if e.comuna:
            parametros["comuna"] = e.comuna
        if e.circunstancias:
            parametros["circunstancias"] = [d.circunstancia for d in e.circunstancias]
        if e.componentes:
            parametros["componentes"] = e.componentes
        if e.areas:
            parametros["areas_declaradas"] = [{"categoria": a.categoria, "nombre": a.nombre} for a in e.areas]
        llamada = ejecutar("evaluar_proyecto", parametros, contexto=turno.contexto)
        if llamada["error"]:
            return Respuesta(f"No pude evaluar el proyecto descrito: {llamada['error']}", llamadas=[llamada])
        resultado = llamada["resultado"]
        if por_partes:  # el tipo solo sirvió para evaluar las partes: sus permisos no son del proyecto
            resultado = {**resultado, "permisos": permisos_de_las_partes(resultado["permisos"])}
        if not e.region:
            resultado = {**resultado, "region": ""}
        no_leidas, sin_efecto = _cifras_sin_leer(texto, e, resultado, por_partes=por_partes)
        texto_respuesta, fuentes = redactar_evaluacion(
            resultado,
            supuestos=e.supuestos,
            dichas={d.circunstancia: d.frase for d in e.circunstancias},
            no_leidas=no_leidas,
            sin_efecto=sin_efecto,
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

    def _permisos(self, turno: Turno, texto: str, e: Entidades) -> Respuesta | None:
        """«¿Qué permiso necesito para …?», «¿qué permisos necesita mi proyecto?»: el catálogo de permisos
        y las reglas que unen cada parte a su artículo (`motores/permisos.py`)."""
        if not permisos.pide_permisos(texto, e):
            return None
        proyecto: int | None = None
        if (
            not e.componentes
            and not permisos.articulos_nombrados(texto)
            and (e.proyecto_id or (e.nombre and e.nombre_de_proyecto))
        ):
            resuelto = self._resolver_proyecto(turno, e)
            if isinstance(resuelto, Respuesta):
                return resuelto
            proyecto = resuelto
        elif MI_PROYECTO.search(texto) and not e.componentes:
            return Respuesta(
                "¿De qué proyecto? Indique su número (por ejemplo, #12) o su nombre entre comillas."
            )
        pedido = permisos.parametros(texto, e, proyecto_id=proyecto, consulta=consulta_de(turno.pregunta))
        return permisos.responder(turno, ejecutar("consultar_permisos", pedido, contexto=turno.contexto))

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
        periodo = _periodo(texto)
        llamada = ejecutar("obtener_estadisticas", periodo, contexto=turno.contexto)
        r = llamada["resultado"] or {}
        if llamada["error"] or not r.get("total"):
            vacio = f"No tiene proyectos creados {_dicho(periodo)}." if periodo else "Aún no tiene proyectos."
            return Respuesta(llamada["error"] or vacio, llamadas=[llamada])
        lineas = [f"Tiene {r['total']} proyecto(s){' creados ' + _dicho(periodo) if periodo else ''}."]
        for titulo, clave in (
            ("Por estado", "por_estado"),
            ("Por clasificación", "por_clasificacion"),
            ("Por región", "por_region"),
        ):
            lineas.append(f"- {titulo}: " + ", ".join(f"{k}: {v}" for k, v in r[clave].items()))
        return Respuesta("\n".join(lineas), llamadas=[llamada])

    def _listar(self, turno: Turno, texto: str, e: Entidades) -> Respuesta | None:
        if not _LISTAR.search(texto):
            return None
        periodo = _periodo(texto)
        parametros: dict[str, Any] = ({"region": e.region} if e.region else {}) | periodo
        for estado in ("borrador", "analizado", "archivado"):
            if estado in texto:
                parametros["estado"] = estado
        llamada = ejecutar("listar_proyectos", parametros, contexto=turno.contexto)
        r = llamada["resultado"] or {}
        if llamada["error"]:
            return Respuesta(llamada["error"], llamadas=[llamada])
        if not r.get("proyectos"):
            return Respuesta("No encontré proyectos con esos criterios.", llamadas=[llamada])
        lineas = [f"{r['total']} proyecto(s){' creados ' + _dicho(periodo) if periodo else ''}:"] + [
            f"- #{p['id']} «{p['nombre']}» — {p['region']}, {p['estado']}"
            + (f", {p['ultima_clasificacion']}" if p["ultima_clasificacion"] else "")
            for p in r["proyectos"]
        ]
        return Respuesta("\n".join(lineas), llamadas=[llamada])

    def _consultar(self, turno: Turno, texto: str, e: Entidades) -> Respuesta | None:
        if not (_CONSULTAR.search(texto) or (e.nombre and e.nombre_de_proyecto)):
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
            return Respuesta(SIN_BASE, llamadas=[llamada], advertencias=[SIN_BASE_ADVERTENCIA])
        advertencias = []
        if not resultado["confianza_suficiente"]:
            advertencias.append(CONFIANZA_BAJA)
        seguridad = resultado["seguridad"]
        coberturas = {
            f["fragmento_id"]: c
            for f, c in zip(turno.contexto.fuentes, resultado["coberturas"], strict=False)
        }
        elegidas = elegir_fuentes(
            turno.contexto.fuentes,
            maximo=maximo,
            coberturas=None if seguridad["nivel"] == "poco" or maximo > MAXIMO_FUENTES else coberturas,
        )
        turno.contexto.fuentes[:] = elegidas
        cuerpo = redactar(
            elegidas, pregunta=turno.pregunta, seguridad=seguridad["nivel"], motivo=seguridad["motivo"]
        )
        texto = f"{cuerpo}\n\n_Qué tan seguro estoy: {seguridad['nivel']}; {seguridad['motivo']}._"
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


def _cifras_sin_leer(
    texto: str, e: Entidades, resultado: dict[str, Any], *, por_partes: bool
) -> tuple[list[str], list[str]]:
    """Las cifras del mensaje que el motor no usó: las que impiden concluir que no ingresa y, si ya
    ingresa, las que solo se nombran (no cambian que ingrese). Una cifra que es un umbral comparado («¿queda
    fuera por estar bajo las N t/mes?») se leyó; evaluado por sus partes, lo leído es de las partes."""
    de_las_partes = [v for v in e.componentes.values() if not isinstance(v, bool)]
    leidas = de_las_partes if por_partes else [*e.cantidades.values(), *de_las_partes]
    umbrales = [u["texto"] for u in resultado.get("umbrales", [])]
    sin_leer = cantidades_no_leidas(texto, leidas, [*e.supuestos, *umbrales])
    if resultado["clasificacion"] != "NO_INGRESA":
        return [], sin_leer
    return sin_leer, []


def consulta_de(texto: str) -> str:
    """La pregunta sin el relleno conversacional («¿qué dice la ley sobre …?» → «…»)."""
    limpia = _RELLENO.sub("", texto.strip()).strip(" ?¿!¡.")
    return (limpia if len(limpia) >= 3 else texto)[:500]


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


_SUGERENCIAS_INICIO = [
    "¿Cuándo un proyecto minero debe ingresar al SEIA?",
    "¿Cuándo corresponde un EIA en vez de una DIA?",
    "Lista mis proyectos",
]


def _periodo(texto: str) -> dict[str, str]:
    """El periodo de creación que nombra el mensaje («desde marzo de 2024»), como lo piden las
    herramientas de listas y estadísticas (`desde`, `hasta`); vacío si no nombra ninguno."""
    desde, hasta = periodo_de(texto, timezone.localdate())
    return {clave: fecha.isoformat() for clave, fecha in (("desde", desde), ("hasta", hasta)) if fecha}


def _dicho(periodo: dict[str, str]) -> str:
    """«del 01-03-2024 al 30-06-2024», «desde el 01-03-2024», «hasta el 31-12-2023»."""
    fechas = {clave: date.fromisoformat(valor).strftime("%d-%m-%Y") for clave, valor in periodo.items()}
    if "desde" in fechas and "hasta" in fechas:
        return f"del {fechas['desde']} al {fechas['hasta']}"
    return f"desde el {fechas['desde']}" if "desde" in fechas else f"hasta el {fechas['hasta']}"
