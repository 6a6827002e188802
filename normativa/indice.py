"""El índice de búsqueda del corpus: embeddings que faltan, texto completo y estadísticas BM25."""

from __future__ import annotations

import hashlib

from django.db import connection

from normativa.models import FragmentoLegal


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


ESTADISTICAS_BM25 = (
    "normativa_estadistica_lexema",
    "normativa_estadistica_corpus",
    "normativa_indice_invertido",
)


def estadisticas_refrescar() -> None:
    """Recalcula las frecuencias de lexemas que usa BM25 (tras ingerir, editar o eliminar)."""
    with connection.cursor() as cursor:
        for vista in ESTADISTICAS_BM25:
            cursor.execute(f"REFRESH MATERIALIZED VIEW {vista}")
            # Sin estadísticas frescas el planificador recorre todo el índice invertido (~8 M filas
            # a 100 000 fragmentos) en vez de leer solo los lexemas de la consulta.
            cursor.execute(f"ANALYZE {vista}")


def hash_texto(texto: str) -> str:
    return hashlib.sha256(texto.encode()).hexdigest()
