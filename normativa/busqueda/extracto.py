"""Las oraciones de un fragmento que responden la pregunta: su extracto.

La respuesta suele estar en una o dos oraciones de un artículo largo. Se elige la que más peso IDF de la
pregunta trae (en una pregunta de plazo, la que trae el plazo), la que responde casi tanto, la que dice
el aspecto que la pregunta pide además del tema (el órgano, la consecuencia), la que responde cada una
de sus preguntas y la que pone el plazo a lo que se pregunta; y con ellas lo que depende de ellas («En
caso contrario, …») y lo que las anuncia.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from normativa.busqueda.analisis import VACIO, Texto, pares_de
from normativa.busqueda.articulos import anuncia
from normativa.busqueda.familias import (
    RAICES_DE_PLAZO,
    Aspecto,
    acciones_del_plazo,
    aspectos_de,
    hace_en_el_plazo,
)
from normativa.oraciones import LARGO_RAIZ

# Una oración puntuada: (preferencia, cobertura, posición, texto, tema).
Puntuada = tuple[float, float, int, str, float]
PREFERENCIA_PLAZO = 0.3  # al elegir la oración: una con «quince días» gana a otra algo más parecida
SEGUNDA_ORACION = 0.7  # una segunda oración entra si alcanza el 70 % de la preferencia de la mejor
MAXIMO_ELEGIDAS = 3  # oraciones de un fragmento en su extracto (la mejor, la casi igual y un aspecto)
PREGUNTA_CUBIERTA = (
    0.5  # parte del peso de una pregunta de la consulta que deben traer las oraciones elegidas
)
CASOS_QUE_SIGUEN = 2  # oraciones que siguen a las elegidas por depender de ellas o ser casos de su regla


@dataclass(frozen=True)
class Consulta:
    """Lo que el extracto mira de la pregunta, calculado una vez para todos los candidatos."""

    idf: dict[str, float]  # por raíz
    raices: frozenset[str]
    cortas: list[str]  # las raíces más cortas que `LARGO_RAIZ`: calzan con el comienzo de otra
    total_idf: float
    pares: set[tuple[str, str]]  # sus pares de palabras seguidas
    pide_plazo: bool
    forma: set[str]  # las raíces con que se pide un plazo («cuántos días»)
    total_tema: float  # el peso de la pregunta sin ellas
    aspectos: tuple[Aspecto, ...]  # lo que pide además del tema
    por_pregunta: list[Preguntado]
    quien_hace: str  # el verbo de «¿quién lo aprueba?», sin diptongo
    accion: frozenset[str]  # lo que se hace en el plazo preguntado

    @classmethod
    def de(
        cls,
        *,
        idf: dict[str, float],
        texto: str,
        preguntas: list[str],
        textos: dict[str, Texto],
        pide_plazo: bool,
    ) -> Consulta:
        """`texto` es la pregunta con sus siglas expandidas; `preguntas`, cada cosa que pregunta;
        `textos`, el análisis de ambos."""
        raices = frozenset(idf)
        forma = {r for r in raices if r in RAICES_DE_PLAZO} if pide_plazo else set()
        return cls(
            idf=idf,
            raices=raices,
            cortas=[r for r in raices if len(r) < LARGO_RAIZ],
            total_idf=sum(idf.values()) or 1.0,
            pares=pares_de(list(textos[texto].secuencia)) if texto else set(),
            pide_plazo=pide_plazo,
            forma=forma,
            total_tema=math.fsum(idf[r] for r in raices - forma) or 1.0,
            aspectos=aspectos_de(texto),
            # las raíces de cada pregunta (y su forma sin diptongo: «aprueba» → «aprob»)
            por_pregunta=[Preguntado.de(textos[p], idf) for p in preguntas],
            quien_hace=next((v for p in preguntas if (v := _verbo_de_quien(p))), ""),
            accion=acciones_del_plazo(texto) if pide_plazo else frozenset(),
        )


@dataclass(frozen=True)
class Extracto:
    """Las oraciones elegidas de un fragmento y cuánto de la pregunta traen."""

    posiciones: list[int]  # en el orden del texto
    cobertura: float  # la de la mejor oración: el rasgo `oracion`
    tema: float  # la de las elegidas sin las palabras del plazo (ver `Candidato.tema`)
    cobertura_extracto: float  # la mejor entre las elegidas
    pares: set[tuple[str, str]]  # los pares de la pregunta que traen sus oraciones


def elegir(oraciones: list[str], textos: dict[str, Texto], consulta: Consulta, del_inicio: Texto) -> Extracto:
    """El extracto del fragmento de `oraciones`; `del_inicio` es el inicio de su artículo si es una
    letra (lo que le da su sentido), o `VACIO`."""
    puntuadas = []
    pares: set[tuple[str, str]] = set()
    # Lo que el inicio del artículo (el de una letra) aporta a cada una de sus oraciones.
    del_inicio_comunes = del_inicio.raices & consulta.raices
    if consulta.cortas and del_inicio is not VACIO:
        del_inicio_comunes |= {corta for corta in consulta.cortas if corta in del_inicio.prefijos}
    for posicion, oracion in enumerate(oraciones):
        analisis = textos[oracion]
        propias = analisis.raices & consulta.raices
        if posicion and anuncia(oraciones[posicion - 1]):
            # la lista se lee con lo que la anuncia («En el caso de las infracciones gravísimas:
            # a) Multa de hasta…»): sin eso, la multa de una categoría no dice cuál es. Solo el primer
            # punto: con el anuncio en cada punto, el artículo entero de una lista larga (todas las
            # letras del Art. 10) cubre lo mismo que la letra que responde y le gana.
            propias |= textos[oraciones[posicion - 1]].raices & consulta.raices
        # un par de la pregunta necesita dos de sus palabras en el mismo texto
        if len(propias) >= 2 and consulta.pares:
            pares |= analisis.pares & consulta.pares
        comunes = propias | del_inicio_comunes
        if consulta.cortas:
            comunes |= {
                corta for corta in consulta.cortas if corta not in comunes and corta in analisis.prefijos
            }
        if not comunes:
            continue  # no cubre nada de la pregunta (todo IDF es positivo)
        # fsum: la suma exacta no depende del orden del conjunto (que cambia de un proceso a otro),
        # así dos oraciones que cubren lo mismo empatan en todos los workers
        valor = math.fsum(map(consulta.idf.__getitem__, comunes)) / consulta.total_idf
        # En una pregunta de plazo, la oración que trae el plazo es la respuesta.
        preferencia = valor + (PREFERENCIA_PLAZO if consulta.pide_plazo and analisis.tiempo else 0.0)
        tema = (
            math.fsum(map(consulta.idf.__getitem__, comunes - consulta.forma)) / consulta.total_tema
            if consulta.forma
            else valor
        )
        puntuadas.append((preferencia, valor, posicion, oracion, tema))
    # A igual preferencia, la que viene antes: el inicio del artículo dice la regla y lo que sigue
    # la detalla.
    puntuadas.sort(key=lambda o: (o[0], o[1], -o[2]), reverse=True)
    cobertura = puntuadas[0][1] if puntuadas else 0.0
    # La mejor oración y, si otra del mismo fragmento responde casi tanto, también esa (en el
    # orden del texto): la respuesta suele ocupar dos oraciones seguidas de un artículo largo.
    elegidas = [o for o in puntuadas[:2] if o is puntuadas[0] or o[0] >= SEGUNDA_ORACION * puntuadas[0][0]]
    # Lo que la pregunta pide además del tema (el órgano, la consecuencia, la condición): si las
    # elegidas no lo dicen, entra la mejor oración del fragmento que sí.
    for aspecto in consulta.aspectos:
        responde = _responde_el(aspecto.nombre, textos)
        if aspecto.nombre == "quien" and consulta.quien_hace:
            # «¿quién lo aprueba?» lo responde la oración que nombra al órgano y lo que hace
            # («… al Ministerio del Medio Ambiente para su aprobación»), no cualquiera que lo nombre
            hace = _responde_quien_hace(consulta.quien_hace, textos)
            if any(map(hace, puntuadas)):
                responde = hace
        if any(map(responde, elegidas)):
            continue
        if otra := next(filter(responde, puntuadas), None):
            elegidas.append(otra)
    # Con varias preguntas («¿Se puede pagar en cuotas? ¿Ante quién se pide?»), cada una con la mejor
    # oración que comparte sus palabras, si ninguna elegida las trae.
    por_preguntas: list[Puntuada] = []
    for preguntado in consulta.por_pregunta:
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
        consulta.accion
        and not any(hace_en_el_plazo(consulta.accion, o[3]) for o in elegidas)
        and (otra := next((o for o in puntuadas if hace_en_el_plazo(consulta.accion, o[3])), None))
    ):
        elegidas.insert(1, otra)
    tema = max((o[4] for o in elegidas[:MAXIMO_ELEGIDAS]), default=0.0)
    cobertura_extracto = max((o[1] for o in elegidas[:MAXIMO_ELEGIDAS]), default=0.0)
    posiciones = sorted({o[2] for o in elegidas[:MAXIMO_ELEGIDAS] + por_preguntas})
    # Una oración que sigue a la elegida y depende de ella («Vencido este plazo, el permiso se
    # tendrá por otorgado») es parte de la respuesta: la consecuencia del plazo, la excepción.
    # También los casos de la regla que siguen («Si se ingresaren antes, …. Si se ingresaren con
    # posterioridad, …»): la respuesta a «¿qué pasa si…?» es uno de ellos.
    siguiente = posiciones[-1] + 1 if posiciones else len(oraciones)
    agregadas = 0
    while (
        agregadas < CASOS_QUE_SIGUEN
        and siguiente < len(oraciones)
        and _sigue(textos[oraciones[siguiente - 1]], textos[oraciones[siguiente]])
    ):
        posiciones.append(siguiente)
        siguiente, agregadas = siguiente + 1, agregadas + 1
    # una elegida que depende de la anterior va con ella («En caso contrario, las rechazará…»), y lo que
    # depende de una elegida que no es la última, también («Lo anterior, sujeto a que…»)
    depende = [textos[o].continua for o in oraciones]
    posiciones = sorted(
        {
            *posiciones,
            *(i - 1 for i in posiciones if i and depende[i]),
            *(i + 1 for i in posiciones if i + 1 < len(depende) and depende[i + 1]),
        }
    )
    # la lista elegida va con lo que la anuncia, aunque el punto elegido no sea el primero
    anuncios = (anuncio_de_la_lista(oraciones, i) for i in posiciones)
    posiciones = sorted({*posiciones, *(a for a in anuncios if a is not None)})
    return Extracto(posiciones, cobertura, tema, cobertura_extracto, pares)


# Cuántos puntos de una lista se recorren hacia atrás para llegar a lo que la anuncia.
PUNTOS_DE_LA_LISTA = 12


def anuncio_de_la_lista(oraciones: list[str], posicion: int) -> int | None:
    """La posición de la oración que anuncia la lista de la que es punto la de `posicion` («Se entenderá
    que un proyecto sufre cambios de consideración cuando:»), o None. Los puntos anteriores de la
    misma lista terminan en punto y coma: el segundo o el tercer punto se lee también con el anuncio,
    no solo el primero."""
    for anterior in range(posicion - 1, max(posicion - 1 - PUNTOS_DE_LA_LISTA, -1), -1):
        final = oraciones[anterior].rstrip()
        if anuncia(final):
            return anterior
        if not final.endswith(";"):
            return None
    return None


def _sigue(anterior: Texto, siguiente: Texto) -> bool:
    """La oración siguiente es parte de la respuesta: depende de la anterior («Vencido este plazo, …») o
    es un caso de su regla, que empieza por «si» o «en caso» y nombra lo que la anterior regula («deberán
    ser ingresadas…» → «Si se ingresaren antes, …»)."""
    if siguiente.continua or anuncia(anterior.plegado):
        return True  # depende de la anterior, o es lo que la anterior anuncia
    if not siguiente.plegado.startswith(("si ", "en caso")):
        return False
    return bool(set(siguiente.secuencia[:3]) & anterior.raices)


def _responde_el(
    aspecto: str, textos: dict[str, Texto]
) -> Callable[[tuple[float, float, int, str, float]], bool]:
    return lambda o: aspecto in textos[o[3]].aspectos


def _responde_quien_hace(verbo: str, textos: dict[str, Texto]) -> Callable[[Puntuada], bool]:
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
class Preguntado:
    """Una de las preguntas de la consulta: el peso (IDF) de cada una de sus raíces y la forma sin
    diptongo de las que lo tienen («aprue» → «aprob»)."""

    pesos: dict[str, float]
    sin_diptongo: dict[str, str]  # raíz → su forma sin diptongo

    @classmethod
    def de(cls, texto: Texto, idf: dict[str, float]) -> Preguntado:
        pesos = {r: idf[r] for r in texto.raices - _AUXILIARES if r in idf}
        return cls(pesos, {r: _sin_diptongo(r) for r in pesos if "ue" in r})

    def trae(self, texto: Texto) -> set[str]:
        """Las raíces de la pregunta que trae el texto (directas o por su forma sin diptongo)."""
        return {
            r
            for r in self.pesos
            if r in texto.raices
            or (r in self.sin_diptongo and any(t.startswith(self.sin_diptongo[r]) for t in texto.raices))
        }

    def cubierta(self, textos: Iterable[Texto]) -> bool:
        """Si los textos traen al menos `PREGUNTA_CUBIERTA` del peso de la pregunta."""
        total = math.fsum(self.pesos.values())
        if not total:
            return True
        return math.fsum(self.pesos[r] for r in self.traidas(textos)) >= PREGUNTA_CUBIERTA * total

    def traidas(self, textos: Iterable[Texto]) -> set[str]:
        """Las raíces de la pregunta que trae alguno de los textos."""
        return set().union(*(self.trae(t) for t in textos))
