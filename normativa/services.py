"""Escrituras del corpus: ingesta versionada de normas y guías, embeddings y texto completo."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np
from django.db import connection, transaction

from normativa.embeddings import embeber_pasajes, hash_pasaje, proveedor
from normativa.models import EmbeddingCache, FragmentoLegal, Norma, Tema, VersionNorma
from normativa.parsers import VERSION_PARSERS, DocumentoParseado, ErrorDeParseo, fragmentar, parsear_archivo
from normativa.parsers.base import Fragmento

CORPUS = Path(__file__).resolve().parent / "corpus"
EMBEDDINGS_PRECALCULADOS = CORPUS / "embeddings.npz"

Progreso = Callable[[str, int, int], None]


@dataclass(frozen=True)
class DatosNorma:
    """Identidad de la norma a la que pertenece un archivo."""

    sigla: str
    tipo: str
    nombre: str
    numero: str = ""
    organismo: str = ""
    id_norma_bcn: int | None = None
    url: str = ""
    anio: int | None = None
    fecha_version: date | None = None
    advertencia_vigencia: str = ""
    temas: tuple[str, ...] = ()
    metadatos: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ResultadoIngesta:
    norma: Norma
    version: VersionNorma
    creada: bool
    fragmentos: int
    embebidos: int


def documento_ingerir(
    *, ruta: Path, datos: DatosNorma, formato: str | None = None, progreso: Progreso | None = None
) -> ResultadoIngesta:
    """Ingiere un archivo como versión vigente de su norma; no hace nada si el contenido no cambió.

    Un contenido nuevo crea una `VersionNorma`, marca la anterior como no vigente y reutiliza los
    embeddings de los fragmentos cuyo texto no cambió (solo se embeben los cambiados). Todo en una
    transacción: si algo falla, no queda nada a medias.
    """
    contenido = _leer(ruta)
    huella = hashlib.sha256(VERSION_PARSERS.encode() + b"\n" + contenido).hexdigest()
    existente = (
        VersionNorma.objects.filter(norma__sigla=datos.sigla, hash=huella).select_related("norma").first()
    )
    if existente and existente.vigente:
        total = existente.fragmentos.count()
        return ResultadoIngesta(existente.norma, existente, creada=False, fragmentos=total, embebidos=0)
    documento = parsear_archivo(ruta, formato=formato)
    fragmentos = fragmentar(documento)
    if not fragmentos:
        raise ErrorDeParseo(f"«{ruta.name}» no produjo fragmentos.")
    return _guardar_version(
        ruta=ruta, datos=datos, huella=huella, documento=documento, fragmentos=fragmentos, progreso=progreso
    )


def corpus_cargar(*, progreso: Progreso | None = None) -> list[ResultadoIngesta]:
    """Carga todo el corpus incluido en el repositorio (idempotente)."""
    embeddings_precalculados_importar()
    resultados = []
    for ruta, datos, formato in fuentes_del_corpus():
        resultados.append(documento_ingerir(ruta=ruta, datos=datos, formato=formato, progreso=progreso))
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


def embeddings_faltantes() -> list[str]:
    """Siglas de los documentos del corpus con fragmentos sin vector precalculado.

    Si un parser cambia el texto de un fragmento, su hash cambia y el vector incluido ya no sirve:
    esto lo detecta sin embeber nada (hay que volver a exportar con `cargar_corpus --exportar-embeddings`).
    """
    if not EMBEDDINGS_PRECALCULADOS.exists():
        return [datos.sigla for _, datos, _ in fuentes_del_corpus()]
    incluidos = set(str(h) for h in np.load(EMBEDDINGS_PRECALCULADOS, allow_pickle=False)["hashes"])
    modelo = proveedor().modelo
    faltantes = []
    for ruta, datos, formato in fuentes_del_corpus():
        norma = Norma(sigla=datos.sigla, tipo=datos.tipo, nombre=datos.nombre)
        for fragmento in fragmentar(parsear_archivo(ruta, formato=formato)):
            texto = f"{_breadcrumb(norma, fragmento)}\n{fragmento.texto}"
            if hash_pasaje(texto, modelo=modelo) not in incluidos:
                faltantes.append(datos.sigla)
                break
    return faltantes


def texto_para_embeber(fragmento: FragmentoLegal) -> str:
    """La miga de pan va en el texto embebido: ubica el fragmento en su norma."""
    return f"{fragmento.breadcrumb}\n{fragmento.texto}"


@transaction.atomic
def fragmento_actualizar_texto(*, fragmento: FragmentoLegal, texto: str) -> FragmentoLegal:
    """Corrige el texto de un fragmento (curaduría) y recalcula su embedding y su índice de texto."""
    fragmento.texto = texto.strip()
    fragmento.hash_contenido = _hash(texto_para_embeber(fragmento))
    (vector,), _ = embeber_pasajes([texto_para_embeber(fragmento)])
    fragmento.embedding = vector
    fragmento.save()
    _actualizar_texto_completo(ids=[fragmento.pk])
    return fragmento


def fragmentos_reembeber(*, ids: list[int]) -> int:
    """Recalcula los embeddings de los fragmentos indicados (acción de administración)."""
    fragmentos = list(FragmentoLegal.todos.filter(pk__in=ids))
    vectores, _ = embeber_pasajes([texto_para_embeber(f) for f in fragmentos])
    for fragmento, vector in zip(fragmentos, vectores, strict=True):
        fragmento.embedding = vector
    FragmentoLegal.todos.bulk_update(fragmentos, ["embedding"])
    return len(fragmentos)


# --- internos ---------------------------------------------------------------------------------


def _leer(ruta: Path) -> bytes:
    try:
        return ruta.read_bytes()
    except OSError as error:
        raise ErrorDeParseo(f"No se pudo leer «{ruta}»: {error.strerror}.") from None


@transaction.atomic
def _guardar_version(
    *,
    ruta: Path,
    datos: DatosNorma,
    huella: str,
    documento: DocumentoParseado,
    fragmentos: list[Fragmento],
    progreso: Progreso | None,
) -> ResultadoIngesta:
    norma, _ = Norma.objects.update_or_create(
        sigla=datos.sigla,
        defaults={
            "tipo": datos.tipo,
            "nombre": datos.nombre,
            "numero": datos.numero,
            "organismo": datos.organismo,
            "id_norma_bcn": datos.id_norma_bcn,
            "url": datos.url,
            "anio": datos.anio,
            "advertencia_vigencia": datos.advertencia_vigencia,
            "metadatos": {**datos.metadatos, **documento.metadatos},
        },
    )
    temas = [Tema.objects.get_or_create(nombre=nombre)[0] for nombre in datos.temas]
    norma.temas.add(*temas)
    VersionNorma.objects.filter(norma=norma, vigente=True).update(vigente=False)
    version, creada = VersionNorma.objects.update_or_create(
        norma=norma,
        hash=huella,
        defaults={
            "fecha_version": datos.fecha_version or documento.fecha_version,
            "fuente": ruta.name,
            "vigente": True,
        },
    )
    if not creada:  # se vuelve a una versión anterior: sus fragmentos ya existen
        return ResultadoIngesta(
            norma, version, creada=False, fragmentos=version.fragmentos.count(), embebidos=0
        )
    filas = [_fila(norma, version, orden, fragmento) for orden, fragmento in enumerate(fragmentos)]
    total = len(filas)
    hechos = 0

    def avanzar(cantidad: int) -> None:
        nonlocal hechos
        hechos += cantidad
        if progreso:
            progreso(norma.sigla, hechos, total)

    vectores, embebidos = embeber_pasajes([texto_para_embeber(f) for f in filas], progreso=avanzar)
    for fila, vector in zip(filas, vectores, strict=True):
        fila.embedding = vector
    creadas = FragmentoLegal.objects.bulk_create(filas, batch_size=500)
    for fragmento in creadas:
        fragmento.temas.add(*temas)
    _actualizar_texto_completo(ids=[f.pk for f in creadas])
    if progreso:
        progreso(norma.sigla, total, total)
    return ResultadoIngesta(norma, version, creada=True, fragmentos=total, embebidos=embebidos)


def _fila(norma: Norma, version: VersionNorma, orden: int, fragmento: Fragmento) -> FragmentoLegal:
    fila = FragmentoLegal(
        norma=norma,
        version=version,
        tipo=fragmento.tipo,
        orden=orden,
        jerarquia=fragmento.jerarquia,
        breadcrumb=_breadcrumb(norma, fragmento),
        articulo=fragmento.articulo,
        letra=fragmento.letra,
        id_parte=fragmento.id_parte,
        pagina=fragmento.pagina,
        texto=fragmento.texto,
        derogado=fragmento.derogado,
        transitorio=fragmento.transitorio,
    )
    fila.hash_contenido = _hash(texto_para_embeber(fila))
    return fila


def _breadcrumb(norma: Norma, fragmento: Fragmento) -> str:
    partes = [norma.sigla, *fragmento.jerarquia]
    if fragmento.articulo:
        partes.append(f"Artículo {fragmento.articulo}{' transitorio' if fragmento.transitorio else ''}")
    if fragmento.letra:
        partes.append(
            f"letra {fragmento.letra})" if "." not in fragmento.letra else f"numeral {fragmento.letra}"
        )
    if norma.tipo == Norma.Tipo.GUIA:
        partes[1:1] = [norma.nombre]
    return " › ".join(partes)[:1000]


def _hash(texto: str) -> str:
    return hashlib.sha256(texto.encode()).hexdigest()


def _actualizar_texto_completo(*, ids: list[int]) -> None:
    """Índice de texto en español sin tildes; la miga de pan pesa más que el cuerpo."""
    if not ids:
        return
    with connection.cursor() as cursor:
        cursor.execute(
            """
            UPDATE normativa_fragmentolegal
               SET busqueda = setweight(to_tsvector('spanish', normativa_sin_tildes(breadcrumb)), 'A')
                           || setweight(to_tsvector('spanish', normativa_sin_tildes(texto)), 'B')
             WHERE id = ANY(%s)
            """,
            [ids],
        )
