"""Carga las 16 regiones y 346 comunas del CUT 2018 (SUBDERE) desde `proyectos/datos/`."""

import csv
from pathlib import Path
from typing import Any

from django.db import migrations

ARCHIVO = Path(__file__).resolve().parent.parent / "datos" / "cut_comunas_subdere_2018.csv"


def cargar(apps: Any, schema_editor: Any) -> None:
    Region = apps.get_model("proyectos", "Region")
    Comuna = apps.get_model("proyectos", "Comuna")
    with ARCHIVO.open(encoding="utf-8") as archivo:
        filas = list(csv.DictReader(archivo, delimiter=";"))
    regiones = {
        fila["codigo_region"]: Region(
            codigo=fila["codigo_region"], nombre=fila["nombre_region"], abreviatura=fila["abreviatura_region"]
        )
        for fila in filas
    }
    Region.objects.bulk_create(regiones.values(), ignore_conflicts=True)
    Comuna.objects.bulk_create(
        [
            Comuna(
                codigo=fila["codigo_comuna"],
                nombre=fila["nombre_comuna"],
                provincia=fila["nombre_provincia"],
                region_id=fila["codigo_region"],
            )
            for fila in filas
        ],
        ignore_conflicts=True,
    )


class Migration(migrations.Migration):
    dependencies = [("proyectos", "0002_division_politica")]
    operations = [migrations.RunPython(cargar, migrations.RunPython.noop)]
