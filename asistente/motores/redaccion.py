"""Redacción sin modelo: primero lo que responde, con su fundamento, y pocas fuentes.

La búsqueda entrega, por fragmento, la oración que mejor responde (la de los días, el umbral, la
condición). La respuesta empieza por el hecho preguntado cuando la pregunta pide uno y la oración lo trae
(«Cinco días, según el DS 40, Art. 31 [1]: «…»»), sigue con esa oración recortada a lo que responde y
agrega a lo más dos fuentes de artículos distintos que también responden (cubren buena parte de la
pregunta); una que no responde no se cita. Si la primera responde con seguridad («bastante»), una fuente
que la apoya se cita solo si agrega un hecho que no se mostró; si no, solo se nombra. Con seguridad
«poco», los artículos se muestran como pistas, no como la respuesta.

Recortar es elegir incisos (las partes de una oración entre comas), no una ventana de palabras: en una
oración legal la condición va primero y la consecuencia al final («Transcurridos los plazos…, se
entenderá aprobado»), y la excepción sigue a la regla («…, o, si no fuera posible, …»). Un inciso vale por
las palabras de la pregunta que trae y, el doble, por los hechos (plazo, cifra, consecuencia, deber) y
los aspectos preguntados (el órgano, si pregunta «¿quién?»); de las fuentes que apoyan se prefiere lo que
la primera no mostró.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from asistente.registro import Fuente
from asistente.turno.memoria import terminos
from config.texto import sin_tildes
from normativa.busqueda.familias import (
    EN_PALABRAS,
    PERIODICIDAD,
    Aspecto,
    acciones_del_plazo,
    aspectos_de,
    contados,
    de_otra_categoria,
    hace_en_el_plazo,
    lo_que_se_cuenta,
    nombra_ampliacion,
    pide_cifra,
    pide_plazo,
    tiene_tiempo,
)
from normativa.busqueda.instrumentos import OTRO, instrumento_de
from normativa.busqueda.preguntas import lo_que_pregunta, nucleo_de_la_pregunta, preguntas_de
from normativa.glosario import nombrar_siglas
from normativa.oraciones import LARGO_RAIZ, continua_la_anterior, oraciones_de

MAXIMO_FUENTES = 3
MAXIMO_FUENTES_A_PEDIDO = 6
CANDIDATAS = 4  # las fuentes que acompañan a la primera salen de los primeros cuatro artículos
_PIDE_MAS = re.compile(r"\b(mas|todas las|otras) (fuentes|citas|referencias)\b|\bcita(r|me)? todo\b")
_ORDEN_NORMA = {"ley": 0, "decreto": 1, "guia": 2}


def cuantas_fuentes(pregunta: str) -> int:
    """Tres fuentes; más solo si la pregunta las pide («muéstrame más fuentes»)."""
    return MAXIMO_FUENTES_A_PEDIDO if _PIDE_MAS.search(sin_tildes(pregunta)) else MAXIMO_FUENTES


def elegir_fuentes(
    fuentes: list[Fuente],
    *,
    maximo: int = MAXIMO_FUENTES,
    coberturas: Mapping[int | None, float] | None = None,
) -> list[Fuente]:
    """La mejor fuente y, de los artículos siguientes, una fuente por artículo; ley, reglamento y
    guías. Varias letras de un mismo artículo cuentan como un artículo: no dejan fuera a los otros. Con
    `coberturas` (fragmento → cuánto de la pregunta cubre su oración), desde la tercera una fuente que cubre
    poco no acompaña: no responde."""
    if not fuentes:
        return []
    primera = fuentes[0]
    minima = _cobertura_de_apoyo(coberturas.get(primera["fragmento_id"], 0.0)) if coberturas else 0.0
    elegidas: list[Fuente] = []
    vistos = {_articulo(primera)}
    for fuente in fuentes[1:]:
        if len(elegidas) + 1 >= maximo or len(vistos) >= max(CANDIDATAS, maximo):
            break
        if _articulo(fuente) in vistos:
            continue
        vistos.add(_articulo(fuente))
        if elegidas and coberturas and coberturas.get(fuente["fragmento_id"], 0.0) < minima:
            continue  # la segunda acompaña siempre (la búsqueda la puso ahí); de la tercera, solo si responde
        elegidas.append(fuente)
    elegidas.sort(key=lambda f: _ORDEN_NORMA.get(_tipo(f), 3))
    return [primera, *elegidas]


def _lo_mostrado(fuente: Fuente, pregunta: str, *, primera: bool, vistas: set[str]) -> str:
    """Lo que se cita de una fuente: de la primera, lo que responde; de las que la apoyan, lo que
    responde y no dijeron las anteriores (`vistas`: palabras de la pregunta y hechos ya mostrados)."""
    maximo, total = (PALABRAS_CITA, TOTAL_CITA) if primera else (PALABRAS_APOYO, TOTAL_APOYO)
    return recortar(
        oracion_de(fuente["extracto"]), pregunta, maximo, total=total, vistas=vistas, listas_enteras=primera
    )


def _lo_que_trae(texto: str, pregunta: str) -> set[str]:
    """Las palabras de la pregunta (sus cinco primeras letras), los hechos («!dias», «!debera») y los
    aspectos preguntados («¿quién?» → el órgano que nombra: «@quien») que trae un texto."""
    plano = sin_tildes(texto)
    preguntado = _lo_preguntado(pregunta)
    aspectos = {f"@{a.nombre}" for a in preguntado.aspectos if a.responde(plano)}
    hechos = {f"!{h}" for h in _HECHO.findall(_REMISION.sub(" ", plano))}
    return ({p[:5] for p in _PALABRA.findall(plano)} & preguntado.terminos) | hechos | aspectos


@dataclass(frozen=True)
class _Preguntado:
    terminos: frozenset[str]  # las palabras de la pregunta, recortadas a cinco letras
    aspectos: tuple[Aspecto, ...]  # lo que pide además de su tema (el órgano, la consecuencia…)
    plazo: bool  # pide un plazo, o rapidez (que la dicen los plazos)
    nucleo: str  # lo que pregunta, sin la situación que lo rodea


@functools.lru_cache(maxsize=64)
def _lo_preguntado(pregunta: str) -> _Preguntado:
    """Lo que la pregunta pide, leído una vez por pregunta (cada inciso y cada ventana lo miran)."""
    nucleo = nucleo_de_la_pregunta(pregunta)
    return _Preguntado(
        terminos=frozenset(terminos(pregunta)),
        aspectos=aspectos_de(nucleo),
        plazo=pide_plazo(nucleo) or bool(_RAPIDEZ.search(sin_tildes(nucleo))),
        nucleo=nucleo,
    )


COBERTURA_APOYO = 0.12  # una fuente que acompaña cubre al menos esto de la pregunta…
PROPORCION_APOYO = 0.4  # …y al menos esta parte de lo que cubre la primera


def _cobertura_de_apoyo(primera: float) -> float:
    return max(COBERTURA_APOYO, PROPORCION_APOYO * primera)


def redactar(fuentes: list[Fuente], *, pregunta: str = "", seguridad: str = "", motivo: str = "") -> str:
    """La respuesta con las fuentes ya elegidas: el hecho y la oración que responde de la primera, y una
    línea por cada fuente que la apoya; con seguridad «poco», las fuentes como pistas y, antes, por qué
    (`motivo`)."""
    if seguridad == "poco":
        return _pistas(fuentes, pregunta, motivo)
    primera = fuentes[0]
    vistas: set[str] = set()
    oracion = _lo_mostrado(primera, pregunta, primera=True, vistas=vistas)
    hecho = hecho_preguntado(pregunta, oracion)
    if hecho:
        oracion = la_del_hecho(oracion, hecho, pregunta)
    vistas |= _lo_que_trae(oracion, pregunta)
    if hecho:
        lineas = [f"{hecho}, según {_nombre(primera)}{_epigrafe(primera)} [1]: «{oracion}»"]
    else:
        lineas = [f"Según {_nombre(primera)}{_epigrafe(primera)}: «{oracion}» [1]"]
    mostradas = [(primera, oracion)]
    nombradas: list[str] = []  # las que solo se nombran, seguidas, en una línea
    for numero, fuente in enumerate(fuentes[1:], start=2):
        apoyo = _lo_mostrado(fuente, pregunta, primera=False, vistas=vistas)
        que = (
            f"La {_nombre(fuente)} (guía del SEA)" if _tipo(fuente) == "guia" else _mayuscula(_nombre(fuente))
        )
        trae = _lo_que_trae(apoyo, pregunta)
        repetida = _la_que_repite(apoyo, mostradas)
        if _de_otro_instrumento(pregunta, apoyo) or (
            not repetida
            and seguridad == "bastante"
            and not _agrega_un_hecho(trae - vistas, apoyo, mostradas, pregunta=pregunta)
        ):
            nombradas.append(f"{_nombre(fuente)} [{numero}]")
            continue
        lineas += _tambien_tratan(nombradas)
        nombradas = []
        if repetida:
            lineas.append(f"{que} dice lo mismo que {_nombre(repetida)} [{numero}].")
            continue
        vistas |= trae
        mostradas.append((fuente, apoyo))
        lineas.append(f"{que}: «{apoyo}» [{numero}]")
    return "\n\n".join([*lineas, *_tambien_tratan(nombradas)])


def la_del_hecho(citado: str, hecho: str, pregunta: str) -> str:
    """De lo citado de la primera fuente, la oración que dice el hecho con que empieza la respuesta y
    lo que es parte de su regla: la anterior si ella la continúa («Dicho plazo…», «Vencido este
    plazo…»), las que la continúan a ella. El hecho ya está dicho al inicio; las demás oraciones del
    artículo no lo respaldan. Lo citado queda entero si la consulta pregunta más de una cosa (otra
    oración puede responder la otra), si ninguna oración trae el hecho tal cual o si otra oración
    responde más que la del hecho (el hecho sería de otra regla del artículo)."""
    oraciones = oraciones_de(citado)
    buscado = sin_tildes(hecho)
    planos = [sin_tildes(o) for o in oraciones]
    donde = next((i for i, plano in enumerate(planos) if buscado in plano), None)
    if donde is None or len(oraciones) < 2 or len(lo_que_pregunta(pregunta)) > 1:
        return citado
    valores = [_valor(o, pregunta) for o in oraciones]
    if valores[donde] < max(valores):
        return citado
    desde = donde - 1 if donde > 0 and continua_la_anterior(planos[donde]) else donde
    hasta = donde + 1
    while hasta < len(oraciones) and continua_la_anterior(planos[hasta]):
        hasta += 1
    return " ".join(oraciones[desde:hasta])


def _de_otro_instrumento(pregunta: str, citado: str) -> bool:
    """Si la pregunta trata de un solo instrumento (la Declaración o el Estudio) y lo citado de una
    fuente que apoya, solo del otro: sus procedimientos son paralelos y sus plazos distintos, y el del
    otro no respalda la respuesta (se nombra, no se cita)."""
    pedido = instrumento_de(set(), nombrar_siglas(pregunta))
    return bool(pedido) and instrumento_de(set(), citado) == OTRO[pedido]


def _tambien_tratan(nombradas: list[str]) -> list[str]:
    """La línea que nombra, sin citarlas, las fuentes seguidas que solo comparten el tema."""
    if not nombradas:
        return []
    return [f"También trata{'n' if len(nombradas) > 1 else ''} el tema: {'; '.join(nombradas)}."]


def _agrega_un_hecho(
    nuevo: set[str], apoyo: str, mostradas: list[tuple[Fuente, str]], *, pregunta: str = ""
) -> bool:
    """Si lo que trae una fuente que apoya y no se mostró (`nuevo`) tiene un hecho (una consecuencia, un
    deber) o el aspecto preguntado (el órgano, si pregunta «¿quién?»), o si su cita dice una cifra que
    las mostradas no dicen («diez días» donde la primera dijo «treinta»). Cuando la primera fuente
    responde con seguridad, una que solo comparte el tema se nombra y no se cita: la respuesta no se
    vuelve un muro de citas. Un número nuevo es un hecho solo si la pregunta pide una cifra o un plazo:
    los «cinco kilómetros» de la definición de una aplicación de plaguicidas no responden una pregunta
    que no pide ninguna distancia."""
    preguntado = _lo_preguntado(pregunta)
    cuenta_cifras = not pregunta or preguntado.plazo or pide_cifra(preguntado.nucleo)
    if any(t[:1] in "!@" and (cuenta_cifras or not t[1:2].isdigit()) for t in nuevo):
        return True
    if not cuenta_cifras:
        return False
    dichas = set().union(*(_palabras_de(mostrado) for _, mostrado in mostradas))
    return any(_CIFRA.match(p) for p in _palabras_de(apoyo) - dichas)


REPETIDA = 0.85  # parte de las palabras de una cita que ya se mostraron para que no valga repetirla


def _la_que_repite(texto: str, mostradas: list[tuple[Fuente, str]]) -> Fuente | None:
    """La fuente ya citada que `texto` repite casi palabra por palabra (el reglamento suele copiar la
    ley: «El DS 40, Art. 46» y «la Ley 19.300, Art. 15»), o None. Citarla de nuevo no agrega nada; basta
    decir que dice lo mismo."""
    propias = _palabras_de(texto)
    if not propias:
        return None
    for fuente, mostrado in mostradas:
        vistas = _palabras_de(mostrado)
        nuevas = propias - vistas
        if len(propias & vistas) >= REPETIDA * len(propias) and not any(map(_DISTINTIVA.match, nuevas)):
            return fuente
    return None


# Lo que hace distinta a una regla casi igual a otra: su cifra o su plazo («diez días» y no «quince»), y
# el instrumento (el reglamento repite para la Declaración lo que dijo del Estudio). Palabras recortadas
# a cinco letras.
_NUMERO = (
    r"\d|(dos|tres|cuatr|cinco|seis|siete|ocho|nueve|diez|once|doce|quinc|veint|trein|cuare|cincu"
    r"|sesen|noven|cien|cient|mil)$"
)
_CIFRA = re.compile(_NUMERO)  # «una» es también un artículo: una cifra distinta no es «una»
_DISTINTIVA = re.compile(rf"{_NUMERO}|(uno?|una|decla|estud)$")


def _palabras_de(texto: str) -> set[str]:
    """Las palabras con contenido de un texto (de tres letras o más, y toda cifra), recortadas a cinco
    letras."""
    return {p[:5] for p in _PALABRA.findall(sin_tildes(texto)) if len(p) >= 3 or p.isdigit()}


def _pistas(fuentes: list[Fuente], pregunta: str, motivo: str) -> str:
    """Los artículos más cercanos como pistas para revisar, con lo justo de cada uno; primero, que no
    son la respuesta y por qué."""
    porque = f" ({motivo})" if motivo else ""
    lineas = [
        f"No encontré un artículo que responda esto directamente{porque}. Los más cercanos, para revisar:"
    ]
    for numero, fuente in enumerate(fuentes, start=1):
        # una pista es lo justo para reconocer el artículo: de una lista, solo las letras que responden
        pista = recortar(
            oracion_de(fuente["extracto"]), pregunta, PALABRAS_PISTA, total=TOTAL_PISTA, listas_enteras=False
        )
        lineas.append(f"- {fuente['cita']} [{numero}]: «{pista}»")
    return "\n".join(lineas)


PALABRAS_CITA = 60  # cada oración que responde, recortada a lo que responde
PALABRAS_APOYO = 40
# Lo que cabe de cada extracto: la primera oración entra siempre (recortada); las que siguen, mientras
# el extracto no pase de esto.
# De la primera, las oraciones que la búsqueda eligió (responden partes distintas) mientras quepan en
# cien palabras: la que más responde va siempre.
TOTAL_CITA: int | None = 100
TOTAL_APOYO = 50
TOTAL_PISTA = 70
PALABRAS_PISTA = 45
_PALABRA = re.compile(r"\w+")
_ENUMERACION = re.compile(r"(?:^|\s)[a-hñ]\)\s")
# Lo que suele ser el hecho de una oración legal: un plazo o una cifra, una consecuencia, un deber.
_HECHO = re.compile(
    r"\b(\d[\d.,]*|dias|meses|anos|se entendera\w*|se tendra\w*|aprobad\w*|rechazad\w*|podra\w*|debera\w*"
    r"|no podra\w*|sancion\w*|multa\w*|amonestacion|clausura|revocacion|caducara\w*)\b"
)


# El número de lo que se nombra («el artículo 83», «la ley N° 19.300», «las letras a) y b)») no es un
# hecho: la oración remite a otra parte, no dice un plazo ni una cifra.
_REMISION = re.compile(
    r"\b(articulos?|arts?\.|leyes|ley|decretos?|d\.?\s?s\.?|incisos?|numerales?|numeros?|letras?|n[°º])"
    r"(\s+(supremo|n[°º]))?\s*\d[\d.,]*(\s*(,|y|e|o|al)\s*\d[\d.,]*)*"
)


# «¿hay algo más rápido?»: la rapidez de un trámite la dicen sus plazos; la ventana que trae uno.
_PLAZO = re.compile(r"\bplazos?\b")
_RAPIDEZ = re.compile(r"\b(mas )?(rapid|expedit|breve)\w*|\bdemora\w*|\btarda\w*|\bacelerar?\b")


def recortar(
    extracto: str,
    pregunta: str,
    maximo: int,
    *,
    total: int | None = None,
    vistas: set[str] | frozenset[str] = frozenset(),
    listas_enteras: bool = True,
) -> str:
    """Cada oración del extracto (la búsqueda elige una a tres: la que responde, la casi igual y la del
    aspecto preguntado, con la que las anuncia o las continúa), recortada a `maximo` palabras si es más
    larga. Con `total`, entran primero las que más responden (palabras de la pregunta, el plazo o la
    cifra) mientras el conjunto no pase de `total` palabras, y se muestran en su orden: la oración que
    solo anuncia una lista no deja fuera a la que trae el dato. Con `listas_enteras`, una lista no se
    recorta (es la respuesta). Lo que ya se mostró (`vistas`) no cuenta
    como respuesta."""
    recortadas = [
        _ventana(oracion, pregunta, maximo, vistas, listas_enteras=listas_enteras)
        for oracion in oraciones_de(extracto) or [extracto]
    ]
    if total is None:
        return " ".join(recortadas)
    valores = [_valor(recortada, pregunta, vistas) for recortada in recortadas]
    largos = [len(recortada.split()) for recortada in recortadas]
    # la que más responde entre las que caben (si ninguna cabe, la que más responde), y luego las que
    # sigan cabiendo, de la que más responde a la que menos
    orden = sorted(range(len(recortadas)), key=lambda i: (largos[i] <= total, valores[i], -i), reverse=True)
    planos = [sin_tildes(recortada) for recortada in recortadas]
    depende = [continua_la_anterior(plano) for plano in planos]
    elegidas = {orden[0]}
    usadas = largos[orden[0]]
    for i in orden[1:]:
        if usadas + largos[i] <= total:
            elegidas.add(i)
            usadas += largos[i]
    # la que depende de una oración que no entró no se entiende sola («En tal caso, no podrán denegar…»
    # sin el caso): entra con la oración anterior si cabe con la holgura; si no, sale, salvo la que más
    # responde («Dicho pronunciamiento…» sale si ninguna elegida nombra el pronunciamiento). Lo que sale no
    # vuelve: una cadena («En tal caso…» tras una que no cabe, «Con todo…» tras esa) termina.
    fuera: set[int] = set()
    while sueltas := sorted(i for i in elegidas - {orden[0]} if depende[i] and _suelta(i, planos, elegidas)):
        i = sueltas[0]
        if not _DICHO.match(planos[i]) and i - 1 not in fuera and usadas + largos[i - 1] <= total + HOLGURA:
            elegidas.add(i - 1)
            usadas += largos[i - 1]
        else:
            elegidas.discard(i)
            fuera.add(i)
            usadas -= largos[i]
    # la oración que depende de una elegida («Para tal efecto, …», «No obstante, …») es parte de su
    # regla: entra aunque pase el total por poco
    elegidas_y_lo_que_sigue = _con_lo_que_depende(
        elegidas, largos, usadas, total + HOLGURA, depende.__getitem__
    )
    return " ".join(recortadas[i] for i in elegidas_y_lo_que_sigue)


# «Dicho permiso…» remite a lo que nombra, dicho en cualquier oración anterior del artículo
_DICHO = re.compile(r"^\W*dich[oa]s? (\w+)")


def _suelta(i: int, planos: list[str], elegidas: set[int]) -> bool:
    """Si la oración `i`, que depende de lo anterior, quedaría sin aquello de que depende: «Dicho
    permiso…» sin una oración elegida antes que nombre el permiso; «Vencido este plazo…», «En caso
    contrario…», sin la oración que le precede."""
    if m := _DICHO.match(planos[i]):
        nombrado = m.group(1)[:LARGO_RAIZ]
        return not any(nombrado in planos[j] for j in elegidas if j < i)
    return i > 0 and i - 1 not in elegidas


def _con_lo_que_depende(
    elegidas: set[int], largos: list[int], usadas: int, tope: int, depende: Callable[[int], bool]
) -> list[int]:
    """Las partes elegidas (oraciones o incisos, por posición) y, tras cada una, las que dependen de
    ella (`depende`), mientras el conjunto no pase de `tope` palabras; en su orden."""
    elegidas = set(elegidas)
    for i in sorted(elegidas):
        siguiente = i + 1
        while (
            siguiente < len(largos)
            and siguiente not in elegidas
            and depende(siguiente)
            and usadas + largos[siguiente] <= tope
        ):
            elegidas.add(siguiente)
            usadas += largos[siguiente]
            siguiente += 1
    return sorted(elegidas)


def _valor(
    texto: str, pregunta: str, vistas: set[str] | frozenset[str] = frozenset()
) -> tuple[bool, int, int]:
    """Cuánto responde un texto: si trae el plazo que se pide, cuántas palabras distintas de la pregunta
    y hechos (cifras, consecuencias, deberes) trae que no estén en `vistas` y cuántas trae en total. Lo
    que termina en «:» solo anuncia."""
    if texto.rstrip(" …").endswith(":"):
        return (False, 0, 0)
    plano = sin_tildes(texto)
    preguntado = _lo_preguntado(pregunta)
    if de_otra_categoria(preguntado.nucleo, plano):
        return (False, 0, 0)
    con_plazo = preguntado.plazo and (tiene_tiempo(plano) or bool(_PLAZO.search(plano)))
    trae = _lo_que_trae(texto, pregunta)
    return (con_plazo, _peso(trae - vistas), _peso(trae))


def _peso(traidos: set[str]) -> int:
    """Cada palabra de la pregunta cuenta uno; un hecho (la consecuencia, el plazo, el deber: «!…») o un
    aspecto preguntado («@quien») cuenta doble: en una oración legal es lo que responde."""
    return sum(2 if t[:1] in "!@" else 1 for t in traidos)


def _ventana(
    oracion: str,
    pregunta: str,
    maximo: int,
    vistas: set[str] | frozenset[str] = frozenset(),
    *,
    listas_enteras: bool = True,
) -> str:
    """La oración, o lo que responde de ella en `maximo` palabras: sus incisos (partes entre comas o
    punto y coma) que más responden —palabras distintas de la pregunta, el plazo o la cifra, la
    consecuencia o el deber—, en su orden y con «…» donde se saltó algo. En una oración legal la
    consecuencia suele venir al final («…, se entenderá aprobado»): por eso no basta una ventana
    contigua alrededor de las palabras de la pregunta."""
    palabras = oracion.split()
    lista = len(_ENUMERACION.findall(oracion)) >= 2
    if len(palabras) <= maximo + HOLGURA or (listas_enteras and lista):
        # poco que ganar; y una lista («a) … b) … c) …») es la respuesta entera, salvo en la fuente que
        # solo apoya a la primera: de ella, lo que anuncia y las letras que responden
        return oracion
    incisos = _letras(oracion) if lista else _incisos(oracion)
    valores = [_valor(inciso, pregunta, vistas) for inciso in incisos]
    orden = sorted(range(len(incisos)), key=lambda i: (valores[i], -i), reverse=True)
    elegidos: list[int] = []
    usadas = 0
    for i in orden:
        if valores[i][2] == 0 and elegidos:
            break  # lo que no trae nada de lo preguntado no se muestra
        largo = len(incisos[i].split())
        if usadas + largo > maximo:
            if not elegidos:  # un inciso más largo que el máximo: su ventana contigua
                return _ventana_contigua(palabras, pregunta, maximo, vistas)
            continue
        elegidos.append(i)
        usadas += largo
    if lista:
        elegidos, usadas = _letras_que_agregan(
            incisos, elegidos, usadas, pregunta, vistas, tope=LETRAS_HASTA * maximo
        )
    # la excepción o la condición que sigue a un inciso elegido es parte de su regla («…, o, si no fuera
    # posible, en otras áreas…», «…, aunque…», «…, salvo que…»)
    elegidos = _con_lo_que_depende(
        set(elegidos),
        [len(inciso.split()) for inciso in incisos],
        usadas,
        maximo + HOLGURA,
        lambda i: bool(_CONTINUA.match(sin_tildes(incisos[i]))),
    )
    partes: list[str] = []
    for anterior, i in zip([-1, *elegidos], elegidos, strict=False):
        if i > anterior + 1:
            partes.append("…")
        partes.append(incisos[i])
    if elegidos[-1] < len(incisos) - 1:
        partes.append("…")
    return " ".join(partes)


LETRAS_HASTA = 2  # veces el máximo de palabras que pueden ocupar las letras que responden partes distintas


def _letras_que_agregan(
    letras: list[str],
    elegidas: list[int],
    usadas: int,
    pregunta: str,
    vistas: set[str] | frozenset[str],
    *,
    tope: int,
) -> tuple[list[int], int]:
    """Las `elegidas` más las letras que traen palabras de la pregunta que las elegidas no traen,
    mientras el conjunto no pase de `tope` palabras, en el orden de la lista, y las palabras usadas.
    Cuando la pregunta nombra dos cosas que la lista trata en letras distintas (dos regiones, dos tipos
    de obra), cada letra responde una parte: mostrar solo la primera deja la otra sin respuesta."""
    traido = set(vistas).union(*(_lo_que_trae(letras[i], pregunta) for i in elegidas))
    agregadas = list(elegidas)
    for i, letra in enumerate(letras):
        if i in agregadas:
            continue
        nuevas = {t for t in _lo_que_trae(letra, pregunta) - traido if t[:1] not in "!@"}
        largo = len(letra.split())
        if nuevas and usadas + largo <= tope:
            agregadas.append(i)
            usadas += largo
            traido |= nuevas
    return sorted(agregadas), usadas


_INCISO = re.compile(r"(?<=[,;])\s+")
_CONTINUA = re.compile(
    r"(?:[oy],? )?(si no|salvo|a menos|sin perjuicio|aunque|con todo|siempre (que|y cuando)|en caso|excepto"
    r"|pero|sino|no obstante|y no|o no|cuando|en cuyo caso|debiendo|sin que)\b"
)
HOLGURA = 12  # palabras: no se corta una oración por tan poco, y una excepción cabe aunque pase el máximo
INCISO_MINIMO = 6  # palabras: un inciso más corto se une al siguiente («Con todo, sólo habrá…»)


_ANTES_DE_LETRA = re.compile(r"\s+(?=[a-hñ]\)\s)")


def _letras(lista: str) -> list[str]:
    """Lo que anuncia una lista y cada una de sus letras («a) …», «b) …»), enteras."""
    return [parte for parte in _ANTES_DE_LETRA.split(lista) if parte]


def _incisos(oracion: str) -> list[str]:
    """Las partes de una oración entre comas o punto y coma, sin dejar sueltas las muy cortas."""
    incisos: list[str] = []
    pendiente = ""
    for parte in _INCISO.split(oracion):
        pendiente = f"{pendiente} {parte}".strip() if pendiente else parte
        if len(pendiente.split()) >= INCISO_MINIMO:
            incisos.append(pendiente)
            pendiente = ""
    if pendiente:
        if incisos:
            incisos[-1] = f"{incisos[-1]} {pendiente}"
        else:
            incisos.append(pendiente)
    return incisos


def _ventana_contigua(
    palabras: list[str], pregunta: str, maximo: int, vistas: set[str] | frozenset[str]
) -> str:
    """La ventana de `maximo` palabras que más responde (y, a igual valor, la primera)."""
    mejor = max(
        range(0, len(palabras) - maximo + 1),
        key=lambda inicio: (_valor(" ".join(palabras[inicio : inicio + maximo]), pregunta, vistas), -inicio),
    )
    ventana = " ".join(palabras[mejor : mejor + maximo])
    return ("… " if mejor else "") + ventana + (" …" if mejor + maximo < len(palabras) else "")


_NUMERO_DEL_TIEMPO = (
    r"(?:\d+|un|una|dos|tres|cuatro|cinco|seis|siete|ocho|nueve|diez|once|doce|quince|veinte|treinta"
    r"|cuarenta|cincuenta|sesenta|noventa|ciento veinte|ciento ochenta)"
)
# «treinta o sesenta días» es un plazo con dos valores: cuál rige lo dice lo que sigue («según se trate
# de una Declaración o un Estudio»)
_TIEMPO_DICHO = re.compile(
    rf"(?<![\d:.,])\b(?:(?:{_NUMERO_DEL_TIEMPO} o )?{_NUMERO_DEL_TIEMPO}(?: \(\d+\))? "
    r"(?:días|meses|años|horas)(?: hábiles| corridos)?)",
    re.IGNORECASE,
)
# «…, según se trate de una Declaración o un Estudio de Impacto Ambiental»
_CUAL_RIGE = re.compile(
    r"^[^.;]{0,80}?segun se trate de (?:una |un |la |el )?(declaracion|estudio)\w*"
    r"(?: de impacto ambiental)? o (?:de )?(?:una |un |la |el )?(declaracion|estudio)"
)
_CIFRA_DICHA = re.compile(
    r"\b(?:\d[\d.,]*|" + EN_PALABRAS + r")(?: \([\d.,]+\))? ?"
    r"(?:unidades tributarias (?:anuales|mensuales)|UTA|UTM|por ciento|%|hectáreas|metros cúbicos|toneladas"
    r"|kilómetros|kilovoltios|megawatts?)\b",
    re.IGNORECASE,
)


def hecho_preguntado(pregunta: str, oracion: str) -> str:
    """El hecho que la pregunta pide, dicho como lo dice la oración («Cinco días», «Multa de hasta diez
    mil unidades tributarias anuales», «Cada cinco años», «Al menos cinco avisos»), o «» si la pregunta
    no pide un plazo, una cifra, una periodicidad o cuántos de algo, o la oración no lo trae."""
    normal = sin_tildes(nucleo_de_la_pregunta(pregunta))
    if PERIODICIDAD.pregunta.search(normal):
        # «¿cada cuánto…?»: el tiempo de la oración que no es una periodicidad (un horizonte, un plazo
        # para dictar) no responde
        return _periodicidad_dicha(oracion)
    if (nombre := lo_que_se_cuenta(normal)) and (dichos := contados(nombre, oracion)):
        return _mayuscula(dichos)
    if pide_plazo(normal):
        patron, pide = _TIEMPO_DICHO, pide_plazo
    elif pide_cifra(normal):
        patron, pide = _CIFRA_DICHA, pide_cifra
    else:
        return ""
    # de las oraciones citadas que lo traen, la que más responde la parte de la pregunta que lo pide:
    # el plazo de otro trámite del mismo artículo («… podrá reclamarse dentro de treinta días» tras la
    # regla que se pregunta) no es el preguntado
    partes = [p for p in preguntas_de(pregunta) if pide(p)]
    la_que_pide = " ".join(partes) or pregunta
    # y de los hechos de una oración, el que está junto a lo preguntado: en «podrán reclamar…, dentro
    # de quince días. Si no reclama y paga la multa dentro de cinco días, …» el plazo de reclamar es el
    # primero aunque la segunda oración nombre más palabras de la pregunta
    con_el_hecho = [
        (o, m)
        for o in oraciones_de(oracion) or [oracion]
        for m in patron.finditer(o)
        if not _ya_lo_dijo(pregunta, m.group(0), o[m.end() :]) and not _de_otra_magnitud(pregunta, m.group(0))
    ]
    if not con_el_hecho:
        return ""
    # el plazo de una ampliación responde solo si se pregunta por ella («¿hasta cuánto se puede
    # ampliar?»), no si se pregunta por el plazo y además si se amplía
    ampliacion = _pide_la_ampliacion(la_que_pide)
    # y el plazo de lo que se hace en él («¿en qué plazo debe resolver…?»: el de «resolverá», no el de
    # reclamar de lo resuelto)
    accion = acciones_del_plazo(la_que_pide) if patron is _TIEMPO_DICHO else frozenset()
    # o, si la pregunta por el plazo no dice qué se hace («¿Cabe recurrir? ¿Hasta cuándo?»), lo que
    # pregunta la anterior
    de_la_anterior = (
        frozenset() if accion or patron is not _TIEMPO_DICHO else _accion_anterior(pregunta, partes)
    )
    accion = accion or de_la_anterior
    oracion_del_hecho, mejor = max(
        con_el_hecho,
        key=lambda par: (
            nombra_ampliacion(_alrededor(par[0], par[1], CERCA)) == ampliacion,
            hace_en_el_plazo(accion, par[0]),
            _palabras_de_la(la_que_pide, _alrededor(par[0], par[1])),
            _palabras_de_la(la_que_pide, par[0]),
            _palabras_de_la(pregunta, par[0]),
        ),
    )
    if de_la_anterior and not hace_en_el_plazo(de_la_anterior, oracion_del_hecho):
        # ninguna oración citada pone plazo a lo que preguntó la anterior (apelar): el plazo que traen es
        # de otra actuación (el informe del perito), y decirlo primero haría creer que es el preguntado
        return ""
    if not ampliacion and nombra_ampliacion(_alrededor(oracion_del_hecho, mejor, CERCA)):
        # el único plazo que trae lo citado es el de una ampliación: no es el plazo preguntado, y decirlo
        # primero haría creer que lo es
        return ""
    despues = oracion_del_hecho[mejor.end() :]
    hecho = _el_que_rige(mejor.group(0), despues, pregunta)
    if patron is _TIEMPO_DICHO and (para := _PARA_QUE.match(despues)):
        # «Quince días para formular los descargos»: el plazo dice de qué es, como lo diría un consultor
        hecho = f"{hecho} {para.group(1)}"
    return _mayuscula(hecho)


# Lo que se hace en el plazo, dicho justo después de él («… un plazo de 15 días para formular los
# descargos.»), hasta el fin de la cláusula y sin pasar de `PALABRAS_PARA` palabras.
PALABRAS_PARA = 10
_PARA_QUE = re.compile(rf"^\s*(para(?:\s+[^\s,.;:()]+){{1,{PALABRAS_PARA}}})\s*(?=[,.;:]|$)")


_CIFRAS = re.compile(r"\d+(?:\.\d{3})*(?:,\d+)?")
_ENTRE_PARENTESIS = re.compile(r"^(?:\s+\w+){0,2}\s*\(([\d.,]+)")  # «… toneladas mensuales (5.000 t/mes)»


def _accion_anterior(pregunta: str, partes: list[str]) -> frozenset[str]:
    """Lo que se hace en el plazo que pide la primera de `partes`, dicho en la pregunta anterior a ella
    («¿Cabe recurrir? ¿Hasta cuándo?» → recurrir); vacío si no hay pregunta anterior."""
    preguntas = preguntas_de(pregunta)
    posicion = preguntas.index(partes[0]) if partes and partes[0] in preguntas else 0
    if posicion == 0:
        return frozenset()
    anterior = preguntas[posicion - 1]
    return acciones_del_plazo(f"{partes[0].rstrip(' ?')} {anterior.strip(' ¿?')}")


def _ya_lo_dijo(pregunta: str, hecho: str, despues: str) -> bool:
    """Si la pregunta ya trae el hecho («Con 20 plataformas justas, ¿cuentan los sondajes?»): la
    cifra que el usuario dio no es lo que pregunta, y la respuesta no empieza por ella. Se compara la
    cifra en dígitos (la ley la repite entre paréntesis: «cinco mil toneladas (5.000 t/mes)») y, si no
    los tiene, el hecho dicho en palabras («treinta días»)."""
    cifras = _CIFRAS.findall(hecho) or _ENTRE_PARENTESIS.findall(despues)
    dichas = {c.replace(".", "") for c in _CIFRAS.findall(pregunta)}
    if cifras:
        return any(c.replace(".", "").rstrip(",") in dichas for c in cifras)
    return sin_tildes(hecho) in sin_tildes(pregunta)


# Las magnitudes en que se dicen las cifras, como las escribe la ley y como las abrevia un consultor.
_MAGNITUDES = {
    "masa": re.compile(r"\btoneladas?\b|\bton\b|\bt ?/ ?(mes|ano|dia|h)\b|\d ?t\b|\bkg\b|\bkilos?\b"),
    "volumen": re.compile(r"\bmetros? cubicos?\b|\bm3\b|m³|\blitros?\b|\bl/s\b"),
    "superficie": re.compile(r"\bhectareas?\b|\bha\b|\bmetros? cuadrados?\b|\bm2\b|m²"),
    "distancia": re.compile(r"\bkilometros?\b|\bkm\b"),
    "tension": re.compile(r"\bkilovoltios?\b|\bkv\b"),
    "potencia": re.compile(r"\bmegawatts?\b|\bmw\b"),
}


def _magnitudes(texto: str) -> set[str]:
    plano = sin_tildes(texto)
    return {nombre for nombre, patron in _MAGNITUDES.items() if patron.search(plano)}


def _de_otra_magnitud(pregunta: str, hecho: str) -> bool:
    """Si la cifra se dice en una magnitud y la pregunta habla de otras («las toneladas de la faena» y
    «diez mil metros cúbicos» de las canteras): es la cifra de otra regla del artículo, no la
    preguntada."""
    propias = _magnitudes(hecho)
    preguntadas = _magnitudes(nucleo_de_la_pregunta(pregunta)) or _magnitudes(pregunta)
    return bool(propias and preguntadas and not propias & preguntadas)


def _el_que_rige(hecho: str, despues: str, pregunta: str) -> str:
    """De «treinta o sesenta días, según se trate de una Declaración o un Estudio», el del instrumento
    por el que se pregunta («Sesenta días» si pregunta por un Estudio); si no nombra uno, los dos."""
    alternativa = re.match(rf"({_NUMERO_DEL_TIEMPO}) o ({_NUMERO_DEL_TIEMPO})(.*)$", hecho, re.IGNORECASE)
    segun = _CUAL_RIGE.match(sin_tildes(despues))
    if not alternativa or not segun:
        return hecho
    nombrados = {i for i in ("declaracion", "estudio") if i in sin_tildes(nombrar_siglas(pregunta))}
    if len(nombrados) != 1:
        return hecho
    cual = 1 if segun.group(1) in nombrados else 2
    return f"{alternativa.group(cual)}{alternativa.group(3)}"


ALREDEDOR = 8  # palabras a cada lado de un hecho que dicen de qué es
CERCA = 4  # palabras a cada lado que dicen si es una ampliación («hasta por sesenta días adicionales»)
# «¿cuánto…?», «¿qué plazo…?», «¿hasta cuándo…?» y lo que le sigue: si ahí se nombra una ampliación,
# se pregunta por ella
_PIDE_EL_PLAZO = re.compile(r"\b(cuant[oa]s?|plazos?|cuando|hasta)\b(?=((?:\s+\S+){0,4}))")


def _alrededor(oracion: str, hecho: re.Match[str], palabras: int = ALREDEDOR) -> str:
    """Las palabras que rodean un hecho en su oración: lo que dice de qué trámite es el plazo."""
    antes = oracion[: hecho.start()].split()[-palabras:]
    despues = oracion[hecho.end() :].split()[:palabras]
    return " ".join([*antes, *despues])


def _pide_la_ampliacion(pregunta: str) -> bool:
    """Si lo que pide el plazo nombra una ampliación: «¿hasta cuántos días se puede ampliar?» sí;
    «¿cuánto tiempo tiene para calificar y se puede ampliar?» pide el plazo mismo."""
    return any(nombra_ampliacion(m.group(2)) for m in _PIDE_EL_PLAZO.finditer(sin_tildes(pregunta)))


def _periodicidad_dicha(texto: str) -> str:
    """«Cada cinco años», «Anualmente»: la periodicidad como la dice el texto, o «»."""
    plano = sin_tildes(texto)
    m = PERIODICIDAD.respuesta.search(plano)
    if m is None:
        return ""
    # sin_tildes cambia cada carácter por uno: la posición en el texto plegado es la del original
    dicha = texto[m.start() : m.end()] if len(plano) == len(texto) else m.group(0)
    return _mayuscula(dicha)


def _palabras_de_la(pregunta: str, texto: str) -> int:
    """Cuántas palabras de la pregunta trae el texto (sin contar sus hechos: aquí se elige entre
    oraciones que traen el hecho)."""
    return sum(1 for traido in _lo_que_trae(texto, pregunta) if traido[:1] not in "!@")


def _mayuscula(texto: str) -> str:
    return texto[:1].upper() + texto[1:]


def _epigrafe(fuente: Fuente) -> str:
    """« (Consulta de pertinencia de ingreso)»: el nombre de la institución que el artículo regula,
    si el artículo lo trae y la oración citada no lo repite."""
    epigrafe = fuente.get("epigrafe", "")
    if not epigrafe or sin_tildes(epigrafe) in sin_tildes(fuente["extracto"]):
        return ""
    return f" ({epigrafe})"


_ENCABEZADO = re.compile(
    r"^Art[íi]culo\s+[\wº°]+(\s+(bis|ter|qu[aá]ter|quinquies|sexies|septies))?\s*\.?-\s*"
)


def oracion_de(extracto: str) -> str:
    """El extracto en una línea, sin el «Artículo 11 ter.-» con que empieza (la cita ya lo nombra)."""
    return _ENCABEZADO.sub("", " ".join(extracto.split())).rstrip(" .;:")


def _nombre(fuente: Fuente) -> str:
    """«la Ley 19.300, Art. 27», «el DS 40, Art. 50», «Guía SEA PAS 137 › …»."""
    cita = fuente["cita"]
    if fuente["norma"].startswith("Ley"):
        return f"la {cita}"
    if fuente["norma"].startswith("DS"):
        return f"el {cita}"
    return cita


def _tipo(fuente: Fuente) -> str:
    norma = fuente["norma"]
    if norma.startswith("Ley"):
        return "ley"
    if norma.startswith(("DS", "Decreto")):
        return "decreto"
    return "guia"


def _articulo(fuente: Fuente) -> tuple[str, str]:
    """El artículo de la fuente; las secciones de una misma guía cuentan como una sola fuente."""
    return (fuente["norma"], fuente["articulo"])
