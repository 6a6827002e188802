"""Latencia de la búsqueda normativa (p50/p95 por modo) sobre el corpus real y sobre 100 000
fragmentos sintéticos, comparada con un escaneo exacto; recall@10 del HNSW; tiempos de ingesta.

Los fragmentos sintéticos se insertan en una transacción que se revierte al terminar: la base queda
como estaba. Sus vectores son vectores reales del corpus con ruido (la distribución de un corpus
real, no puntos uniformes en la esfera) y su texto son frases armadas con el vocabulario del corpus.
Mientras corre, la tabla de fragmentos queda bloqueada para otros procesos.
"""

from __future__ import annotations

import cProfile
import functools
import io
import os
import pstats
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import numpy as np
from django.db import connection, transaction

from normativa.busqueda import candidatos, hibrida, orden
from normativa.busqueda.familias import familias_de
from normativa.busqueda.reordenar import CANDIDATOS_REORDENADOS, Candidato, reordenar
from normativa.embeddings import embeber_consulta, proveedor
from normativa.evaluacion import leer_preguntas
from normativa.glosario import expandir_siglas
from normativa.indice import (
    actualizar_texto_completo,
    estadisticas_refrescar,
    oraciones_asignar,
    texto_para_embeber,
)
from normativa.ingesta.corpus import corpus_cargar
from normativa.models import FragmentoLegal, Norma, VersionNorma

SINTETICOS = int(os.environ.get("BENCH_FRAGMENTOS", "100000"))
# Con BENCH_PERFIL=1 se imprime, en cada corpus, dónde se va el tiempo de la búsqueda híbrida.
PERFIL = os.environ.get("BENCH_PERFIL") == "1"
REPETICIONES = 3
PREGUNTAS = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "eval" / "dev_normativa.jsonl"


def ejecutar() -> None:
    corpus_cargar()
    preguntas = [p["pregunta"] for p in leer_preguntas(PREGUNTAS)]
    vectores = {p: embeber_consulta(p) for p in preguntas}
    _medir_embedding_de_consulta(preguntas)
    print(
        f"\nCorpus real ({FragmentoLegal.objects.filter(version__vigente=True).count()} fragmentos vigentes):"
    )
    _tabla_de_latencias(preguntas, vectores)
    _medir_reordenador(preguntas, vectores)
    if PERFIL:
        _perfil(preguntas, vectores)
    with _corpus_sintetico(SINTETICOS, preguntas, vectores) as total:
        print(f"\nCorpus real + {SINTETICOS} fragmentos sintéticos ({total} vigentes):")
        _tabla_de_latencias(preguntas, vectores)
        _recall_hnsw(preguntas, vectores)
        if PERFIL:
            _perfil(preguntas, vectores)
    _medir_ingesta()


# --- latencias --------------------------------------------------------------------------------


def _tabla_de_latencias(preguntas: list[str], vectores: dict[str, np.ndarray]) -> None:
    """Latencia de `buscar_normativa` por modo, sin el embedding de la consulta (medido aparte)."""

    def caso(modo: str, *, exacto: bool = False) -> Callable[[str], Any]:
        def buscar(pregunta: str) -> Any:
            def una() -> Any:
                return hibrida.buscar_normativa(
                    consulta=pregunta, top_k=10, modo=modo, vector_consulta=vectores[pregunta]
                )

            return _con_escaneo_exacto(una) if exacto else una()

        return buscar

    casos = {modo: caso(modo) for modo in hibrida.MODOS}
    casos["denso exacto"] = caso("denso", exacto=True)
    casos["hibrido exacto"] = caso("hibrido", exacto=True)
    primeras: dict[str, list[float]] = {}
    filas = {
        nombre: _cronometrar(funcion, preguntas, primera_vez=primeras.setdefault(nombre, []))
        for nombre, funcion in casos.items()
    }
    print(f"  {'modo':<16}{'p50 ms':>9}{'p95 ms':>9}{'1.ª vez p50':>13}{'p95':>7}")
    for nombre, (p50, p95) in filas.items():
        primera = primeras[nombre]
        print(
            f"  {nombre:<16}{p50:>9.1f}{p95:>9.1f}"
            f"{statistics.median(primera):>13.1f}{np.percentile(primera, 95):>7.1f}"
        )
    for modo in ("denso", "hibrido"):
        print(
            f"  {modo}: HNSW {filas[modo + ' exacto'][1] / filas[modo][1]:.1f}× más rápido "
            "que el escaneo exacto (p95)"
        )


def _medir_reordenador(preguntas: list[str], vectores: dict[str, np.ndarray]) -> None:
    """El reordenador solo (rasgos de los candidatos y su orden), con las listas ya calculadas: la
    parte de la búsqueda híbrida que agrega la segunda etapa."""
    base = candidatos.fragmentos_buscables(
        normas=None, temas=None, tipos_documento=None, incluir_derogados=False, incluir_documentacion=False
    )
    llamadas: dict[str, Callable[[], list[Candidato]]] = {}
    for pregunta in preguntas:
        densos = candidatos.candidatos_densos(base, vectores[pregunta])
        lexemas = candidatos.lexemas_de_la_consulta(expandir_siglas(pregunta))
        textuales = candidatos.candidatos_texto(base, lexemas)
        puntajes = orden.fusionar(densos, textuales)
        llamadas[pregunta] = functools.partial(
            reordenar,
            lexemas=lexemas,
            familias=familias_de(pregunta),
            densos=[pk for pk, _ in densos],
            textuales=[pk for pk, _ in textuales],
            orden_inicial=sorted(puntajes, key=lambda fid: puntajes[fid], reverse=True),
        )
    p50, p95 = _cronometrar(lambda pregunta: llamadas[pregunta](), preguntas)
    print(f"  reordenador solo ({CANDIDATOS_REORDENADOS} candidatos): p50 {p50:.1f} ms, p95 {p95:.1f} ms")


def _perfil(preguntas: list[str], vectores: dict[str, np.ndarray], *, lineas: int = 25) -> None:
    """Las funciones que más tiempo propio toman en una pasada de búsquedas híbridas (ya calientes)."""
    for pregunta in preguntas:
        hibrida.buscar_normativa(consulta=pregunta, top_k=10, vector_consulta=vectores[pregunta])
    perfil = cProfile.Profile()
    perfil.enable()
    for pregunta in preguntas:
        hibrida.buscar_normativa(consulta=pregunta, top_k=10, vector_consulta=vectores[pregunta])
    perfil.disable()
    salida = io.StringIO()
    pstats.Stats(perfil, stream=salida).sort_stats("tottime").print_stats(lineas)
    print(f"  perfil de {len(preguntas)} búsquedas híbridas (tiempo propio):")
    print("\n".join("    " + linea for linea in salida.getvalue().splitlines() if linea.strip()))


def _cronometrar(
    caso: Callable[[str], Any], preguntas: list[str], *, primera_vez: list[float] | None = None
) -> tuple[float, float]:
    """p50 y p95 de `REPETICIONES` vueltas por las preguntas, después de una vuelta de calentamiento
    (planes, caché de la base y de lo que la búsqueda recuerda por proceso). Los tiempos de esa
    primera vuelta, con cada pregunta vista por primera vez, quedan en `primera_vez`."""
    for pregunta in preguntas:
        inicio = time.perf_counter()
        caso(pregunta)
        if primera_vez is not None:
            primera_vez.append((time.perf_counter() - inicio) * 1000)
    tiempos = []
    for _ in range(REPETICIONES):
        for pregunta in preguntas:
            inicio = time.perf_counter()
            caso(pregunta)
            tiempos.append((time.perf_counter() - inicio) * 1000)
    return statistics.median(tiempos), float(np.percentile(tiempos, 95))


@contextmanager
def _sin_indice_vectorial() -> Iterator[None]:
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_indexscan = off")
        yield


def _con_escaneo_exacto(funcion: Callable[[], Any]) -> Any:
    with _sin_indice_vectorial():
        return funcion()


def _medir_embedding_de_consulta(preguntas: list[str]) -> None:
    tiempos = []
    for pregunta in preguntas * REPETICIONES:
        inicio = time.perf_counter()
        proveedor().consulta(pregunta)
        tiempos.append((time.perf_counter() - inicio) * 1000)
    print(
        f"Embedding de la consulta (e5-small, CPU): p50 {statistics.median(tiempos):.1f} ms, "
        f"p95 {np.percentile(tiempos, 95):.1f} ms (se suma a denso e híbrido)"
    )


# --- recall del HNSW --------------------------------------------------------------------------


def _recall_hnsw(preguntas: list[str], vectores: dict[str, np.ndarray]) -> None:
    base = FragmentoLegal.objects.filter(version__vigente=True, embedding__isnull=False, derogado=False)
    aciertos = total = 0
    exacta_hasta, candidatos.EXACTA_HASTA = candidatos.EXACTA_HASTA, 0  # el HNSW aun con el corpus real
    try:
        aproximados_de = {
            pregunta: {pk for pk, _ in candidatos.candidatos_densos(base, vectores[pregunta])[:10]}
            for pregunta in preguntas
        }
    finally:
        candidatos.EXACTA_HASTA = exacta_hasta
    for pregunta in preguntas:
        aproximados = aproximados_de[pregunta]
        with _sin_indice_vectorial():
            exactos = {pk for pk, _ in candidatos.candidatos_densos(base, vectores[pregunta])[:10]}
        aciertos += len(aproximados & exactos)
        total += len(exactos)
    print(f"  recall@10 del HNSW frente al escaneo exacto: {aciertos / total:.3f}")


# --- corpus sintético -------------------------------------------------------------------------


@contextmanager
def _corpus_sintetico(cantidad: int, preguntas: list[str], vectores: dict[str, np.ndarray]) -> Iterator[int]:
    inicio = time.perf_counter()
    reales = list(
        FragmentoLegal.objects.filter(version__vigente=True).values_list("embedding", "texto")[:5000]
    )
    base_vectores = np.asarray([np.asarray(v, dtype=np.float32) for v, _ in reales])
    vocabulario = sorted({palabra for _, texto in reales for palabra in texto.split() if palabra.isalpha()})
    generador = np.random.default_rng(7)
    azar = random.Random(7)
    try:
        with transaction.atomic():
            with connection.cursor() as cursor:
                # Insertar 100 000 filas en un HNSW existente toma ~11 min; reconstruirlo, ~1 min.
                # Todo se revierte al final (el índice original vuelve intacto).
                cursor.execute("SET LOCAL maintenance_work_mem = '512MB'")
                cursor.execute("DROP INDEX fragmento_embedding_hnsw")
            norma = Norma.objects.create(sigla="Bench sintético", tipo=Norma.Tipo.LEY, nombre="Sintético")
            version = VersionNorma.objects.create(norma=norma, fuente="bench", hash="bench", vigente=True)
            for desde in range(0, cantidad, 5000):
                lote = min(5000, cantidad - desde)
                origen = base_vectores[generador.integers(0, len(base_vectores), lote)]
                ruido = generador.normal(0, 0.02, origen.shape).astype(np.float32)
                mezcla = origen + ruido
                mezcla /= np.linalg.norm(mezcla, axis=1, keepdims=True)
                filas = [
                    FragmentoLegal(
                        norma=norma,
                        version=version,
                        tipo=FragmentoLegal.Tipo.ARTICULO,
                        orden=desde + i,
                        breadcrumb=f"Bench sintético › Artículo {desde + i}",
                        articulo=str(desde + i),
                        texto=" ".join(azar.choices(vocabulario, k=azar.randint(40, 160))),
                        hash_contenido="",
                        embedding=vector,
                    )
                    for i, vector in enumerate(mezcla)
                ]
                oraciones_asignar(filas)
                creados = FragmentoLegal.objects.bulk_create(filas, batch_size=1000)
                actualizar_texto_completo(ids=[f.pk for f in creados])
                print(
                    f"  … {desde + lote} sintéticos insertados ({time.perf_counter() - inicio:.0f} s)",
                    flush=True,
                )
            with connection.cursor() as cursor:
                cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # las FK diferidas impiden crear el índice
                cursor.execute(
                    "CREATE INDEX fragmento_embedding_hnsw ON normativa_fragmentolegal "
                    "USING hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64)"
                )
                print(f"  índice HNSW reconstruido ({time.perf_counter() - inicio:.0f} s)", flush=True)
                cursor.execute("ANALYZE normativa_fragmentolegal")
            estadisticas_refrescar()
            print(f"  corpus sintético listo en {time.perf_counter() - inicio:.0f} s")
            yield FragmentoLegal.objects.filter(version__vigente=True).count()
            raise _Revertir
    except _Revertir:
        pass
    estadisticas_refrescar()  # las vistas vuelven a describir el corpus real


class _Revertir(Exception):
    pass


# --- ingesta ----------------------------------------------------------------------------------


def _medir_ingesta() -> None:
    inicio = time.perf_counter()
    corpus_cargar()
    tibia = time.perf_counter() - inicio
    print(f"\nIngesta tibia (corpus ya cargado, nada cambió): {tibia:.1f} s (meta ≤ 10 s)")
    primera = _primera_carga_en_base_nueva()
    if primera is not None:
        print(f"Primera carga en una base nueva con los embeddings incluidos: {primera:.1f} s")
    muestras = list(FragmentoLegal.objects.filter(version__vigente=True).order_by("?")[:24])
    textos = [f"bench {time.time()} {texto_para_embeber(f)}" for f in muestras]
    inicio = time.perf_counter()
    proveedor().pasajes(textos)
    por_segundo = len(textos) / (time.perf_counter() - inicio)
    total = FragmentoLegal.objects.filter(version__vigente=True).count()
    print(
        f"Ingesta fría (sin caché ni embeddings incluidos): {por_segundo:.1f} fragmentos/s embebiendo "
        f"⇒ ≈ {total / por_segundo / 60:.0f} min para {total} fragmentos (extrapolado de 24 al azar)"
    )


def _primera_carga_en_base_nueva() -> float | None:
    """Crea una base vacía en el mismo servidor, migra y carga el corpus como un `make run` nuevo."""
    nombre = "bench_primera_carga"
    with connection.cursor() as cursor:
        cursor.execute(f"DROP DATABASE IF EXISTS {nombre}")
        cursor.execute(f"CREATE DATABASE {nombre}")
    # La misma instancia (embebida o la de DATABASE_URL), otra base.
    url = urlunsplit(urlsplit(os.environ["DATABASE_URL"])._replace(path=f"/{nombre}"))
    entorno = {**os.environ, "DATABASE_URL": url}
    manage = Path(__file__).resolve().parent.parent / "manage.py"
    try:
        subprocess.run([sys.executable, str(manage), "migrate", "-v", "0"], env=entorno, check=True)
        inicio = time.perf_counter()
        subprocess.run(
            [sys.executable, str(manage), "cargar_corpus"],
            env=entorno,
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        return time.perf_counter() - inicio
    except subprocess.CalledProcessError as error:
        print(f"(no se pudo medir la primera carga: {error})")
        return None
    finally:
        with connection.cursor() as cursor:
            cursor.execute(f"DROP DATABASE IF EXISTS {nombre}")
