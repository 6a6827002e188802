"""Ingesta versionada de un documento: de archivo a versión y fragmentos, sin repetir lo que no cambió."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from django.db import transaction

from normativa.embeddings import embeber_pasajes
from normativa.indice import (
    actualizar_texto_completo,
    estadisticas_refrescar,
    hash_texto,
    oraciones_asignar,
    texto_para_embeber,
)
from normativa.models import FragmentoLegal, Norma, Tema, VersionNorma
from normativa.parsers import (
    VERSION_PARSERS,
    DocumentoParseado,
    ErrorDeParseo,
    parsear_y_fragmentar,
)
from normativa.parsers.base import Fragmento
from normativa.selectors import nombre_de_la_division
from normativa.signals import version_ingerida

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
    # El contenido era el de una versión anterior, que vuelve a ser la vigente (sus fragmentos ya
    # existían): la búsqueda cambia igual que con una versión nueva.
    reactivada: bool = False

    @property
    def cambio_lo_vigente(self) -> bool:
        return self.creada or self.reactivada


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
    huella = huella_archivo(ruta)
    existente = version_vigente(sigla=datos.sigla, huella=huella)
    if existente:
        total = existente.fragmentos.count()
        return ResultadoIngesta(existente.norma, existente, creada=False, fragmentos=total, embebidos=0)
    documento, fragmentos = parseado or parsear_y_fragmentar(ruta, formato)
    if not fragmentos:
        raise ErrorDeParseo(f"«{ruta.name}» no produjo fragmentos.")
    provisional = Norma(sigla=datos.sigla, tipo=datos.tipo, nombre=datos.nombre)
    filas = [
        fila_de(provisional, VersionNorma(), orden, fragmento) for orden, fragmento in enumerate(fragmentos)
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
    version_ingerida.send(sender=VersionNorma, norma=resultado.norma, version=resultado.version)
    if refrescar_estadisticas:
        estadisticas_refrescar(tablas=True)
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
        advertencia_vigencia="",  # el aviso es de una versión, no de la norma: la nueva empieza sin él
        temas=temas,
        metadatos={**(existente.metadatos if existente else {}), **(metadatos or {})},
    )


# --- internos ---------------------------------------------------------------------------------


def huella_archivo(ruta: Path) -> str:
    return huella_contenido(_leer(ruta))


def huella_contenido(contenido: bytes) -> str:
    """Huella de una versión: la versión de los parsers y los bytes del archivo."""
    return hashlib.sha256(VERSION_PARSERS.encode() + b"\n" + contenido).hexdigest()


def version_vigente(*, sigla: str, huella: str) -> VersionNorma | None:
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
            "advertencia": datos.advertencia_vigencia,
        },
    )
    if not creada:  # se vuelve a una versión anterior: sus fragmentos ya existen
        return ResultadoIngesta(
            norma, version, creada=False, fragmentos=version.fragmentos.count(), embebidos=0, reactivada=True
        )
    for fila in filas:
        fila.norma, fila.version = norma, version
    oraciones_asignar(filas)
    creadas = FragmentoLegal.objects.bulk_create(filas, batch_size=500)
    Relacion = FragmentoLegal.temas.through
    Relacion.objects.bulk_create(
        [Relacion(fragmentolegal_id=f.pk, tema_id=tema.pk) for f in creadas for tema in temas],
        batch_size=2000,
    )
    actualizar_texto_completo(ids=[f.pk for f in creadas])
    total = len(creadas)
    return ResultadoIngesta(norma, version, creada=True, fragmentos=total, embebidos=embebidos)


def fila_de(norma: Norma, version: VersionNorma, orden: int, fragmento: Fragmento) -> FragmentoLegal:
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
    fila.hash_contenido = hash_texto(texto_para_embeber(fila))
    return fila


def _breadcrumb(norma: Norma, fragmento: Fragmento) -> str:
    partes = [norma.sigla, *fragmento.jerarquia]
    if fragmento.articulo:
        partes.append(f"Artículo {fragmento.articulo}{' transitorio' if fragmento.transitorio else ''}")
    if fragmento.letra:
        partes.append(nombre_de_la_division(fragmento.letra, punto="numeral"))
    if norma.tipo == Norma.Tipo.GUIA:
        partes[1:1] = [norma.nombre]
    return " › ".join(partes)[:1000]
