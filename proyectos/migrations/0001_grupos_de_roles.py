"""Crea los grupos de roles Lectura, Escritura y Administrador."""

from django.apps.registry import Apps
from django.db import migrations
from django.db.backends.base.schema import BaseDatabaseSchemaEditor

GRUPOS = ("Lectura", "Escritura", "Administrador")


def crear_grupos(apps: Apps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    grupo = apps.get_model("auth", "Group")
    for nombre in GRUPOS:
        grupo.objects.get_or_create(name=nombre)


def borrar_grupos(apps: Apps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    apps.get_model("auth", "Group").objects.filter(name__in=GRUPOS).delete()


class Migration(migrations.Migration):
    initial = True
    dependencies = [("auth", "0012_alter_user_first_name_max_length")]
    operations = [migrations.RunPython(crear_grupos, borrar_grupos)]
