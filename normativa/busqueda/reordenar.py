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
import itertools
import math
import re
from collections.abc import Callable, Iterable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

from django.db import connection
from django.db.models import Q

from config.texto import sin_tildes
from normativa.busqueda.familias import (
    ASPECTOS,
    FAMILIAS,
    RAICES_DE_PLAZO,
    acciones_del_plazo,
    aspectos_de,
    hace_en_el_plazo,
    tiene_tiempo,
)
from normativa.busqueda.preguntas import lo_que_pregunta
from normativa.glosario import NORMA_DEL_ORGANO, normas_de_los_organos
from normativa.models import FragmentoLegal, Norma
from normativa.oraciones import (
    LARGO_RAIZ,
    VERSION,
    continua_la_anterior,
    oraciones_de,
    raices_en_orden,
    raiz,
)
from normativa.selectors import estadisticas_de_lo_buscado, estado_del_corpus, por_estado_del_corpus

CANDIDATOS_REORDENADOS = 80
# Una oración puntuada: (preferencia, cobertura, posición, texto, tema).
_Puntuada = tuple[float, float, int, str, float]
RRF_K = 10
PREFERENCIA_PLAZO = 0.3  # al elegir la oración: una con «quince días» gana a otra algo más parecida
SEGUNDA_ORACION = 0.7  # una segunda oración entra si alcanza el 70 % de la preferencia de la mejor
MAXIMO_ELEGIDAS = 3  # oraciones de un fragmento en su extracto (la mejor, la casi igual y un aspecto)
PREGUNTA_CUBIERTA = (
    0.5  # parte del peso de una pregunta de la consulta que deben traer las oraciones elegidas
)
CASOS_QUE_SIGUEN = 2  # oraciones que siguen a las elegidas por depender de ellas o ser casos de su regla
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

_ENCABEZADO = re.compile(r"^\s*art[ií]culo\s+[^\n]{1,40}?\.?-\s*\n([^\n]{3,140}?)\.(\s|$)", re.IGNORECASE)
_PUNTO_SEGUIDO = re.compile(r"(?<=\.)\s+(?=[A-ZÁÉÍÓÚÑ])")
# La primera división del artículo: su letra a) o, si sus divisiones son números con letras adentro
# («1. En el caso de las infracciones gravísimas: a) Multa…»), su número 1: lo que la anuncia es lo
# anterior al número, no la primera línea del número.
_PRIMERA_DIVISION = re.compile(r"\n\s*(a\)|1(\.-?|\)))\s")
LARGO_INICIO = 600  # el inicio de un artículo con letras es una o dos oraciones
LARGO_ANTESALA = 250  # lo que anuncia la lista: la oración justo antes de la letra a)
# «contendrá, al menos:», «deberá contener:», «los siguientes contenidos:»
_ANUNCIA_CONTENIDOS = re.compile(
    r"contenidos?|conte(ner|ndran?)|contienen?|antecedentes|requisitos|informacion"
)
# Los instrumentos se nombran con mayúscula en la ley y el reglamento («la Declaración», «el Estudio»).
_DECLARACION = re.compile(r"\bDeclaraci[oó]n(es)?\b")
_ESTUDIO = re.compile(r"\bEstudios?\b")


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
    su forma sin tildes) se calcula una vez por proceso (`_textos`); por pregunta quedan operaciones
    de conjuntos sobre eso, independientes del tamaño del corpus."""
    pesos = pesos or PESOS
    ids = orden_inicial[:CANDIDATOS_REORDENADOS]
    if not ids:
        return []
    preguntas = lo_que_pregunta(consulta_texto) if consulta_texto else []
    filas = _filas(ids)
    encabezados, inicios, antesalas = _encabezados(list(filas.values()))
    instrumento = _instrumento_de(set(map(raiz, lexemas)), consulta_texto)
    if instrumento:
        _leer_instrumentos_de_parrafos(filas.values())
    idf = _idf_por_raiz(_idf(lexemas))
    total_idf = sum(idf.values()) or 1.0
    # las que guardó la ingesta; las de un fragmento de otra versión del análisis, calculadas aquí
    oraciones = {
        pk: f.oraciones if f.analisis == VERSION else list(oraciones_de(f.texto)) for pk, f in filas.items()
    }
    titulos = {pk: [t for t in f.jerarquia if t] for pk, f in filas.items()}
    textos = _textos(
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
    pares_de_la_pregunta = _pares(list(textos[consulta_texto].secuencia)) if consulta_texto else set()
    posicion_densa = {pk: i for i, pk in enumerate(densos)}
    posicion_texto = {pk: i for i, pk in enumerate(textuales)}
    consulta = frozenset(idf)
    cortas = [raiz for raiz in consulta if len(raiz) < LARGO_RAIZ]
    pide_plazo = "plazo" in familias
    pide = aspectos_de(consulta_texto)
    del_organo = normas_de_los_organos(consulta_texto)
    por_el_personal = bool(_PREGUNTA_POR_EL_PERSONAL.search(sin_tildes(consulta_texto)))
    # las raíces de cada pregunta (y su forma sin diptongo: «aprueba» → «aprob»)
    por_pregunta = [_Preguntado.de(textos[p], idf) for p in preguntas]
    quien_hace = next((v for p in preguntas if (v := _verbo_de_quien(p))), "")
    accion = acciones_del_plazo(consulta_texto) if pide_plazo else frozenset()
    forma = {r for r in consulta if r in RAICES_DE_PLAZO} if pide_plazo else set()
    total_tema = math.fsum(idf[r] for r in consulta - forma) or 1.0
    candidatos = []
    for pk in ids:
        fragmento = filas.get(pk)
        if fragmento is None:
            continue
        puntuadas = []
        pares: set[tuple[str, str]] = set()
        del_inicio = textos.get(inicios.get(pk, ""), _VACIO)
        # Lo que el inicio del artículo (el de una letra) aporta a cada una de sus oraciones.
        del_inicio_comunes = del_inicio.raices & consulta
        if cortas and del_inicio is not _VACIO:
            del_inicio_comunes |= {corta for corta in cortas if corta in del_inicio.prefijos}
        for posicion, oracion in enumerate(oraciones[pk]):
            analisis = textos[oracion]
            propias = analisis.raices & consulta
            if posicion and _anuncia(oraciones[pk][posicion - 1]):
                # la lista se lee con lo que la anuncia («En el caso de las infracciones gravísimas:
                # a) Multa de hasta…»): sin eso, la multa de una categoría no dice cuál es
                propias |= textos[oraciones[pk][posicion - 1]].raices & consulta
            # un par de la pregunta necesita dos de sus palabras en el mismo texto
            if len(propias) >= 2 and pares_de_la_pregunta:
                pares |= analisis.pares & pares_de_la_pregunta
            comunes = propias | del_inicio_comunes
            if cortas:
                comunes |= {corta for corta in cortas if corta not in comunes and corta in analisis.prefijos}
            if not comunes:
                continue  # no cubre nada de la pregunta (todo IDF es positivo)
            # fsum: la suma exacta no depende del orden del conjunto (que cambia de un proceso a otro),
            # así dos oraciones que cubren lo mismo empatan en todos los workers
            valor = math.fsum(map(idf.__getitem__, comunes)) / total_idf
            # En una pregunta de plazo, la oración que trae el plazo es la respuesta.
            preferencia = valor + (PREFERENCIA_PLAZO if pide_plazo and analisis.tiempo else 0.0)
            tema = math.fsum(map(idf.__getitem__, comunes - forma)) / total_tema if forma else valor
            puntuadas.append((preferencia, valor, posicion, oracion, tema))
        # A igual preferencia, la que viene antes: el inicio del artículo dice la regla y lo que sigue
        # la detalla.
        puntuadas.sort(key=lambda o: (o[0], o[1], -o[2]), reverse=True)
        cobertura = puntuadas[0][1] if puntuadas else 0.0
        # La mejor oración y, si otra del mismo fragmento responde casi tanto, también esa (en el
        # orden del texto): la respuesta suele ocupar dos oraciones seguidas de un artículo largo.
        elegidas = [
            o for o in puntuadas[:2] if o is puntuadas[0] or o[0] >= SEGUNDA_ORACION * puntuadas[0][0]
        ]
        # Lo que la pregunta pide además del tema (el órgano, la consecuencia, la condición): si las
        # elegidas no lo dicen, entra la mejor oración del fragmento que sí.
        for aspecto in pide:
            responde = _responde_el(aspecto.nombre, textos)
            if aspecto.nombre == "quien" and quien_hace:
                # «¿quién lo aprueba?» lo responde la oración que nombra al órgano y lo que hace
                # («… al Ministerio del Medio Ambiente para su aprobación»), no cualquiera que lo nombre
                hace = _responde_quien_hace(quien_hace, textos)
                if any(map(hace, puntuadas)):
                    responde = hace
            if any(map(responde, elegidas)):
                continue
            if otra := next(filter(responde, puntuadas), None):
                elegidas.append(otra)
        # Con varias preguntas («¿Se puede pagar en cuotas? ¿Ante quién se pide?»), cada una con la mejor
        # oración que comparte sus palabras, si ninguna elegida las trae.
        por_preguntas: list[_Puntuada] = []
        for preguntado in por_pregunta:
            vistas = [textos[o[3]] for o in elegidas + por_preguntas]
            if preguntado.cubierta(vistas):
                continue
            faltan = set(preguntado.pesos) - preguntado.traidas(vistas)
            if otra := next((o for o in puntuadas if preguntado.trae(textos[o[3]]) & faltan), None):
                por_preguntas.append(otra)
        # Y en una pregunta de plazo, la oración con el plazo de lo que se hace en él («¿en qué plazo
        # debe resolver…?»: «La autoridad competente resolverá… en un plazo de treinta o sesenta días»),
        # si las elegidas solo traen el de otro trámite del artículo (reclamar ante el Tribunal)
        if (
            accion
            and not any(hace_en_el_plazo(accion, o[3]) for o in elegidas)
            and (otra := next((o for o in puntuadas if hace_en_el_plazo(accion, o[3])), None))
        ):
            elegidas.insert(1, otra)
        tema = max((o[4] for o in elegidas[:MAXIMO_ELEGIDAS]), default=0.0)
        cobertura_extracto = max((o[1] for o in elegidas[:MAXIMO_ELEGIDAS]), default=0.0)
        posiciones = sorted({o[2] for o in elegidas[:MAXIMO_ELEGIDAS] + por_preguntas})
        # Una oración que sigue a la elegida y depende de ella («Vencido este plazo, el permiso se
        # tendrá por otorgado») es parte de la respuesta: la consecuencia del plazo, la excepción.
        # También los casos de la regla que siguen («Si se ingresaren antes, …. Si se ingresaren con
        # posterioridad, …»): la respuesta a «¿qué pasa si…?» es uno de ellos.
        siguiente = posiciones[-1] + 1 if posiciones else len(oraciones[pk])
        agregadas = 0
        while (
            agregadas < CASOS_QUE_SIGUEN
            and siguiente < len(oraciones[pk])
            and _sigue(textos[oraciones[pk][siguiente - 1]], textos[oraciones[pk][siguiente]])
        ):
            posiciones.append(siguiente)
            siguiente, agregadas = siguiente + 1, agregadas + 1
        # una elegida que depende de la anterior va con ella («En caso contrario, las rechazará…»), y lo que
        # depende de una elegida que no es la última, también («Lo anterior, sujeto a que…»)
        depende = [textos[o].continua for o in oraciones[pk]]
        posiciones = sorted(
            {
                *posiciones,
                *(i - 1 for i in posiciones if i and depende[i]),
                *(i + 1 for i in posiciones if i + 1 < len(depende) and depende[i + 1]),
            }
        )
        # la lista elegida va con lo que la anuncia
        posiciones = sorted(
            {*posiciones, *(i - 1 for i in posiciones if i and _anuncia(oraciones[pk][i - 1]))}
        )
        mejor = [oraciones[pk][i] for i in posiciones]
        if anuncio := _anuncio(antesalas.get(pk, "")):
            # una letra se lee con lo que la anuncia («… las siguientes medidas provisionales: c) Clausura
            # temporal…»): sin eso, «clausura temporal» no dice que es una medida provisional
            mejor = [anuncio, *mejor]
        encabezado = encabezados.get(pk, "")
        for texto in [encabezado, inicios.get(pk, ""), *titulos[pk]]:
            if texto and len(textos[texto].raices & consulta) >= 2:
                pares |= textos[texto].pares & pares_de_la_pregunta
        rasgos = {
            "denso": _rrf(posicion_densa.get(pk)),
            "texto": _rrf(posicion_texto.get(pk)),
            "oracion": cobertura,
            "epigrafe": _cobertura_del_encabezado(
                textos[encabezado].raices if encabezado else frozenset(), consulta, idf
            ),
            "frase": len(pares) / len(pares_de_la_pregunta) if pares_de_la_pregunta else 0.0,
            "familia": float(
                bool(
                    _familias_afines("\n".join((encabezado, inicios.get(pk, ""), fragmento.texto[:300])))
                    & set(familias)
                )
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
            "instrumento_ajeno": float(
                bool(instrumento) and _instrumento_del_fragmento(fragmento) == _OTRO[instrumento]
            ),
            "lista_de_contenidos": float(
                bool(fragmento.letra) and _anuncia_contenidos(antesalas.get(pk, ""))
            ),
        }
        candidatos.append(
            Candidato(
                pk,
                rasgos=rasgos,
                puntaje=sum(pesos.get(nombre, 0.0) * valor for nombre, valor in rasgos.items()),
                oracion=" ".join(mejor),
                epigrafe=encabezado if fragmento.articulo else "",
                tema=tema,
                cobertura_extracto=cobertura_extracto,
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


@dataclass(frozen=True)
class _Fila:
    """Lo que el reordenador lee de un candidato (una tupla, sin armar el modelo de Django)."""

    pk: int
    texto: str
    articulo: str
    letra: str
    jerarquia: list[str]
    modificatorio: bool
    transitorio: bool
    norma_id: int
    sigla: str
    peso_busqueda: float
    tipo: str
    oraciones: list[str]  # las guardadas al ingerir (valen si `analisis` es la `VERSION` actual)
    raices: list[str]  # las de cada oración, separadas por espacios
    analisis: str


def _filas(ids: list[int]) -> dict[int, _Fila]:
    campos = (
        "pk",
        "texto",
        "articulo",
        "letra",
        "jerarquia",
        "modificatorio",
        "transitorio",
        "norma_id",
        "norma__sigla",
        "norma__peso_busqueda",
        "norma__tipo",
        "oraciones",
        "raices",
        "analisis",
    )
    return {
        fila[0]: _Fila(*fila)
        for fila in FragmentoLegal.objects.filter(pk__en_arreglo=ids).order_by().values_list(*campos)
    }


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


def _marcar_copias(candidatos: list[Candidato], filas: dict[int, _Fila]) -> None:
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


@functools.lru_cache(maxsize=20_000)
def _anuncio(antesala: str) -> str:
    """La oración que anuncia la lista de un artículo («…podrá … adoptar alguna de las siguientes
    medidas:»), si la antesala termina en dos puntos; «» si no."""
    texto = " ".join(antesala.split())
    if not texto.endswith(":"):
        return ""
    if ". " in texto:
        return texto[texto.rfind(". ") + 2 :]
    # la antesala es un trozo del artículo: empieza donde empieza una palabra
    return "… " + texto.split(" ", 1)[-1] if not texto[0].isupper() else texto


def _anuncia(oracion: str) -> bool:
    """La oración anuncia lo que sigue («…las siguientes sanciones:»): lo que sigue es su contenido."""
    return oracion.rstrip().endswith(":")


def _sigue(anterior: _Texto, siguiente: _Texto) -> bool:
    """La oración siguiente es parte de la respuesta: depende de la anterior («Vencido este plazo, …») o
    es un caso de su regla, que empieza por «si» o «en caso» y nombra lo que la anterior regula («deberán
    ser ingresadas…» → «Si se ingresaren antes, …»)."""
    if siguiente.continua or _anuncia(anterior.plegado):
        return True  # depende de la anterior, o es lo que la anterior anuncia
    if not siguiente.plegado.startswith(("si ", "en caso")):
        return False
    return bool(set(siguiente.secuencia[:3]) & anterior.raices)


def _cuaternas(texto: str, largo: int = 4) -> frozenset[tuple[str, ...]]:
    """Las secuencias de cuatro palabras seguidas del texto (tal cual, no raíces): miden la copia.
    Sin quitar tildes: la copia las conserva, y quitarlas en artículos largos costaba decenas de ms.
    Una vez por texto y proceso."""
    palabras = re.findall(r"\w+", texto.lower())
    return frozenset(tuple(palabras[i : i + largo]) for i in range(len(palabras) - largo + 1))


def _rrf(posicion: int | None) -> float:
    return 0.0 if posicion is None else (RRF_K + 1) / (RRF_K + 1 + posicion)


def primera_oracion(texto: str) -> str:
    """Hasta el primer punto seguido (en una definición, «g) Modificación de proyecto o actividad:
    Realización de obras…», el término y su definición, sin cortar en los dos puntos)."""
    # «i bis). Evaluación Ambiental Estratégica: …»: el punto tras la letra no cierra una oración
    texto = _LETRA_CON_PUNTO.sub(r"\1)", texto.strip(), count=1)
    return " ".join(_PUNTO_SEGUIDO.split(texto, maxsplit=1)[0].split())


_LETRA_CON_PUNTO = re.compile(r"^([a-zñ](?: \w+)?|\d{1,2})\)\.")


# Lo que se pregunta de un texto entero (el inicio de un fragmento, lo que anuncia una lista, las
# oraciones elegidas), una vez por texto y proceso.
@functools.lru_cache(maxsize=50_000)
def _familias_afines(texto: str) -> frozenset[str]:
    plegado = sin_tildes(texto)
    return frozenset(f.nombre for f in FAMILIAS if f.afinidad.search(plegado))


@functools.lru_cache(maxsize=50_000)
def _tiene_tiempo(texto: str) -> bool:
    return tiene_tiempo(sin_tildes(texto))


@functools.lru_cache(maxsize=50_000)
def _anuncia_contenidos(texto: str) -> bool:
    return bool(_ANUNCIA_CONTENIDOS.search(sin_tildes(texto)))


_OTRO = {"dia": "eia", "eia": "dia"}
_LEYES_DE_ORGANOS = frozenset(norma for _, norma in NORMA_DEL_ORGANO)


# Nombrar el instrumento es decir «Declaración» o «Estudio» (las siglas ya vienen expandidas: «DIA
# (Declaración de Impacto Ambiental)»): «un edificio declarado patrimonio» no es la Declaración, ni «el
# estudio de ruido» o «el estudio hidrogeológico» son el Estudio.
_NOMBRA_DECLARACION = re.compile(r"\bdeclaracion(es)?\b(?! jurada)")
_NOMBRA_ESTUDIO = re.compile(r"\bestudios?\b(?! del? (?!impacto))(?! [a-z]+ic[oa]s?\b)")


def _instrumento_de(raices: set[str], consulta: str = "") -> str:
    """El instrumento del que habla la pregunta, si nombra uno solo: «dia», «eia» o «». Sin el texto
    de la consulta, por las raíces de sus palabras; «día» de plazo no cuenta."""
    if consulta:
        plano = sin_tildes(consulta).lower()
        dia, eia = bool(_NOMBRA_DECLARACION.search(plano)), bool(_NOMBRA_ESTUDIO.search(plano))
    else:
        dia, eia = "decla" in raices, "estud" in raices
    return "dia" if dia and not eia else "eia" if eia and not dia else ""


MINIMO_DEL_PARRAFO = 3  # artículos que nombran solo un instrumento para que el párrafo sea de ese


def _instrumento_del_fragmento(fragmento: _Fila) -> str:
    """«dia» o «eia» si el fragmento trata de uno solo: el que nombra o, si no nombra ninguno, el de su
    párrafo («Ampliación del plazo de evaluación» no dice de qué, pero está entre los artículos del
    procedimiento del Estudio; ver `_leer_instrumentos_de_parrafos`); «» si no se sabe."""
    propios = _instrumentos(fragmento.texto)
    if propios:
        return next(iter(propios)) if len(propios) == 1 else ""
    return _instrumentos_de_parrafos().get(_parrafo(fragmento), "")


def _parrafo(fragmento: _Fila) -> tuple[int, tuple[str, ...]]:
    return (fragmento.norma_id, tuple(fragmento.jerarquia))


@por_estado_del_corpus
def _instrumentos_de_parrafos() -> dict[tuple[int, tuple[str, ...]], str]:
    """(norma, jerarquía) → instrumento de los párrafos ya leídos, mientras el corpus no cambie."""
    return {}


ARTICULOS_DEL_PARRAFO = 200  # los que se leen de cada párrafo para saber de qué instrumento es


def _leer_instrumentos_de_parrafos(fragmentos: Iterable[_Fila]) -> None:
    """Lee, en una consulta, el instrumento de los párrafos de `fragmentos` que no nombran ninguno y
    que aún no se conocen: el único que nombran los artículos del párrafo, si al menos
    `MINIMO_DEL_PARRAFO` lo nombran solo a él y ninguno nombra solo al otro. Sale del corpus cargado."""
    conocidos = _instrumentos_de_parrafos()
    faltan = {
        _parrafo(f) for f in fragmentos if f.jerarquia and not _instrumentos(f.texto)
    } - conocidos.keys()
    if not faltan:
        return
    filtro = Q()
    for norma_id, jerarquia in faltan:
        filtro |= Q(norma_id=norma_id, jerarquia=list(jerarquia))
    cuentas = {parrafo: {"dia": 0, "eia": 0} for parrafo in faltan}
    filas = (
        FragmentoLegal.objects.filter(filtro, version__vigente=True, derogado=False)
        .order_by()
        .values_list("norma_id", "jerarquia", "texto")[: ARTICULOS_DEL_PARRAFO * len(faltan)]
    )
    for norma_id, jerarquia, texto in filas:
        instrumentos = _instrumentos(texto)
        if len(instrumentos) == 1 and (cuenta := cuentas.get((norma_id, tuple(jerarquia)))):
            cuenta[next(iter(instrumentos))] += 1
    for parrafo, cuenta in cuentas.items():
        conocidos[parrafo] = next(
            (n for n in ("dia", "eia") if cuenta[n] >= MINIMO_DEL_PARRAFO and not cuenta[_OTRO[n]]), ""
        )


@functools.lru_cache(maxsize=20_000)
def _instrumentos(texto: str) -> frozenset[str]:
    return frozenset(
        nombre for nombre, patron in (("dia", _DECLARACION), ("eia", _ESTUDIO)) if patron.search(texto)
    )


def _encabezados(
    fragmentos: list[_Fila],
) -> tuple[dict[int, str], dict[int, str], dict[int, str]]:
    """Epígrafe del artículo de cada fragmento (el de su artículo completo, para las letras) o, en
    las guías, el título de la sección; para las letras, el inicio de su artículo (el texto antes
    de la primera letra, si es corto) y la antesala de la lista (lo que la anuncia)."""
    # el artículo 3 permanente y el 3 transitorio son dos artículos: cada letra, con el suyo
    articulos = {(f.norma_id, f.articulo, f.transitorio) for f in fragmentos if f.articulo}
    conocidos = _articulos_conocidos()
    if faltan := articulos - conocidos.keys():
        for clave in faltan:
            conocidos[clave] = ("", "", "")
        # Un filtro por pares (norma, artículo) armado con OR costaba más que traer de más y descartar.
        filas = FragmentoLegal.objects.filter(
            norma_id__in={n for n, _, _ in faltan},
            articulo__in={a for _, a, _ in faltan},
            letra="",
            version__vigente=True,
        ).values_list("norma_id", "articulo", "transitorio", "texto")
        for norma_id, articulo, transitorio, texto in filas:
            if (norma_id, articulo, transitorio) in faltan:
                conocidos[(norma_id, articulo, transitorio)] = _partes_completas(texto)
    encabezados, inicios, antesalas = {}, {}, {}
    for f in fragmentos:
        if f.articulo:
            principal, inicial, previa = conocidos.get((f.norma_id, f.articulo, f.transitorio), ("", "", ""))
            encabezados[f.pk] = principal
            if f.letra:
                inicios[f.pk] = inicial
                antesalas[f.pk] = previa
        else:
            encabezados[f.pk] = re.sub(r"^[\d.\s]+", "", f.jerarquia[-1]) if f.jerarquia else ""
    return encabezados, inicios, antesalas


def _partes_completas(texto: str) -> tuple[str, str, str]:
    epigrafe, inicio, antesala = _partes_del_articulo(texto)
    return epigrafe or "", inicio or "", antesala or ""


def _partes_del_articulo(texto: str) -> tuple[str | None, str | None, str | None]:
    """(epígrafe, inicio antes de la primera letra si es corto, antesala de la lista) de un artículo;
    None la parte que no tiene."""
    epigrafe = m.group(1).strip() if (m := _ENCABEZADO.match(texto[:300])) else None
    if not (letra := _PRIMERA_DIVISION.search(texto)):
        return epigrafe, None, None
    inicio = texto[: letra.start()] if letra.start() <= LARGO_INICIO else None
    return epigrafe, inicio, texto[max(0, letra.start() - LARGO_ANTESALA) : letra.start()]


@por_estado_del_corpus
def _articulos_conocidos() -> dict[tuple[int, str, bool], tuple[str, str, str]]:
    """Las partes de los artículos ya leídos, por (norma, artículo, transitorio), mientras el corpus no
    cambie: los artículos más citados vuelven en casi todas las preguntas y leerlos enteros era la
    consulta más cara del reordenador."""
    return {}


def _idf(lexemas: list[str]) -> dict[str, float]:
    return idf_y_conocidos(lexemas)[0]


def idf_y_conocidos(lexemas: list[str]) -> tuple[dict[str, float], set[str]]:
    """IDF de cada lexema de la pregunta (uno que no está en el corpus pesa como el más raro) y los
    que sí están en el corpus."""
    if not lexemas:
        return {}, set()
    documentos, conocidos = frecuencias_documentales(lexemas)
    maximo = math.log(1 + (documentos + 0.5) / 0.5)
    idf = {
        lex: math.log(1 + (documentos - conocidos[lex] + 0.5) / (conocidos[lex] + 0.5))
        if lex in conocidos
        else maximo
        for lex in lexemas
    }
    return idf, set(conocidos)


def frecuencias_documentales(lexemas: list[str]) -> tuple[float, dict[str, int]]:
    """Cuántos fragmentos tiene el corpus y en cuántos aparece cada lexema (solo los que aparecen).
    Se recuerdan por estado del corpus: los lexemas de las preguntas se repiten."""
    estadisticas = estadisticas_de_lo_buscado()
    sabidas = _frecuencias_sabidas().setdefault(estadisticas.vista, {})
    if faltan := [lexema for lexema in dict.fromkeys(lexemas) if lexema not in sabidas]:
        if len(sabidas) + len(faltan) > MAXIMO_FRECUENCIAS:
            sabidas.clear()
        sabidas.update(dict.fromkeys(faltan, 0))
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT lexema, documentos FROM {estadisticas.vista} WHERE lexema = ANY(%s)", [faltan]
            )
            sabidas.update(cursor.fetchall())
    estado = estado_del_corpus()
    documentos = estadisticas.documentos(estado) if estado.refrescado is not None else 1.0
    return documentos, {lexema: sabidas[lexema] for lexema in lexemas if sabidas.get(lexema)}


@por_estado_del_corpus
def _frecuencias_sabidas() -> dict[str, dict[str, int]]:
    """Vista de estadísticas → lexema → en cuántos fragmentos vigentes aparece (0: en ninguno)."""
    return {}


MAXIMO_FRECUENCIAS = 100_000


def _idf_por_raiz(idf: dict[str, float]) -> dict[str, float]:
    raices: dict[str, float] = {}
    for lexema, valor in idf.items():
        raices[raiz(lexema)] = max(valor, raices.get(raiz(lexema), 0.0))
    return raices


@dataclass(frozen=True)
class _Texto:
    """Lo que el reordenador mira de un texto (una oración, un epígrafe, un título, la pregunta)."""

    secuencia: tuple[str, ...]  # sus raíces en orden
    raices: frozenset[str]
    plegado: str  # en minúsculas y sin tildes
    tiempo: bool  # trae una expresión de tiempo («quince días»)

    @classmethod
    def de(cls, texto: str, secuencia: list[str]) -> _Texto:
        plegado = sin_tildes(texto)
        return cls(tuple(secuencia), frozenset(secuencia), plegado, tiene_tiempo(plegado))

    # Lo que solo algunas preguntas miran se calcula la primera vez que una lo mira.
    @functools.cached_property
    def prefijos(self) -> frozenset[str]:
        """Los comienzos de sus raíces: ahí calza una raíz corta de la pregunta («min» en «miner»)."""
        return frozenset(r[:k] for r in self.raices for k in range(1, min(len(r), LARGO_RAIZ - 1) + 1))

    @functools.cached_property
    def aspectos(self) -> frozenset[str]:
        """Los aspectos (`familias.ASPECTOS`) que responde: el órgano, la consecuencia, la condición…"""
        return frozenset(a.nombre for a in ASPECTOS if a.responde(self.plegado))

    @functools.cached_property
    def continua(self) -> bool:
        """Depende de la oración anterior («Vencido este plazo, …»)."""
        return continua_la_anterior(self.plegado)

    @functools.cached_property
    def pares(self) -> frozenset[tuple[str, str]]:
        """Pares de raíces seguidas."""
        return frozenset(itertools.pairwise(self.secuencia))


_VACIO = _Texto.de("", [])


def _responde_el(
    aspecto: str, textos: dict[str, _Texto]
) -> Callable[[tuple[float, float, int, str, float]], bool]:
    return lambda o: aspecto in textos[o[3]].aspectos


def _responde_quien_hace(verbo: str, textos: dict[str, _Texto]) -> Callable[[_Puntuada], bool]:
    """Si una oración puntuada nombra un órgano y trae el verbo (o su sustantivo) de lo que hace."""
    return lambda o: (
        "quien" in textos[o[3]].aspectos and any(r.startswith(verbo) for r in textos[o[3]].raices)
    )


# «¿Quién lo aprueba?», «¿quién fiscaliza?»: el verbo de lo que se pregunta quién hace.
_QUIEN_HACE = re.compile(r"\bquien(?:es)?\s+(?:(?:lo|la|los|las|le|les|se|nos)\s+)?([a-z]{4,})")


def _sin_diptongo(palabra: str) -> str:
    """«aprueba» → «aproba», «resuelve» → «resolve»: la forma de la raíz que comparten el verbo y su
    sustantivo («aprobación», «resolución»)."""
    return palabra.replace("ue", "o", 1) if "ue" in palabra[:LARGO_RAIZ] else palabra


def _verbo_de_quien(pregunta: str) -> str:
    """El comienzo de la raíz del verbo en «quién lo aprueba» («aprob»), o vacío."""
    m = _QUIEN_HACE.search(pregunta)
    return _sin_diptongo(m.group(1))[:LARGO_RAIZ] if m else ""


# Las raíces de los verbos con que se pregunta («¿puede…?», «¿debe…?», «¿hay que hacer…?»): no dicen
# qué se pregunta, y «puede» sin diptongo calza con «podrá» en cualquier oración.
_AUXILIARES = frozenset(
    {"pued", "podr", "podem", "pod", "deb", "deber", "debem", "hac", "hace", "hacer", "hag", "hab", "habr"}
    | {"ten", "tien", "tene", "tendr", "esta", "estan", "ser", "sera", "son", "sea", "dar", "da", "ir", "va"}
)


@dataclass(frozen=True)
class _Preguntado:
    """Una de las preguntas de la consulta: el peso (IDF) de cada una de sus raíces y la forma sin
    diptongo de las que lo tienen («aprue» → «aprob»)."""

    pesos: dict[str, float]
    sin_diptongo: dict[str, str]  # raíz → su forma sin diptongo

    @classmethod
    def de(cls, texto: _Texto, idf: dict[str, float]) -> _Preguntado:
        pesos = {r: idf[r] for r in texto.raices - _AUXILIARES if r in idf}
        return cls(pesos, {r: _sin_diptongo(r) for r in pesos if "ue" in r})

    def trae(self, texto: _Texto) -> set[str]:
        """Las raíces de la pregunta que trae el texto (directas o por su forma sin diptongo)."""
        return {
            r
            for r in self.pesos
            if r in texto.raices
            or (r in self.sin_diptongo and any(t.startswith(self.sin_diptongo[r]) for t in texto.raices))
        }

    def cubierta(self, textos: Iterable[_Texto]) -> bool:
        """Si los textos traen al menos `PREGUNTA_CUBIERTA` del peso de la pregunta."""
        total = math.fsum(self.pesos.values())
        if not total:
            return True
        return math.fsum(self.pesos[r] for r in self.traidas(textos)) >= PREGUNTA_CUBIERTA * total

    def traidas(self, textos: Iterable[_Texto]) -> set[str]:
        """Las raíces de la pregunta que trae alguno de los textos."""
        return set().union(*(self.trae(t) for t in textos))


def _textos(textos: list[str], *, analizados: Iterable[tuple[str, str]] = ()) -> dict[str, _Texto]:
    """El análisis de cada texto no vacío (raíces en español, sin tildes ni palabras vacías).

    `analizados` trae pares (texto, sus raíces separadas por espacios) ya calculados (las oraciones
    que la ingesta guardó con su fragmento); se leen solo si algo falta en la memoria del proceso. Lo
    que falta y no viene ahí sale de una sola consulta (`oraciones.raices_en_orden`). Las oraciones
    de los artículos más citados vuelven en casi todas las preguntas; recordarlas ahorra la mayor
    parte del reordenamiento.
    """
    unicos = list(dict.fromkeys(t for t in textos if t))
    faltan = [t for t in unicos if t not in _TEXTOS]
    if faltan:
        if len(_TEXTOS) + len(faltan) > MAXIMO_TEXTOS:
            _TEXTOS.clear()
        conocidas = dict(analizados)
        for texto in faltan:
            if texto in conocidas:
                _TEXTOS[texto] = _Texto.de(texto, conocidas[texto].split())
        sin_analizar = [t for t in faltan if t not in conocidas]
        for texto, raices in zip(sin_analizar, raices_en_orden(sin_analizar), strict=True):
            _TEXTOS[texto] = _Texto.de(texto, raices)
    return {texto: _TEXTOS[texto] for texto in unicos}


# Texto → su análisis. Depende solo del texto y de la configuración `spanish` de PostgreSQL.
_TEXTOS: dict[str, _Texto] = {}
MAXIMO_TEXTOS = 200_000


def _pares(secuencia: list[str]) -> set[tuple[str, str]]:
    """Pares de palabras seguidas (sin contar las vacías): «Consejo de Ministros» → (conse, minis)."""
    return {(a, b) for a, b in itertools.pairwise(secuencia) if a != b}


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
