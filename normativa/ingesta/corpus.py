"""El corpus que viaja con el repositorio: sus fuentes, su carga en paralelo y sus embeddings."""

from __future__ import annotations

import contextlib
import functools
import json
import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from datetime import date
from pathlib import Path

import numpy as np
from django import db
from django.db import connection

from normativa.embeddings import hash_pasaje, proveedor
from normativa.indice import analisis_completar, estadisticas_refrescar, texto_para_embeber
from normativa.ingesta.documentos import (
    DatosNorma,
    Progreso,
    ResultadoIngesta,
    documento_ingerir,
    fila_de,
    huella_archivo,
    version_vigente,
)
from normativa.models import EmbeddingCache, FragmentoLegal, Norma, VersionNorma
from normativa.parsers import (
    DocumentoParseado,
    ErrorDeParseo,
    guia_pdf,
    parsear_y_fragmentar,
)
from normativa.parsers.base import Fragmento
from normativa.permisos import permisos_catalogar

CORPUS = Path(__file__).resolve().parent.parent / "corpus"


EMBEDDINGS_PRECALCULADOS = CORPUS / "embeddings.npz"


def corpus_cargar(*, progreso: Progreso | None = None) -> list[ResultadoIngesta]:
    """Carga todo el corpus incluido en el repositorio (idempotente)."""
    embeddings_precalculados_importar()
    fuentes = fuentes_del_corpus()
    pendientes = [
        (ruta, formato)
        for ruta, datos, formato in fuentes
        if not version_vigente(sigla=datos.sigla, huella=huella_archivo(ruta))
    ]
    parseados = corpus_parsear(pendientes)
    resultados = []
    for ruta, datos, formato in fuentes:
        resultados.append(
            documento_ingerir(
                ruta=ruta,
                datos=datos,
                formato=formato,
                progreso=progreso,
                refrescar_estadisticas=False,
                parseado=parseados.get(ruta),
            )
        )
    if any(r.cambio_lo_vigente for r in resultados):
        estadisticas_refrescar(tablas=True)  # una vez para todo el lote, no por documento
    # Lo ingerido ya trae sus oraciones; esto alcanza a lo cargado antes de guardarlas o con otra
    # versión del análisis (una consulta si no falta nada).
    analisis_completar()
    # El catálogo de permisos se lee del DS 40 y enlaza sus guías: al final, con todo cargado.
    permisos_catalogar()
    return resultados


RAIZ_DEL_PROYECTO = Path(__file__).resolve().parents[2]


def documentacion_cargar(
    *, raiz: Path = RAIZ_DEL_PROYECTO, progreso: Progreso | None = None
) -> list[ResultadoIngesta]:
    """Indexa README.md, CONTRIBUTING.md y docs/*.md como documentación del sistema (idempotente).

    Se busca aparte de la normativa (`selectors.buscar_documentacion`): la usan las herramientas
    del asistente que explican el sistema. Un documento que ya no existe deja de ser vigente.
    """
    archivos = [raiz / "README.md", raiz / "CONTRIBUTING.md", *sorted((raiz / "docs").glob("*.md"))]
    resultados = []
    siglas = []
    for ruta in archivos:
        if not ruta.is_file():
            continue
        nombre = str(ruta.relative_to(raiz))
        siglas.append(f"Documentación: {nombre}")
        datos = DatosNorma(sigla=siglas[-1], tipo=Norma.Tipo.DOCUMENTACION, nombre=nombre)
        resultados.append(
            documento_ingerir(
                ruta=ruta, datos=datos, formato="md-doc", progreso=progreso, refrescar_estadisticas=False
            )
        )
    retiradas = VersionNorma.objects.filter(norma__tipo=Norma.Tipo.DOCUMENTACION, vigente=True).exclude(
        norma__sigla__in=siglas
    )
    if retiradas.update(vigente=False) or any(r.cambio_lo_vigente for r in resultados):
        estadisticas_refrescar(tablas=True)  # una vez para todo el lote
    return resultados


Parseado = tuple[DocumentoParseado, list[Fragmento]]
# Lo ya parseado en este proceso, por archivo y huella (bytes y versión de los parsers): comprobar los
# embeddings incluidos y luego cargar el corpus leen los mismos PDF, que toman segundos cada uno.
_PARSEADOS: dict[tuple[Path, str], Parseado] = {}


def corpus_parsear(
    pendientes: list[tuple[Path, str]],
) -> dict[Path, Parseado]:
    """El documento y los fragmentos de cada archivo: lo ya parseado en este proceso con la misma huella
    se reutiliza y el resto se extrae a la vez (ver `_parsear_en_paralelo`). Un archivo que no se puede
    leer no viene: se vuelve a intentar (y se informa) al ingerirlo."""
    claves = {ruta: (ruta, huella_archivo(ruta)) for ruta, _ in pendientes}
    faltan = [(ruta, formato) for ruta, formato in pendientes if claves[ruta] not in _PARSEADOS]
    for ruta, parseado in _parsear_en_paralelo(faltan).items():
        _PARSEADOS[claves[ruta]] = parseado
    return {ruta: _PARSEADOS[clave] for ruta, clave in claves.items() if clave in _PARSEADOS}


def _parsear_en_paralelo(
    pendientes: list[tuple[Path, str]],
) -> dict[Path, Parseado]:
    """Extrae el texto de varios archivos a la vez (los PDF de guías toman segundos cada uno).

    Procesos bifurcados (`fork`: `spawn` deja vivo un proceso auxiliar mientras viva el padre); antes
    se cierran las conexiones a la base para que ningún hijo herede el socket (el padre se reconecta
    al volver a usarla). Con un solo archivo, un solo núcleo o dentro de una transacción (no se puede
    cerrar la conexión), se parsea aquí mismo.
    """
    if len(pendientes) < 2 or (os.cpu_count() or 1) < 2 or connection.in_atomic_block:
        return _recoger(
            {ruta: functools.partial(parsear_y_fragmentar, ruta, formato) for ruta, formato in pendientes}
        )
    trabajadores = min(len(pendientes), os.cpu_count() or 1)
    db.connections.close_all()
    with ProcessPoolExecutor(
        max_workers=trabajadores, mp_context=multiprocessing.get_context("fork")
    ) as grupo:
        futuros = {ruta: grupo.submit(parsear_y_fragmentar, ruta, formato) for ruta, formato in pendientes}
        return _recoger({ruta: futuro.result for ruta, futuro in futuros.items()})


def _recoger(lecturas: dict[Path, Callable[[], Parseado]]) -> dict[Path, Parseado]:
    """Lo que cada lectura devuelve. Un archivo que no se puede leer no viene: se vuelve a intentar (y
    se informa) al ingerirlo."""
    resultados = {}
    for ruta, leer in lecturas.items():
        with contextlib.suppress(ErrorDeParseo):
            resultados[ruta] = leer()
    return resultados


def fuentes_del_corpus() -> list[tuple[Path, DatosNorma, str]]:
    """Lista (archivo, norma, formato) de lo que declara `corpus/manifest.json`."""
    manifiesto = json.loads((CORPUS / "manifest.json").read_text(encoding="utf-8"))
    fuentes: list[tuple[Path, DatosNorma, str]] = []
    for entrada in manifiesto["normas"]:
        id_bcn = entrada.get("id_norma_bcn")
        fuentes.append(
            (
                CORPUS / entrada["archivo"],
                DatosNorma(
                    sigla=entrada["sigla"],
                    tipo=entrada["tipo"],
                    nombre=entrada["nombre"],
                    numero=entrada.get("numero", ""),
                    organismo=entrada.get("organismo", ""),
                    id_norma_bcn=id_bcn,
                    url=f"https://www.bcn.cl/leychile/navegar?idNorma={id_bcn}" if id_bcn else "",
                    fecha_version=date.fromisoformat(entrada["fecha_version"])
                    if entrada.get("fecha_version")
                    else None,
                    advertencia_vigencia=entrada.get("advertencia_vigencia", ""),
                    temas=tuple(entrada.get("temas", [])),
                    peso_busqueda=entrada.get("peso_busqueda"),
                ),
                entrada["formato"],
            )
        )
    guias = manifiesto["guias"]
    for guia in json.loads((CORPUS / guias["manifiesto"]).read_text(encoding="utf-8")):
        letras = guia.get("letras_art11", [])
        fuentes.append(
            (
                CORPUS / "guias" / guia["archivo"],
                DatosNorma(
                    sigla=guias["siglas"][guia["archivo"]],
                    tipo=Norma.Tipo.GUIA,
                    nombre=guia["titulo"].rstrip("."),
                    organismo="Servicio de Evaluación Ambiental",
                    url=guia["url"],
                    anio=guia["anio"],
                    temas=("guías SEA", *(f"Art. 11 letra {letra}" for letra in letras)),
                    metadatos={"tipo_guia": guia["tipo"], "letras_art11": letras},
                ),
                "pdf",
            )
        )
    return fuentes


def embeddings_precalculados_importar(*, archivo: Path = EMBEDDINGS_PRECALCULADOS) -> int:
    """Carga en la caché los vectores incluidos en el repositorio; devuelve cuántos eran nuevos.

    Cada vector viene con el hash de su texto y modelo: si el texto cambió, el hash no coincide con
    ningún fragmento y el vector simplemente no se usa.
    """
    if not archivo.exists():
        return 0
    datos = np.load(archivo, allow_pickle=False)
    modelo = str(datos["modelo"])
    if modelo != proveedor().modelo:
        return 0
    hashes = [str(h) for h in datos["hashes"]]
    existentes = set(EmbeddingCache.objects.filter(hash__in=hashes).values_list("hash", flat=True))
    nuevos = [
        EmbeddingCache(hash=clave, modelo=modelo, vector=vector.astype(np.float32))
        for clave, vector in zip(hashes, datos["vectores"], strict=True)
        if clave not in existentes
    ]
    EmbeddingCache.objects.bulk_create(nuevos, batch_size=500, ignore_conflicts=True)
    return len(nuevos)


def embeddings_precalculados_exportar(*, archivo: Path = EMBEDDINGS_PRECALCULADOS) -> int:
    """Escribe los vectores de los fragmentos vigentes del corpus (los que `make run` importa)."""
    motor = proveedor()
    fragmentos = FragmentoLegal.objects.filter(version__vigente=True, embedding__isnull=False)
    hashes, vectores = [], []
    for fragmento in fragmentos.iterator():
        hashes.append(hash_pasaje(texto_para_embeber(fragmento), modelo=motor.modelo))
        vectores.append(np.asarray(fragmento.embedding, dtype=np.float16))
    np.savez_compressed(
        archivo, modelo=np.array(motor.modelo), hashes=np.array(hashes), vectores=np.array(vectores)
    )
    return len(hashes)


def textos_pdf_exportar() -> int:
    """Escribe el texto ya extraído de los PDF del corpus (ver `guia_pdf.TEXTOS_PRECALCULADOS`)."""
    return guia_pdf.textos_precalculados_exportar(
        [ruta for ruta, _, formato in fuentes_del_corpus() if formato == "pdf"]
    )


def embeddings_faltantes() -> list[str]:
    """Siglas de los documentos del corpus con fragmentos sin vector precalculado.

    Si un parser cambia el texto de un fragmento, su hash cambia y el vector incluido ya no sirve:
    esto lo detecta sin embeber nada (hay que volver a exportar con `cargar_corpus --exportar-embeddings`).
    """
    if not EMBEDDINGS_PRECALCULADOS.exists():
        return [datos.sigla for _, datos, _ in fuentes_del_corpus()]
    incluidos = set(str(h) for h in np.load(EMBEDDINGS_PRECALCULADOS, allow_pickle=False)["hashes"])
    modelo = proveedor().modelo
    fuentes = fuentes_del_corpus()
    parseados = corpus_parsear([(ruta, formato) for ruta, _, formato in fuentes])
    faltantes = []
    for ruta, datos, formato in fuentes:
        norma = Norma(sigla=datos.sigla, tipo=datos.tipo, nombre=datos.nombre)
        _, fragmentos = parseados.get(ruta) or parsear_y_fragmentar(ruta, formato)
        for fragmento in fragmentos:
            texto = texto_para_embeber(fila_de(norma, VersionNorma(), 0, fragmento))
            if hash_pasaje(texto, modelo=modelo) not in incluidos:
                faltantes.append(datos.sigla)
                break
    return faltantes
