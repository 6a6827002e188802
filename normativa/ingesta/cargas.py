"""Cola de cargas del personal: un archivo subido se valida, se encola y se ingiere en el worker."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from celery import current_app
from django.db import transaction
from django.utils import timezone

from normativa.ingesta.documentos import datos_norma_para, documento_ingerir
from normativa.models import CargaDocumento, VersionNorma
from normativa.parsers import (
    FORMATOS,
    ErrorDeParseo,
    verificar_contenido,
)

TAREA_CARGA = "normativa.carga_procesar"


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
    if not resultado.cambio_lo_vigente:
        return _carga_terminar(
            carga,
            estado=CargaDocumento.Estado.SIN_CAMBIOS,
            mensaje=f"El contenido ya era la versión vigente ({resultado.fragmentos} fragmentos).",
            version=resultado.version,
        )
    mensaje = (
        f"Versión nueva de {resultado.norma.sigla}: {resultado.fragmentos} fragmentos, "
        f"{resultado.embebidos} embebidos (el resto desde caché)."
        if resultado.creada
        else f"Vuelve a estar vigente una versión anterior de {resultado.norma.sigla}, ya cargada "
        f"({resultado.fragmentos} fragmentos)."
    )
    return _carga_terminar(
        carga,
        estado=CargaDocumento.Estado.COMPLETADA,
        mensaje=mensaje,
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
