"""El índice de búsqueda del corpus: embeddings que faltan, texto completo y estadísticas BM25."""

from __future__ import annotations

import hashlib

from django.db import connection

from normativa.models import FragmentoLegal
from normativa.oraciones import VERSION, oraciones_de, raices_en_orden

LOTE_ANALISIS = 2000  # fragmentos por consulta al analizar oraciones


def texto_para_embeber(fragmento: FragmentoLegal) -> str:
    """La miga de pan y el encabezado del artículo van en el texto embebido: ubican el fragmento."""
    partes = [fragmento.breadcrumb, fragmento.contexto, fragmento.texto_busqueda or fragmento.texto]
    return "\n".join(parte for parte in partes if parte)


def actualizar_texto_completo(*, ids: list[int]) -> None:
    """Índice de texto en español sin tildes; la miga de pan pesa más que el cuerpo."""
    if not ids:
        return
    with connection.cursor() as cursor:
        cursor.execute(
            """
            UPDATE normativa_fragmentolegal
               SET busqueda = setweight(to_tsvector('spanish', normativa_sin_tildes(breadcrumb)), 'A')
                           || setweight(to_tsvector('spanish', normativa_sin_tildes(contexto)), 'C')
                           || setweight(to_tsvector('spanish', normativa_sin_tildes(
                                  coalesce(nullif(texto_busqueda, ''), texto))), 'B')
             WHERE id = ANY(%s)
            """,
            [ids],
        )


def oraciones_asignar(fragmentos: list[FragmentoLegal]) -> None:
    """Pone en cada fragmento (aún sin guardar) sus oraciones y las raíces de cada una
    (`normativa.oraciones`), lo que el reordenador lee de un candidato: la ingesta las calcula antes
    de insertar, así no hay que volver a escribir la fila (cada reescritura reinserta en el HNSW)."""
    oraciones = [oraciones_de(fragmento.texto) for fragmento in fragmentos]
    raices = iter(raices_en_orden([oracion for lista in oraciones for oracion in lista]))
    for fragmento, lista in zip(fragmentos, oraciones, strict=True):
        fragmento.oraciones = list(lista)
        fragmento.raices = [" ".join(next(raices)) for _ in lista]
        fragmento.analisis = VERSION


def analisis_completar() -> int:
    """Analiza los fragmentos vigentes sin oraciones guardadas o guardadas con otra versión del
    análisis (una base anterior a la migración 0009, o un cambio en cómo se parte un texto) y
    devuelve cuántos. Mientras no se completen, la búsqueda los analiza al leerlos."""
    pendientes = FragmentoLegal.objects.filter(version__vigente=True).exclude(analisis=VERSION).order_by("pk")
    analizados = 0
    # cada lote analizado sale de los pendientes
    while lote := list(pendientes.only("pk", "texto")[:LOTE_ANALISIS]):
        oraciones_asignar(lote)
        FragmentoLegal.todos.bulk_update(lote, ["oraciones", "raices", "analisis"])
        analizados += len(lote)
    return analizados


ESTADISTICAS_BM25 = (
    "normativa_estadistica_lexema",
    "normativa_estadistica_documentacion",
    "normativa_estadistica_corpus",
    "normativa_indice_invertido",
)


def estadisticas_refrescar(*, tablas: bool = False) -> None:
    """Recalcula las frecuencias de lexemas que usa BM25 (tras ingerir, editar o eliminar).

    Con `tablas` (tras una ingesta, que agrega filas por cientos) también las estadísticas del
    planificador de las tablas que la búsqueda une: en una base recién cargada el autovacuum aún no
    las había medido y la búsqueda densa no usaba el HNSW (recorría la tabla: 43 ms contra ~3 ms con el
    corpus real). No en cada edición del admin: a 100 000 fragmentos toma segundos.
    """
    with connection.cursor() as cursor:
        for vista in ESTADISTICAS_BM25:
            cursor.execute(f"REFRESH MATERIALIZED VIEW {vista}")
            # Sin estadísticas frescas el planificador recorre todo el índice invertido (~8 M filas
            # a 100 000 fragmentos) en vez de leer solo los lexemas de la consulta.
            cursor.execute(f"ANALYZE {vista}")
        if tablas:
            cursor.execute("ANALYZE normativa_fragmentolegal, normativa_versionnorma, normativa_norma")


def hash_texto(texto: str) -> str:
    return hashlib.sha256(texto.encode()).hexdigest()
