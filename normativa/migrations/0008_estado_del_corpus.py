"""El estado del corpus en `normativa_estadistica_corpus`: el último fragmento vigente y el momento del
refresco, además de la cantidad. Lo que la búsqueda calcula una vez por estado del corpus (las anclas
de cada familia) se recalcula cuando cambia esta fila, que la ingesta refresca; antes lo decidía una
cuenta sobre los fragmentos vigentes en cada búsqueda (a 100 000 fragmentos, la mitad de su tiempo).
`clock_timestamp()` y no `now()`: dos refrescos en una misma transacción son dos estados.
"""

from django.db import migrations

VIGENTES = """
SELECT f.id, f.busqueda FROM normativa_fragmentolegal f
  JOIN normativa_versionnorma v ON v.id = f.version_id
 WHERE v.vigente AND f.eliminado_at IS NULL AND f.busqueda IS NOT NULL
"""

CREAR = f"""
DROP MATERIALIZED VIEW IF EXISTS normativa_estadistica_corpus;
CREATE MATERIALIZED VIEW normativa_estadistica_corpus AS
SELECT count(*)::float AS documentos, coalesce(avg(length(busqueda)), 1)::float AS longitud_media,
       coalesce(max(id), 0) AS ultimo, clock_timestamp() AS refrescada
  FROM ({VIGENTES}) AS vigentes;
"""

ANTERIOR = f"""
DROP MATERIALIZED VIEW IF EXISTS normativa_estadistica_corpus;
CREATE MATERIALIZED VIEW normativa_estadistica_corpus AS
SELECT count(*)::float AS documentos, coalesce(avg(length(busqueda)), 1)::float AS longitud_media
  FROM ({VIGENTES}) AS vigentes;
"""


class Migration(migrations.Migration):
    dependencies = [("normativa", "0007_carga_organismo_temas_metadatos")]
    operations = [migrations.RunSQL(CREAR, ANTERIOR)]
