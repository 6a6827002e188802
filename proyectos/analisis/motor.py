"""Motor de prefactibilidad: ¿ingresa al SEIA?, ¿por DIA o EIA?, y por qué.

Contrato sin estado: `evaluar(datos)` recibe el JSON de entrada y devuelve el de salida. Pasos:
1. Ingreso: tipologías de la letra i) del Art. 10 (DS 40 Art. 3 i.1–i.6), de las partes de la faena
   que entran por otras letras (a.1–a.4 obras hidráulicas, a.5 glaciar, b.1 línea de alta tensión,
   c central, j ducto minero, k.1 instalación fabril, ñ sustancias peligrosas, s humedal urbano;
   `componentes.py`), de la letra
   a.5 si el polígono intersecta un glaciar de las capas y de la letra p) (obras dentro de áreas
   colocadas bajo protección oficial). Basta una.
2. Efectos del Art. 11 (a–f): por capas geográficas (intersección y distancia) y por
   circunstancias declaradas.
3. Clasificación: NO_INGRESA (sin tipología), DIA (ingresa sin efectos) o EIA (algún efecto).
Cada conclusión lleva su evidencia y su fundamento (fragmentos reales del corpus, con la fecha de su
versión); si la regla que la decide quedó «revisar» porque su texto cambió (`reglas.py`), lo advierte.
"""

from __future__ import annotations

from typing import Any, TypedDict, TypeVar

from django.db.models import Prefetch

from config.concurrencia import cupo_de_calculo
from config.seia import LEY, REGLAMENTO
from proyectos.analisis import fundamentos
from proyectos.analisis.componentes import comparaciones_de_componentes
from proyectos.analisis.entrada import CIRCUNSTANCIAS, Entrada, validar_entrada
from proyectos.analisis.espacial import Cercania, IndiceEspacial, indice_actual
from proyectos.analisis.ingreso import comparaciones, numero_cl, tipologias_de_ingreso
from proyectos.analisis.permisos import (
    permisos_con_catalogo,
    permisos_con_referencias,
    permisos_requeridos,
    referencias_del_155,
)
from proyectos.analisis.reglas import AVISO_REVISAR, POR_LITERAL
from proyectos.analisis.resultado import (
    Alerta,
    Clasificacion,
    DetalleTipologia,
    Efecto,
    Evidencia,
    Fundamento,
    ResultadoAnalisis,
    Severidad,
    Territorio,
    Umbral,
)
from proyectos.models import CapaGeografica, CategoriaCapa, Region, ReglaDelMotor

VERSION_MOTOR = "2026-11-27.1"
ORDEN_SEVERIDAD = {"critica": 0, "alta": 1, "media": 2}
DESCRIPCION_LETRA = {
    "a": "Riesgo para la salud de la población",
    "b": "Efectos adversos significativos sobre recursos naturales renovables",
    "c": "Reasentamiento o alteración significativa de los sistemas de vida de grupos humanos",
    "d": "Localización en o próxima a áreas protegidas, sitios prioritarios, humedales protegidos, glaciares",
    "e": "Alteración del valor paisajístico o turístico",
    "f": "Alteración del patrimonio cultural",
}
# Categorías cuyas obras encima hacen ingresar al proyecto por sí solas, cualquiera sea su tamaño:
# DS 40 Art. 3 a.5 (obras que alteren un glaciar) y Ley 19.300 Art. 10 s (obras en humedales urbanos).
INGRESO_POR_CATEGORIA = {"glaciar": "a.5", "humedal_urbano": "s"}
INGRESO_POR_CATEGORIA_MOTIVO = {
    "a.5": "obras sobre un glaciar de las capas",
    "s": "obras en un humedal urbano de las capas",
}
# Palabra con que se elige la oración citada del Art. 8 del DS 40 según la categoría.
CLAVE_CITA = {
    "sitio_prioritario": "sitios prioritarios",
    "glaciar": "glaciares",
    "humedal_ramsar": "humedales",
    "humedal_inventario": "humedales",
    "humedal_urbano": "humedales",
    "area_desarrollo_indigena": "pueblos indígenas",
}


class _EfectoConReferencias(TypedDict):
    letra: str
    descripcion: str
    severidad: Severidad
    evidencia: Evidencia
    refs: list[fundamentos.Referencia]


class _TipologiaConReferencias(TypedDict):
    tipologia: str
    motivo: str
    refs: list[fundamentos.Referencia]


class _UmbralConReferencias(TypedDict):
    literal: str
    texto: str
    cumple: bool
    refs: list[fundamentos.Referencia]


class _Espaciales(TypedDict):
    efectos: list[_EfectoConReferencias]
    alertas: list[Alerta]
    advertencias: list[str]
    proteccion_oficial: list[str]
    # Literal de ingreso → elementos de las capas que el polígono intersecta y lo configuran.
    por_capas: dict[str, list[str]]
    # Categoría de capa → elementos que el polígono intersecta (traen permisos: Arts. 120 y 121).
    dentro_de: dict[str, list[str]]
    territorio: Territorio


def evaluar(datos: Any, *, espacial: bool = True) -> ResultadoAnalisis:
    """Valida `datos` (lanza `EntradaInvalida`) y devuelve el resultado del contrato de salida."""
    if not espacial:
        return evaluar_entrada(validar_entrada(datos), espacial=False)
    # Validar un polígono de miles de vértices también pesa: dentro del mismo cupo.
    with cupo_de_calculo():
        return evaluar_entrada(validar_entrada(datos), espacial=True)


def evaluar_entrada(
    entrada: Entrada, *, espacial: bool = True, indice: IndiceEspacial | None = None
) -> ResultadoAnalisis:
    """Evalúa una entrada ya validada; `espacial=False` es el análisis rápido (sin capas)."""
    advertencias: list[str] = []
    alertas: list[Alerta] = []
    efectos: list[_EfectoConReferencias] = []
    tipologias: list[_TipologiaConReferencias] = [
        {"tipologia": t.literal, "motivo": t.motivo, "refs": fundamentos.de_tipologia(t.literal)}
        for t in tipologias_de_ingreso(
            tipo=entrada.tipo, codigo_region=entrada.region.codigo, cantidades=entrada.cantidades
        )
    ]
    umbrales: list[_UmbralConReferencias] = [
        {
            "literal": c.literal,
            "texto": c.texto,
            "cumple": c.cumple,
            "refs": fundamentos.de_tipologia(c.literal),
        }
        for c in comparaciones(
            tipo=entrada.tipo, codigo_region=entrada.region.codigo, cantidades=entrada.cantidades
        )
    ]
    # Las otras partes de la faena: cada una puede hacerla ingresar por su propia letra.
    for c in comparaciones_de_componentes(entrada.componentes, codigo_region=entrada.region.codigo):
        refs = fundamentos.de_tipologia(c.literal)
        umbrales.append({"literal": c.literal, "texto": c.texto, "cumple": c.cumple, "refs": refs})
        if c.cumple:
            tipologias.append({"tipologia": c.literal, "motivo": c.texto, "refs": refs})
    territorio: Territorio = {}
    dentro_de: dict[str, list[str]] = {}

    if entrada.geometria is None and entrada.areas_declaradas:
        advertencias.append(
            "Sin geometría del proyecto: el área en que está se tomó de lo dicho ("
            + ", ".join(a.nombrada for a in entrada.areas_declaradas)
            + "); las demás capas (sitios prioritarios, glaciares, humedales) no se evaluaron. Dibuje o suba "
            "el polígono para confirmarlo."
        )
    elif entrada.geometria is None:
        advertencias.append(
            "Sin geometría del proyecto no se revisaron las capas (áreas protegidas, sitios prioritarios, "
            "glaciares, humedales): no se descartan la letra d) del Art. 11 ni la p) del Art. 10."
        )
    elif not espacial:
        advertencias.append(
            "Análisis rápido: no se evaluaron las capas geográficas; ejecute un análisis completo para "
            "revisar efectos por localización."
        )
    else:
        # El paso pesado (índice y geometrías): con cupo, para que no detenga a los pedidos livianos.
        with cupo_de_calculo():
            indice = indice or indice_actual()
            espaciales = _efectos_espaciales(entrada, indice)
        efectos += espaciales["efectos"]
        alertas += espaciales["alertas"]
        advertencias += espaciales["advertencias"]
        territorio = espaciales["territorio"]
        dentro_de = espaciales["dentro_de"]
        for literal, elementos in espaciales["por_capas"].items():
            if any(t["tipologia"] == literal for t in tipologias):
                continue
            tipologias.append(
                {
                    "tipologia": literal,
                    "motivo": f"{INGRESO_POR_CATEGORIA_MOTIVO[literal]}: {', '.join(elementos)}",
                    "refs": fundamentos.de_tipologia(literal),
                }
            )
        if espaciales["proteccion_oficial"]:
            nombres = ", ".join(espaciales["proteccion_oficial"])
            tipologias.append(
                {
                    "tipologia": "p",
                    "motivo": f"obras dentro de un área colocada bajo protección oficial: {nombres}",
                    "refs": fundamentos.de_tipologia("p"),
                }
            )

    if entrada.areas_declaradas:
        declaradas = _areas_declaradas(entrada)
        if declaradas["proteccion_oficial"] and not any(t["tipologia"] == "p" for t in tipologias):
            tipologias.append(
                {
                    "tipologia": "p",
                    "motivo": "obras dentro de un área colocada bajo protección oficial: "
                    + ", ".join(declaradas["proteccion_oficial"])
                    + " (dicho en el texto, sin polígono)",
                    "refs": fundamentos.de_tipologia("p"),
                }
            )
        efectos += declaradas["efectos"]
        for codigo, elementos in declaradas["dentro_de"].items():
            dentro_de.setdefault(codigo, []).extend(elementos)

    for circunstancia in entrada.circunstancias:
        if circunstancia == "localizacion_proxima_areas_protegidas" and entrada.areas_declaradas:
            continue  # la letra d ya la trae el área declarada, con su nombre
        letra, descripcion = CIRCUNSTANCIAS[circunstancia]
        efectos.append(
            {
                "letra": letra,
                "descripcion": f"{descripcion} (circunstancia declarada).",
                "severidad": "alta",
                "evidencia": {"origen": "circunstancia_declarada", "circunstancia": circunstancia},
                "refs": fundamentos.de_efecto(letra),
            }
        )

    ingresa = bool(tipologias)
    if not ingresa and efectos:
        # El Art. 11 solo se aplica a proyectos del Art. 10: sin tipología, los efectos quedan como alertas.
        alertas += [
            {
                "severidad": e["severidad"],
                "mensaje": f"{e['descripcion']} Si el proyecto ingresara al SEIA, esto exigiría un EIA "
                f"(Art. 11 letra {e['letra']}).",
                "evidencia": e["evidencia"],
            }
            for e in efectos
        ]
        efectos = []
    clasificacion: Clasificacion = "EIA" if efectos else "DIA" if ingresa else "NO_INGRESA"
    referencias_clasificacion = {
        "EIA": fundamentos.EFECTOS_OBLIGAN_EIA,
        "DIA": fundamentos.PRESENTA_DIA,
        "NO_INGRESA": fundamentos.PERTINENCIA,
    }[clasificacion]
    if not ingresa:
        advertencias.append(
            "El proyecto no alcanza ninguna tipología de ingreso; aun así puede consultar la pertinencia de "
            "ingreso al SEA (Art. 26 del Reglamento del SEIA), en especial si hay cambios de consideración "
            "o dudas sobre las cantidades."
        )

    requeridos, comparaciones_pas = permisos_requeridos(
        tipo=entrada.tipo, componentes=entrada.componentes, dentro_de=dentro_de
    )
    permisos = permisos_con_referencias(requeridos)
    umbrales_pas: list[_UmbralConReferencias] = [
        {"literal": c.literal, "texto": c.texto, "cumple": c.cumple, "refs": referencias_del_155(c.texto)}
        for c in comparaciones_pas
    ]
    if permisos and not ingresa:
        advertencias.append(
            "Como no ingresa al SEIA, esos permisos se piden a cada órgano sectorial y no a través del SEIA "
            "(Art. 107 del Reglamento del SEIA)."
        )

    todas: list[fundamentos.Referencia] = (
        [r for t in tipologias for r in t["refs"]]
        + [r for e in efectos for r in e["refs"]]
        + [r for u in umbrales for r in u["refs"]]
        + [r for p in permisos for r in p["refs"]]
        + [r for u in umbrales_pas for r in u["refs"]]
        + referencias_clasificacion
    )
    resueltas = {id(r): f for r, f in zip(todas, fundamentos.resolver(todas), strict=True)}
    if any(f["fragmento_id"] is None for f in resueltas.values()):
        advertencias.append(
            "Parte del fundamento no se encontró en el corpus normativo cargado (ejecute cargar_corpus)."
        )

    # Las reglas cuyo texto cambió después de escritas: cada resultado que las usa lo advierte.
    avisos_regla = _avisos_de_reglas({t["tipologia"] for t in tipologias} | {u["literal"] for u in umbrales})
    advertencias += avisos_regla.values()

    efectos.sort(key=lambda e: (ORDEN_SEVERIDAD[e["severidad"]], e["letra"]))
    alertas.sort(key=lambda a: ORDEN_SEVERIDAD[a["severidad"]])
    return {
        "ingresa_seia": ingresa,
        "tipologias": [t["tipologia"] for t in tipologias],
        "clasificacion": clasificacion,
        "triggers": [_efecto_con_fundamento(e, resueltas) for e in efectos],
        "alertas": alertas,
        "advertencias": advertencias,
        "version_motor": VERSION_MOTOR,
        "detalle_tipologias": [_tipologia_con_fundamento(t, resueltas, avisos_regla) for t in tipologias],
        "fundamento_clasificacion": [resueltas[id(r)] for r in referencias_clasificacion],
        "resumen": _resumen(clasificacion, tipologias, efectos),
        "territorio": territorio,
        "umbrales": [_umbral_con_fundamento(u, resueltas, avisos_regla) for u in umbrales],
        "permisos": permisos_con_catalogo(permisos, resueltas, advertencias),
        "umbrales_permisos": [_umbral_con_fundamento(u, resueltas, {}) for u in umbrales_pas],
    }


def _avisos_de_reglas(literales: set[str]) -> dict[str, str]:
    """Literal → aviso, para las reglas usadas que quedaron «revisar» (`services.reglas_revisar`)."""
    avisos: dict[str, str] = {}
    filas = ReglaDelMotor.objects.filter(literal__in=literales, estado=ReglaDelMotor.Estado.REVISAR)
    for fila in filas.only("literal", "fragmento", "fecha_texto"):
        fecha = f" (texto del {fila.fecha_texto:%d-%m-%Y})" if fila.fecha_texto else ""
        avisos[fila.literal] = f"{fila.fragmento}{fecha}: {AVISO_REVISAR}."
    return avisos


def _efectos_espaciales(entrada: Entrada, indice: IndiceEspacial) -> _Espaciales:
    assert entrada.geometria is not None
    geometria = entrada.geometria
    categorias = {c.pk: c for c in CategoriaCapa.objects.all()}
    regiones = Prefetch("cobertura_regiones", queryset=Region.objects.only("codigo", "nombre"))
    capas = {c.pk: c for c in CapaGeografica.objects.filter(activa=True).prefetch_related(regiones)}
    radio = max([max(c.buffer_alerta_m, c.buffer_efecto_m) for c in categorias.values()] or [0])
    efectos: list[_EfectoConReferencias] = []
    alertas: list[Alerta] = []
    proteccion_oficial: list[str] = []
    por_capas: dict[str, list[str]] = {}
    dentro_de: dict[str, list[str]] = {}
    for cercania in indice.cercanos(geometria, radio_m=radio):
        capa = capas.get(cercania.elemento.capa_id)
        categoria = categorias.get(cercania.elemento.categoria_id)
        if capa is None or categoria is None:
            continue
        evidencia = _evidencia(cercania, capa, categoria)
        dentro = cercania.distancia_m == 0
        letras = capa.letras_art11 or categoria.letras_art11
        if dentro and cercania.elemento.nombre not in dentro_de.setdefault(categoria.codigo, []):
            dentro_de[categoria.codigo].append(cercania.elemento.nombre)
        if dentro and categoria.proteccion_oficial:
            proteccion_oficial.append(cercania.elemento.nombre)
        if dentro and categoria.codigo in INGRESO_POR_CATEGORIA:
            nombres = por_capas.setdefault(INGRESO_POR_CATEGORIA[categoria.codigo], [])
            if cercania.elemento.nombre not in nombres:
                nombres.append(cercania.elemento.nombre)
        es_efecto = categoria.interseccion_es_efecto and (
            dentro or cercania.distancia_m <= categoria.buffer_efecto_m
        )
        if es_efecto:
            for letra in letras:
                efectos.append(
                    {
                        "letra": letra,
                        "descripcion": _descripcion_efecto(letra, cercania, categoria),
                        "severidad": categoria.severidad,
                        "evidencia": evidencia,
                        "refs": _referencias_espaciales(letra, categoria),
                    }
                )
        elif cercania.distancia_m <= categoria.buffer_alerta_m:
            alertas.append(
                {
                    "severidad": categoria.severidad,
                    "mensaje": _mensaje_alerta(cercania, categoria),
                    "evidencia": evidencia,
                }
            )

    advertencias, territorio = _territorio(entrada, indice)
    regiones_proyecto = set(territorio.get("codigos_region", [entrada.region.codigo]))
    for capa in capas.values():
        cubiertas = {r.codigo for r in capa.cobertura_regiones.all()}
        fuera = sorted(regiones_proyecto - cubiertas) if cubiertas else []
        if fuera:
            advertencias.append(
                f"La capa «{capa.nombre}» no cubre (o cubre solo en parte) la región {', '.join(fuera)} del "
                "proyecto: que no muestre hallazgos allí no descarta efectos."
            )
        elif capa.cobertura_nota:
            advertencias.append(f"La capa «{capa.nombre}» es incompleta: {capa.cobertura_nota}")
    return {
        "efectos": efectos,
        "alertas": alertas,
        "advertencias": advertencias,
        "proteccion_oficial": list(dict.fromkeys(proteccion_oficial)),
        "por_capas": por_capas,
        "dentro_de": dentro_de,
        "territorio": territorio,
    }


class _Declaradas(TypedDict):
    proteccion_oficial: list[str]
    efectos: list[_EfectoConReferencias]
    dentro_de: dict[str, list[str]]


def _areas_declaradas(entrada: Entrada) -> _Declaradas:
    """Las áreas en que se dice que está el proyecto, como si el polígono las intersectara: la letra d del
    Art. 11 con la severidad de su categoría y, si está bajo protección oficial, la letra p del Art. 10
    (y los permisos de obras dentro de ella). La evidencia dice que salió del texto."""
    categorias = {
        c.codigo: c
        for c in CategoriaCapa.objects.filter(codigo__in=[a.categoria for a in entrada.areas_declaradas])
    }
    resultado: _Declaradas = {"proteccion_oficial": [], "efectos": [], "dentro_de": {}}
    for area in entrada.areas_declaradas:
        categoria = categorias.get(area.categoria)
        oficial = categoria.proteccion_oficial if categoria else area.categoria == "area_protegida"
        if oficial:
            resultado["proteccion_oficial"].append(area.nombrada)
        resultado["dentro_de"].setdefault(area.categoria, []).append(area.nombrada)
        extra = (fundamentos.Referencia(LEY, "10", "p"),) if oficial else ()
        resultado["efectos"].append(
            {
                "letra": "d",
                "descripcion": f"{DESCRIPCION_LETRA['d']}: el proyecto está dentro de {area.nombrada} "
                "(dicho en el texto, sin polígono).",
                "severidad": categoria.severidad if categoria else "critica",
                "evidencia": {
                    "origen": "ubicacion_declarada",
                    "elemento": area.nombrada,
                    "categoria": area.categoria,
                    "distancia_m": 0,
                },
                "refs": fundamentos.de_efecto(
                    "d", clave=CLAVE_CITA.get(area.categoria, "áreas protegidas"), extra=extra
                ),
            }
        )
    return resultado


def _territorio(entrada: Entrada, indice: IndiceEspacial) -> tuple[list[str], Territorio]:
    assert entrada.geometria is not None
    advertencias: list[str] = []
    regiones = indice.regiones_de(entrada.geometria)
    comuna = indice.comuna_de(entrada.geometria)
    territorio: Territorio = {
        "codigos_region": [r.codigo for r in regiones] or [entrada.region.codigo],
        "comuna_sugerida": {"codigo": comuna.codigo, "nombre": comuna.nombre} if comuna else None,
    }
    if regiones and entrada.region.codigo not in territorio["codigos_region"]:
        advertencias.append(
            f"El polígono está en la Región {', '.join(r.nombre for r in regiones)}, no en la declarada "
            f"({entrada.region.nombre}); los umbrales regionales se aplicaron a la región declarada."
        )
    if comuna and entrada.comuna and comuna.codigo != entrada.comuna.codigo:
        advertencias.append(
            f"El polígono está mayormente en la comuna de {comuna.nombre}, no en {entrada.comuna.nombre}."
        )
    return advertencias, territorio


def _evidencia(cercania: Cercania, capa: CapaGeografica, categoria: CategoriaCapa) -> Evidencia:
    return {
        "origen": "capa",
        "elemento_id": cercania.elemento.id,
        "elemento": cercania.elemento.nombre,
        "identificador": cercania.elemento.identificador,
        "categoria": categoria.codigo,
        "categoria_nombre": categoria.nombre,
        "capa": capa.codigo,
        "capa_nombre": capa.nombre,
        "fuente": capa.fuente,
        "distancia_m": round(cercania.distancia_m),
        "interseccion_ha": round(cercania.interseccion_ha, 2),
    }


def _descripcion_efecto(letra: str, cercania: Cercania, categoria: CategoriaCapa) -> str:
    nombre = cercania.elemento.nombre
    if cercania.distancia_m == 0:
        donde = f"el proyecto intersecta {nombre} ({numero_cl(cercania.interseccion_ha, 2)} ha en común)"
    else:
        donde = f"el proyecto está a {numero_cl(cercania.distancia_m)} m de {nombre}"
    return f"{DESCRIPCION_LETRA[letra]}: {donde}; categoría {_minuscula(categoria.nombre)}."


def _mensaje_alerta(cercania: Cercania, categoria: CategoriaCapa) -> str:
    nombre = cercania.elemento.nombre
    if cercania.distancia_m == 0:
        texto = f"El proyecto intersecta {nombre} ({_minuscula(categoria.nombre)})"
    else:
        distancia = numero_cl(cercania.distancia_m)
        texto = f"{nombre} ({_minuscula(categoria.nombre)}) está a {distancia} m del proyecto"
    if not categoria.interseccion_es_efecto:
        motivo = (
            categoria.descripcion or "no configura un efecto por sí solo; revise su estado y la línea de base"
        )
    else:
        motivo = f"dentro de la distancia de alerta de {numero_cl(categoria.buffer_alerta_m)} m"
    return f"{texto}; {motivo}."


def _minuscula(texto: str) -> str:
    """«Glaciar» → «glaciar», sin tocar siglas ni nombres propios posteriores."""
    return texto[:1].lower() + texto[1:] if texto[1:2].islower() else texto


def _referencias_espaciales(letra: str, categoria: CategoriaCapa) -> list[fundamentos.Referencia]:
    if letra == "b" and categoria.codigo == "glaciar":
        return fundamentos.de_efecto("b", extra=(fundamentos.Referencia(REGLAMENTO, "6", "g.5"),))
    extra: tuple[fundamentos.Referencia, ...] = ()
    if letra == "d" and categoria.proteccion_oficial:
        extra = (fundamentos.Referencia(LEY, "10", "p"),)
    return fundamentos.de_efecto(
        letra, clave=CLAVE_CITA.get(categoria.codigo, "áreas protegidas") if letra == "d" else "", extra=extra
    )


def _efecto_con_fundamento(efecto: _EfectoConReferencias, resueltas: dict[int, Fundamento]) -> Efecto:
    return {
        "letra": efecto["letra"],
        "descripcion": efecto["descripcion"],
        "severidad": efecto["severidad"],
        "evidencia": efecto["evidencia"],
        "fundamento": [resueltas[id(r)] for r in efecto["refs"]],
    }


def _tipologia_con_fundamento(
    tipologia: _TipologiaConReferencias, resueltas: dict[int, Fundamento], avisos: dict[str, str]
) -> DetalleTipologia:
    detalle: DetalleTipologia = {
        "tipologia": tipologia["tipologia"],
        "motivo": tipologia["motivo"],
        "fundamento": [resueltas[id(r)] for r in tipologia["refs"]],
    }
    return _con_aviso(detalle, avisos.get(tipologia["tipologia"]))


def _umbral_con_fundamento(
    umbral: _UmbralConReferencias, resueltas: dict[int, Fundamento], avisos: dict[str, str]
) -> Umbral:
    resultado: Umbral = {
        "literal": umbral["literal"],
        "texto": umbral["texto"],
        "cumple": umbral["cumple"],
        "fundamento": [resueltas[id(r)] for r in umbral["refs"]],
    }
    if regla := POR_LITERAL.get(umbral["literal"]):
        resultado["exige"] = regla.citas  # las palabras del literal que fijan el umbral, para decirlas
    return _con_aviso(resultado, avisos.get(umbral["literal"]))


_ConAviso = TypeVar("_ConAviso", DetalleTipologia, Umbral)


def _con_aviso(elemento: _ConAviso, aviso: str | None) -> _ConAviso:
    """Si la regla del literal quedó «revisar», el elemento lo dice (`aviso_regla`)."""
    if aviso:
        elemento["aviso_regla"] = aviso
    return elemento


def _resumen(
    clasificacion: str, tipologias: list[_TipologiaConReferencias], efectos: list[_EfectoConReferencias]
) -> str:
    if clasificacion == "NO_INGRESA":
        return "No ingresa al SEIA: no alcanza ninguna tipología del Art. 10 de la Ley 19.300."
    literales = ", ".join(t["tipologia"] for t in tipologias)
    if clasificacion == "DIA":
        return f"Ingresa al SEIA ({literales}) mediante una DIA: no se identificaron efectos del Art. 11."
    letras = ", ".join(sorted({e["letra"] for e in efectos}))
    return f"Ingresa al SEIA ({literales}) mediante un EIA: presenta efectos del Art. 11 letra(s) {letras}."
