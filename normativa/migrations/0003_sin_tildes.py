"""Función inmutable para quitar tildes en el índice de texto completo.

El PostgreSQL embebido (pgserver) no trae la extensión `unaccent`; `translate()` cubre las vocales
con tilde, la diéresis y la eñe del español y funciona en cualquier PostgreSQL. Al ser IMMUTABLE
puede usarse en índices y en columnas calculadas.
"""

from django.db import migrations

CON_TILDE = "ÁÉÍÓÚÜÑáéíóúüñÀÈÌÒÙàèìòù"
SIN_TILDE = "AEIOUUNaeiouunAEIOUaeiou"

CREAR = f"""
CREATE OR REPLACE FUNCTION normativa_sin_tildes(texto text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$ SELECT translate(texto, '{CON_TILDE}', '{SIN_TILDE}') $$;
"""


class Migration(migrations.Migration):
    dependencies = [("normativa", "0002_corpus")]
    operations = [migrations.RunSQL(CREAR, "DROP FUNCTION IF EXISTS normativa_sin_tildes(text);")]
