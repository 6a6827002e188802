"""Sitio del SEA contra un servidor local: noticias paginadas, la página de guías, descarga condicional
de los PDF e ingesta por el camino de la normativa (ver `tests/fixtures/sea/SOURCE.md`)."""

from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from django.core.cache import cache

from config import http
from fuentes_externas import cache as cache_fuentes
from fuentes_externas import sea
from fuentes_externas.models import DocumentoSEA, EstadoFuente, NoticiaSEA
from normativa.ingesta.cargas import carga_procesar
from normativa.ingesta.corpus import CORPUS
from normativa.models import CargaDocumento, Norma
from tests.utilidades import ServidorLocal, fuente_local, pdf_de_texto

DATOS = Path(__file__).resolve().parents[1] / "fixtures" / "sea"
HTML = {"Content-Type": "text/html; charset=utf-8"}
PDF = {"Content-Type": "application/pdf"}
MONUMENTOS = "/sites/default/files/migration_files/guias/guia_monumentos_060213.pdf"
RELAVES = "/sites/default/files/imce/archivos/2026/11/guia_relaves.pdf"
ROTO = "/sites/default/files/imce/archivos/2025/criterio_roto.pdf"
INTRODUCCION = [
    "1. Introducción",
    "Esta guía orienta la descripción de los depósitos de relaves de la minería en el SEIA.",
    "El titular describe la estabilidad física del depósito, su operación y su plan de cierre.",
]
CRITERIOS = [
    "2. Criterios de evaluación",
    "Se considera la distancia a cursos de agua, a la población cercana y a los glaciares.",
    "La línea de base cubre al menos un ciclo hidrológico completo del área de influencia.",
]


def pagina(nombre: str) -> bytes:
    return (DATOS / nombre).read_bytes()


def html(nombre: str) -> str:
    return pagina(nombre).decode("utf-8")


def carga_de(ruta: str) -> CargaDocumento:
    carga = DocumentoSEA.objects.get(url__endswith=ruta).carga
    assert carga is not None
    return carga


@pytest.fixture
def sitio(settings: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[ServidorLocal]:
    local = fuente_local(settings, "SEA_URL")
    settings.HTTP_TIMEOUT_S = 2
    settings.SEA_RUTAS_GUIAS = ["/documentacion/guias-y-criterios"]
    monkeypatch.setattr(http, "ESPERA_BASE_S", 0.01)
    cache.clear()
    yield local
    local.cerrar()


def publicar_guias(sitio: ServidorLocal, relaves: bytes, *, etag: str = '"v1"') -> None:
    sitio.responder("/documentacion/guias-y-criterios", cuerpo=pagina("guias.html"), cabeceras=HTML)
    sitio.responder(MONUMENTOS, cuerpo=(CORPUS / "guias" / "07262b361e12.pdf").read_bytes(), cabeceras=PDF)
    sitio.responder(RELAVES, cuerpo=relaves, cabeceras={**PDF, "ETag": etag})
    # Un servidor que entrega una página de error como binario genérico: se reconoce por la firma.
    sitio.responder(
        ROTO,
        cuerpo="<html>Página no encontrada</html>",
        cabeceras={"Content-Type": "application/octet-stream"},
    )


def revisar_sitio(sitio: ServidorLocal) -> sea.RevisionSitio:
    """Una revisión del sitio con una página de noticias, la guía de relaves nueva y las demás."""
    sitio.responder("/noticias", cuerpo=pagina("noticias_pagina_1.html"), cabeceras=HTML)
    publicar_guias(sitio, pdf_de_texto([INTRODUCCION, CRITERIOS]))
    return sea.sitio_revisar()


def test_las_noticias_se_leen_sin_depender_de_clases_css_con_sus_fechas_y_resumenes() -> None:
    noticias = sea.noticias_leer(html("noticias_pagina_0.html"), base="http://sea.local")

    assert [(n.url, n.fecha) for n in noticias] == [
        ("http://sea.local/noticias/sea-publica-nueva-guia-de-relaves", date(2026, 11, 18)),
        ("https://www.sea.gob.cl/noticias/consulta-indigena-proyecto-minero-antofagasta", date(2026, 11, 12)),
        ("http://sea.local/noticias/capacitacion-e-seia-regiones", date(2026, 11, 3)),
    ]
    assert noticias[0].titulo == "SEA publica nueva guía para la evaluación de depósitos de relaves"
    assert noticias[0].resumen.startswith("La guía orienta a titulares y consultores")
    assert noticias[1].resumen.startswith("El proceso de consulta se desarrolló")


def test_la_pagina_de_guias_da_titulo_seccion_y_ano_y_omite_enlaces_repetidos_ajenos_y_no_pdf() -> None:
    guias = sea.guias_leer(html("guias.html"), base="http://sea.local")

    assert [(g.url.removeprefix("http://sea.local"), g.seccion, g.anio) for g in guias] == [
        (MONUMENTOS, "Guías relacionadas al artículo 11 de la Ley N°19.300", 2012),
        (RELAVES, "Guías para la descripción de proyectos", 2026),
        (ROTO, "Guías para la descripción de proyectos", 2025),
    ]
    assert guias[0].titulo == (
        "Guía de evaluación de monumentos nacionales pertenecientes al patrimonio cultural en el SEIA (2012)"
    )
    assert guias[1].titulo == "Guía para la descripción de depósitos de relaves en el SEIA"


@pytest.mark.django_db
def test_la_paginacion_de_noticias_para_cuando_una_pagina_no_trae_nada_nuevo(
    sitio: ServidorLocal, settings: Any
) -> None:
    settings.SEA_PAGINAS_NOTICIAS = 10
    for nombre in ("noticias_pagina_0.html", "noticias_pagina_1.html", "noticias_pagina_1.html"):
        sitio.responder("/noticias", cuerpo=pagina(nombre), cabeceras=HTML)

    vistas, nuevas, advertencia = sea.noticias_actualizar()

    assert [p[1] for p in sitio.pedidos] == ["/noticias?page=0", "/noticias?page=1", "/noticias?page=2"]
    assert (vistas, nuevas, advertencia) == (5, 5, "")
    balance = NoticiaSEA.objects.get(url__endswith="/balance-anual-evaluacion-ambiental")
    assert balance.fecha == date(2026, 10, 5) and balance.resumen.startswith("Durante el año")


@pytest.mark.django_db
def test_una_guia_nueva_se_encola_por_la_ingesta_normativa_y_una_guia_del_corpus_sin_cambios_no(
    sitio: ServidorLocal, corpus: Any, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=False) as encoladas:
        revision = revisar_sitio(sitio)

    assert revision.nuevas == ["Guía para la descripción de depósitos de relaves en el SEIA"]
    assert revision.sin_cambios == 1 and revision.actualizadas == []
    assert len(revision.errores) == 1 and "no entregó un PDF" in revision.errores[0]
    assert len(encoladas) == 1 and CargaDocumento.objects.count() == 1
    monumentos = DocumentoSEA.objects.get(url__endswith=MONUMENTOS)
    assert monumentos.sigla == "Guía SEA monumentos nacionales" and monumentos.carga is None
    estado = EstadoFuente.objects.get(fuente="sea")
    assert estado.resultado == revision.resumen() and "criterio_roto.pdf" in estado.ultimo_error

    carga = carga_procesar(carga=carga_de(RELAVES))

    assert carga.estado == CargaDocumento.Estado.COMPLETADA, carga.mensaje
    guia = Norma.objects.get(sigla=carga.sigla)
    assert guia.sigla == "Guía SEA descripción de depósitos de relaves en el SEIA"
    assert (guia.tipo, guia.organismo, guia.anio, guia.url) == (
        Norma.Tipo.GUIA, sea.ORGANISMO, 2026, f"{sitio.url}{RELAVES}"
    )  # fmt: skip
    assert guia.metadatos["tipo_guia"] == "Guías para la descripción de proyectos"
    assert list(guia.temas.values_list("nombre", flat=True)) == ["guías SEA"]
    assert guia.fragmentos.count() == 2


@pytest.mark.django_db
def test_una_segunda_ejecucion_pregunta_condicionada_y_una_guia_cambiada_reembebe_solo_lo_cambiado(
    sitio: ServidorLocal, corpus: Any, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=False):
        revisar_sitio(sitio)
    carga_procesar(carga=carga_de(RELAVES))

    del sitio.respuestas[RELAVES]
    sitio.responder(RELAVES, estado=304, cabeceras={"ETag": '"v1"'})
    sin_cambios = sea.guia_revisar(guia=sea.guias_leer(html("guias.html"), base=sitio.url)[1])
    pedido = [p for p in sitio.pedidos if p[1] == RELAVES][-1]
    assert sin_cambios == "sin_cambios" and pedido[2]["If-None-Match"] == '"v1"'
    assert CargaDocumento.objects.count() == 1

    criterios_nuevos = [*CRITERIOS[:2], "La línea de base cubre dos ciclos hidrológicos completos del área."]
    del sitio.respuestas[RELAVES]
    sitio.responder(RELAVES, cuerpo=pdf_de_texto([INTRODUCCION, criterios_nuevos]), cabeceras=PDF)
    with django_capture_on_commit_callbacks(execute=False):
        cambio = sea.guia_revisar(guia=sea.guias_leer(html("guias.html"), base=sitio.url)[1])
    documento = DocumentoSEA.objects.get(url__endswith=RELAVES)
    carga = carga_procesar(carga=carga_de(RELAVES))

    assert cambio == "actualizada" and carga.estado == CargaDocumento.Estado.COMPLETADA
    assert "1 embebidos" in carga.mensaje  # la introducción sale de la caché de embeddings
    assert Norma.objects.get(sigla=documento.sigla).versiones.count() == 2


@pytest.mark.django_db
def test_con_el_sitio_caido_las_noticias_salen_de_la_cache_vencida_con_un_aviso(
    sitio: ServidorLocal, settings: Any
) -> None:
    settings.SEA_PAGINAS_NOTICIAS = 1
    sitio.responder("/noticias", cuerpo=pagina("noticias_pagina_0.html"), cabeceras=HTML)
    sea.noticias_actualizar()
    llave = cache_fuentes._llave("sea", f"{sitio.url}/noticias?page=0")
    guardado = cache.get(llave)
    guardado["t"] -= 7 * 3600  # la vigencia del SEA es de 6 h
    cache.set(llave, guardado)
    sitio.respuestas.clear()
    sitio.responder("/noticias", estado=500, cuerpo="error")

    vistas, _, advertencia = sea.noticias_actualizar()

    assert vistas == 3 and advertencia.startswith("datos de caché del ")
    assert "500" in EstadoFuente.objects.get(fuente="sea").ultimo_error
