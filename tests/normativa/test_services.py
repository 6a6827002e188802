"""Ingesta versionada: idempotente, un artículo cambiado crea versión nueva y solo él se re-embebe."""

from pathlib import Path

import pytest
from django.db.models import Manager, QuerySet

from normativa import services
from normativa.models import EmbeddingCache, FragmentoLegal, VersionNorma
from normativa.parsers import ErrorDeParseo
from normativa.services import DatosNorma, documento_ingerir

pytestmark = pytest.mark.django_db

LEY = """---
title: "LEY DE PRUEBA SOBRE GLACIARES"
last_updated: "2024-01-01"
---
# LEY DE PRUEBA SOBRE GLACIARES

## TÍTULO I Disposiciones generales

##### Artículo 1

Objeto. Esta ley protege los glaciares.

##### Artículo 2

Definiciones. Para los efectos de esta ley se entenderá por:

a) Glaciar: masa de hielo perenne.

b) Permafrost: suelo congelado.

##### Artículo 3

Sanciones. La infracción se sancionará con multa.
"""

DATOS = DatosNorma(sigla="Ley 99.999", tipo="ley", nombre="Ley de prueba sobre glaciares", numero="99.999")


def fragmentos(manager: Manager[FragmentoLegal] = FragmentoLegal.objects) -> QuerySet[FragmentoLegal]:
    return manager.filter(norma__sigla=DATOS.sigla)


def versiones() -> QuerySet[VersionNorma]:
    return VersionNorma.objects.filter(norma__sigla=DATOS.sigla)


def escribir(tmp_path: Path, texto: str) -> Path:
    ruta = tmp_path / "ley.md"
    ruta.write_text(texto, encoding="utf-8")
    return ruta


def test_ingerir_crea_la_version_los_fragmentos_con_embedding_y_el_indice_de_texto(tmp_path):
    resultado = documento_ingerir(ruta=escribir(tmp_path, LEY), datos=DATOS)

    assert resultado.creada and resultado.fragmentos == 5 and resultado.embebidos == 5
    letras = list(fragmentos().filter(articulo="2").values_list("letra", flat=True))
    assert letras == ["", "a", "b"]
    fragmento = fragmentos().get(articulo="2", letra="a")
    assert fragmento.breadcrumb == "Ley 99.999 › TÍTULO I Disposiciones generales › Artículo 2 › letra a)"
    assert fragmento.embedding is not None and len(fragmento.embedding) == 384
    assert fragmentos().filter(busqueda="glaciar").exists()


def test_reingerir_el_mismo_archivo_no_cambia_nada(tmp_path):
    ruta = escribir(tmp_path, LEY)
    documento_ingerir(ruta=ruta, datos=DATOS)

    segundo = documento_ingerir(ruta=ruta, datos=DATOS)

    assert not segundo.creada and segundo.embebidos == 0
    assert versiones().count() == 1 and fragmentos().count() == 5


def test_un_articulo_cambiado_crea_una_version_nueva_y_solo_se_reembebe_lo_cambiado(tmp_path):
    primera = documento_ingerir(ruta=escribir(tmp_path, LEY), datos=DATOS)
    cache_antes = EmbeddingCache.objects.count()

    cambiada = LEY.replace("con multa.", "con multa de 10 a 100 UTM.")
    segunda = documento_ingerir(ruta=escribir(tmp_path, cambiada), datos=DATOS)

    assert segunda.creada and segunda.version != primera.version
    assert segunda.embebidos == 1, "solo el Art. 3 cambió"
    assert EmbeddingCache.objects.count() == cache_antes + 1
    primera.version.refresh_from_db()
    assert not primera.version.vigente and segunda.version.vigente
    vigente = fragmentos().get(version__vigente=True, articulo="3")
    assert "100 UTM" in vigente.texto


def test_una_ingesta_que_falla_no_deja_nada_a_medias(tmp_path, monkeypatch):
    def fallar(*args, **kwargs):
        raise RuntimeError("el proveedor de embeddings se cayó")

    monkeypatch.setattr(services, "embeber_pasajes", fallar)

    with pytest.raises(RuntimeError):
        documento_ingerir(ruta=escribir(tmp_path, LEY), datos=DATOS)

    assert versiones().count() == 0 and fragmentos(FragmentoLegal.todos).count() == 0


def test_un_archivo_que_no_es_una_norma_se_rechaza_en_espanol(tmp_path):
    ruta = escribir(tmp_path, "# Lista de compras\n\n- pan\n- leche\n")

    with pytest.raises(ErrorDeParseo, match="no parece una norma"):
        documento_ingerir(ruta=ruta, datos=DATOS)


def test_corregir_el_texto_de_un_fragmento_lo_reembebe(tmp_path):
    documento_ingerir(ruta=escribir(tmp_path, LEY), datos=DATOS)
    fragmento = fragmentos().get(articulo="1")
    antes = list(fragmento.embedding)

    services.fragmento_actualizar_texto(fragmento=fragmento, texto="Objeto. Esta ley protege el permafrost.")

    fragmento.refresh_from_db()
    assert list(fragmento.embedding) != antes
    assert FragmentoLegal.objects.filter(pk=fragmento.pk, busqueda="permafrost").exists()


def test_el_borrado_logico_oculta_y_restaurar_devuelve(tmp_path):
    documento_ingerir(ruta=escribir(tmp_path, LEY), datos=DATOS)
    fragmento = fragmentos().get(articulo="1")

    fragmento.eliminar()
    assert not FragmentoLegal.objects.filter(pk=fragmento.pk).exists()
    assert FragmentoLegal.todos.filter(pk=fragmento.pk).exists()

    fragmento.restaurar()
    assert FragmentoLegal.objects.filter(pk=fragmento.pk).exists()
