"""python manage.py revisar_reglas: compara cada regla del motor con el texto vigente de su fragmento."""

from typing import Any

from django.core.management.base import BaseCommand

from proyectos.models import ReglaDelMotor
from proyectos.services import reglas_revisar


class Command(BaseCommand):
    help = "Marca «revisar» las reglas del motor cuyo texto cambió después de escritas (idempotente)."

    def handle(self, *args: Any, **opciones: Any) -> None:
        nuevas = reglas_revisar()
        for regla in ReglaDelMotor.objects.exclude(estado=ReglaDelMotor.Estado.VIGENTE):
            self.stdout.write(f"{regla.literal} ({regla.fragmento}): {regla.get_estado_display()}")
        total = ReglaDelMotor.objects.count()
        self.stdout.write(f"Reglas del motor: {total} comparadas, {len(nuevas)} pasaron a «revisar».")
