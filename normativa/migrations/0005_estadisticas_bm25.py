"""Estadísticas del texto completo para puntuar con BM25 y pesos iniciales de búsqueda por tipo.

`ts_rank` de PostgreSQL no usa la frecuencia inversa de documento: una palabra común («proyecto»)
pesa lo mismo que una rara («glaciar»). Estas vistas materializadas guardan en cuántos fragmentos
vigentes aparece cada lexema y la longitud media de un fragmento; la ingesta las refresca.
"""

from typing import Any

from django.db import migrations

VIGENTES = """
SELECT f.busqueda FROM normativa_fragmentolegal f
  JOIN normativa_versionnorma v ON v.id = f.version_id
 WHERE v.vigente AND f.eliminado_at IS NULL AND f.busqueda IS NOT NULL
"""

CREAR = f"""
CREATE MATERIALIZED VIEW normativa_estadistica_lexema AS
SELECT word AS lexema, ndoc AS documentos FROM ts_stat($q${VIGENTES}$q$);
CREATE UNIQUE INDEX normativa_estadistica_lexema_pk ON normativa_estadistica_lexema (lexema);
CREATE MATERIALIZED VIEW normativa_estadistica_corpus AS
SELECT count(*)::float AS documentos, coalesce(avg(length(busqueda)), 1)::float AS longitud_media
  FROM ({VIGENTES}) AS vigentes;
"""

BORRAR = """
DROP MATERIALIZED VIEW IF EXISTS normativa_estadistica_lexema;
DROP MATERIALIZED VIEW IF EXISTS normativa_estadistica_corpus;
"""


def pesos_iniciales(apps: Any, schema_editor: Any) -> None:
    Norma = apps.get_model("normativa", "Norma")
    for tipo, peso in (("ley", 0.8), ("decreto", 0.9), ("guia", 0.5)):
        Norma.objects.filter(tipo=tipo).update(peso_busqueda=peso)
    Norma.objects.filter(sigla="Ley 19.300").update(peso_busqueda=1.0)


class Migration(migrations.Migration):
    dependencies = [("normativa", "0004_contexto_modificatorio_peso")]
    operations = [
        migrations.RunSQL(CREAR, BORRAR),
        migrations.RunPython(pesos_iniciales, migrations.RunPython.noop),
    ]
