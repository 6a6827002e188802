"""Los candidatos de la búsqueda: los fragmentos que se pueden buscar con los filtros pedidos, los más
parecidos a la pregunta en el índice HNSW (densos) y los de BM25 sobre el texto completo, con los lexemas
de la pregunta (y las partes conocidas de sus palabras compuestas)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np
from django.db import connection, transaction
from django.db.models import Q, QuerySet
from pgvector.django import CosineDistance

from normativa.busqueda.analisis import frecuencias_documentales, idf_y_conocidos
from normativa.busqueda.tipos import ErrorDeBusqueda
from normativa.glosario import nombres_de_las_siglas
from normativa.models import FragmentoLegal, Norma
from normativa.selectors import (
    estadisticas_de_lo_buscado,
    estado_del_corpus,
    normas_disponibles,
    por_estado_del_corpus,
)

CANDIDATOS = 60


PREFILTRO_TEXTO = 400


POSTINGS_POR_LEXEMA = 2000  # poda por impacto: las apariciones de mayor peso de cada lexema


EF_SEARCH = 120
EXACTA_HASTA = 10_000  # fragmentos vigentes hasta los que la búsqueda densa es exacta


FRACCION_DESCONOCIDA_MAXIMA = 0.25


LARGO_PARTE = 4  # la parte conocida más corta que se acepta de una palabra compuesta


def fragmentos_buscables(
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


def candidatos_densos(base: QuerySet[FragmentoLegal], vector: np.ndarray) -> list[tuple[int, float]]:
    """Los `CANDIDATOS` fragmentos de `base` más cercanos a `vector`.

    Con un corpus de hasta `EXACTA_HASTA` fragmentos se comparan todos (~10 ms con el corpus real): el
    HNSW es aproximado y, con los filtros de la búsqueda, dejaba fuera hasta un tercio de los 60 más
    cercanos; además su grafo cambia con cada fila que se agrega o se quita, así que editar el README
    (sus secciones están en el mismo índice) cambiaba los candidatos de una pregunta de ley. Sobre ese
    tamaño, el HNSW (a 100 000 fragmentos, recorrerlos todos costaría cientos de ms)."""
    estado = estado_del_corpus()
    exacta = estado.documentos + estado.documentos_documentacion <= EXACTA_HASTA
    with transaction.atomic(), connection.cursor() as cursor:
        if exacta:
            cursor.execute("SET LOCAL enable_indexscan = off")
        else:
            # El HNSW explora más candidatos que los pedidos (recall ≥ 0,95 frente al escaneo exacto).
            cursor.execute("SET LOCAL hnsw.ef_search = %s", [EF_SEARCH])
        filas = list(
            base.annotate(distancia=CosineDistance("embedding", vector))
            # a igual distancia, siempre el mismo orden (el HNSW solo sirve ordenando por la distancia)
            .order_by(*(("distancia", "pk") if exacta else ("distancia",)))
            .values_list("pk", "distancia")[:CANDIDATOS]
        )
    return [(pk, float(distancia)) for pk, distancia in filas]


def pesos_de_las_siglas(consulta: str, lexemas: list[str]) -> dict[str, float]:
    """Peso en BM25 de cada lexema de la consulta expandida: 1 si lo dijo el usuario; los que solo trae
    el nombre de una sigla suman entre todos el peso de una palabra, repartido según su IDF. «SMA
    (Superintendencia del Medio Ambiente)» es un concepto, no cuatro palabras que suman: con peso
    entero, sus lexemas comunes le ganaban a la palabra rara que la pregunta sí dijo
    («autodenunciarse»); repartido por IDF, lo que identifica el nombre («superintendencia») pesa más
    que lo que comparte con media ley («medio», «ambiente»)."""
    propios = set(_lexemas(consulta))
    pesos: dict[str, float] = {}
    for nombre in nombres_de_las_siglas(consulta):
        nuevos = [lexema for lexema in _lexemas(nombre) if lexema not in propios]
        idf, _ = idf_y_conocidos(nuevos)
        total = math.fsum(idf.values()) or 1.0
        for lexema in nuevos:
            pesos[lexema] = max(pesos.get(lexema, 0.0), idf[lexema] / total)
    return {lexema: pesos.get(lexema, 1.0) for lexema in lexemas}


def candidatos_texto(
    base: QuerySet[FragmentoLegal],
    lexemas: list[str],
    *,
    por_omision: bool = False,
    pesos: dict[str, float] | None = None,
) -> list[tuple[int, float]]:
    """BM25 sobre el índice de texto completo (español, sin tildes); cada lexema multiplica su IDF por
    su peso en `pesos` (1 si no está: ver `pesos_de_las_siglas`).

    Lee las listas de aparición de `normativa_indice_invertido` (peso de término ya normalizado por
    longitud) y la frecuencia de documento de `normativa_estadistica_lexema`, vistas que refresca la
    ingesta. Los lexemas presentes en más de la mitad de los fragmentos casi no discriminan y se
    descartan. Los filtros de la búsqueda se aplican a los fragmentos puntuados. A igual peso o
    puntaje decide el id: el orden de un empate no depende de cómo están guardadas las filas (dos
    artículos casi iguales del reglamento se alternaban tras recargar la documentación).
    """
    if not lexemas:
        return []
    puntuados = _bm25(lexemas, limite=PREFILTRO_TEXTO, pesos=pesos)
    # Los filtros se aplican a los mejor puntuados (búsqueda por clave primaria, barata); si dejan
    # menos de los necesarios y había más, se puntúan todos contra los filtros (más lento, exacto).
    admitidos = fragmentos_admitidos(base, [pk for pk, _ in puntuados], por_omision=por_omision)
    filtrados = [(pk, puntaje) for pk, puntaje in puntuados if pk in admitidos]
    if len(filtrados) < CANDIDATOS and len(puntuados) == PREFILTRO_TEXTO:
        return _bm25(lexemas, limite=CANDIDATOS, base=base, pesos=pesos)
    return filtrados[:CANDIDATOS]


def _bm25(
    lexemas: list[str],
    *,
    limite: int,
    base: QuerySet[FragmentoLegal] | None = None,
    pesos: dict[str, float] | None = None,
) -> list[tuple[int, float]]:
    """(fragmento, puntaje BM25) de los mejores `limite`, restringidos a `base` si se indica."""
    filtro, parametros = "", []
    estadisticas = estadisticas_de_lo_buscado()
    if base is not None:
        sql, parametros_base = base.order_by().values("pk").query.sql_with_params()
        filtro, parametros = f"AND fragmento_id IN ({sql})", list(parametros_base)
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            WITH c AS (SELECT {estadisticas.columna} AS documentos FROM normativa_estadistica_corpus),
                 q AS (SELECT e.lexema,
                              w.peso
                              * ln(1 + (c.documentos - e.documentos + 0.5) / (e.documentos + 0.5)) AS idf
                         FROM unnest(%s::text[], %s::float8[]) AS w(lexema, peso)
                         JOIN {estadisticas.vista} e ON e.lexema = w.lexema, c
                        WHERE e.documentos <= c.documentos / 2)
            SELECT i.fragmento_id, sum(i.peso * q.idf) AS puntaje
              FROM q CROSS JOIN LATERAL (
                     SELECT fragmento_id, peso FROM normativa_indice_invertido
                      WHERE lexema = q.lexema AND documentacion = %s {filtro}
                      ORDER BY peso DESC, fragmento_id LIMIT %s) AS i
             GROUP BY i.fragmento_id
             ORDER BY puntaje DESC, i.fragmento_id
             LIMIT %s
            """,
            [
                lexemas,
                [(pesos or {}).get(lexema, 1.0) for lexema in lexemas],
                estadisticas.documentacion,
                *parametros,
                POSTINGS_POR_LEXEMA,
                limite,
            ],
        )
        return [(fila[0], float(fila[1])) for fila in cursor.fetchall()]


def fragmentos_admitidos(
    base: QuerySet[FragmentoLegal], ids: Iterable[int], *, por_omision: bool
) -> set[int]:
    """Los de `ids` que admiten los filtros de la búsqueda (`base`). Sin filtros, se miran en el
    conjunto de los buscables por omisión, que se lee una vez por estado del corpus: con el corpus
    real, PostgreSQL recorría la tabla entera para admitir 400 candidatos de BM25."""
    if por_omision:
        buscables = _buscables_por_omision()
        return {pk for pk in ids if pk in buscables}
    return set(base.filter(pk__en_arreglo=list(ids)).order_by().values_list("pk", flat=True))


@por_estado_del_corpus
def _buscables_por_omision() -> frozenset[int]:
    base = fragmentos_buscables(
        normas=None, temas=None, tipos_documento=None, incluir_derogados=False, incluir_documentacion=False
    )
    return frozenset(base.order_by().values_list("pk", flat=True))


@por_estado_del_corpus
def normas_cargadas() -> frozenset[str]:
    """Las siglas con versión vigente (`normas_disponibles`)."""
    return frozenset(normas_disponibles())


def fraccion_desconocida(lexemas: list[str], *, comunes: Sequence[str] = ()) -> float:
    """Fracción de los lexemas de la pregunta que no aparece en ningún fragmento vigente, sin contar
    como desconocidas las palabras `comunes` del español («todavía no empezamos»): que la ley no las
    use no dice que la pregunta sea de otro tema (antes las «conocía» la documentación del sistema,
    que entraba en las estadísticas)."""
    if not lexemas:
        return 0.0
    _, conocidos = frecuencias_documentales(lexemas)
    de_todos_los_dias = set(_lexemas(" ".join(comunes))) if comunes else set()
    desconocidos = [
        lexema for lexema in lexemas if lexema not in conocidos and lexema not in de_todos_los_dias
    ]
    return len(desconocidos) / len(lexemas)


def _lexemas(texto: str) -> list[str]:
    """Los lexemas de `texto` en español sin tildes, sin palabras vacías."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT DISTINCT lexeme FROM unnest(to_tsvector('spanish', normativa_sin_tildes(%s)))", [texto]
        )
        return [fila[0] for fila in cursor.fetchall()]


def lexemas_de_la_consulta(consulta: str) -> list[str]:
    """«¿Qué es una DIA?» → ['dia']: lexemas en español sin tildes (sin palabras vacías); una palabra
    compuesta que el corpus no trae suma sus partes conocidas («concentraducto» → concentr, duct)."""
    lexemas = _lexemas(consulta)
    extra = _formas_del_corpus(lexemas) + _partes_de_compuestos(lexemas)
    return lexemas + [p for p in dict.fromkeys(extra) if p not in lexemas]


LARGO_FORMA = 6  # el lexema más corto que se completa con las formas del corpus
SOBRA_FORMA = 4  # letras que la forma del corpus puede agregar («prescrib» → «prescribir»)


def _formas_del_corpus(lexemas: list[str]) -> list[str]:
    """Para cada lexema ausente del corpus, los lexemas del corpus que empiezan por él: el lematizador
    deja terminaciones distintas a formas de un mismo verbo («prescriben» → prescrib, «prescribirán» →
    prescribir), y sin esto BM25 no encuentra el artículo que usa la otra forma."""
    cortos = [lex for lex in lexemas if len(lex) >= LARGO_FORMA and lex.isalpha()]
    if not cortos:
        return []
    vista = estadisticas_de_lo_buscado().vista
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            SELECT e.lexema
              FROM unnest(%s::text[]) AS l(lexema)
              JOIN {vista} e
                ON e.lexema LIKE l.lexema || '%%' AND length(e.lexema) > length(l.lexema)
               AND length(e.lexema) <= length(l.lexema) + %s
             WHERE NOT EXISTS (SELECT 1 FROM {vista} c WHERE c.lexema = l.lexema)
             ORDER BY e.lexema
            """,
            [cortos, SOBRA_FORMA],
        )
        return [fila[0] for fila in cursor.fetchall()]


def _partes_de_compuestos(lexemas: list[str]) -> list[str]:
    """Para cada lexema largo ausente del corpus, el lexema conocido más largo con que empieza y
    el más largo con que termina (al menos `LARGO_PARTE` letras): «mineroducto» → miner, duct."""
    largos = [lex for lex in lexemas if len(lex) >= 2 * LARGO_PARTE and lex.isalpha()]
    if not largos:
        return []
    vista = estadisticas_de_lo_buscado().vista
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            SELECT l.lexema, array_agg(e.lexema ORDER BY length(e.lexema) DESC)
              FROM unnest(%s::text[]) AS l(lexema)
              JOIN {vista} e
                ON length(e.lexema) >= %s AND length(e.lexema) < length(l.lexema)
               AND (l.lexema LIKE e.lexema || '%%' OR l.lexema LIKE '%%' || e.lexema)
             WHERE NOT EXISTS (SELECT 1 FROM {vista} c WHERE c.lexema = l.lexema)
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
