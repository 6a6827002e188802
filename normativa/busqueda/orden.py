"""El orden de la búsqueda híbrida: fusión de densos y BM25 (RRF ponderada), peso de cada norma, anclas de
la familia de la pregunta, el reordenador, el realce de lo citado y de la definición preguntada, las letras
de una lista que se agrupan y la diversidad por artículo."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import numpy as np
from django.db.models import Q, QuerySet
from rapidfuzz import fuzz

from config.seia import desarrollo
from config.texto import sin_tildes
from normativa.busqueda.analisis import idf_y_conocidos
from normativa.busqueda.candidatos import fragmentos_admitidos
from normativa.busqueda.familias import anclas_por_cercania, lexemas_de_epigrafes
from normativa.busqueda.reordenar import CANDIDATOS_REORDENADOS, Candidato, reordenar
from normativa.glosario import expandir_siglas, nombrar_siglas
from normativa.models import FragmentoLegal
from normativa.referencias import Referencias

ANCLAS_POR_FAMILIA = 5


EPIGRAFE_NOMBRADO = 0.6  # del peso IDF del epígrafe de un ancla que la pregunta debe decir


RRF_K = 10


PESO_DENSO, PESO_TEXTO = 1.0, 0.5


PESO_MODIFICATORIO = 0.3


# Los realces de citas y definiciones (0,05–0,2) están en la escala de la fusión RRF; el puntaje del
# reordenador es unas veinte veces mayor (una cita o una definición explícitas deben ganar).
ESCALA_REALCE = 20.0


REALCE_DEFINICION, UMBRAL_DEFINICION = 0.15, 92


POR_ARTICULO = 2


# Tantas letras distintas de un mismo artículo entre los primeros resultados: la respuesta es la lista.
LETRAS_QUE_AGRUPAN, VENTANA_DE_LETRAS, VUELTAS_DE_LETRAS = 3, 10, 3


def pesos_normativos(ids: list[int]) -> dict[int, float]:
    """Peso de la norma (jerarquía curada en el admin) y castigo a los artículos modificatorios."""
    # Sin el orden por omisión del modelo (norma, versión, orden): une dos tablas y ordena para nada.
    filas = (
        FragmentoLegal.objects.filter(pk__en_arreglo=ids)
        .order_by()
        .values_list("pk", "norma__peso_busqueda", "modificatorio")
    )
    return {pk: peso * (PESO_MODIFICATORIO if modificatorio else 1.0) for pk, peso, modificatorio in filas}


def orden_a_reordenar(puntajes: dict[int, float], anclas: list[int]) -> list[int]:
    """Los primeros de la fusión y, en los últimos lugares del grupo que se reordena, las anclas de
    la familia que no llegaron por la búsqueda densa ni por la de texto."""
    orden = sorted(puntajes, key=lambda fid: puntajes[fid], reverse=True)
    nuevas = [pk for pk in dict.fromkeys(anclas) if pk not in orden[:CANDIDATOS_REORDENADOS]]
    cabeza = orden[: CANDIDATOS_REORDENADOS - len(nuevas)]
    return cabeza + nuevas + [pk for pk in orden[len(cabeza) :] if pk not in nuevas]


def anclas_de_familias(
    base: QuerySet[FragmentoLegal],
    familias: tuple[str, ...],
    vector: np.ndarray | None,
    lexemas: Sequence[str] = (),
    *,
    por_omision: bool = False,
) -> list[int]:
    """Artículos completos de ley o reglamento de la clase que pide cada familia de la pregunta
    (`familias.anclas`): los `ANCLAS_POR_FAMILIA` más cercanos a la pregunta y los que la pregunta
    nombra por su epígrafe (`lexemas`, con la jerga ya traducida: «desviar una quebrada» trae
    «modificaciones de cauce», el epígrafe del PAS del Art. 156 del DS 40, que la similitud deja
    lejos). Una pregunta por los efectos que exigen un EIA trae el art. 11 de la Ley 19.300 aunque la
    similitud y las palabras lo dejen fuera de los candidatos. El reordenador decide después si sirven."""
    if not familias or vector is None:
        return []
    cercanas = anclas_por_cercania(familias, vector)
    todas = set().union(*cercanas.values())
    if not todas:
        return []
    # Solo pueden ser nombradas por su epígrafe las que comparten con la pregunta algún lexema de él.
    dichos = set(lexemas)
    nombrables = sorted(pk for pk, suyos in lexemas_de_epigrafes(sorted(todas)).items() if suyos & dichos)
    ventana = ANCLAS_POR_FAMILIA * 4
    while True:
        # Los filtros de la búsqueda se aplican a las primeras de cada familia; si dejan menos de las
        # necesarias y había más, se mira más lejos.
        revisar = {pk for ids in cercanas.values() for pk in ids[:ventana]} | set(nombrables)
        admitidas = fragmentos_admitidos(base, revisar, por_omision=por_omision)
        elegidas: list[int] = []
        completas = True
        for ids in cercanas.values():
            primeras = [pk for pk in ids[:ventana] if pk in admitidas][:ANCLAS_POR_FAMILIA]
            completas &= len(primeras) == ANCLAS_POR_FAMILIA or len(ids) <= ventana
            elegidas.extend(primeras)
        if completas:
            break
        ventana *= 4
    nombradas = _nombradas_por_su_epigrafe([pk for pk in nombrables if pk in admitidas], lexemas)
    return elegidas + [pk for pk in nombradas if pk not in elegidas]


def _nombradas_por_su_epigrafe(ids: list[int], lexemas: Sequence[str]) -> list[int]:
    """Las anclas cuyo epígrafe dice la pregunta: al menos `EPIGRAFE_NOMBRADO` de su peso IDF está en
    los lexemas de la pregunta, las más dichas primero (a lo más `ANCLAS_POR_FAMILIA`)."""
    propios = lexemas_de_epigrafes(ids)
    if not propios or not lexemas:
        return []
    idf, _ = idf_y_conocidos(sorted(set(lexemas).union(*propios.values())))
    consulta = set(lexemas)
    dichas = []
    for pk, suyos in propios.items():
        total = sum(idf[lexema] for lexema in suyos)
        dicho = sum(idf[lexema] for lexema in suyos & consulta)
        if total and dicho / total >= EPIGRAFE_NOMBRADO:
            dichas.append((dicho / total, pk))
    return [pk for _, pk in sorted(dichas, reverse=True)[:ANCLAS_POR_FAMILIA]]


def reordenados_por_el_reordenador(
    puntajes: dict[int, float],
    consulta: str,
    lexemas: list[str],
    familias: tuple[str, ...],
    densos: list[tuple[int, float]],
    textuales: list[tuple[int, float]],
    anclas_: list[int],
) -> tuple[dict[int, float], dict[int, Candidato]]:
    """Puntaje del reordenador para los primeros candidatos de la fusión y las anclas de la familia
    (el resto queda debajo), y cada candidato reordenado (con su mejor oración)."""
    puntajes = {**{pk: 0.0 for pk in anclas_}, **puntajes}
    orden = orden_a_reordenar(puntajes, anclas_)
    candidatos = reordenar(
        lexemas=lexemas,
        familias=familias,
        densos=[pk for pk, _ in densos],
        textuales=[pk for pk, _ in textuales],
        orden_inicial=orden,
        consulta_texto=consulta,
    )
    reordenados = {c.fragmento_id: c.puntaje for c in candidatos}
    piso = min(reordenados.values(), default=0.0) - 1.0
    return (
        {fid: reordenados.get(fid, piso + puntaje) for fid, puntaje in puntajes.items()},
        {c.fragmento_id: c for c in candidatos},
    )


def fusionar(densos: list[tuple[int, float]], textuales: list[tuple[int, float]]) -> dict[int, float]:
    """RRF ponderada: el texto completo de PostgreSQL es más débil que BM25, así que pesa menos."""
    puntajes: dict[int, float] = {}
    for peso, candidatos in ((PESO_DENSO, densos), (PESO_TEXTO, textuales)):
        for posicion, (fragmento_id, _) in enumerate(candidatos):
            puntajes[fragmento_id] = puntajes.get(fragmento_id, 0.0) + peso / (RRF_K + posicion + 1)
    return puntajes


REALCE_CITADO = 0.2  # el artículo (o la letra) que la pregunta cita
REALCE_DESARROLLO = 0.1  # el artículo del Reglamento que desarrolla el citado de la ley, o al revés


def fragmentos_citados(
    base: QuerySet[FragmentoLegal], referencias: Referencias, puntajes: Mapping[int, float] | None = None
) -> dict[int, float]:
    """Realce para lo que la pregunta cita: artículo (y letra) en la norma citada, y el artículo que lo
    desarrolla (Ley 19.300 Art. 11 d) ↔ DS 40 Art. 8).

    Si la pregunta no nombra la norma («el art. 11 d)»), el artículo es el de la norma cuyo fragmento
    citado más calza con el resto de la pregunta (`puntajes`), y a igual calce el de la norma de más
    peso: «reasentamiento, art. 11 c)» es la Ley 19.300 y no el Art. 11 c) de otra ley."""
    if not referencias.articulo:
        return {}
    filtro = base.filter(articulo=referencias.articulo)
    if referencias.normas:
        filtro = filtro.filter(norma__sigla__in=referencias.normas)
    filas = list(filtro.values_list("pk", "letra", "norma__sigla", "norma__peso_busqueda"))
    if not referencias.normas:
        filas = _de_la_norma_que_calza(filas, referencias.letra, puntajes or {})
    realces = _realces_del_articulo(
        [(pk, letra) for pk, letra, _, _ in filas], referencias.letra, REALCE_CITADO
    )
    for sigla in {sigla for _, _, sigla, _ in filas}:
        if desarrollado := desarrollo(sigla, referencias.articulo, referencias.letra):
            norma, articulo, letra = desarrollado
            # del artículo que lo desarrolla, todo con igual realce: el resto de la pregunta elige la letra
            # que responde («la libre circulación» es la letra b) del DS 40 Art. 7)
            del_desarrollo = base.filter(norma__sigla=norma, articulo=articulo)
            if letra:
                del_desarrollo = del_desarrollo.filter(letra__in=(letra, ""))
            for pk in del_desarrollo.values_list("pk", flat=True):
                realces[pk] = max(realces.get(pk, 0.0), REALCE_DESARROLLO)
    return realces


def _realces_del_articulo(filas: list[tuple[int, str]], letra_citada: str, realce: float) -> dict[int, float]:
    """El encabezado del artículo, o la letra citada, con el realce entero; las otras letras, poco."""
    realces: dict[int, float] = {}
    for pk, letra in filas:
        if letra_citada:
            realces[pk] = realce if letra == letra_citada else (realce / 4 if not letra else 0.0)
        else:
            realces[pk] = realce if not letra else realce * 0.15
    return {pk: valor for pk, valor in realces.items() if valor > 0}


def _de_la_norma_que_calza(
    filas: list[tuple[int, str, str, float]], letra: str, puntajes: Mapping[int, float]
) -> list[tuple[int, str, str, float]]:
    """Las filas de una sola norma: la que tiene el artículo (y la letra) citado, calza más con la
    pregunta y, a igual calce, pesa más."""
    por_norma: dict[str, tuple[float, float]] = {}
    for pk, letra_fila, sigla, peso in filas:
        if letra and letra_fila != letra:
            continue
        calce, _ = por_norma.get(sigla, (0.0, peso))
        por_norma[sigla] = (max(calce, puntajes.get(pk, 0.0)), peso)
    if not por_norma:
        return filas
    elegida = max(por_norma, key=lambda sigla: por_norma[sigla])
    return [fila for fila in filas if fila[2] == elegida]


def definiciones(base: QuerySet[FragmentoLegal], termino: str) -> dict[int, float]:
    """Realce para la definición legal del término por el que se pregunta («¿Qué es una DIA?»).

    Las definiciones son las letras con `termino_definido` (artículos cuyo encabezado dice «se
    entenderá por»); el término se compara sin tildes ni mayúsculas, con las siglas expandidas, y con
    tolerancia a plurales.
    """
    # «DIA» se compara como «DIA (Declaración de Impacto Ambiental)» y como «Declaración de Impacto…».
    buscados = {_normalizar_termino(expandir_siglas(termino)), _normalizar_termino(nombrar_siglas(termino))}
    candidatos = base.filter(termino_definido__gt="").values_list(
        "pk", "termino_definido", "norma__peso_busqueda"
    )
    realces: dict[int, float] = {}
    for pk, definido, peso in candidatos:
        nombre = _normalizar_termino(definido)
        formas = (nombre, nombre.split(" o ")[0])
        similitud = max(fuzz.ratio(buscado, forma) for buscado in buscados for forma in formas)
        if any(_con_complemento(buscado, forma) for buscado in buscados for forma in formas):
            similitud = max(similitud, SIMILITUD_CON_COMPLEMENTO)
        if similitud >= UMBRAL_DEFINICION:
            realces[pk] = REALCE_DEFINICION * peso * similitud / 100
    return realces


# La pregunta puede nombrar el término definido seguido de su complemento («… de un proyecto», «… de
# la faena»): pregunta por el término. Solo términos de dos palabras o más: «zona» no es «zona saturada».
SIMILITUD_CON_COMPLEMENTO = 95


def _con_complemento(buscado: str, definido: str) -> bool:
    return len(definido.split()) >= 2 and re.match(rf"{re.escape(definido)} (de|del) ", buscado) is not None


def _normalizar_termino(texto: str) -> str:
    sin_parentesis = re.sub(r"\(([^)]*)\)", r" \1 ", sin_tildes(texto))
    palabras = [p for p in re.findall(r"[a-zñ0-9]+", sin_parentesis) if p not in _ARTICULOS]
    return " ".join(p.rstrip("s") if len(p) > 3 else p for p in palabras)


# «modificación de un proyecto» es «modificación de proyecto»: los artículos no distinguen términos.
_ARTICULOS = frozenset({"un", "una", "unos", "unas", "el", "la", "los", "las"})


def agrupar_letras(
    base: QuerySet[FragmentoLegal], ordenados: list[int], puntajes: dict[int, float]
) -> list[int]:
    """En una pregunta por una lista (familia «composicion»: quiénes integran un consejo, qué
    atribuciones tiene un organismo), si `LETRAS_QUE_AGRUPAN` letras distintas de un mismo artículo
    (o una y el artículo mismo) están entre los primeros `VENTANA_DE_LETRAS`, la respuesta es el
    artículo: el artículo completo toma el lugar (y el puntaje) de su mejor letra y las demás letras
    salen: una lista no ocupa sola los primeros lugares y el artículo vecino que responde no queda
    fuera. En otras preguntas las letras son disposiciones aparte (las definiciones del Art. 2, las
    tipologías del Art. 3). Los numerales de una letra («i.1», «i.5.2») son una letra."""
    ventana = ordenados[:VENTANA_DE_LETRAS]
    filas = FragmentoLegal.objects.filter(pk__en_arreglo=ventana).exclude(articulo="")
    # un artículo transitorio no es el artículo permanente del mismo número
    letras: dict[tuple[int, str, bool], set[str]] = {}
    enteros: set[tuple[int, str, bool]] = set()
    for norma_id, articulo, transitorio, letra in filas.order_by().values_list(
        "norma_id", "articulo", "transitorio", "letra"
    ):
        if letra:
            letras.setdefault((norma_id, articulo, transitorio), set()).add(letra.split(".")[0])
        else:
            enteros.add((norma_id, articulo, transitorio))
    # también una sola letra si el artículo entero está cerca: la lista es él, no la letra que más se
    # parece a la pregunta («¿qué criterios…?» no es «i) Todo otro criterio…»)
    agrupados = [
        clave
        for clave, distintas in letras.items()
        if len(distintas) >= LETRAS_QUE_AGRUPAN or clave in enteros
    ]
    if not agrupados:
        return ordenados
    filtro = Q()
    for norma_id, articulo, transitorio in agrupados:
        filtro |= Q(norma_id=norma_id, articulo=articulo, transitorio=transitorio)
    del_articulo: dict[int, tuple[int, str, bool]] = {}
    completos: dict[tuple[int, str, bool], int] = {}
    for pk, norma_id, articulo, transitorio, letra in base.filter(filtro).values_list(
        "pk", "norma_id", "articulo", "transitorio", "letra"
    ):
        if letra:
            del_articulo[pk] = (norma_id, articulo, transitorio)
        else:
            completos[(norma_id, articulo, transitorio)] = pk
    nuevo: list[int] = []
    for pk in ordenados:
        completo = completos.get(del_articulo[pk]) if pk in del_articulo else None
        if completo is None:
            nuevo.append(pk)  # no es letra de un artículo agrupado (o es el artículo mismo)
            continue
        puntajes[completo] = max(puntajes.get(completo, puntajes[pk]), puntajes[pk])
        nuevo.append(completo)
    return list(dict.fromkeys(nuevo))


def diversificar(ordenados: list[int], top_k: int) -> list[int]:
    """A lo más `POR_ARTICULO` fragmentos de la misma disposición (artículo, o letra de un artículo), o
    de secciones de guía con el mismo título.

    Las guías del SEA repiten secciones genéricas con el mismo título («1.1 Alcances generales de la
    evaluación de impacto ambiental» está en casi todas): se cuentan juntas, sin importar la guía.
    """
    filas = (
        FragmentoLegal.objects.filter(pk__en_arreglo=ordenados)
        .order_by()
        .values_list("pk", "norma_id", "articulo", "letra", "jerarquia")
    )
    # Las letras de un artículo son disposiciones distintas (las tipologías del Art. 10): cuentan
    # aparte; los numerales de una misma letra («o.4», «o.5») cuentan juntos.
    claves = {
        pk: f"{norma_id}:{articulo}:{letra.split('.')[0]}" if articulo else _titulo_de_seccion(jerarquia)
        for pk, norma_id, articulo, letra, jerarquia in filas
    }
    elegidos: list[int] = []
    conteo: dict[str, int] = {}
    for pk in ordenados:
        clave = claves.get(pk)
        if clave is None or conteo.get(clave, 0) >= POR_ARTICULO:
            continue
        conteo[clave] = conteo.get(clave, 0) + 1
        elegidos.append(pk)
        if len(elegidos) == top_k:
            break
    return elegidos


def _titulo_de_seccion(jerarquia: list[str]) -> str:
    """«1.1 Alcances generales de la EIA» → «alcances generales de la eia» (sin numeración)."""
    titulo = jerarquia[-1] if jerarquia else ""
    return "seccion:" + _normalizar_termino(re.sub(r"^[\d.\s]+", "", titulo))
