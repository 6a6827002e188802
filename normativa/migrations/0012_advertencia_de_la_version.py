"""El aviso de vigencia («texto de 2014 …») pasa de la norma a la versión que lo merece: las versiones
cargadas del corpus del repositorio lo conservan; las que trajo la BCN (`bcn_obtxml_…`) no."""

from django.db import migrations, models

PREFIJO_BCN = "bcn_obtxml_"


def avisos_a_sus_versiones(apps, schema_editor):
    Norma = apps.get_model("normativa", "Norma")
    VersionNorma = apps.get_model("normativa", "VersionNorma")
    for norma in Norma.objects.exclude(advertencia_vigencia=""):
        VersionNorma.objects.filter(norma=norma).exclude(fuente__startswith=PREFIJO_BCN).update(
            advertencia=norma.advertencia_vigencia
        )


def avisos_a_sus_normas(apps, schema_editor):
    Norma = apps.get_model("normativa", "Norma")
    VersionNorma = apps.get_model("normativa", "VersionNorma")
    for version in VersionNorma.objects.exclude(advertencia="").filter(vigente=True):
        Norma.objects.filter(pk=version.norma_id).update(advertencia_vigencia=version.advertencia)


class Migration(migrations.Migration):
    dependencies = [
        ("normativa", "0011_estadisticas_sin_documentacion"),
    ]

    operations = [
        migrations.AddField(
            model_name="versionnorma",
            name="advertencia",
            field=models.TextField(
                blank=True,
                help_text="Aviso que acompaña toda cita de esta versión (p. ej. texto anterior al DS 17/2025). "
                "Una versión nueva traída de la BCN empieza sin aviso.",
            ),
        ),
        migrations.RunPython(avisos_a_sus_versiones, avisos_a_sus_normas),
        migrations.RemoveField(model_name="norma", name="advertencia_vigencia"),
    ]
