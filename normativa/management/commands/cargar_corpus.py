"""python manage.py cargar_corpus: carga (o actualiza) todo el corpus incluido en el repositorio."""

from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from normativa.ingesta.corpus import (
    corpus_cargar,
    documentacion_cargar,
    embeddings_precalculados_exportar,
    textos_pdf_exportar,
)
from normativa.parsers import ErrorDeParseo


class Command(BaseCommand):
    help = (
        "Carga leyes, reglamento y guías del SEA incluidos en el repositorio, y la documentación del "
        "sistema (idempotente)."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument(
            "--exportar-embeddings",
            action="store_true",
            help=(
                "Después de cargar, reescribe lo precalculado que viaja con el repositorio: "
                "normativa/corpus/embeddings.npz y el texto extraído de los PDF (textos_pdf.json.gz)."
            ),
        )

    def handle(self, *args: Any, **opciones: Any) -> None:
        barras: dict[str, tqdm[Any]] = {}

        def progreso(sigla: str, hechos: int, total: int) -> None:
            barra = barras.get(sigla)
            if barra is None:
                barra = barras[sigla] = tqdm(total=total, desc=sigla, unit="frag", leave=True)
            barra.update(hechos - barra.n)

        try:
            resultados = corpus_cargar(progreso=progreso)
            documentacion = documentacion_cargar(progreso=progreso)
        except ErrorDeParseo as error:
            raise CommandError(str(error)) from None
        finally:
            for barra in barras.values():
                barra.close()
        nuevos = [r for r in resultados if r.creada]
        reactivadas = sum(r.reactivada for r in resultados)
        embebidos = sum(r.embebidos for r in resultados)
        fragmentos = sum(r.fragmentos for r in resultados)
        de_vuelta = f", {reactivadas} vuelven a una versión anterior" if reactivadas else ""
        self.stdout.write(
            f"Corpus: {len(resultados)} documentos, {fragmentos} fragmentos; "
            f"{len(nuevos)} versiones nuevas{de_vuelta}, {embebidos} fragmentos embebidos (el resto desde "
            "caché)."
        )
        self.stdout.write(
            f"Documentación del sistema: {len(documentacion)} documentos, "
            f"{sum(r.fragmentos for r in documentacion)} secciones."
        )
        if opciones["exportar_embeddings"]:
            cantidad = embeddings_precalculados_exportar()
            self.stdout.write(f"Embeddings precalculados exportados: {cantidad}.")
            self.stdout.write(f"Texto de los PDF exportado: {textos_pdf_exportar()} archivos.")
