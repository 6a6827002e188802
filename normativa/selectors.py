"""Lecturas del corpus: búsqueda híbrida (densa + texto completo) con realce de referencias explícitas.

Modos (seleccionables para medir):
- `denso`: similitud coseno con pgvector (índice HNSW).
- `texto`: texto completo en español sin tildes (índice GIN), consulta disyuntiva sobre los lexemas.
- `hibrido` (por defecto): fusión por rango recíproco ponderada (RRF, k=10; texto con peso 0,5),
  más el realce de lo que la pregunta cita explícitamente («art. 11 letra d», «DS 40», «i.1»), y
  diversidad (a lo más dos fragmentos del mismo artículo entre los primeros).

Confianza (umbral documentado, sobre la similitud coseno densa del mejor resultado, que en e5 se
concentra entre 0,75 y 0,92):
- HIGH: la pregunta cita una referencia que existe, o similitud ≥ 0,86;
- MEDIUM: similitud ≥ 0,835;
- LOW: similitud ≥ 0,81;
- NONE: por debajo, o sin resultados: el asistente debe decir que no tiene base suficiente.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from django.db import connection, transaction
from django.db.models import Q, QuerySet
from pgvector.django import CosineDistance

from normativa.embeddings import embeber_consulta
from normativa.models import FragmentoLegal, Norma
from normativa.referencias import Referencias, extraer_referencias

MODOS = ("hibrido", "denso", "texto")
MAXIMO_CONSULTA = 1000
MAXIMO_TOP_K = 100
CANDIDATOS = 60
EF_SEARCH = 120
RRF_K = 10
PESO_DENSO, PESO_TEXTO = 1.0, 0.5
PESO_GUIAS = 0.7
POR_ARTICULO = 2
UMBRAL_ALTA, UMBRAL_MEDIA, UMBRAL_BAJA = 0.86, 0.835, 0.81


class ErrorDeBusqueda(ValueError):
    """Consulta o filtros inválidos; el mensaje está en español para el usuario."""


@dataclass
class Resultado:
    fragmento_id: int
    norma: str
    tipo_documento: str
    articulo: str
    letra: str
    texto: str
    breadcrumb: str
    cita: str
    url: str
    score: float
    similitud: float | None
    pagina: int | None = None
    derogado: bool = False
    advertencia: str = ""

    def como_dict(self) -> dict[str, object]:
        return self.__dict__.copy()


@dataclass
class ResultadoBusqueda:
    consulta: str
    modo: str
    confianza: str
    resultados: list[Resultado] = field(default_factory=list)
    referencias: Referencias = field(default_factory=Referencias)


def buscar_normativa(
    *,
    consulta: str,
    top_k: int = 5,
    modo: str = "hibrido",
    normas: Sequence[str] | None = None,
    temas: Sequence[str] | None = None,
    tipos_documento: Sequence[str] | None = None,
    incluir_derogados: bool = False,
    incluir_documentacion: bool = False,
) -> ResultadoBusqueda:
    """Devuelve los fragmentos vigentes más pertinentes para la consulta, con cita y confianza."""
    consulta = _validar(consulta=consulta, top_k=top_k, modo=modo)
    base = _fragmentos_buscables(
        normas=normas,
        temas=temas,
        tipos_documento=tipos_documento,
        incluir_derogados=incluir_derogados,
        incluir_documentacion=incluir_documentacion,
    )
    referencias = extraer_referencias(consulta)
    vector = embeber_consulta(consulta) if modo in ("hibrido", "denso") else None
    densos = _candidatos_densos(base, vector) if vector is not None else []
    textuales = _candidatos_texto(base, consulta) if modo in ("hibrido", "texto") else []
    if modo == "denso":
        puntajes = {fid: 1.0 - distancia for fid, distancia in densos}
    elif modo == "texto":
        puntajes = dict(textuales)
    else:
        puntajes = _fusionar(densos, textuales)
    if modo == "hibrido" and PESO_GUIAS != 1.0:
        # La base legal es la norma; las guías del SEA la desarrollan y no deben desplazarla.
        de_guias = set(
            base.filter(pk__in=list(puntajes), norma__tipo=Norma.Tipo.GUIA).values_list("pk", flat=True)
        )
        puntajes = {fid: p * PESO_GUIAS if fid in de_guias else p for fid, p in puntajes.items()}
    citados = _fragmentos_citados(base, referencias) if modo == "hibrido" else {}
    for fragmento_id, realce in citados.items():
        puntajes[fragmento_id] = puntajes.get(fragmento_id, 0.0) + realce
    ordenados = sorted(puntajes, key=lambda fid: puntajes[fid], reverse=True)
    fragmentos = FragmentoLegal.objects.select_related("norma").in_bulk(ordenados[: top_k * 6 + 20])
    elegidos = _diversificar([fragmentos[fid] for fid in ordenados if fid in fragmentos], top_k)
    similitudes = _similitudes(vector, elegidos)
    resultados = [
        _resultado(fragmento, puntajes[fragmento.pk], similitudes.get(fragmento.pk)) for fragmento in elegidos
    ]
    confianza = _confianza(resultados, citados=bool(citados and elegidos and elegidos[0].pk in citados))
    return ResultadoBusqueda(
        consulta=consulta, modo=modo, confianza=confianza, resultados=resultados, referencias=referencias
    )


def normas_disponibles() -> list[str]:
    """Siglas de las normas con versión vigente (para validar filtros y mostrar opciones)."""
    return list(Norma.objects.filter(versiones__vigente=True).values_list("sigla", flat=True).distinct())


# --- validación y filtros ---------------------------------------------------------------------


def _validar(*, consulta: str, top_k: int, modo: str) -> str:
    limpia = " ".join((consulta or "").split())
    if not limpia:
        raise ErrorDeBusqueda("La consulta está vacía: escriba una pregunta o palabras clave.")
    if len(limpia) > MAXIMO_CONSULTA:
        raise ErrorDeBusqueda(
            f"La consulta es demasiado larga ({len(limpia)} caracteres; máximo {MAXIMO_CONSULTA})."
        )
    if modo not in MODOS:
        raise ErrorDeBusqueda(f"Modo desconocido: «{modo}». Use hibrido, denso o texto.")
    if not 1 <= top_k <= MAXIMO_TOP_K:
        raise ErrorDeBusqueda(f"top_k debe estar entre 1 y {MAXIMO_TOP_K}.")
    return limpia


def _fragmentos_buscables(
    *,
    normas: Sequence[str] | None,
    temas: Sequence[str] | None,
    tipos_documento: Sequence[str] | None,
    incluir_derogados: bool,
    incluir_documentacion: bool,
) -> QuerySet[FragmentoLegal]:
    base = FragmentoLegal.objects.filter(version__vigente=True, embedding__isnull=False)
    if not incluir_derogados:
        base = base.filter(derogado=False)
    if not incluir_documentacion:
        base = base.exclude(norma__tipo=Norma.Tipo.DOCUMENTACION)
    if normas:
        conocidas = set(normas_disponibles())
        desconocidas = [sigla for sigla in normas if sigla not in conocidas]
        if desconocidas:
            raise ErrorDeBusqueda(
                f"Norma desconocida: {', '.join(desconocidas)}. Disponibles: {', '.join(sorted(conocidas))}."
            )
        base = base.filter(norma__sigla__in=normas)
    if temas:
        base = base.filter(Q(temas__nombre__in=temas) | Q(norma__temas__nombre__in=temas)).distinct()
    if tipos_documento:
        validos = {valor for valor, _ in Norma.Tipo.choices}
        invalidos = [tipo for tipo in tipos_documento if tipo not in validos]
        if invalidos:
            raise ErrorDeBusqueda(f"Tipo de documento desconocido: {', '.join(invalidos)}.")
        base = base.filter(norma__tipo__in=tipos_documento)
    return base


# --- candidatos -------------------------------------------------------------------------------


def _candidatos_densos(base: QuerySet[FragmentoLegal], vector: np.ndarray) -> list[tuple[int, float]]:
    with transaction.atomic(), connection.cursor() as cursor:
        # El HNSW explora más candidatos que los pedidos (recall ≥ 0,95 frente al escaneo exacto).
        cursor.execute("SET LOCAL hnsw.ef_search = %s", [EF_SEARCH])
        filas = list(
            base.annotate(distancia=CosineDistance("embedding", vector))
            .order_by("distancia")
            .values_list("pk", "distancia")[:CANDIDATOS]
        )
    return [(pk, float(distancia)) for pk, distancia in filas]


def _candidatos_texto(base: QuerySet[FragmentoLegal], consulta: str) -> list[tuple[int, float]]:
    consulta_ts = _consulta_disyuntiva(consulta)
    if not consulta_ts:
        return []
    sql, parametros = base.values("pk").query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            SELECT f.id, ts_rank(f.busqueda, q.consulta, 1) AS rango
              FROM normativa_fragmentolegal f, to_tsquery('simple', %s) AS q(consulta)
             WHERE f.busqueda @@ q.consulta AND f.id IN ({sql})
             ORDER BY rango DESC
             LIMIT %s
            """,
            [consulta_ts, *parametros, CANDIDATOS],
        )
        return [(fila[0], float(fila[1])) for fila in cursor.fetchall()]


def _consulta_disyuntiva(consulta: str) -> str:
    """«¿Qué es una DIA?» → «'dia'»: lexemas en español sin tildes unidos por OR."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT lexeme FROM unnest(to_tsvector('spanish', normativa_sin_tildes(%s)))", [consulta]
        )
        lexemas = [fila[0] for fila in cursor.fetchall()]
    return " | ".join("'" + lexema.replace("'", "''") + "'" for lexema in lexemas)


def _fusionar(densos: list[tuple[int, float]], textuales: list[tuple[int, float]]) -> dict[int, float]:
    """RRF ponderada: el texto completo de PostgreSQL es más débil que BM25, así que pesa menos."""
    puntajes: dict[int, float] = {}
    for peso, candidatos in ((PESO_DENSO, densos), (PESO_TEXTO, textuales)):
        for posicion, (fragmento_id, _) in enumerate(candidatos):
            puntajes[fragmento_id] = puntajes.get(fragmento_id, 0.0) + peso / (RRF_K + posicion + 1)
    return puntajes


def _fragmentos_citados(base: QuerySet[FragmentoLegal], referencias: Referencias) -> dict[int, float]:
    """Realce para lo que la pregunta cita: artículo (y letra) en la norma citada, o norma sola."""
    if not referencias.articulo:
        return {}
    filtro = base.filter(articulo=referencias.articulo)
    if referencias.normas:
        filtro = filtro.filter(norma__sigla__in=referencias.normas)
    realces: dict[int, float] = {}
    for pk, letra in filtro.values_list("pk", "letra"):
        if referencias.letra:
            realces[pk] = 0.2 if letra == referencias.letra else (0.05 if not letra else 0.0)
        else:
            realces[pk] = 0.2 if not letra else 0.03
    return {pk: realce for pk, realce in realces.items() if realce > 0}


def _diversificar(fragmentos: list[FragmentoLegal], top_k: int) -> list[FragmentoLegal]:
    elegidos: list[FragmentoLegal] = []
    conteo: dict[tuple[int, str], int] = {}
    for fragmento in fragmentos:
        clave = (fragmento.norma_id, fragmento.articulo or fragmento.breadcrumb)
        if conteo.get(clave, 0) >= POR_ARTICULO:
            continue
        conteo[clave] = conteo.get(clave, 0) + 1
        elegidos.append(fragmento)
        if len(elegidos) == top_k:
            break
    return elegidos


def _similitudes(vector: np.ndarray | None, fragmentos: list[FragmentoLegal]) -> dict[int, float]:
    if vector is None:
        return {}
    return {
        f.pk: float(np.dot(np.asarray(f.embedding, dtype=np.float32), vector))
        for f in fragmentos
        if f.embedding is not None
    }


def _confianza(resultados: list[Resultado], *, citados: bool) -> str:
    if not resultados:
        return "NONE"
    if citados:
        return "HIGH"
    similitud = resultados[0].similitud
    if similitud is None:  # modo texto: sin señal densa, la confianza no puede ser alta
        return "LOW" if resultados[0].score > 0 else "NONE"
    if similitud >= UMBRAL_ALTA:
        return "HIGH"
    if similitud >= UMBRAL_MEDIA:
        return "MEDIUM"
    if similitud >= UMBRAL_BAJA:
        return "LOW"
    return "NONE"


# --- presentación -----------------------------------------------------------------------------


def _resultado(fragmento: FragmentoLegal, score: float, similitud: float | None) -> Resultado:
    return Resultado(
        fragmento_id=fragmento.pk,
        norma=fragmento.norma.sigla,
        tipo_documento=fragmento.norma.tipo,
        articulo=fragmento.articulo,
        letra=fragmento.letra,
        texto=fragmento.texto,
        breadcrumb=fragmento.breadcrumb,
        cita=cita_de(fragmento),
        url=url_de(fragmento),
        score=round(score, 6),
        similitud=round(similitud, 4) if similitud is not None else None,
        pagina=fragmento.pagina,
        derogado=fragmento.derogado,
        advertencia=fragmento.norma.advertencia_vigencia,
    )


def cita_de(fragmento: FragmentoLegal) -> str:
    """«Ley 19.300, Art. 11, letra d)»; «DS 40, Art. 3, literal i.1»; guía: título, sección y página."""
    norma = fragmento.norma
    if not fragmento.articulo:
        seccion = fragmento.jerarquia[-1] if fragmento.jerarquia else ""
        partes = [f"{norma.nombre} ({norma.anio})" if norma.anio else norma.nombre]
        if seccion:
            partes.append(f"sección «{seccion}»")
        if fragmento.pagina:
            partes.append(f"p. {fragmento.pagina}")
        return ", ".join(partes)
    cita = f"{norma.sigla}, Art. {fragmento.articulo}{' transitorio' if fragmento.transitorio else ''}"
    if fragmento.letra:
        cita += f", literal {fragmento.letra}" if "." in fragmento.letra else f", letra {fragmento.letra})"
    return cita


def url_de(fragmento: FragmentoLegal) -> str:
    """Enlace profundo a LeyChile (idNorma + idParte) o a la página de la guía."""
    norma = fragmento.norma
    if norma.id_norma_bcn:
        url = f"https://www.bcn.cl/leychile/navegar?idNorma={norma.id_norma_bcn}"
        return f"{url}&idParte={fragmento.id_parte}" if fragmento.id_parte else url
    if norma.url and fragmento.pagina:
        return f"{norma.url}#page={fragmento.pagina}"
    return norma.url
