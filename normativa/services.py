"""Escrituras del corpus: ingesta versionada de normas y guías, embeddings y texto completo."""

from __future__ import annotations

import contextlib
import hashlib
import json
import multiprocessing
import os
import tempfile
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np
from celery import current_app
from django import db
from django.db import connection, transaction
from django.utils import timezone

from normativa.embeddings import embeber_pasajes, hash_pasaje, proveedor
from normativa.models import CargaDocumento, EmbeddingCache, FragmentoLegal, Norma, Tema, VersionNorma
from normativa.parsers import (
    FORMATOS,
    VERSION_PARSERS,
    DocumentoParseado,
    ErrorDeParseo,
    fragmentar,
    parsear_archivo,
    parsear_y_fragmentar,
    verificar_contenido,
)
from normativa.parsers.base import Fragmento

CORPUS = Path(__file__).resolve().parent / "corpus"
EMBEDDINGS_PRECALCULADOS = CORPUS / "embeddings.npz"
TAREA_CARGA = "normativa.carga_procesar"

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
    peso_busqueda: float | None = None


# Jerarquía normativa en la búsqueda: la ley que rige el SEIA, su reglamento, otras leyes, guías.
PESO_POR_TIPO: dict[str, float] = {
    Norma.Tipo.LEY: 0.8,
    Norma.Tipo.DECRETO: 0.9,
    Norma.Tipo.GUIA: 0.5,
    Norma.Tipo.DOCUMENTACION: 1.0,
}


@dataclass(frozen=True)
class ResultadoIngesta:
    norma: Norma
    version: VersionNorma
    creada: bool
    fragmentos: int
    embebidos: int


def documento_ingerir(
    *,
    ruta: Path,
    datos: DatosNorma,
    formato: str | None = None,
    progreso: Progreso | None = None,
    refrescar_estadisticas: bool = True,
    parseado: tuple[DocumentoParseado, list[Fragmento]] | None = None,
) -> ResultadoIngesta:
    """Ingiere un archivo como versión vigente de su norma; no hace nada si el contenido no cambió.

    Un contenido nuevo crea una `VersionNorma`, marca la anterior como no vigente y reutiliza los
    embeddings de los fragmentos cuyo texto no cambió (solo se embeben los cambiados). Los vectores
    se calculan antes de escribir (pueden tardar minutos y el avance debe verse desde afuera); la
    escritura es una transacción: si algo falla, no queda nada a medias.
    """
    huella = _huella(ruta)
    existente = _version_vigente(sigla=datos.sigla, huella=huella)
    if existente:
        total = existente.fragmentos.count()
        return ResultadoIngesta(existente.norma, existente, creada=False, fragmentos=total, embebidos=0)
    documento, fragmentos = parseado or parsear_y_fragmentar(ruta, formato)
    if not fragmentos:
        raise ErrorDeParseo(f"«{ruta.name}» no produjo fragmentos.")
    provisional = Norma(sigla=datos.sigla, tipo=datos.tipo, nombre=datos.nombre)
    filas = [
        _fila(provisional, VersionNorma(), orden, fragmento) for orden, fragmento in enumerate(fragmentos)
    ]
    total = len(filas)
    hechos = 0

    def avanzar(cantidad: int) -> None:
        nonlocal hechos
        hechos += cantidad
        if progreso:
            progreso(datos.sigla, hechos, total)

    vectores, embebidos = embeber_pasajes([texto_para_embeber(f) for f in filas], progreso=avanzar)
    for fila, vector in zip(filas, vectores, strict=True):
        fila.embedding = vector
    resultado = _guardar_version(
        ruta=ruta, datos=datos, huella=huella, documento=documento, filas=filas, embebidos=embebidos
    )
    if refrescar_estadisticas:
        estadisticas_refrescar()
    return resultado


def datos_norma_para(
    *,
    sigla: str,
    tipo: str | None = None,
    nombre: str | None = None,
    id_norma_bcn: int | None = None,
    url: str | None = None,
    anio: int | None = None,
    fecha_version: date | None = None,
    organismo: str | None = None,
    temas: tuple[str, ...] = (),
    metadatos: dict[str, Any] | None = None,
) -> DatosNorma:
    """Identidad para ingerir un archivo: la de la norma existente, o una nueva con tipo y nombre.

    Lo indicado explícitamente reemplaza lo guardado (los `metadatos` se agregan a los existentes);
    una norma nueva necesita tipo y nombre.
    """
    sigla = " ".join(sigla.split())
    if not sigla:
        raise ErrorDeParseo("Indique la norma (sigla como se cita: «Ley 21.600», «DS 40», «Guía SEA …»).")
    if tipo is not None and tipo not in Norma.Tipo.values:
        raise ErrorDeParseo(f"Tipo desconocido: «{tipo}». Use {', '.join(Norma.Tipo.values)}.")
    existente = Norma.objects.filter(sigla=sigla).first()
    if existente is None and not (tipo and nombre):
        raise ErrorDeParseo(
            f"La norma «{sigla}» no existe: indique también su tipo y su nombre para crearla."
        )
    return DatosNorma(
        sigla=sigla,
        tipo=tipo or (existente.tipo if existente else ""),
        nombre=nombre or (existente.nombre if existente else ""),
        numero=existente.numero if existente else "",
        organismo=organismo if organismo is not None else (existente.organismo if existente else ""),
        id_norma_bcn=id_norma_bcn
        if id_norma_bcn is not None
        else (existente.id_norma_bcn if existente else None),
        url=url if url is not None else (existente.url if existente else ""),
        anio=anio if anio is not None else (existente.anio if existente else None),
        fecha_version=fecha_version,
        advertencia_vigencia=existente.advertencia_vigencia if existente else "",
        temas=temas,
        metadatos={**(existente.metadatos if existente else {}), **(metadatos or {})},
    )


MAXIMO_CARGA_BYTES = 40 * 1024 * 1024


@transaction.atomic
def carga_crear(
    *,
    nombre_archivo: str,
    contenido: bytes,
    sigla: str,
    formato: str | None = None,
    tipo: str = "",
    nombre: str = "",
    url: str = "",
    anio: int | None = None,
    organismo: str = "",
    temas: tuple[str, ...] = (),
    metadatos: dict[str, Any] | None = None,
    usuario: Any = None,
) -> CargaDocumento:
    """Registra un archivo para ingerir en segundo plano y encola la tarea al confirmar la transacción.

    Valida antes de encolar lo que se puede saber sin procesar (ver `carga_validar`).
    """
    formato = carga_validar(
        nombre_archivo=nombre_archivo,
        contenido=contenido,
        sigla=sigla,
        formato=formato,
        tipo=tipo,
        nombre=nombre,
    )
    carga = CargaDocumento.objects.create(
        nombre_archivo=nombre_archivo,
        contenido=contenido,
        formato=formato,
        sigla=" ".join(sigla.split()),
        tipo=tipo,
        nombre=nombre,
        url=url,
        anio=anio,
        organismo=organismo,
        temas=list(temas),
        metadatos=metadatos or {},
        usuario=usuario,
    )
    # Por nombre: la tarea (normativa/tasks.py) es un adaptador que depende de este módulo.
    transaction.on_commit(lambda: current_app.send_task(TAREA_CARGA, (carga.pk,)))
    return carga


def carga_validar(
    *, nombre_archivo: str, contenido: bytes, sigla: str, formato: str | None, tipo: str, nombre: str
) -> str:
    """Valida tamaño, formato, contenido según la extensión y la norma; devuelve el formato."""
    if not contenido:
        raise ErrorDeParseo("El archivo está vacío.")
    if len(contenido) > MAXIMO_CARGA_BYTES:
        raise ErrorDeParseo(
            f"El archivo pesa {len(contenido) / 1e6:.1f} MB; el máximo es {MAXIMO_CARGA_BYTES / 1e6:.0f} MB."
        )
    formato = (formato or Path(nombre_archivo).suffix.lstrip(".")).lower()
    if formato not in FORMATOS:
        raise ErrorDeParseo(f"Formato no soportado: «{formato}». Use PDF, XML, Markdown (.md) o JSON.")
    verificar_contenido(contenido, formato=formato, nombre=nombre_archivo)
    datos_norma_para(sigla=sigla, tipo=tipo or None, nombre=nombre or None)
    return formato


def carga_procesar(*, carga: CargaDocumento) -> CargaDocumento:
    """Ingiere el archivo de una carga y registra su progreso y su resultado (o el error, en español)."""
    actualizadas = CargaDocumento.objects.filter(
        pk=carga.pk, estado__in=[CargaDocumento.Estado.PENDIENTE, CargaDocumento.Estado.FALLIDA]
    ).update(estado=CargaDocumento.Estado.PROCESANDO, hechos=0, total=0, mensaje="")
    if not actualizadas:  # otra ejecución la tomó o ya terminó: la tarea es idempotente
        return CargaDocumento.objects.get(pk=carga.pk)

    def progreso(_sigla: str, hechos: int, total: int) -> None:
        # Fuera de la transacción de la ingesta: el admin ve el avance mientras ocurre.
        CargaDocumento.objects.filter(pk=carga.pk).update(hechos=hechos, total=total)

    with tempfile.TemporaryDirectory() as directorio:
        ruta = Path(directorio) / Path(carga.nombre_archivo).name
        ruta.write_bytes(bytes(carga.contenido))
        try:
            datos = datos_norma_para(
                sigla=carga.sigla,
                tipo=carga.tipo or None,
                nombre=carga.nombre or None,
                url=carga.url or None,
                anio=carga.anio,
                organismo=carga.organismo or None,
                temas=tuple(carga.temas),
                metadatos=carga.metadatos,
            )
            resultado = documento_ingerir(ruta=ruta, datos=datos, formato=carga.formato, progreso=progreso)
        except ErrorDeParseo as error:
            return _carga_terminar(carga, estado=CargaDocumento.Estado.FALLIDA, mensaje=str(error))
    if not resultado.creada:
        return _carga_terminar(
            carga,
            estado=CargaDocumento.Estado.SIN_CAMBIOS,
            mensaje=f"El contenido ya era la versión vigente ({resultado.fragmentos} fragmentos).",
            version=resultado.version,
        )
    return _carga_terminar(
        carga,
        estado=CargaDocumento.Estado.COMPLETADA,
        mensaje=(
            f"Versión nueva de {resultado.norma.sigla}: {resultado.fragmentos} fragmentos, "
            f"{resultado.embebidos} embebidos (el resto desde caché)."
        ),
        version=resultado.version,
        hechos=resultado.fragmentos,
    )


def _carga_terminar(
    carga: CargaDocumento,
    *,
    estado: str,
    mensaje: str,
    version: VersionNorma | None = None,
    hechos: int | None = None,
) -> CargaDocumento:
    campos: dict[str, Any] = {"estado": estado, "mensaje": mensaje, "terminada_at": timezone.now()}
    if version is not None:
        campos["version"] = version
    if hechos is not None:
        campos["hechos"] = campos["total"] = hechos
    CargaDocumento.objects.filter(pk=carga.pk).update(**campos)
    return CargaDocumento.objects.get(pk=carga.pk)


def corpus_cargar(*, progreso: Progreso | None = None) -> list[ResultadoIngesta]:
    """Carga todo el corpus incluido en el repositorio (idempotente)."""
    embeddings_precalculados_importar()
    fuentes = fuentes_del_corpus()
    pendientes = [
        (ruta, formato)
        for ruta, datos, formato in fuentes
        if not _version_vigente(sigla=datos.sigla, huella=_huella(ruta))
    ]
    parseados = _parsear_en_paralelo(pendientes)
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
    if any(r.creada for r in resultados):
        estadisticas_refrescar()  # una vez para todo el lote, no por documento
    return resultados


RAIZ_DEL_PROYECTO = Path(__file__).resolve().parent.parent


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
    if retiradas.update(vigente=False) or any(r.creada for r in resultados):
        estadisticas_refrescar()  # una vez para todo el lote
    return resultados


def _parsear_en_paralelo(
    pendientes: list[tuple[Path, str]],
) -> dict[Path, tuple[DocumentoParseado, list[Fragmento]]]:
    """Extrae el texto de varios archivos a la vez (los PDF de guías toman segundos cada uno).

    Procesos bifurcados (`fork`: `spawn` deja vivo un proceso auxiliar mientras viva el padre); antes
    se cierran las conexiones a la base para que ningún hijo herede el socket (el padre se reconecta
    al volver a usarla).
    """
    if len(pendientes) < 2 or (os.cpu_count() or 1) < 2 or connection.in_atomic_block:
        return {}  # dentro de una transacción no se puede cerrar la conexión: se parsea al ingerir
    trabajadores = min(len(pendientes), os.cpu_count() or 1)
    db.connections.close_all()
    with ProcessPoolExecutor(
        max_workers=trabajadores, mp_context=multiprocessing.get_context("fork")
    ) as grupo:
        futuros = {ruta: grupo.submit(parsear_y_fragmentar, ruta, formato) for ruta, formato in pendientes}
        resultados = {}
        for ruta, futuro in futuros.items():
            # Un archivo que no se puede leer se vuelve a intentar (y se informa) al ingerirlo.
            with contextlib.suppress(ErrorDeParseo):
                resultados[ruta] = futuro.result()
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
            texto = texto_para_embeber(_fila(norma, VersionNorma(), 0, fragmento))
            if hash_pasaje(texto, modelo=modelo) not in incluidos:
                faltantes.append(datos.sigla)
                break
    return faltantes


def texto_para_embeber(fragmento: FragmentoLegal) -> str:
    """La miga de pan y el encabezado del artículo van en el texto embebido: ubican el fragmento."""
    partes = [fragmento.breadcrumb, fragmento.contexto, fragmento.texto_busqueda or fragmento.texto]
    return "\n".join(parte for parte in partes if parte)


@transaction.atomic
def fragmento_actualizar_texto(*, fragmento: FragmentoLegal, texto: str) -> FragmentoLegal:
    """Corrige el texto de un fragmento (curaduría) y recalcula su embedding y su índice de texto."""
    fragmento.texto = texto.strip()
    fragmento.hash_contenido = _hash(texto_para_embeber(fragmento))
    (vector,), _ = embeber_pasajes([texto_para_embeber(fragmento)])
    fragmento.embedding = vector
    fragmento.save()
    _actualizar_texto_completo(ids=[fragmento.pk])
    estadisticas_refrescar()
    return fragmento


def fragmentos_eliminar(*, ids: list[int]) -> int:
    """Borrado lógico: dejan de buscarse (y de contar en BM25) pero se conservan para restaurarlos."""
    cantidad = FragmentoLegal.todos.filter(pk__in=ids, eliminado_at__isnull=True).update(
        eliminado_at=timezone.now()
    )
    estadisticas_refrescar()
    return cantidad


def fragmentos_restaurar(*, ids: list[int]) -> int:
    """Devuelve a la búsqueda fragmentos eliminados."""
    cantidad = FragmentoLegal.todos.filter(pk__in=ids, eliminado_at__isnull=False).update(eliminado_at=None)
    estadisticas_refrescar()
    return cantidad


def fragmentos_reembeber(*, ids: list[int]) -> int:
    """Recalcula los embeddings de los fragmentos indicados (acción de administración)."""
    fragmentos = list(FragmentoLegal.todos.filter(pk__in=ids))
    vectores, _ = embeber_pasajes([texto_para_embeber(f) for f in fragmentos])
    for fragmento, vector in zip(fragmentos, vectores, strict=True):
        fragmento.embedding = vector
    FragmentoLegal.todos.bulk_update(fragmentos, ["embedding"])
    return len(fragmentos)


# --- internos ---------------------------------------------------------------------------------


def _huella(ruta: Path) -> str:
    return huella_contenido(_leer(ruta))


def huella_contenido(contenido: bytes) -> str:
    """Huella de una versión: la versión de los parsers y los bytes del archivo."""
    return hashlib.sha256(VERSION_PARSERS.encode() + b"\n" + contenido).hexdigest()


def _version_vigente(*, sigla: str, huella: str) -> VersionNorma | None:
    return (
        VersionNorma.objects.filter(norma__sigla=sigla, hash=huella, vigente=True)
        .select_related("norma")
        .first()
    )


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
    filas: list[FragmentoLegal],
    embebidos: int,
) -> ResultadoIngesta:
    atributos = {
        "tipo": datos.tipo,
        "nombre": datos.nombre,
        "numero": datos.numero,
        "organismo": datos.organismo,
        "id_norma_bcn": datos.id_norma_bcn,
        "url": datos.url,
        "anio": datos.anio,
        "advertencia_vigencia": datos.advertencia_vigencia,
        "metadatos": {**datos.metadatos, **documento.metadatos},
    }
    peso = datos.peso_busqueda if datos.peso_busqueda is not None else PESO_POR_TIPO.get(datos.tipo, 1.0)
    # El peso se fija al crear la norma; después lo cura el personal en el admin.
    norma, _ = Norma.objects.update_or_create(
        sigla=datos.sigla, defaults=atributos, create_defaults={**atributos, "peso_busqueda": peso}
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
    for fila in filas:
        fila.norma, fila.version = norma, version
    creadas = FragmentoLegal.objects.bulk_create(filas, batch_size=500)
    Relacion = FragmentoLegal.temas.through
    Relacion.objects.bulk_create(
        [Relacion(fragmentolegal_id=f.pk, tema_id=tema.pk) for f in creadas for tema in temas],
        batch_size=2000,
    )
    _actualizar_texto_completo(ids=[f.pk for f in creadas])
    total = len(creadas)
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
        contexto=fragmento.contexto,
        texto_busqueda=fragmento.texto_busqueda,
        termino_definido=fragmento.termino_definido,
        derogado=fragmento.derogado,
        transitorio=fragmento.transitorio,
        modificatorio=fragmento.modificatorio,
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
                           || setweight(to_tsvector('spanish', normativa_sin_tildes(contexto)), 'C')
                           || setweight(to_tsvector('spanish', normativa_sin_tildes(
                                  coalesce(nullif(texto_busqueda, ''), texto))), 'B')
             WHERE id = ANY(%s)
            """,
            [ids],
        )


ESTADISTICAS_BM25 = (
    "normativa_estadistica_lexema",
    "normativa_estadistica_corpus",
    "normativa_indice_invertido",
)


def estadisticas_refrescar() -> None:
    """Recalcula las frecuencias de lexemas que usa BM25 (tras ingerir, editar o eliminar)."""
    with connection.cursor() as cursor:
        for vista in ESTADISTICAS_BM25:
            cursor.execute(f"REFRESH MATERIALIZED VIEW {vista}")
            # Sin estadísticas frescas el planificador recorre todo el índice invertido (~8 M filas
            # a 100 000 fragmentos) en vez de leer solo los lexemas de la consulta.
            cursor.execute(f"ANALYZE {vista}")
