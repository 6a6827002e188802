"""Segunda etapa de la búsqueda: reordena los primeros candidatos con rasgos que se pueden explicar.

No hay en los registros de paquetes un cross-encoder multilingüe que traiga sus pesos dentro del
paquete (los que existen, como flashrank, los descargan al usarse, y esta máquina no puede). Este
reordenador es lineal y transparente: cada candidato recibe la suma ponderada de rasgos en [0, 1],
con los pesos de `PESOS`, ajustados con `manage.py ajustar_reordenador` sobre los conjuntos de
desarrollo y propios (ver `docs/busqueda_normativa.md`).

Rasgos de cada candidato:
- `denso`, `texto`: su posición en la búsqueda densa y en BM25 (1 el primero, decae como RRF);
- `oracion`: la mejor oración del fragmento, medida por la fracción del peso IDF de las palabras de
  la pregunta que contiene (la respuesta suele estar en una oración de un artículo largo); una letra
  se lee con el inicio de su artículo («Los proyectos … que deberán someterse al sistema de
  evaluación …, son los siguientes:»), que le da su sentido;
- `epigrafe`: fracción del peso IDF del encabezado del artículo («Reserva de información») o del
  título de la sección de la guía que aparece en la pregunta;
- `frase`: fracción de los pares de palabras seguidas de la pregunta («Consejo de Ministros»,
  «cambio climático») que el fragmento, el inicio de su artículo, su epígrafe o los títulos de su
  sección traen también seguidas: el nombre de una institución o de un trámite se dice entero, y
  «Consejo Nacional para la Sustentabilidad» no es «Consejo de Ministros para la Sustentabilidad»;
- `familia`: el fragmento es de la clase que pide la familia de la pregunta (ver `familias`);
- `plazo`: pregunta de plazo y su mejor oración trae una expresión de tiempo («quince días»);
- `jerarquia`: el peso de búsqueda de la norma (ley 1, reglamento 0,9, guía 0,5);
- `organo`: la pregunta nombra un órgano (la Superintendencia, un Tribunal Ambiental, el Servicio de
  Biodiversidad) y el fragmento es de la ley que lo crea y le da sus potestades (`glosario`);
- `modificatorio`, `transitorio`: artículos que modifican otras normas o regulan la entrada en
  vigencia; rara vez son la respuesta a una pregunta de hoy, así que restan;
- `instrumento_ajeno`: la pregunta habla de un solo instrumento (la DIA o el EIA) y el fragmento
  solo del otro («la Declaración» y «el Estudio» tienen procedimientos paralelos, con plazos
  distintos: el del otro es una respuesta equivocada que se parece mucho);
- `lista_de_contenidos`: una letra de una lista de contenidos o antecedentes («Los contenidos
  técnicos y formales … son los siguientes: a) …») cuando la pregunta no pide contenidos: la
  respuesta está en el artículo (qué permiso es, de qué ley), no en un punto de su lista;

Y una regla después de sumar: **la ley antes que el reglamento que la reproduce**. El DS 40 repite
artículos de la Ley 19.300 casi al pie de la letra (el art. 77 es el art. 20, el 65 es el 21) y, por
tener epígrafe y ser más corto, suele ganarle; la base legal es la ley. Si un fragmento de reglamento
está sobre uno de ley que reproduce (`REPRODUCE` de las secuencias de cuatro palabras del más corto
están en el otro, y al menos `COMPARTIDAS_MINIMAS`; si uno es letra y el otro artículo, las del
reglamento), el de ley que más comparte sube justo por encima.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

from config.texto import sin_tildes
from normativa.busqueda.analisis import VACIO, analizar, idf_de, idf_por_raiz
from normativa.busqueda.articulos import Fila, anuncia_contenidos, anuncio_de, encabezados_de, filas_de
from normativa.busqueda.extracto import Consulta, elegir
from normativa.busqueda.familias import FAMILIAS, tiene_tiempo, tramites_de
from normativa.busqueda.instrumentos import (
    OTRO,
    instrumento_de,
    instrumento_del_fragmento,
    leer_instrumentos_de_parrafos,
)
from normativa.busqueda.preguntas import lo_que_pregunta
from normativa.glosario import NORMA_DEL_ORGANO, normas_de_los_organos
from normativa.models import Norma
from normativa.oraciones import VERSION, oraciones_de, raiz

CANDIDATOS_REORDENADOS = 80
RRF_K = 10
PARTE_MINIMA = 0.1  # del peso IDF de la pregunta que un epígrafe debe explicar para contar entero
REPRODUCE = 0.4  # fracción de las secuencias de cuatro palabras de un texto que están en el otro
COMPARTIDAS_MINIMAS = 12  # una letra corta («a) Administrar el SEIA») no hace copia a un artículo
CANDIDATOS_COPIA = 30  # la regla mira solo los primeros: es la que ordena lo que se muestra
PESOS: dict[str, float] = {
    "denso": 1.0,
    "texto": 0.8,
    "oracion": 1.0,
    "epigrafe": 0.6,
    "familia": 0.8,
    "plazo": 0.8,
    "jerarquia": 3.0,
    "modificatorio": -1.5,
    "transitorio": -1.0,
    "instrumento_ajeno": -1.0,
    "lista_de_contenidos": -0.6,
    "frase": 0.2,
    "organo": 0.5,
    "organo_ajeno": -1.5,
    "regimen_interno": -1.0,
}
# El personal y el patrimonio de un servicio (Ley 20.417, Párrafos 3º y 4º; Ley 21.600, Párrafos 3° y
# 4°): reglas internas del órgano, que no responden a quien es fiscalizado o evaluado («la infracción
# cometida por el personal» no es la del titular) salvo que la pregunta hable de ese personal.
_REGIMEN_INTERNO = re.compile(r"^parrafo \S+ del? (regimen del )?(personal|patrimonio)$")
_PREGUNTA_POR_EL_PERSONAL = re.compile(
    r"\b(personal|funcionari\w*|fiscalizador\w*|inspector\w*|trabajador\w*|patrimonio|presupuesto)\b"
)


@dataclass
class Candidato:
    fragmento_id: int
    rasgos: dict[str, float] = field(default_factory=dict)
    puntaje: float = 0.0
    oracion: str = ""  # la que mejor responde; su cobertura es el rasgo `oracion`
    # La cobertura de esa oración sin las palabras con que se pide un plazo («cuántos días»): cuánto
    # del tema de la pregunta trae. Un plazo de otro trámite cubre «días» pero no el tema.
    tema: float = 0.0
    # La mejor cobertura entre las oraciones del extracto (la del plazo puede cubrir poco y la que la
    # acompaña, el resto): cuánto de la pregunta responde lo que se muestra.
    cobertura_extracto: float = 0.0
    epigrafe: str = ""  # el del artículo («Consulta de pertinencia de ingreso»), si lo tiene
    reproduce: int | None = None  # el fragmento de ley que este de reglamento reproduce


def reordenar(
    *,
    lexemas: list[str],
    familias: tuple[str, ...],
    densos: list[int],
    textuales: list[int],
    orden_inicial: list[int],
    pesos: dict[str, float] | None = None,
    consulta_texto: str = "",
) -> list[Candidato]:
    """Reordena los primeros `CANDIDATOS_REORDENADOS` de `orden_inicial` (mejor primero).
    `consulta_texto` (la pregunta con sus siglas expandidas) da el orden de sus palabras, para el
    rasgo `frase`.

    Lo que depende solo del texto de un fragmento (sus oraciones, sus raíces, sus pares de palabras,
    su forma sin tildes) se calcula una vez por proceso (`analisis.analizar`); por pregunta quedan operaciones
    de conjuntos sobre eso, independientes del tamaño del corpus."""
    pesos = pesos or PESOS
    ids = orden_inicial[:CANDIDATOS_REORDENADOS]
    if not ids:
        return []
    preguntas = lo_que_pregunta(consulta_texto) if consulta_texto else []
    filas = filas_de(ids)
    encabezados, inicios, antesalas = encabezados_de(list(filas.values()))
    instrumento = instrumento_de(set(map(raiz, lexemas)), consulta_texto)
    if instrumento:
        leer_instrumentos_de_parrafos(filas.values())
    idf = idf_por_raiz(idf_de(lexemas))
    # las que guardó la ingesta; las de un fragmento de otra versión del análisis, calculadas aquí
    oraciones = {
        pk: f.oraciones if f.analisis == VERSION else list(oraciones_de(f.texto)) for pk, f in filas.items()
    }
    titulos = {pk: [t for t in f.jerarquia if t] for pk, f in filas.items()}
    textos = analizar(
        [o for lista in oraciones.values() for o in lista]
        + list(encabezados.values())
        + list(inicios.values())
        + [t for lista in titulos.values() for t in lista]
        + [consulta_texto]
        + preguntas,
        # las oraciones que la ingesta ya analizó no se vuelven a lematizar
        analizados=(
            par
            for f in filas.values()
            if f.analisis == VERSION
            for par in zip(f.oraciones, f.raices, strict=True)
        ),
    )
    posicion_densa = {pk: i for i, pk in enumerate(densos)}
    posicion_texto = {pk: i for i, pk in enumerate(textuales)}
    pide_plazo = "plazo" in familias
    # el trámite cuyo plazo se pregunta («¿cuánto demora la admisión a trámite?»)
    tramites = tramites_de(consulta_texto, pregunta=True) if pide_plazo else frozenset()
    lo_preguntado = Consulta.de(
        idf=idf, texto=consulta_texto, preguntas=preguntas, textos=textos, pide_plazo=pide_plazo
    )
    consulta = lo_preguntado.raices
    del_organo = normas_de_los_organos(consulta_texto)
    por_el_personal = bool(_PREGUNTA_POR_EL_PERSONAL.search(sin_tildes(consulta_texto)))
    candidatos = []
    for pk in ids:
        fragmento = filas.get(pk)
        if fragmento is None:
            continue
        extracto = elegir(oraciones[pk], textos, lo_preguntado, textos.get(inicios.get(pk, ""), VACIO))
        pares = set(extracto.pares)
        mejor = [oraciones[pk][i] for i in extracto.posiciones]
        if anuncio := anuncio_de(antesalas.get(pk, "")):
            # una letra se lee con lo que la anuncia («… las siguientes medidas provisionales: c) Clausura
            # temporal…»): sin eso, «clausura temporal» no dice que es una medida provisional
            mejor = [anuncio, *mejor]
        encabezado = encabezados.get(pk, "")
        for texto in [encabezado, inicios.get(pk, ""), *titulos[pk]]:
            if texto and len(textos[texto].raices & consulta) >= 2:
                pares |= textos[texto].pares & lo_preguntado.pares
        ajeno = bool(instrumento) and instrumento_del_fragmento(fragmento) == OTRO[instrumento]
        rasgos = {
            "denso": _rrf(posicion_densa.get(pk)),
            "texto": _rrf(posicion_texto.get(pk)),
            "oracion": extracto.cobertura,
            "epigrafe": _cobertura_del_encabezado(
                textos[encabezado].raices if encabezado else frozenset(), consulta, idf
            ),
            "frase": len(pares) / len(lo_preguntado.pares) if lo_preguntado.pares else 0.0,
            "familia": float(
                bool(
                    _familias_afines("\n".join((encabezado, inicios.get(pk, ""), fragmento.texto[:300])))
                    & set(familias)
                )
                # el mismo trámite del otro instrumento (la Adenda del Estudio si se pregunta por la de
                # la Declaración) no es el trámite preguntado
                or (not ajeno and _plazo_del_tramite(oraciones[pk], tramites))
            ),
            "plazo": float(pide_plazo and _tiene_tiempo(" ".join(mejor))),
            "jerarquia": fragmento.peso_busqueda,
            "organo": float(
                fragmento.sigla in del_organo and not (fragmento.modificatorio or fragmento.transitorio)
            ),
            "organo_ajeno": float(bool(del_organo) and fragmento.sigla in _LEYES_DE_ORGANOS - del_organo),
            "regimen_interno": float(
                not por_el_personal and any(_REGIMEN_INTERNO.match(sin_tildes(t)) for t in titulos[pk])
            ),
            "modificatorio": float(fragmento.modificatorio),
            "transitorio": float(fragmento.transitorio),
            "instrumento_ajeno": float(ajeno),
            "lista_de_contenidos": float(bool(fragmento.letra) and anuncia_contenidos(antesalas.get(pk, ""))),
        }
        candidatos.append(
            Candidato(
                pk,
                rasgos=rasgos,
                puntaje=sum(pesos.get(nombre, 0.0) * valor for nombre, valor in rasgos.items()),
                oracion=" ".join(mejor),
                epigrafe=encabezado if fragmento.articulo else "",
                tema=extracto.tema,
                cobertura_extracto=extracto.cobertura_extracto,
            )
        )
    _marcar_copias(candidatos, filas)
    for candidato, puntaje in zip(
        candidatos, la_ley_primero([c.puntaje for c in candidatos], copias(candidatos)), strict=True
    ):
        if puntaje != candidato.puntaje:
            candidato.puntaje, candidato.rasgos["reproducido"] = puntaje, 1.0
    candidatos.sort(key=lambda c: c.puntaje, reverse=True)
    return candidatos


def copias(candidatos: list[Candidato]) -> list[tuple[int, int]]:
    """Los pares (reglamento, ley) de la última reordenación, como posiciones en `candidatos`; el
    ajuste de pesos los usa para aplicar `la_ley_primero` igual que la búsqueda."""
    posicion = {c.fragmento_id: i for i, c in enumerate(candidatos)}
    return [
        (posicion[c.fragmento_id], posicion[c.reproduce])
        for c in candidatos
        if c.reproduce is not None and c.reproduce in posicion
    ]


def la_ley_primero(puntajes: list[float], pares: list[tuple[int, int]]) -> list[float]:
    """Con los pares (reglamento, ley que reproduce), la ley sube justo por encima del reglamento
    que la reproduce, si estaba debajo; los reglamentos se recorren del mejor al peor."""
    nuevos = list(puntajes)
    for reglamento, ley in sorted(pares, key=lambda par: puntajes[par[0]], reverse=True):
        if nuevos[ley] < nuevos[reglamento]:
            nuevos[ley] = nuevos[reglamento] + 1e-3
    return nuevos


def _marcar_copias(candidatos: list[Candidato], filas: dict[int, Fila]) -> None:
    """Anota en cada fragmento de reglamento entre los candidatos (`reproduce`) el de ley que
    reproduce (ver el docstring del módulo), si alguno: el que más cuaternas comparte con él."""
    tipos = {pk: f.tipo for pk, f in filas.items() if not f.modificatorio}
    primeros = sorted(candidatos, key=lambda c: c.puntaje, reverse=True)[:CANDIDATOS_COPIA]
    leyes = [c.fragmento_id for c in primeros if tipos.get(c.fragmento_id) == Norma.Tipo.LEY]
    reglamentos = [c for c in primeros if tipos.get(c.fragmento_id) == Norma.Tipo.DECRETO]
    if not leyes or not reglamentos:
        return
    de_la_ley = {pk: _cuaternas(filas[pk].texto) for pk in leyes}
    for reglamento in reglamentos:
        del_reglamento = _cuaternas(filas[reglamento.fragmento_id].texto)
        mejor: tuple[int, int] | None = None
        for ley in leyes:
            compartidas = len(del_reglamento & de_la_ley[ley])
            # Entre artículos (o entre letras), basta que uno esté en el otro: el reglamento suele
            # copiar la ley y agregarle detalle. Una letra de la ley dentro de un artículo entero del
            # reglamento no basta: la mayor parte del reglamento tiene que estar en ella.
            mismo_nivel = bool(filas[ley].letra) == bool(filas[reglamento.fragmento_id].letra)
            base = min(len(del_reglamento), len(de_la_ley[ley])) if mismo_nivel else len(del_reglamento)
            if compartidas >= max(COMPARTIDAS_MINIMAS, REPRODUCE * base) and (
                mejor is None or compartidas > mejor[0]
            ):
                mejor = (compartidas, ley)
        if mejor is not None:
            reglamento.reproduce = mejor[1]


def _cuaternas(texto: str, largo: int = 4) -> frozenset[tuple[str, ...]]:
    """Las secuencias de cuatro palabras seguidas del texto (tal cual, no raíces): miden la copia.
    Sin quitar tildes: la copia las conserva, y quitarlas en artículos largos costaba decenas de ms.
    Una vez por texto y proceso."""
    palabras = re.findall(r"\w+", texto.lower())
    return frozenset(tuple(palabras[i : i + largo]) for i in range(len(palabras) - largo + 1))


def _rrf(posicion: int | None) -> float:
    return 0.0 if posicion is None else (RRF_K + 1) / (RRF_K + 1 + posicion)


# Lo que se pregunta de un texto entero (el inicio de un fragmento, lo que anuncia una lista, las
# oraciones elegidas), una vez por texto y proceso.
@functools.lru_cache(maxsize=50_000)
def _familias_afines(texto: str) -> frozenset[str]:
    plegado = sin_tildes(texto)
    return frozenset(f.nombre for f in FAMILIAS if f.afinidad.search(plegado))


def _plazo_del_tramite(oraciones: list[str], tramites: frozenset[str]) -> bool:
    """Indica si alguna oración pone el plazo de uno de los `tramites` preguntados: el artículo es de
    la familia «plazo» aunque no empiece por él («Admisión a trámite. El procedimiento se iniciará…»
    dice en su segundo inciso los cinco días para admitir). Solo el plazo del trámite preguntado: con
    cualquier plazo de cualquier inciso, todo artículo con un plazo compite en toda pregunta de plazo."""
    return bool(tramites) and any(tramites & _tramites_con_plazo(o) for o in oraciones)


@functools.lru_cache(maxsize=50_000)
def _tramites_con_plazo(oracion: str) -> frozenset[str]:
    return tramites_de(oracion) if _tiene_tiempo(oracion) else frozenset()


@functools.lru_cache(maxsize=50_000)
def _tiene_tiempo(texto: str) -> bool:
    return tiene_tiempo(sin_tildes(texto))


_LEYES_DE_ORGANOS = frozenset(norma for _, norma in NORMA_DEL_ORGANO)


def _cobertura_del_encabezado(
    encabezado: AbstractSet[str], consulta: AbstractSet[str], idf: dict[str, float]
) -> float:
    if not encabezado:
        return 0.0
    comunes = encabezado & consulta
    if not comunes:
        return 0.0
    # Peso de un lexema del encabezado que no está en la pregunta: el IDF medio de la pregunta.
    medio = sum(idf.values()) / len(idf) if idf else 1.0
    total = math.fsum(idf.get(lex, medio) for lex in encabezado)  # exactas: sin depender del orden
    comun = math.fsum(idf[lex] for lex in comunes)
    del_encabezado = comun / total if total else 0.0
    de_la_pregunta = comun / (sum(idf.values()) or 1.0)
    # Un epígrafe de una palabra común («Presentación») calza entero con «presentar», pero explica muy
    # poco de una pregunta larga: cuenta en proporción hasta que explica `PARTE_MINIMA` de ella.
    return del_encabezado * min(1.0, de_la_pregunta / PARTE_MINIMA)
