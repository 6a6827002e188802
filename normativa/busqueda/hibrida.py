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

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
from django.db import connection, transaction
from django.db.models import Q, QuerySet
from pgvector.django import CosineDistance
from rapidfuzz import fuzz

from config import metricas
from config.errores import EntradaNoValida
from config.texto import sin_tildes
from normativa.busqueda.ajenas import nucleo_de_la_pregunta, palabras_ajenas
from normativa.busqueda.familias import anclas_por_cercania, familias_de, lexemas_de_epigrafes
from normativa.busqueda.reordenar import (
    CANDIDATOS_REORDENADOS,
    Candidato,
    frecuencias_documentales,
    idf_y_conocidos,
    primera_oracion,
    reordenar,
)
from normativa.embeddings import embeber_consulta
from normativa.glosario import expandir_consulta, expandir_siglas, nombra_sigla, nombrar_siglas
from normativa.models import FragmentoLegal, Norma
from normativa.referencias import Referencias, extraer_referencias
from normativa.selectors import cita_de, con_estado_fijo, normas_disponibles, por_estado_del_corpus, url_de

MODOS = ("hibrido", "denso", "texto")


MAXIMO_CONSULTA = 1000


MAXIMO_TOP_K = 100


CANDIDATOS = 60


PREFILTRO_TEXTO = 400


POSTINGS_POR_LEXEMA = 2000  # poda por impacto: las apariciones de mayor peso de cada lexema


EF_SEARCH = 120


ANCLAS_POR_FAMILIA = 4
EPIGRAFE_NOMBRADO = 0.6  # del peso IDF del epígrafe de un ancla que la pregunta debe decir


RRF_K = 10


PESO_DENSO, PESO_TEXTO = 1.0, 0.5


PESO_MODIFICATORIO = 0.3


# Los realces de citas y definiciones (0,05–0,2) están en la escala de la fusión RRF; el puntaje del
# reordenador es unas veinte veces mayor (una cita o una definición explícitas deben ganar).
ESCALA_REALCE = 20.0


REALCE_DEFINICION, UMBRAL_DEFINICION = 0.15, 92


POR_ARTICULO = 2


# Tantas letras distintas de un mismo artículo entre los primeros resultados: la respuesta es la lista.
LETRAS_QUE_AGRUPAN, VENTANA_DE_LETRAS, VUELTAS_DE_LETRAS = 3, 10, 3


UMBRAL_ALTA, UMBRAL_MEDIA, UMBRAL_BAJA = 0.86, 0.835, 0.81


FRACCION_DESCONOCIDA_MAXIMA = 0.25


LARGO_PARTE = 4  # la parte conocida más corta que se acepta de una palabra compuesta


# Calibrada en los conjuntos de desarrollo y propios (ver docs/busqueda_normativa.md): cobertura de
# la mejor oración entre los tres primeros resultados.
COBERTURA_MINIMA = 0.21
MOSTRADOS_PARA_COBERTURA = 3
PUNTOS_PARA_ABSTENERSE = 2
# Similitud densa de lo que se mostraría bajo la cual suma un punto. Elegida en la curva de los
# conjuntos públicos: el centro del hueco entre la pregunta ajena con una palabra ajena más parecida
# a lo que se mostraría (0,866) y la del corpus con una palabra ajena menos parecida (0,887).
SIMILITUD_MINIMA = 0.87


class ErrorDeBusqueda(EntradaNoValida, ValueError):
    """Consulta o filtros inválidos; el mensaje está en español para el usuario."""


@dataclass
class Resultado:
    fragmento_id: int
    norma: str
    tipo_documento: str
    articulo: str
    letra: str
    texto: str
    breadcrumb: str
    cita: str
    url: str
    score: float
    similitud: float | None
    pagina: int | None = None
    derogado: bool = False
    advertencia: str = ""
    # Fecha (ISO) de la versión del texto citado; vacía si la fuente no la trae (guías).
    fecha_version: str = ""
    # La oración del fragmento que mejor responde (la elige el reordenador; vacía en otros modos).
    oracion: str = ""
    # Fracción del peso IDF de la pregunta que cubre esa oración (None fuera del modo híbrido).
    cobertura: float | None = None
    # El epígrafe del artículo («Consulta de pertinencia de ingreso»): nombra la institución.
    epigrafe: str = ""
    # Los rasgos con que el reordenador lo puntuó (`reordenar.PESOS`), vacíos fuera del modo híbrido.
    rasgos: dict[str, float] = field(default_factory=dict)

    def como_dict(self) -> dict[str, object]:
        return self.__dict__.copy()


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
    with metricas.busqueda_segundos.labels(modo=modo).time(), con_estado_fijo():
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
    base = _fragmentos_buscables(
        normas=normas,
        temas=temas,
        tipos_documento=tipos_documento,
        incluir_derogados=incluir_derogados,
        incluir_documentacion=incluir_documentacion,
    )
    # Sin filtros (lo más común), si un fragmento se puede buscar se mira en memoria (`_admitidos`).
    por_omision = not (normas or temas or tipos_documento or incluir_derogados or incluir_documentacion)
    referencias = extraer_referencias(consulta)
    vector = None
    if modo in ("hibrido", "denso"):
        vector = vector_consulta if vector_consulta is not None else embeber_consulta(consulta)
    densos = _candidatos_densos(base, vector) if vector is not None else []
    expandida = expandir_consulta(consulta)
    lexemas = _lexemas(expandida)
    textuales = (
        _candidatos_texto(base, lexemas, por_omision=por_omision) if modo in ("hibrido", "texto") else []
    )
    if modo == "denso":
        puntajes = {fid: 1.0 - distancia for fid, distancia in densos}
    elif modo == "texto":
        puntajes = dict(textuales)
    else:
        puntajes = _fusionar(densos, textuales)
    familias = familias_de(consulta, preguntado=nucleo_de_la_pregunta(consulta))
    reordenados: dict[int, Candidato] = {}
    if modo == "hibrido":
        pesos = _pesos_normativos(list(puntajes))
        puntajes = {fid: p * pesos.get(fid, 1.0) for fid, p in puntajes.items()}
        anclas_ = anclas_de_familias(base, familias, vector, lexemas, por_omision=por_omision)
        puntajes, reordenados = _reordenados(
            puntajes, expandida, lexemas, familias, densos, textuales, anclas_
        )
    # Lo citado o definido que no fue candidato parte del puntaje del último reordenado.
    piso = min((c.puntaje for c in reordenados.values()), default=0.0)
    citados = _fragmentos_citados(base, referencias) if modo == "hibrido" else {}
    for fragmento_id, realce in citados.items():
        puntajes[fragmento_id] = puntajes.get(fragmento_id, piso) + realce * ESCALA_REALCE
    definiciones: dict[int, float] = {}
    if modo == "hibrido" and referencias.termino_definido:
        definiciones = _definiciones(base, referencias.termino_definido)
        # La definición del término preguntado es la respuesta aunque la búsqueda no la haya traído:
        # parte del mejor puntaje reordenado en proporción al peso de su norma (y a cuánto calza el
        # término), así el peso curado en el admin sigue mandando.
        techo = max((c.puntaje for c in reordenados.values()), default=piso)
        for fragmento_id, realce in definiciones.items():
            partida = piso + (techo - piso) * realce / REALCE_DEFINICION
            puntajes[fragmento_id] = max(puntajes.get(fragmento_id, piso), partida) + realce * ESCALA_REALCE
    ordenados = sorted(puntajes, key=lambda fid: puntajes[fid], reverse=True)
    if modo == "hibrido" and "composicion" in familias:
        # Al agrupar una lista suben las letras de la siguiente («Consejos Consultivos Regionales»).
        for _ in range(VUELTAS_DE_LETRAS):
            agrupados = _agrupar_letras(base, ordenados, puntajes)
            if agrupados == ordenados:
                break
            ordenados = agrupados
    elegidos = _diversificar(ordenados[: top_k * 6 + 20], top_k)
    fragmentos = (
        FragmentoLegal.objects.select_related("norma", "version")
        .defer("busqueda", "embedding", "oraciones", "raices")
        .order_by()
        .in_bulk(elegidos)
    )
    similitudes = _similitudes(vector, elegidos, densos)
    resultados = [
        _resultado(fragmentos[fid], puntajes[fid], similitudes.get(fid), reordenados.get(fid))
        for fid in elegidos
        if fid in fragmentos
    ]
    for resultado in resultados:
        # La definición del término preguntado responde con su primera oración: la definición misma.
        if resultado.fragmento_id in definiciones:
            resultado.oracion = primera_oracion(resultado.texto)
    confianza = _confianza(
        resultados,
        # Una cita explícita o la definición del término preguntado en primer lugar es evidencia
        # fuerte aunque la similitud densa de una pregunta corta («¿Qué es una DIA?») sea baja.
        citados=bool(elegidos and (elegidos[0] in citados or elegidos[0] in definiciones)),
        desconocidas=_fraccion_desconocida(lexemas),
        mejor_densa=1.0 - densos[0][1] if densos else None,
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


def _fragmentos_buscables(
    *,
    normas: Sequence[str] | None,
    temas: Sequence[str] | None,
    tipos_documento: Sequence[str] | None,
    incluir_derogados: bool,
    incluir_documentacion: bool,
) -> QuerySet[FragmentoLegal]:
    base = FragmentoLegal.objects.filter(version__vigente=True, embedding__isnull=False)
    if not incluir_derogados:
        base = base.filter(derogado=False)
    if not incluir_documentacion:
        base = base.exclude(norma__tipo=Norma.Tipo.DOCUMENTACION)
    if normas:
        conocidas = set(normas_disponibles())
        desconocidas = [sigla for sigla in normas if sigla not in conocidas]
        if desconocidas:
            raise ErrorDeBusqueda(
                f"Norma desconocida: {', '.join(desconocidas)}. Disponibles: {', '.join(sorted(conocidas))}."
            )
        base = base.filter(norma__sigla__in=normas)
    if temas:
        base = base.filter(Q(temas__nombre__in=temas) | Q(norma__temas__nombre__in=temas)).distinct()
    if tipos_documento:
        validos = {valor for valor, _ in Norma.Tipo.choices}
        invalidos = [tipo for tipo in tipos_documento if tipo not in validos]
        if invalidos:
            raise ErrorDeBusqueda(f"Tipo de documento desconocido: {', '.join(invalidos)}.")
        base = base.filter(norma__tipo__in=tipos_documento)
    return base


# --- candidatos -------------------------------------------------------------------------------


def _candidatos_densos(base: QuerySet[FragmentoLegal], vector: np.ndarray) -> list[tuple[int, float]]:
    with transaction.atomic(), connection.cursor() as cursor:
        # El HNSW explora más candidatos que los pedidos (recall ≥ 0,95 frente al escaneo exacto).
        cursor.execute("SET LOCAL hnsw.ef_search = %s", [EF_SEARCH])
        filas = list(
            base.annotate(distancia=CosineDistance("embedding", vector))
            .order_by("distancia")
            .values_list("pk", "distancia")[:CANDIDATOS]
        )
    return [(pk, float(distancia)) for pk, distancia in filas]


def _candidatos_texto(
    base: QuerySet[FragmentoLegal], lexemas: list[str], *, por_omision: bool = False
) -> list[tuple[int, float]]:
    """BM25 sobre el índice de texto completo (español, sin tildes).

    Lee las listas de aparición de `normativa_indice_invertido` (peso de término ya normalizado por
    longitud) y la frecuencia de documento de `normativa_estadistica_lexema`, vistas que refresca la
    ingesta. Los lexemas presentes en más de la mitad de los fragmentos casi no discriminan y se
    descartan. Los filtros de la búsqueda se aplican a los fragmentos puntuados.
    """
    if not lexemas:
        return []
    puntuados = _bm25(lexemas, limite=PREFILTRO_TEXTO)
    # Los filtros se aplican a los mejor puntuados (búsqueda por clave primaria, barata); si dejan
    # menos de los necesarios y había más, se puntúan todos contra los filtros (más lento, exacto).
    admitidos = _admitidos(base, [pk for pk, _ in puntuados], por_omision=por_omision)
    filtrados = [(pk, puntaje) for pk, puntaje in puntuados if pk in admitidos]
    if len(filtrados) < CANDIDATOS and len(puntuados) == PREFILTRO_TEXTO:
        return _bm25(lexemas, limite=CANDIDATOS, base=base)
    return filtrados[:CANDIDATOS]


def _bm25(
    lexemas: list[str], *, limite: int, base: QuerySet[FragmentoLegal] | None = None
) -> list[tuple[int, float]]:
    """(fragmento, puntaje BM25) de los mejores `limite`, restringidos a `base` si se indica."""
    filtro, parametros = "", []
    if base is not None:
        sql, parametros_base = base.order_by().values("pk").query.sql_with_params()
        filtro, parametros = f"AND fragmento_id IN ({sql})", list(parametros_base)
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            WITH c AS (SELECT documentos FROM normativa_estadistica_corpus),
                 q AS (SELECT e.lexema,
                              ln(1 + (c.documentos - e.documentos + 0.5) / (e.documentos + 0.5)) AS idf
                         FROM normativa_estadistica_lexema e, c
                        WHERE e.lexema = ANY(%s) AND e.documentos <= c.documentos / 2)
            SELECT i.fragmento_id, sum(i.peso * q.idf) AS puntaje
              FROM q CROSS JOIN LATERAL (
                     SELECT fragmento_id, peso FROM normativa_indice_invertido
                      WHERE lexema = q.lexema {filtro} ORDER BY peso DESC LIMIT %s) AS i
             GROUP BY i.fragmento_id
             ORDER BY puntaje DESC
             LIMIT %s
            """,
            [lexemas, *parametros, POSTINGS_POR_LEXEMA, limite],
        )
        return [(fila[0], float(fila[1])) for fila in cursor.fetchall()]


def _admitidos(base: QuerySet[FragmentoLegal], ids: Iterable[int], *, por_omision: bool) -> set[int]:
    """Los de `ids` que admiten los filtros de la búsqueda (`base`). Sin filtros, se miran en el
    conjunto de los buscables por omisión, que se lee una vez por estado del corpus: con el corpus
    real, PostgreSQL recorría la tabla entera para admitir 400 candidatos de BM25."""
    if por_omision:
        buscables = _buscables_por_omision()
        return {pk for pk in ids if pk in buscables}
    return set(base.filter(pk__en_arreglo=list(ids)).order_by().values_list("pk", flat=True))


@por_estado_del_corpus
def _buscables_por_omision() -> frozenset[int]:
    base = _fragmentos_buscables(
        normas=None, temas=None, tipos_documento=None, incluir_derogados=False, incluir_documentacion=False
    )
    return frozenset(base.order_by().values_list("pk", flat=True))


@por_estado_del_corpus
def _normas_cargadas() -> frozenset[str]:
    """Las siglas con versión vigente (`normas_disponibles`)."""
    return frozenset(normas_disponibles())


def _fraccion_desconocida(lexemas: list[str]) -> float:
    """Fracción de los lexemas de la pregunta que no aparece en ningún fragmento vigente."""
    if not lexemas:
        return 0.0
    _, conocidos = frecuencias_documentales(lexemas)
    return 1 - len(conocidos) / len(lexemas)


def _lexemas(consulta: str) -> list[str]:
    """«¿Qué es una DIA?» → ['dia']: lexemas en español sin tildes (sin palabras vacías); una palabra
    compuesta que el corpus no trae suma sus partes conocidas («concentraducto» → concentr, duct)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT DISTINCT lexeme FROM unnest(to_tsvector('spanish', normativa_sin_tildes(%s)))", [consulta]
        )
        lexemas = [fila[0] for fila in cursor.fetchall()]
    return lexemas + [p for p in _partes_de_compuestos(lexemas) if p not in lexemas]


def _partes_de_compuestos(lexemas: list[str]) -> list[str]:
    """Para cada lexema largo ausente del corpus, el lexema conocido más largo con que empieza y
    el más largo con que termina (al menos `LARGO_PARTE` letras): «mineroducto» → miner, duct."""
    largos = [lex for lex in lexemas if len(lex) >= 2 * LARGO_PARTE and lex.isalpha()]
    if not largos:
        return []
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT l.lexema, array_agg(e.lexema ORDER BY length(e.lexema) DESC)
              FROM unnest(%s::text[]) AS l(lexema)
              JOIN normativa_estadistica_lexema e
                ON length(e.lexema) >= %s AND length(e.lexema) < length(l.lexema)
               AND (l.lexema LIKE e.lexema || '%%' OR l.lexema LIKE '%%' || e.lexema)
             WHERE NOT EXISTS (SELECT 1 FROM normativa_estadistica_lexema c WHERE c.lexema = l.lexema)
             GROUP BY l.lexema
            """,
            [largos, LARGO_PARTE],
        )
        partes = []
        for lexema, conocidos in cursor.fetchall():
            prefijo = next((c for c in conocidos if lexema.startswith(c)), None)
            sufijo = next((c for c in conocidos if lexema.endswith(c)), None)
            partes += [p for p in (prefijo, sufijo) if p]
    return partes


def _pesos_normativos(ids: list[int]) -> dict[int, float]:
    """Peso de la norma (jerarquía curada en el admin) y castigo a los artículos modificatorios."""
    # Sin el orden por omisión del modelo (norma, versión, orden): une dos tablas y ordena para nada.
    filas = (
        FragmentoLegal.objects.filter(pk__en_arreglo=ids)
        .order_by()
        .values_list("pk", "norma__peso_busqueda", "modificatorio")
    )
    return {pk: peso * (PESO_MODIFICATORIO if modificatorio else 1.0) for pk, peso, modificatorio in filas}


def orden_a_reordenar(puntajes: dict[int, float], anclas: list[int]) -> list[int]:
    """Los primeros de la fusión y, en los últimos lugares del grupo que se reordena, las anclas de
    la familia que no llegaron por la búsqueda densa ni por la de texto."""
    orden = sorted(puntajes, key=lambda fid: puntajes[fid], reverse=True)
    nuevas = [pk for pk in dict.fromkeys(anclas) if pk not in orden[:CANDIDATOS_REORDENADOS]]
    cabeza = orden[: CANDIDATOS_REORDENADOS - len(nuevas)]
    return cabeza + nuevas + [pk for pk in orden[len(cabeza) :] if pk not in nuevas]


def anclas_de_familias(
    base: QuerySet[FragmentoLegal],
    familias: tuple[str, ...],
    vector: np.ndarray | None,
    lexemas: Sequence[str] = (),
    *,
    por_omision: bool = False,
) -> list[int]:
    """Artículos completos de ley o reglamento de la clase que pide cada familia de la pregunta
    (`familias.anclas`): los `ANCLAS_POR_FAMILIA` más cercanos a la pregunta y los que la pregunta
    nombra por su epígrafe (`lexemas`, con la jerga ya traducida: «desviar una quebrada» trae
    «modificaciones de cauce», el epígrafe del PAS del Art. 156 del DS 40, que la similitud deja
    lejos). Una pregunta por los efectos que exigen un EIA trae el art. 11 de la Ley 19.300 aunque la
    similitud y las palabras lo dejen fuera de los candidatos. El reordenador decide después si sirven."""
    if not familias or vector is None:
        return []
    cercanas = anclas_por_cercania(familias, vector)
    todas = set().union(*cercanas.values())
    if not todas:
        return []
    # Solo pueden ser nombradas por su epígrafe las que comparten con la pregunta algún lexema de él.
    dichos = set(lexemas)
    nombrables = sorted(pk for pk, suyos in lexemas_de_epigrafes(sorted(todas)).items() if suyos & dichos)
    ventana = ANCLAS_POR_FAMILIA * 4
    while True:
        # Los filtros de la búsqueda se aplican a las primeras de cada familia; si dejan menos de las
        # necesarias y había más, se mira más lejos.
        revisar = {pk for ids in cercanas.values() for pk in ids[:ventana]} | set(nombrables)
        admitidas = _admitidos(base, revisar, por_omision=por_omision)
        elegidas: list[int] = []
        completas = True
        for ids in cercanas.values():
            primeras = [pk for pk in ids[:ventana] if pk in admitidas][:ANCLAS_POR_FAMILIA]
            completas &= len(primeras) == ANCLAS_POR_FAMILIA or len(ids) <= ventana
            elegidas.extend(primeras)
        if completas:
            break
        ventana *= 4
    nombradas = _nombradas_por_su_epigrafe([pk for pk in nombrables if pk in admitidas], lexemas)
    return elegidas + [pk for pk in nombradas if pk not in elegidas]


def _nombradas_por_su_epigrafe(ids: list[int], lexemas: Sequence[str]) -> list[int]:
    """Las anclas cuyo epígrafe dice la pregunta: al menos `EPIGRAFE_NOMBRADO` de su peso IDF está en
    los lexemas de la pregunta, las más dichas primero (a lo más `ANCLAS_POR_FAMILIA`)."""
    propios = lexemas_de_epigrafes(ids)
    if not propios or not lexemas:
        return []
    idf, _ = idf_y_conocidos(sorted(set(lexemas).union(*propios.values())))
    consulta = set(lexemas)
    dichas = []
    for pk, suyos in propios.items():
        total = sum(idf[lexema] for lexema in suyos)
        dicho = sum(idf[lexema] for lexema in suyos & consulta)
        if total and dicho / total >= EPIGRAFE_NOMBRADO:
            dichas.append((dicho / total, pk))
    return [pk for _, pk in sorted(dichas, reverse=True)[:ANCLAS_POR_FAMILIA]]


def _reordenados(
    puntajes: dict[int, float],
    consulta: str,
    lexemas: list[str],
    familias: tuple[str, ...],
    densos: list[tuple[int, float]],
    textuales: list[tuple[int, float]],
    anclas_: list[int],
) -> tuple[dict[int, float], dict[int, Candidato]]:
    """Puntaje del reordenador para los primeros candidatos de la fusión y las anclas de la familia
    (el resto queda debajo), y cada candidato reordenado (con su mejor oración)."""
    puntajes = {**{pk: 0.0 for pk in anclas_}, **puntajes}
    orden = orden_a_reordenar(puntajes, anclas_)
    candidatos = reordenar(
        lexemas=lexemas,
        familias=familias,
        densos=[pk for pk, _ in densos],
        textuales=[pk for pk, _ in textuales],
        orden_inicial=orden,
        consulta_texto=consulta,
    )
    reordenados = {c.fragmento_id: c.puntaje for c in candidatos}
    piso = min(reordenados.values(), default=0.0) - 1.0
    return (
        {fid: reordenados.get(fid, piso + puntaje) for fid, puntaje in puntajes.items()},
        {c.fragmento_id: c for c in candidatos},
    )


def _fusionar(densos: list[tuple[int, float]], textuales: list[tuple[int, float]]) -> dict[int, float]:
    """RRF ponderada: el texto completo de PostgreSQL es más débil que BM25, así que pesa menos."""
    puntajes: dict[int, float] = {}
    for peso, candidatos in ((PESO_DENSO, densos), (PESO_TEXTO, textuales)):
        for posicion, (fragmento_id, _) in enumerate(candidatos):
            puntajes[fragmento_id] = puntajes.get(fragmento_id, 0.0) + peso / (RRF_K + posicion + 1)
    return puntajes


def _fragmentos_citados(base: QuerySet[FragmentoLegal], referencias: Referencias) -> dict[int, float]:
    """Realce para lo que la pregunta cita: artículo (y letra) en la norma citada, o norma sola."""
    if not referencias.articulo:
        return {}
    filtro = base.filter(articulo=referencias.articulo)
    if referencias.normas:
        filtro = filtro.filter(norma__sigla__in=referencias.normas)
    realces: dict[int, float] = {}
    for pk, letra in filtro.values_list("pk", "letra"):
        if referencias.letra:
            realces[pk] = 0.2 if letra == referencias.letra else (0.05 if not letra else 0.0)
        else:
            realces[pk] = 0.2 if not letra else 0.03
    return {pk: realce for pk, realce in realces.items() if realce > 0}


def _definiciones(base: QuerySet[FragmentoLegal], termino: str) -> dict[int, float]:
    """Realce para la definición legal del término por el que se pregunta («¿Qué es una DIA?»).

    Las definiciones son las letras con `termino_definido` (artículos cuyo encabezado dice «se
    entenderá por»); el término se compara sin tildes ni mayúsculas, con las siglas expandidas, y con
    tolerancia a plurales.
    """
    # «DIA» se compara como «DIA (Declaración de Impacto Ambiental)» y como «Declaración de Impacto…».
    buscados = {_normalizar_termino(expandir_siglas(termino)), _normalizar_termino(nombrar_siglas(termino))}
    candidatos = base.filter(termino_definido__gt="").values_list(
        "pk", "termino_definido", "norma__peso_busqueda"
    )
    realces: dict[int, float] = {}
    for pk, definido, peso in candidatos:
        nombre = _normalizar_termino(definido)
        similitud = max(
            fuzz.ratio(buscado, forma) for buscado in buscados for forma in (nombre, nombre.split(" o ")[0])
        )
        if similitud >= UMBRAL_DEFINICION:
            realces[pk] = REALCE_DEFINICION * peso * similitud / 100
    return realces


def _normalizar_termino(texto: str) -> str:
    sin_parentesis = re.sub(r"\(([^)]*)\)", r" \1 ", sin_tildes(texto))
    palabras = [p for p in re.findall(r"[a-zñ0-9]+", sin_parentesis) if p not in _ARTICULOS]
    return " ".join(p.rstrip("s") if len(p) > 3 else p for p in palabras)


# «modificación de un proyecto» es «modificación de proyecto»: los artículos no distinguen términos.
_ARTICULOS = frozenset({"un", "una", "unos", "unas", "el", "la", "los", "las"})


def _agrupar_letras(
    base: QuerySet[FragmentoLegal], ordenados: list[int], puntajes: dict[int, float]
) -> list[int]:
    """En una pregunta por una lista (familia «composicion»: quiénes integran un consejo, qué
    atribuciones tiene un organismo), si `LETRAS_QUE_AGRUPAN` letras distintas de un mismo artículo
    están entre los primeros `VENTANA_DE_LETRAS`, la respuesta es el artículo: el artículo completo
    toma el lugar (y el puntaje) de su mejor letra y las demás letras salen: una lista no ocupa sola
    los primeros lugares y el artículo vecino que responde no queda fuera. En otras preguntas las
    letras son disposiciones aparte (las definiciones del Art. 2, las tipologías del Art. 3). Los
    numerales de una letra («i.1», «i.5.2») son una letra."""
    ventana = ordenados[:VENTANA_DE_LETRAS]
    filas = FragmentoLegal.objects.filter(pk__en_arreglo=ventana).exclude(letra="").exclude(articulo="")
    letras: dict[tuple[int, str], set[str]] = {}
    for norma_id, articulo, letra in filas.order_by().values_list("norma_id", "articulo", "letra"):
        letras.setdefault((norma_id, articulo), set()).add(letra.split(".")[0])
    agrupados = [clave for clave, distintas in letras.items() if len(distintas) >= LETRAS_QUE_AGRUPAN]
    if not agrupados:
        return ordenados
    filtro = Q()
    for norma_id, articulo in agrupados:
        filtro |= Q(norma_id=norma_id, articulo=articulo)
    del_articulo: dict[int, tuple[int, str]] = {}
    completos: dict[tuple[int, str], int] = {}
    for pk, norma_id, articulo, letra in base.filter(filtro).values_list(
        "pk", "norma_id", "articulo", "letra"
    ):
        if letra:
            del_articulo[pk] = (norma_id, articulo)
        else:
            completos[(norma_id, articulo)] = pk
    nuevo: list[int] = []
    for pk in ordenados:
        completo = completos.get(del_articulo[pk]) if pk in del_articulo else None
        if completo is None:
            nuevo.append(pk)  # no es letra de un artículo agrupado (o es el artículo mismo)
            continue
        puntajes[completo] = max(puntajes.get(completo, puntajes[pk]), puntajes[pk])
        nuevo.append(completo)
    return list(dict.fromkeys(nuevo))


def _diversificar(ordenados: list[int], top_k: int) -> list[int]:
    """A lo más `POR_ARTICULO` fragmentos de la misma disposición (artículo, o letra de un artículo), o
    de secciones de guía con el mismo título.

    Las guías del SEA repiten secciones genéricas con el mismo título («1.1 Alcances generales de la
    evaluación de impacto ambiental» está en casi todas): se cuentan juntas, sin importar la guía.
    """
    filas = (
        FragmentoLegal.objects.filter(pk__en_arreglo=ordenados)
        .order_by()
        .values_list("pk", "norma_id", "articulo", "letra", "jerarquia")
    )
    # Las letras de un artículo son disposiciones distintas (las tipologías del Art. 10): cuentan
    # aparte; los numerales de una misma letra («o.4», «o.5») cuentan juntos.
    claves = {
        pk: f"{norma_id}:{articulo}:{letra.split('.')[0]}" if articulo else _titulo_de_seccion(jerarquia)
        for pk, norma_id, articulo, letra, jerarquia in filas
    }
    elegidos: list[int] = []
    conteo: dict[str, int] = {}
    for pk in ordenados:
        clave = claves.get(pk)
        if clave is None or conteo.get(clave, 0) >= POR_ARTICULO:
            continue
        conteo[clave] = conteo.get(clave, 0) + 1
        elegidos.append(pk)
        if len(elegidos) == top_k:
            break
    return elegidos


def _titulo_de_seccion(jerarquia: list[str]) -> str:
    """«1.1 Alcances generales de la EIA» → «alcances generales de la eia» (sin numeración)."""
    titulo = jerarquia[-1] if jerarquia else ""
    return "seccion:" + _normalizar_termino(re.sub(r"^[\d.\s]+", "", titulo))


def _similitudes(
    vector: np.ndarray | None, elegidos: list[int], densos: list[tuple[int, float]]
) -> dict[int, float]:
    """Similitud coseno de cada elegido: la de su candidatura densa o, si no la tuvo, calculada."""
    if vector is None:
        return {}
    similitudes = {pk: 1.0 - distancia for pk, distancia in densos if pk in set(elegidos)}
    faltantes = [pk for pk in elegidos if pk not in similitudes]
    if faltantes:
        filas = (
            FragmentoLegal.objects.filter(pk__en_arreglo=faltantes, embedding__isnull=False)
            .annotate(distancia=CosineDistance("embedding", vector))
            .order_by()
            .values_list("pk", "distancia")
        )
        similitudes.update({pk: 1.0 - float(distancia) for pk, distancia in filas})
    return similitudes


@dataclass(frozen=True)
class SenalesDeAbstencion:
    """Las señales con que se decide que una pregunta está fuera del corpus aunque la búsqueda traiga
    algo (e5 acerca cualquier pregunta jurídica a cualquier artículo). Es un clasificador de puntos:
    - cada palabra ajena del núcleo de la pregunta (`ajenas.nucleo_de_la_pregunta`: lo que pregunta,
      sin la situación que lo rodea) suma un punto;
    - que ninguna de las oraciones que se mostrarían cubra `COBERTURA_MINIMA` del peso IDF de la
      pregunta suma otro;
    - que ninguno de los fragmentos que se mostrarían llegue a `SIMILITUD_MINIMA` de similitud densa
      con la pregunta suma otro;
    con `PUNTOS_PARA_ABSTENERSE` o más, y al menos una palabra ajena, la pregunta es de un tema que el
    corpus no trata. Sin palabra ajena no hay tema ajeno: una pregunta dicha con el vocabulario del
    corpus pero en palabras de faena cubre poco y se parece poco, y aun así es del corpus. Citar solo
    normas que no están cargadas es estar fuera; citar un artículo, un término definido, una norma
    cargada o nombrar una sigla del SEIA es estar dentro. El punto de operación se eligió sobre la
    curva de falsas abstenciones y abstenciones omitidas de todos los conjuntos públicos
    (`evaluar_respuestas` con varios archivos; ver docs/busqueda_normativa.md).
    """

    normas_ausentes: bool = False
    cita_el_corpus: bool = False
    ajenas: tuple[str, ...] = ()
    cobertura: float = 1.0
    similitud: float = 1.0
    # La confianza ya era NONE antes de mirar el tema (similitud baja o palabras que el corpus no tiene).
    sin_evidencia: bool = False

    def puntos(
        self, *, cobertura_minima: float = COBERTURA_MINIMA, similitud_minima: float = SIMILITUD_MINIMA
    ) -> int:
        return len(self.ajenas) + (self.cobertura < cobertura_minima) + (self.similitud < similitud_minima)

    def fuera_del_corpus(
        self,
        *,
        minimo: int = PUNTOS_PARA_ABSTENERSE,
        cobertura_minima: float = COBERTURA_MINIMA,
        similitud_minima: float = SIMILITUD_MINIMA,
    ) -> bool:
        if self.normas_ausentes:
            return True
        if self.cita_el_corpus or not self.ajenas:
            return False
        return self.puntos(cobertura_minima=cobertura_minima, similitud_minima=similitud_minima) >= minimo


def senales_de_abstencion(
    consulta: str, referencias: Referencias, mostrados: list[Resultado], coberturas: list[float]
) -> SenalesDeAbstencion:
    cargadas = _normas_cargadas()
    if referencias.normas and not set(referencias.normas) & cargadas:
        return SenalesDeAbstencion(normas_ausentes=True)
    if (
        referencias.articulo
        or referencias.termino_definido
        or set(referencias.normas) & cargadas
        or nombra_sigla(consulta)
    ):
        return SenalesDeAbstencion(cita_el_corpus=True)
    textos = [f"{r.oracion or r.texto}\n{r.epigrafe}" for r in mostrados]
    return SenalesDeAbstencion(
        ajenas=tuple(palabras_ajenas(nucleo_de_la_pregunta(consulta), textos)),
        cobertura=max(coberturas, default=0.0),
        similitud=max((r.similitud for r in mostrados if r.similitud is not None), default=1.0),
    )


def _confianza(
    resultados: list[Resultado],
    *,
    citados: bool,
    desconocidas: float = 0.0,
    mejor_densa: float | None = None,
) -> str:
    if not resultados:
        return "NONE"
    if citados:
        return "HIGH"
    if desconocidas >= FRACCION_DESCONOCIDA_MAXIMA:
        return "NONE"
    # La mejor evidencia de que el corpus trata la pregunta: tras el reordenamiento, el primero puede
    # ser uno que entró por el texto (una palabra rara) con menor similitud densa que otros candidatos.
    similitudes = [r.similitud for r in resultados if r.similitud is not None]
    if mejor_densa is not None:
        similitudes.append(mejor_densa)
    similitud = max(similitudes) if similitudes else None
    if similitud is None:  # modo texto: sin señal densa, la confianza no puede ser alta
        return "LOW" if resultados[0].score > 0 else "NONE"
    if similitud >= UMBRAL_ALTA:
        return "HIGH"
    if similitud >= UMBRAL_MEDIA:
        return "MEDIUM"
    if similitud >= UMBRAL_BAJA:
        return "LOW"
    return "NONE"


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
        advertencia=fragmento.norma.advertencia_vigencia,
        fecha_version=fecha.isoformat() if (fecha := fragmento.version.fecha_version) else "",
        oracion=candidato.oracion if candidato else "",
        cobertura=round(candidato.rasgos["oracion"], 4) if candidato else None,
        epigrafe=candidato.epigrafe if candidato else "",
        rasgos=dict(candidato.rasgos) if candidato else {},
    )
