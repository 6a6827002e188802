"""Índice invertido para BM25: una fila por (lexema, fragmento vigente) con su peso de término.

Puntuar BM25 desenrollando el `tsvector` de cada fragmento coincidente costaba ~230 ms por consulta
en el corpus real (y crecía con él); con las listas de aparición precalculadas, la consulta solo lee
las filas de sus lexemas por índice. El peso ya incluye la normalización por longitud
(k1 = 1,2, b = 0,75); la ingesta refresca la vista.
"""

from django.db import migrations

VIGENTES = """
SELECT f.id, f.busqueda FROM normativa_fragmentolegal f
  JOIN normativa_versionnorma v ON v.id = f.version_id
 WHERE v.vigente AND f.eliminado_at IS NULL AND f.busqueda IS NOT NULL
"""

CREAR = f"""
CREATE MATERIALIZED VIEW normativa_indice_invertido AS
WITH vigentes AS ({VIGENTES}),
     media AS (SELECT coalesce(avg(length(busqueda)), 1)::float AS longitud FROM vigentes)
SELECT u.lexeme AS lexema,
       d.id AS fragmento_id,
       (cardinality(u.positions) * 2.2
        / (cardinality(u.positions) + 1.2 * (0.25 + 0.75 * length(d.busqueda) / media.longitud)))::real AS peso
  FROM vigentes d CROSS JOIN LATERAL unnest(d.busqueda) AS u CROSS JOIN media;
CREATE INDEX normativa_indice_invertido_lexema
    ON normativa_indice_invertido (lexema) INCLUDE (fragmento_id, peso);
"""


class Migration(migrations.Migration):
    dependencies = [("normativa", "0007_texto_busqueda")]
    operations = [migrations.RunSQL(CREAR, "DROP MATERIALIZED VIEW IF EXISTS normativa_indice_invertido;")]
