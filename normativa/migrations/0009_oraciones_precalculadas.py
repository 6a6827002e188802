"""Las oraciones de cada fragmento y sus raíces, calculadas al ingerir (`normativa.oraciones`): la
búsqueda ya no parte ni lematiza en cada pregunta el texto de un candidato que el proceso no había
visto. Las filas existentes las reciben en la próxima carga del corpus (`indice.analisis_completar`).
"""

import django.contrib.postgres.fields
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("normativa", "0008_estado_del_corpus"),
    ]

    operations = [
        migrations.AddField(
            model_name="fragmentolegal",
            name="analisis",
            field=models.CharField(blank=True, editable=False, max_length=16),
        ),
        migrations.AddField(
            model_name="fragmentolegal",
            name="oraciones",
            field=django.contrib.postgres.fields.ArrayField(
                base_field=models.TextField(), blank=True, default=list, editable=False, size=None
            ),
        ),
        migrations.AddField(
            model_name="fragmentolegal",
            name="raices",
            field=django.contrib.postgres.fields.ArrayField(
                base_field=models.TextField(), blank=True, default=list, editable=False, size=None
            ),
        ),
    ]
