"""Las estadísticas de BM25 de la normativa ya no cuentan la documentación del sistema.

Antes, el README y `docs/` entraban en cuántos fragmentos trae cada lexema, en el total y en la
longitud media: agregar un párrafo al README cambiaba el IDF de las palabras de una pregunta de ley y
con él la respuesta (y si una palabra «es del corpus», que decide la abstención). Ahora:

- `normativa_estadistica_lexema` y `normativa_estadistica_corpus` (cantidad y longitud media) son solo
  de la normativa; el último fragmento y el refresco siguen siendo de todo lo vigente (el estado del
  corpus cambia también cuando cambia la documentación);
- `normativa_estadistica_documentacion` y `documentos_documentacion` son los de la documentación, con
  que se busca en ella (`buscar_documentacion`);
- `normativa_indice_invertido` sigue teniendo ambos, con el peso de cada fragmento normalizado por la
  longitud media de su grupo y el grupo en cada fila: la búsqueda lee las apariciones de mayor peso de
  cada lexema solo en su grupo (si no, las secciones del README podían sacar de esa poda a artículos).
"""

from django.db import migrations

VIGENTES = """
SELECT f.id, f.busqueda, n.tipo = 'documentacion' AS documentacion
  FROM normativa_fragmentolegal f
  JOIN normativa_versionnorma v ON v.id = f.version_id
  JOIN normativa_norma n ON n.id = f.norma_id
 WHERE v.vigente AND f.eliminado_at IS NULL AND f.busqueda IS NOT NULL
"""

CREAR = f"""
DROP MATERIALIZED VIEW IF EXISTS normativa_indice_invertido;
DROP MATERIALIZED VIEW IF EXISTS normativa_estadistica_lexema;
DROP MATERIALIZED VIEW IF EXISTS normativa_estadistica_corpus;

CREATE MATERIALIZED VIEW normativa_estadistica_lexema AS
SELECT word AS lexema, ndoc AS documentos
  FROM ts_stat($q$SELECT busqueda FROM ({VIGENTES}) AS v WHERE NOT documentacion$q$);
CREATE UNIQUE INDEX normativa_estadistica_lexema_pk ON normativa_estadistica_lexema (lexema);

CREATE MATERIALIZED VIEW normativa_estadistica_documentacion AS
SELECT word AS lexema, ndoc AS documentos
  FROM ts_stat($q$SELECT busqueda FROM ({VIGENTES}) AS v WHERE documentacion$q$);
CREATE UNIQUE INDEX normativa_estadistica_documentacion_pk ON normativa_estadistica_documentacion (lexema);

CREATE MATERIALIZED VIEW normativa_estadistica_corpus AS
SELECT count(*) FILTER (WHERE NOT documentacion)::float AS documentos,
       coalesce(avg(length(busqueda)) FILTER (WHERE NOT documentacion), 1)::float AS longitud_media,
       count(*) FILTER (WHERE documentacion)::float AS documentos_documentacion,
       coalesce(max(id), 0) AS ultimo, clock_timestamp() AS refrescada
  FROM ({VIGENTES}) AS vigentes;

CREATE MATERIALIZED VIEW normativa_indice_invertido AS
WITH vigentes AS ({VIGENTES}),
     media AS (SELECT documentacion, coalesce(avg(length(busqueda)), 1)::float AS longitud
                 FROM vigentes GROUP BY documentacion),
     apariciones AS (
        SELECT u.lexeme AS lexema,
               d.documentacion,
               d.id AS fragmento_id,
               (cardinality(u.positions) * 2.2
                / (cardinality(u.positions) + 1.2 * (0.25 + 0.75 * length(d.busqueda) / media.longitud)))::real
                 AS peso
          FROM vigentes d JOIN media USING (documentacion) CROSS JOIN LATERAL unnest(d.busqueda) AS u)
SELECT lexema, documentacion, fragmento_id, peso FROM apariciones ORDER BY lexema, documentacion, peso DESC;
CREATE INDEX normativa_indice_invertido_lexema
    ON normativa_indice_invertido (lexema, documentacion, peso DESC) INCLUDE (fragmento_id);
"""

ANTERIOR_VIGENTES = """
SELECT f.id, f.busqueda FROM normativa_fragmentolegal f
  JOIN normativa_versionnorma v ON v.id = f.version_id
 WHERE v.vigente AND f.eliminado_at IS NULL AND f.busqueda IS NOT NULL
"""

ANTERIOR = f"""
DROP MATERIALIZED VIEW IF EXISTS normativa_indice_invertido;
DROP MATERIALIZED VIEW IF EXISTS normativa_estadistica_lexema;
DROP MATERIALIZED VIEW IF EXISTS normativa_estadistica_documentacion;
DROP MATERIALIZED VIEW IF EXISTS normativa_estadistica_corpus;

CREATE MATERIALIZED VIEW normativa_estadistica_lexema AS
SELECT word AS lexema, ndoc AS documentos FROM ts_stat($q$SELECT busqueda FROM ({ANTERIOR_VIGENTES}) AS v$q$);
CREATE UNIQUE INDEX normativa_estadistica_lexema_pk ON normativa_estadistica_lexema (lexema);

CREATE MATERIALIZED VIEW normativa_estadistica_corpus AS
SELECT count(*)::float AS documentos, coalesce(avg(length(busqueda)), 1)::float AS longitud_media,
       coalesce(max(id), 0) AS ultimo, clock_timestamp() AS refrescada
  FROM ({ANTERIOR_VIGENTES}) AS vigentes;

CREATE MATERIALIZED VIEW normativa_indice_invertido AS
WITH vigentes AS ({ANTERIOR_VIGENTES}),
     media AS (SELECT coalesce(avg(length(busqueda)), 1)::float AS longitud FROM vigentes),
     apariciones AS (
        SELECT u.lexeme AS lexema,
               d.id AS fragmento_id,
               (cardinality(u.positions) * 2.2
                / (cardinality(u.positions) + 1.2 * (0.25 + 0.75 * length(d.busqueda) / media.longitud)))::real
                 AS peso
          FROM vigentes d CROSS JOIN LATERAL unnest(d.busqueda) AS u CROSS JOIN media)
SELECT lexema, fragmento_id, peso FROM apariciones ORDER BY lexema, peso DESC;
CREATE INDEX normativa_indice_invertido_lexema
    ON normativa_indice_invertido (lexema, peso DESC) INCLUDE (fragmento_id);
"""


class Migration(migrations.Migration):
    dependencies = [("normativa", "0010_catalogo_de_permisos")]
    operations = [migrations.RunSQL(CREAR, ANTERIOR)]
