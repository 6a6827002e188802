"""Búsqueda híbrida en el corpus (densa + texto completo) con realce de referencias explícitas.

Modos (seleccionables para medir):
- `denso`: similitud coseno con pgvector (índice HNSW).
- `texto`: BM25 sobre el texto completo en español sin tildes (índice invertido precalculado), con
  las siglas de la pregunta expandidas.
- `hibrido` (por defecto): fusión por rango recíproco ponderada (RRF, k=10; texto con peso 0,5),
  multiplicada por el peso de búsqueda de cada norma (jerarquía normativa) y castigando a los
  artículos modificatorios; más el realce de lo que la pregunta cita explícitamente («art. 11
  letra d», «DS 40», «i.1») y de la definición por la que pregunta («¿qué es una DIA?»); y
  diversidad (a lo más dos fragmentos del mismo artículo entre los primeros).

Confianza (umbral documentado, sobre la similitud coseno densa del mejor resultado, que en e5 se
concentra entre 0,75 y 0,92):
- HIGH: la pregunta cita una referencia que existe, o similitud ≥ 0,86;
- MEDIUM: similitud ≥ 0,835;
- LOW: similitud ≥ 0,81;
- NONE: por debajo, o sin resultados: el asistente debe decir que no tiene base suficiente.
La similitud de e5 separa mal una pregunta jurídica ajena («¿qué dice la ley sobre el divorcio?»,
0,84) de una del corpus (0,83–0,93). Por eso, si al menos un cuarto de las palabras de la pregunta no
aparece en ningún fragmento vigente, la confianza es NONE salvo que cite una referencia explícita; y
un clasificador de puntos (`SenalesDeAbstencion`: palabras ajenas de lo que la pregunta pregunta y
cobertura de lo que se respondería) decide si el tema es uno que el corpus no trata.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from config import metricas
from normativa.busqueda.abstencion import (
    MOSTRADOS_PARA_COBERTURA,
    SenalesDeAbstencion,
    confianza_de,
    senales_de_abstencion,
    similitudes_de,
)
from normativa.busqueda.ajenas import palabras_comunes
from normativa.busqueda.articulos import primera_oracion
from normativa.busqueda.candidatos import (
    candidatos_densos,
    candidatos_texto,
    fraccion_desconocida,
    fragmentos_buscables,
    lexemas_de_la_consulta,
    pesos_de_las_siglas,
)
from normativa.busqueda.familias import familias_de
from normativa.busqueda.orden import (
    ESCALA_REALCE,
    REALCE_DEFINICION,
    VUELTAS_DE_LETRAS,
    agrupar_letras,
    anclas_de_familias,
    definiciones,
    diversificar,
    fragmentos_citados,
    fusionar,
    pesos_normativos,
    reordenados_por_el_reordenador,
)
from normativa.busqueda.preguntas import nucleo_de_la_pregunta
from normativa.busqueda.reordenar import Candidato
from normativa.busqueda.tipos import ErrorDeBusqueda, Resultado
from normativa.embeddings import embeber_consulta
from normativa.glosario import expandir_consulta
from normativa.models import FragmentoLegal, Norma
from normativa.referencias import Referencias, extraer_referencias
from normativa.selectors import (
    DE_LA_DOCUMENTACION,
    DE_LA_NORMATIVA,
    cita_de,
    con_estadisticas,
    con_estado_fijo,
    url_de,
)

MODOS = ("hibrido", "denso", "texto")


MAXIMO_CONSULTA = 1000


MAXIMO_TOP_K = 100


@dataclass
class ResultadoBusqueda:
    consulta: str
    modo: str
    confianza: str
    resultados: list[Resultado] = field(default_factory=list)
    referencias: Referencias = field(default_factory=Referencias)
    familias: tuple[str, ...] = ()
    # La mejor cobertura de la pregunta por una oración de los candidatos reordenados (0 a 1).
    cobertura: float = 0.0
    # Lo que decide si la pregunta está fuera del corpus (solo en modo híbrido).
    senales: SenalesDeAbstencion | None = None


def buscar_normativa(
    *,
    consulta: str,
    top_k: int = 5,
    modo: str = "hibrido",
    normas: Sequence[str] | None = None,
    temas: Sequence[str] | None = None,
    tipos_documento: Sequence[str] | None = None,
    incluir_derogados: bool = False,
    incluir_documentacion: bool = False,
    vector_consulta: np.ndarray | None = None,
) -> ResultadoBusqueda:
    """Devuelve los fragmentos vigentes más pertinentes para la consulta, con cita y confianza.

    `vector_consulta` evita volver a embeber una consulta ya embebida (benchmarks, varias búsquedas
    de la misma pregunta). Su duración queda en `normativa_busqueda_seconds`, por modo.
    """
    consulta = _validar(consulta=consulta, top_k=top_k, modo=modo)
    # En la documentación sola, sus palabras se pesan con sus frecuencias; si no, con las de la normativa.
    solo_documentacion = set(tipos_documento or ()) == {Norma.Tipo.DOCUMENTACION}
    with (
        metricas.busqueda_segundos.labels(modo=modo).time(),
        con_estado_fijo(),
        con_estadisticas(DE_LA_DOCUMENTACION if solo_documentacion else DE_LA_NORMATIVA),
    ):
        return _buscar(
            consulta=consulta,
            top_k=top_k,
            modo=modo,
            normas=normas,
            temas=temas,
            tipos_documento=tipos_documento,
            incluir_derogados=incluir_derogados,
            incluir_documentacion=incluir_documentacion,
            vector_consulta=vector_consulta,
        )


# Parte del vector de la consulta que viene de lo que pregunta, cuando la pregunta trae además su
# situación («Ingresamos la DIA de la correa… ¿en cuántos días deben admitirla?»): el embedding de un
# texto largo promedia la historia y la pregunta, y la historia (la correa, los cargos de la SMA) no es
# lo que se busca; sin ella del todo se pierde el contexto que distingue una DIA de un EIA. La similitud
# que calibra la confianza y la abstención sigue siendo la de la consulta entera.
PESO_DE_LO_PREGUNTADO = 0.25
PROPORCION_CON_SITUACION = 0.8  # lo preguntado es una situación aparte si es más corto que esto del total


def _con_lo_preguntado(vector: np.ndarray, consulta: str, nucleo: str) -> np.ndarray:
    """El vector de la consulta acercado al de lo que pregunta, si la consulta trae una situación."""
    if len(nucleo) >= PROPORCION_CON_SITUACION * len(consulta):
        return vector
    mezcla = (1 - PESO_DE_LO_PREGUNTADO) * vector + PESO_DE_LO_PREGUNTADO * embeber_consulta(nucleo)
    return np.asarray(mezcla / np.linalg.norm(mezcla), dtype=vector.dtype)


def _buscar(
    *,
    consulta: str,
    top_k: int,
    modo: str,
    normas: Sequence[str] | None,
    temas: Sequence[str] | None,
    tipos_documento: Sequence[str] | None,
    incluir_derogados: bool,
    incluir_documentacion: bool,
    vector_consulta: np.ndarray | None,
) -> ResultadoBusqueda:
    base = fragmentos_buscables(
        normas=normas,
        temas=temas,
        tipos_documento=tipos_documento,
        incluir_derogados=incluir_derogados,
        incluir_documentacion=incluir_documentacion,
    )
    # Sin filtros (lo más común), si un fragmento se puede buscar se mira en memoria (`_admitidos`).
    por_omision = not (normas or temas or tipos_documento or incluir_derogados or incluir_documentacion)
    referencias = extraer_referencias(consulta)
    nucleo = nucleo_de_la_pregunta(consulta)
    vector = vector_busqueda = None
    if modo in ("hibrido", "denso"):
        vector = vector_consulta if vector_consulta is not None else embeber_consulta(consulta)
        vector_busqueda = _con_lo_preguntado(vector, consulta, nucleo)
    densos = candidatos_densos(base, vector_busqueda) if vector_busqueda is not None else []
    # La similitud que calibra la confianza y la abstención es la de la consulta entera, como se midió.
    densos_de_la_consulta = (
        densos if vector is None or vector_busqueda is vector else candidatos_densos(base, vector)
    )
    expandida = expandir_consulta(consulta)
    lexemas = lexemas_de_la_consulta(expandida)
    pesos_lexemas = pesos_de_las_siglas(consulta, lexemas)
    textuales = (
        candidatos_texto(base, lexemas, por_omision=por_omision, pesos=pesos_lexemas)
        if modo in ("hibrido", "texto")
        else []
    )
    if modo == "denso":
        puntajes = {fid: 1.0 - distancia for fid, distancia in densos}
    elif modo == "texto":
        puntajes = dict(textuales)
    else:
        puntajes = fusionar(densos, textuales)
    familias = familias_de(consulta, preguntado=nucleo)
    reordenados: dict[int, Candidato] = {}
    citados: dict[int, float] = {}
    if modo == "hibrido":
        pesos = pesos_normativos(list(puntajes))
        puntajes = {fid: p * pesos.get(fid, 1.0) for fid, p in puntajes.items()}
        citados = fragmentos_citados(base, referencias, puntajes)
        # lo citado y lo que lo desarrolla entra al grupo que se reordena: así se elige su oración
        anclas_ = anclas_de_familias(base, familias, vector_busqueda, lexemas, por_omision=por_omision)
        anclas_ += [pk for pk in citados if pk not in anclas_]
        puntajes, reordenados = reordenados_por_el_reordenador(
            puntajes, expandida, lexemas, familias, densos, textuales, anclas_
        )
    # Lo citado o definido que no fue candidato parte del puntaje del último reordenado.
    piso = min((c.puntaje for c in reordenados.values()), default=0.0)
    for fragmento_id, realce in citados.items():
        puntajes[fragmento_id] = puntajes.get(fragmento_id, piso) + realce * ESCALA_REALCE
    definidas: dict[int, float] = {}
    if modo == "hibrido" and referencias.termino_definido:
        definidas = definiciones(base, referencias.termino_definido)
        # La definición del término preguntado es la respuesta aunque la búsqueda no la haya traído:
        # parte del mejor puntaje reordenado en proporción al peso de su norma (y a cuánto calza el
        # término), así el peso curado en el admin sigue mandando.
        techo = max((c.puntaje for c in reordenados.values()), default=piso)
        for fragmento_id, realce in definidas.items():
            partida = piso + (techo - piso) * realce / REALCE_DEFINICION
            puntajes[fragmento_id] = max(puntajes.get(fragmento_id, piso), partida) + realce * ESCALA_REALCE
    ordenados = sorted(puntajes, key=lambda fid: puntajes[fid], reverse=True)
    if modo == "hibrido" and "composicion" in familias:
        # Al agrupar una lista suben las letras de la siguiente («Consejos Consultivos Regionales»).
        for _ in range(VUELTAS_DE_LETRAS):
            agrupados = agrupar_letras(base, ordenados, puntajes)
            if agrupados == ordenados:
                break
            ordenados = agrupados
    elegidos = diversificar(ordenados[: top_k * 6 + 20], top_k)
    fragmentos = (
        FragmentoLegal.objects.select_related("norma", "version")
        .defer("busqueda", "embedding", "oraciones", "raices")
        .order_by()
        .in_bulk(elegidos)
    )
    similitudes = similitudes_de(vector, elegidos, densos_de_la_consulta)
    resultados = [
        _resultado(fragmentos[fid], puntajes[fid], similitudes.get(fid), reordenados.get(fid))
        for fid in elegidos
        if fid in fragmentos
    ]
    for resultado in resultados:
        # La definición del término preguntado responde con su primera oración: la definición misma.
        if resultado.fragmento_id in definidas:
            resultado.oracion = primera_oracion(resultado.texto)
            resultado.rasgos["definicion"] = 1.0  # la seguridad lo lee: la respuesta es la definición
    confianza = confianza_de(
        resultados,
        # Una cita explícita o la definición del término preguntado en primer lugar es evidencia
        # fuerte aunque la similitud densa de una pregunta corta («¿Qué es una DIA?») sea baja.
        citados=bool(elegidos and (elegidos[0] in citados or elegidos[0] in definidas)),
        desconocidas=fraccion_desconocida(lexemas, comunes=palabras_comunes(consulta)),
        mejor_densa=1.0 - densos_de_la_consulta[0][1] if densos_de_la_consulta else None,
    )
    senales = None
    if modo == "hibrido":
        senales = senales_de_abstencion(
            consulta,
            referencias,
            resultados[:MOSTRADOS_PARA_COBERTURA],
            [
                reordenados[r.fragmento_id].rasgos["oracion"]
                for r in resultados[:MOSTRADOS_PARA_COBERTURA]
                if r.fragmento_id in reordenados
            ],
        )
        senales = replace(senales, sin_evidencia=confianza == "NONE")
        if confianza != "NONE" and senales.fuera_del_corpus():
            confianza = "NONE"
    return ResultadoBusqueda(
        consulta=consulta,
        modo=modo,
        confianza=confianza,
        resultados=resultados,
        referencias=referencias,
        familias=familias,
        cobertura=max((c.rasgos["oracion"] for c in reordenados.values()), default=0.0),
        senales=senales,
    )


def buscar_documentacion(*, consulta: str, top_k: int = 5) -> ResultadoBusqueda:
    """Busca en la documentación del sistema (README, CONTRIBUTING, docs/), aparte de la normativa."""
    return buscar_normativa(
        consulta=consulta,
        top_k=top_k,
        tipos_documento=[Norma.Tipo.DOCUMENTACION],
        incluir_documentacion=True,
    )


# --- validación y filtros ---------------------------------------------------------------------


def _validar(*, consulta: str, top_k: int, modo: str) -> str:
    limpia = " ".join((consulta or "").split())
    if not limpia:
        raise ErrorDeBusqueda("La consulta está vacía: escriba una pregunta o palabras clave.")
    if len(limpia) > MAXIMO_CONSULTA:
        raise ErrorDeBusqueda(
            f"La consulta es demasiado larga ({len(limpia)} caracteres; máximo {MAXIMO_CONSULTA})."
        )
    if modo not in MODOS:
        raise ErrorDeBusqueda(f"Modo desconocido: «{modo}». Use hibrido, denso o texto.")
    if not 1 <= top_k <= MAXIMO_TOP_K:
        raise ErrorDeBusqueda(f"top_k debe estar entre 1 y {MAXIMO_TOP_K}.")
    return limpia


# --- candidatos -------------------------------------------------------------------------------


# --- presentación -----------------------------------------------------------------------------


def _resultado(
    fragmento: FragmentoLegal, score: float, similitud: float | None, candidato: Candidato | None
) -> Resultado:
    return Resultado(
        fragmento_id=fragmento.pk,
        norma=fragmento.norma.sigla,
        tipo_documento=fragmento.norma.tipo,
        articulo=fragmento.articulo,
        letra=fragmento.letra,
        texto=fragmento.texto,
        breadcrumb=fragmento.breadcrumb,
        cita=cita_de(fragmento),
        url=url_de(fragmento),
        score=round(score, 6),
        similitud=round(similitud, 4) if similitud is not None else None,
        pagina=fragmento.pagina,
        derogado=fragmento.derogado,
        advertencia=fragmento.version.advertencia,
        fecha_version=fecha.isoformat() if (fecha := fragmento.version.fecha_version) else "",
        oracion=candidato.oracion if candidato else "",
        cobertura=round(candidato.cobertura_extracto, 4) if candidato else None,
        tema=round(candidato.tema, 4) if candidato else None,
        epigrafe=candidato.epigrafe if candidato else "",
        rasgos=dict(candidato.rasgos) if candidato else {},
    )
