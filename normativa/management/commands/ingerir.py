"""python manage.py ingerir ARCHIVO --norma SIGLA: un PDF, XML, Markdown o JSON como versión vigente."""

from argparse import ArgumentParser
from datetime import date
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from normativa.ingesta.documentos import datos_norma_para, documento_ingerir
from normativa.models import Norma
from normativa.parsers import FORMATOS, ErrorDeParseo


class Command(BaseCommand):
    help = (
        "Ingiere un archivo (PDF de guía o de LeyChile, XML de la BCN, Markdown o JSON) como versión "
        "vigente de una norma; si el contenido no cambió, no hace nada."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("archivo", type=Path)
        parser.add_argument("--norma", required=True, help="Sigla como se cita: «Ley 21.600», «DS 40».")
        parser.add_argument("--tipo", choices=Norma.Tipo.values, help="Obligatorio si la norma es nueva.")
        parser.add_argument("--nombre", help="Nombre completo; obligatorio si la norma es nueva.")
        parser.add_argument(
            "--formato", choices=FORMATOS, help="Por defecto, la extensión (pdf-ley: PDF de LeyChile)."
        )
        parser.add_argument("--id-norma-bcn", type=int)
        parser.add_argument("--url")
        parser.add_argument("--anio", type=int)
        parser.add_argument("--fecha-version", type=date.fromisoformat, help="AAAA-MM-DD")

    def handle(self, *args: Any, **opciones: Any) -> None:
        archivo: Path = opciones["archivo"]
        if not archivo.is_file():
            raise CommandError(f"No existe el archivo «{archivo}».")
        barra: tqdm[Any] | None = None

        def progreso(sigla: str, hechos: int, total: int) -> None:
            nonlocal barra
            if barra is None:
                barra = tqdm(total=total, desc=sigla, unit="frag")
            barra.update(hechos - barra.n)

        try:
            datos = datos_norma_para(
                sigla=opciones["norma"],
                tipo=opciones["tipo"],
                nombre=opciones["nombre"],
                id_norma_bcn=opciones["id_norma_bcn"],
                url=opciones["url"],
                anio=opciones["anio"],
                fecha_version=opciones["fecha_version"],
            )
            resultado = documento_ingerir(
                ruta=archivo, datos=datos, formato=opciones["formato"], progreso=progreso
            )
        except ErrorDeParseo as error:
            raise CommandError(str(error)) from None
        finally:
            if barra is not None:
                barra.close()
        if resultado.reactivada:
            self.stdout.write(
                f"{resultado.norma.sigla}: vuelve a estar vigente una versión anterior, ya cargada "
                f"({resultado.fragmentos} fragmentos)."
            )
            return
        if not resultado.creada:
            self.stdout.write(f"{resultado.norma.sigla}: sin cambios ({resultado.fragmentos} fragmentos).")
            return
        self.stdout.write(
            f"{resultado.norma.sigla}: nueva versión vigente con {resultado.fragmentos} fragmentos; "
            f"{resultado.embebidos} embebidos (el resto desde caché)."
        )
