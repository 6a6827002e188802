"""Ingesta versionada: idempotente, un artículo cambiado crea versión nueva y solo él se re-embebe."""

from pathlib import Path

import pytest
from django.contrib.postgres.search import SearchQuery
from django.db import connection
from django.db.models import Manager, QuerySet

from normativa import indice, oraciones, services
from normativa.busqueda.analisis import frecuencias_documentales
from normativa.busqueda.candidatos import candidatos_texto
from normativa.ingesta import corpus, documentos
from normativa.ingesta.documentos import DatosNorma, documento_ingerir
from normativa.models import EmbeddingCache, FragmentoLegal, Norma, VersionNorma
from normativa.parsers import ErrorDeParseo, parsear_y_fragmentar

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

    monkeypatch.setattr(documentos, "embeber_pasajes", fallar)

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


def test_ingerir_guarda_las_oraciones_de_cada_fragmento_con_sus_raices(tmp_path):
    documento_ingerir(ruta=escribir(tmp_path, LEY), datos=DATOS)

    for fragmento in fragmentos():
        assert fragmento.analisis == oraciones.VERSION
        assert tuple(fragmento.oraciones) == oraciones.oraciones_de(fragmento.texto)
        assert len(fragmento.raices) == len(fragmento.oraciones)
    sanciones = fragmentos().get(articulo="3")
    assert sanciones.raices[-1] == "infra sanci mult"  # «La infracción se sancionará con multa.»


def test_corregir_el_texto_de_un_fragmento_rehace_sus_oraciones(tmp_path):
    documento_ingerir(ruta=escribir(tmp_path, LEY), datos=DATOS)
    fragmento = fragmentos().get(articulo="1")

    services.fragmento_actualizar_texto(fragmento=fragmento, texto="Objeto. Esta ley protege el permafrost.")

    fragmento.refresh_from_db()
    assert fragmento.oraciones == ["Esta ley protege el permafrost."]
    assert "perma" in fragmento.raices[0].split()


def test_cargar_el_corpus_analiza_lo_que_no_tiene_oraciones_o_las_tiene_de_otra_version(tmp_path):
    documento_ingerir(ruta=escribir(tmp_path, LEY), datos=DATOS)
    fragmentos().update(oraciones=[], raices=[], analisis="")
    fragmentos().filter(articulo="3").update(analisis="anterior")

    assert indice.analisis_completar() == 5

    assert all(f.analisis == oraciones.VERSION and f.oraciones for f in fragmentos())
    assert indice.analisis_completar() == 0


def test_el_borrado_logico_oculta_y_restaurar_devuelve(tmp_path):
    documento_ingerir(ruta=escribir(tmp_path, LEY), datos=DATOS)
    fragmento = fragmentos().get(articulo="1")

    fragmento.eliminar()
    assert not FragmentoLegal.objects.filter(pk=fragmento.pk).exists()
    assert FragmentoLegal.todos.filter(pk=fragmento.pk).exists()

    fragmento.restaurar()
    assert FragmentoLegal.objects.filter(pk=fragmento.pk).exists()


def test_una_falla_al_escribir_revierte_la_norma_la_version_y_los_fragmentos(tmp_path, monkeypatch):
    def fallar(**kwargs):
        raise RuntimeError("el índice de texto falló")

    monkeypatch.setattr(documentos, "actualizar_texto_completo", fallar)

    with pytest.raises(RuntimeError):
        documento_ingerir(ruta=escribir(tmp_path, LEY), datos=DATOS)

    assert not Norma.objects.filter(sigla=DATOS.sigla).exists()
    assert versiones().count() == 0 and fragmentos(FragmentoLegal.todos).count() == 0


def test_ingerir_deja_medida_la_tabla_de_fragmentos_para_el_planificador(tmp_path):
    documento_ingerir(ruta=escribir(tmp_path, LEY), datos=DATOS)

    # sin esa medida, en una base recién cargada la búsqueda densa no usaba el HNSW
    with connection.cursor() as cursor:
        cursor.execute("SELECT reltuples FROM pg_class WHERE relname = 'normativa_fragmentolegal'")
        (medidas,) = cursor.fetchone()
    assert medidas == FragmentoLegal.todos.count()


def test_el_avance_cuenta_lo_que_estaba_en_cache_y_termina_en_el_total(tmp_path):
    documento_ingerir(ruta=escribir(tmp_path, LEY), datos=DATOS)
    avances: list[tuple[int, int]] = []

    cambiada = LEY.replace("con multa.", "con multa de 10 a 100 UTM.")
    documento_ingerir(
        ruta=escribir(tmp_path, cambiada), datos=DATOS, progreso=lambda _s, h, t: avances.append((h, t))
    )

    assert avances[0] == (4, 5), "los 4 fragmentos sin cambios cuentan como hechos de inmediato"
    assert avances[-1] == (5, 5)


def test_las_letras_se_embeben_con_el_encabezado_de_su_articulo(tmp_path):
    documento_ingerir(ruta=escribir(tmp_path, LEY), datos=DATOS)
    letra = fragmentos().get(articulo="2", letra="a")

    assert "se entenderá por" in letra.contexto
    assert indice.texto_para_embeber(letra) == f"{letra.breadcrumb}\n{letra.contexto}\n{letra.texto}"
    contexto = SearchQuery("efectos", config="spanish")
    assert fragmentos().filter(pk=letra.pk, busqueda=contexto).exists(), "el contexto también se indexa"


def test_ingerir_actualiza_las_estadisticas_de_bm25(tmp_path):
    documento_ingerir(
        ruta=escribir(tmp_path, LEY.replace("suelo congelado", "suelo criogénico")), datos=DATOS
    )

    with connection.cursor() as cursor:
        cursor.execute("SELECT documentos FROM normativa_estadistica_lexema WHERE lexema = 'criogen'")
        assert cursor.fetchone() == (2,), "la letra b) y el índice del artículo 2"


def test_una_norma_nueva_necesita_tipo_y_nombre_y_una_existente_conserva_los_suyos(tmp_path):
    with pytest.raises(ErrorDeParseo, match="no existe: indique también su tipo y su nombre"):
        documentos.datos_norma_para(sigla="Ley 99.999")
    with pytest.raises(ErrorDeParseo, match="Tipo desconocido"):
        documentos.datos_norma_para(sigla="Ley 99.999", tipo="novela", nombre="x")

    documento_ingerir(ruta=escribir(tmp_path, LEY), datos=DATOS)
    datos = documentos.datos_norma_para(sigla=" Ley  99.999 ")

    assert (datos.sigla, datos.tipo, datos.nombre) == (DATOS.sigla, "ley", DATOS.nombre)


def test_el_peso_de_busqueda_se_fija_por_tipo_al_crear_y_se_respeta_la_curaduria(tmp_path):
    guia = DatosNorma(sigla="Guía de prueba", tipo="guia", nombre="Guía de prueba")
    documento_ingerir(ruta=escribir(tmp_path, LEY), datos=guia)
    norma = Norma.objects.get(sigla="Guía de prueba")
    assert norma.peso_busqueda == documentos.PESO_POR_TIPO["guia"]

    Norma.objects.filter(pk=norma.pk).update(peso_busqueda=0.65)
    documento_ingerir(ruta=escribir(tmp_path, LEY.replace("multa.", "multa grave.")), datos=guia)

    norma.refresh_from_db()
    assert norma.peso_busqueda == 0.65


def escribir_documentacion(raiz: Path) -> None:
    (raiz / "docs").mkdir()
    (raiz / "README.md").write_text("# Producto\nIntro.\n## Pruebas\nEjecute make test para las pruebas.\n")
    (raiz / "CONTRIBUTING.md").write_text("# Contribuir\nUse make lint antes de subir un cambio.\n")
    (raiz / "docs" / "busqueda.md").write_text("# Búsqueda\nLa fusión combina BM25 y vectores.\n")


def test_la_documentacion_del_sistema_se_indexa_aparte_y_un_documento_retirado_deja_de_estar_vigente(
    tmp_path,
):
    escribir_documentacion(tmp_path)

    resultados = corpus.documentacion_cargar(raiz=tmp_path)

    assert {r.norma.sigla for r in resultados} == {
        "Documentación: README.md",
        "Documentación: CONTRIBUTING.md",
        "Documentación: docs/busqueda.md",
    }
    readme = FragmentoLegal.objects.filter(norma__sigla="Documentación: README.md", version__vigente=True)
    assert readme.get(breadcrumb__endswith="Pruebas").tipo == FragmentoLegal.Tipo.SECCION
    assert all(r.norma.tipo == Norma.Tipo.DOCUMENTACION for r in resultados)

    (tmp_path / "docs" / "busqueda.md").unlink()
    corpus.documentacion_cargar(raiz=tmp_path)

    assert not VersionNorma.objects.filter(
        norma__sigla="Documentación: docs/busqueda.md", vigente=True
    ).exists()
    assert all(not r.creada for r in corpus.documentacion_cargar(raiz=tmp_path))


def test_las_frecuencias_que_lee_la_busqueda_siguen_a_la_ingesta(tmp_path):
    assert frecuencias_documentales(["criogen"])[1] == {}  # queda recordado para este estado

    documento_ingerir(
        ruta=escribir(tmp_path, LEY.replace("suelo congelado", "suelo criogénico")), datos=DATOS
    )

    assert frecuencias_documentales(["criogen"])[1] == {"criogen": 2}


def test_volver_a_una_version_anterior_la_deja_vigente_y_la_busqueda_por_texto_la_encuentra(
    tmp_path, monkeypatch
):
    # el corpus del repositorio, reducido a esta ley: se carga, cambia y vuelve a su texto anterior
    ruta = escribir(tmp_path, LEY)
    monkeypatch.setattr(corpus, "fuentes_del_corpus", lambda: [(ruta, DATOS, None)])
    monkeypatch.setattr(corpus, "permisos_catalogar", lambda: None)
    primera = corpus.corpus_cargar()[0]
    escribir(tmp_path, LEY.replace("suelo congelado", "suelo criogénico"))
    corpus.corpus_cargar()
    escribir(tmp_path, LEY)

    vuelta = corpus.corpus_cargar()[0]

    assert vuelta.reactivada and not vuelta.creada and vuelta.version == primera.version
    assert fragmentos().get(version__vigente=True, articulo="2", letra="b").version == primera.version
    with connection.cursor() as cursor:
        cursor.execute("SELECT documentos FROM normativa_estadistica_lexema WHERE lexema = 'criogen'")
        assert cursor.fetchone() is None, "lo que solo decía la versión retirada ya no se cuenta"
    vigentes = set(fragmentos().filter(version__vigente=True).values_list("pk", flat=True))
    encontrados = [pk for pk, _ in candidatos_texto(fragmentos(FragmentoLegal.todos), ["congel"])]
    assert encontrados and set(encontrados) <= vigentes


def test_el_corpus_parseado_se_lee_una_vez_por_proceso_y_de_nuevo_si_el_archivo_cambia(tmp_path, monkeypatch):
    ruta = escribir(tmp_path, LEY)
    leidos: list[Path] = []

    def contar(ruta: Path, formato: str | None = None):
        leidos.append(ruta)
        return parsear_y_fragmentar(ruta, formato)

    monkeypatch.setattr(corpus, "parsear_y_fragmentar", contar)

    primera = corpus.corpus_parsear([(ruta, "md")])
    segunda = corpus.corpus_parsear([(ruta, "md")])
    escribir(tmp_path, LEY.replace("suelo congelado", "suelo criogénico"))
    cambiada = corpus.corpus_parsear([(ruta, "md")])

    assert leidos == [ruta, ruta]
    assert segunda[ruta] is primera[ruta]
    assert "criogénico" in " ".join(f.texto for f in cambiada[ruta][1])
