"""Redacción de la respuesta sin modelo: primero lo que responde, con su fundamento, y pocas fuentes.

La búsqueda entrega, por fragmento, la oración que mejor responde (la de los días, el umbral, la
condición). La respuesta empieza por el hecho preguntado cuando la pregunta pide uno y la oración lo trae
(«Cinco días, según el DS 40, Art. 31 [1]: «…»»), sigue con esa oración recortada a lo que responde y
agrega a lo más dos fuentes de artículos distintos que también responden (cubren buena parte de la
pregunta); una que no responde no se cita. Con seguridad «poco», los artículos se muestran como pistas, no
como la respuesta.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from asistente.registro import Fuente
from asistente.turno.memoria import terminos
from config.seia import ARTICULO_REGLAMENTO as ARTICULO_DEL_REGLAMENTO
from config.seia import SOLO_LEY
from config.texto import sin_tildes
from normativa.busqueda.ajenas import nucleo_de_la_pregunta
from normativa.busqueda.familias import pide_plazo, tiene_tiempo
from normativa.oraciones import oraciones_de

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
    oracion = recortar(_oracion(primera["extracto"]), pregunta, PALABRAS_CITA)
    hecho = hecho_preguntado(pregunta, oracion)
    if hecho:
        lineas = [f"{hecho}, según {_nombre(primera)}{_epigrafe(primera)} [1]: «{oracion}»"]
    else:
        lineas = [f"Según {_nombre(primera)}{_epigrafe(primera)}: «{oracion}» [1]"]
    for numero, fuente in enumerate(fuentes[1:], start=2):
        apoyo = recortar(_oracion(fuente["extracto"]), pregunta, PALABRAS_APOYO)
        que = (
            f"La {_nombre(fuente)} (guía del SEA)" if _tipo(fuente) == "guia" else _mayuscula(_nombre(fuente))
        )
        lineas.append(f"{que}: «{apoyo}» [{numero}]")
    return "\n\n".join(lineas)


def _pistas(fuentes: list[Fuente], pregunta: str, motivo: str) -> str:
    """Los artículos más cercanos como pistas para revisar, con lo justo de cada uno; primero, que no
    son la respuesta y por qué."""
    porque = f" ({motivo})" if motivo else ""
    lineas = [
        f"No encontré un artículo que responda esto directamente{porque}. Los más cercanos, para revisar:"
    ]
    for numero, fuente in enumerate(fuentes, start=1):
        lineas.append(
            f"- {fuente['cita']} [{numero}]: "
            f"«{recortar(_oracion(fuente['extracto']), pregunta, PALABRAS_PISTA, total=PALABRAS_CITA)}»"
        )
    return "\n".join(lineas)


PALABRAS_CITA = 70  # cada oración que responde, recortada a lo que responde
PALABRAS_APOYO = 45
PALABRAS_PISTA = 45
_PALABRA = re.compile(r"\w+")
_ENUMERACION = re.compile(r"(?:^|\s)[a-hñ]\)\s")
# Lo que suele ser el hecho de una oración legal: un plazo o una cifra, una consecuencia, un deber.
_HECHO = re.compile(
    r"\b(\d[\d.,]*|dias|meses|anos|se entendera\w*|se tendra\w*|aprobad\w*|rechazad\w*|podra\w*|debera\w*"
    r"|no podra\w*|sancion\w*|multa\w*|amonestacion|clausura|revocacion|caducara\w*)\b"
)


# «¿hay algo más rápido?»: la rapidez de un trámite la dicen sus plazos; la ventana que trae uno.
_RAPIDEZ = re.compile(r"\b(mas )?(rapid|expedit|breve)\w*|\bdemora\w*|\btarda\w*|\bacelerar?\b")


def recortar(extracto: str, pregunta: str, maximo: int, *, total: int | None = None) -> str:
    """Cada oración del extracto (la búsqueda elige una a tres: la que responde, la casi igual y la del
    aspecto preguntado), recortada a `maximo` palabras si es más larga; con `total`, las que siguen a la
    primera entran solo mientras el conjunto no pase de `total` palabras."""
    elegidas: list[str] = []
    usadas = 0
    for oracion in oraciones_de(extracto) or [extracto]:
        recortada = _ventana(oracion, pregunta, maximo)
        largo = len(recortada.split())
        if elegidas and total is not None and usadas + largo > total:
            continue
        elegidas.append(recortada)
        usadas += largo
    return " ".join(elegidas)


def _ventana(oracion: str, pregunta: str, maximo: int) -> str:
    """La oración, o la ventana de `maximo` palabras que más palabras de la pregunta trae (y, a igual
    cuenta, la que trae un plazo o una cifra), con «…» donde se cortó."""
    palabras = oracion.split()
    if len(palabras) <= maximo or len(_ENUMERACION.findall(oracion)) >= 2:
        return oracion  # una lista («a) … b) … c) …») es la respuesta entera: no se corta
    raices = terminos(pregunta)
    preguntado = nucleo_de_la_pregunta(pregunta)
    plazo = pide_plazo(preguntado) or bool(_RAPIDEZ.search(sin_tildes(preguntado)))

    def valor(inicio: int) -> tuple[bool, int, int, int]:
        ventana = " ".join(palabras[inicio : inicio + maximo])
        plano = sin_tildes(ventana)
        trae = sum(1 for p in _PALABRA.findall(plano) if p[:5] in raices)
        # si pide un plazo, la ventana que lo trae antes que la que repite más palabras de la pregunta
        con_plazo = plazo and tiene_tiempo(plano)
        return (
            con_plazo,
            trae + len(_HECHO.findall(plano)),
            int(bool(re.search(r"\d|dias|meses|anos", plano))),
            -inicio,
        )

    mejor = max(range(0, len(palabras) - maximo + 1), key=valor)
    ventana = " ".join(palabras[mejor : mejor + maximo])
    return ("… " if mejor else "") + ventana + (" …" if mejor + maximo < len(palabras) else "")


_TIEMPO_DICHO = re.compile(
    r"\b(?:(?:\d+|un|una|dos|tres|cuatro|cinco|seis|siete|ocho|nueve|diez|once|doce|quince|veinte|treinta"
    r"|cuarenta|cincuenta|sesenta|noventa|ciento veinte|ciento ochenta)(?: \(\d+\))? "
    r"(?:días|meses|años|horas)(?: hábiles| corridos)?)",
    re.IGNORECASE,
)
_CIFRA_DICHA = re.compile(
    r"\b(?:\d[\d.,]*|un|una|dos|tres|cinco|diez|veinte|cien|mil|diez mil|quince mil)(?: \([\d.,]+\))? "
    r"(?:unidades tributarias (?:anuales|mensuales)|UTA|UTM|por ciento|%|hectáreas|metros cúbicos|toneladas"
    r"|kilómetros|kilovoltios|megawatts?)\b",
    re.IGNORECASE,
)


def hecho_preguntado(pregunta: str, oracion: str) -> str:
    """El hecho que la pregunta pide, dicho como lo dice la oración («Cinco días», «Multa de hasta diez
    mil unidades tributarias anuales»), o «» si la pregunta no pide un plazo o una cifra o la oración no
    lo trae."""
    normal = sin_tildes(nucleo_de_la_pregunta(pregunta))
    if pide_plazo(normal):
        patron = _TIEMPO_DICHO
    elif re.search(r"\bcuant[oa]s?\b|\bmonto\b|\bde cuanto\b", normal):
        patron = _CIFRA_DICHA
    else:
        return ""
    m = patron.search(oracion)
    return _mayuscula(m.group(0)) if m else ""


def _mayuscula(texto: str) -> str:
    return texto[:1].upper() + texto[1:]


def _epigrafe(fuente: Fuente) -> str:
    """« (Consulta de pertinencia de ingreso)»: el nombre de la institución que el artículo regula,
    si el artículo lo trae y la oración citada no lo repite."""
    epigrafe = fuente.get("epigrafe", "")
    if not epigrafe or sin_tildes(epigrafe).lower() in sin_tildes(fuente["extracto"]).lower():
        return ""
    return f" ({epigrafe})"


def _oracion(extracto: str) -> str:
    return " ".join(extracto.split()).rstrip(" .;:")


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


# --- proyecto descrito ------------------------------------------------------------------------

_VIA = {
    "DIA": "ingresa al SEIA y se evalúa mediante una **Declaración de Impacto Ambiental (DIA)**",
    "EIA": "ingresa al SEIA y se evalúa mediante un **Estudio de Impacto Ambiental (EIA)**",
    "NO_INGRESA": "**no ingresa al SEIA** por la letra i) del Art. 10 de la Ley 19.300",
}


def redactar_evaluacion(
    resultado: dict[str, Any],
    *,
    supuestos: Sequence[str] = (),
    dichas: Mapping[str, str] | None = None,
    no_leidas: Sequence[str] = (),
) -> tuple[str, list[Fuente]]:
    """La respuesta a un proyecto descrito, desde el resultado de `evaluar_proyecto`: la vía primero,
    las cuentas hechas para llegar a las unidades del motor (`supuestos`), el literal y cada cantidad
    frente a su umbral, los efectos del Art. 11 (con la frase del usuario que declaró cada uno:
    `dichas`, circunstancia → frase), lo que falta y podría cambiar el resultado, las cantidades que no se
    pudieron leer (`no_leidas`: con ellas no se descarta el ingreso) y qué tan seguro es. Devuelve el texto
    y las fuentes en el orden de sus [n]."""
    dichas = dichas or {}
    fuentes: list[Fuente] = []

    def marca(*referencias: tuple[str, str, str]) -> str:
        marcas = []
        for norma, articulo, letra in referencias:
            fuente = next(
                (
                    f
                    for f in resultado["fuentes"]
                    if (f["norma"], f["articulo"], f["letra"] or "") == (norma, articulo, letra)
                ),
                None,
            )
            if fuente is None:
                continue
            if fuente not in fuentes:
                fuentes.append(fuente)
            marcas.append(f"[{fuentes.index(fuente) + 1}]")
        return (" " + "".join(marcas)) if marcas else ""

    clasificacion = resultado["clasificacion"]
    lugar = ", ".join(x for x in (resultado.get("comuna"), resultado.get("region")) if x)
    parrafos = [f"Con los datos que indica ({lugar}), el proyecto {_VIA[clasificacion]}."]
    if no_leidas and clasificacion == "NO_INGRESA":
        parrafos[0] = (
            f"Con lo que pude leer de su mensaje ({lugar}), el proyecto {_VIA[clasificacion]}; pero hay "
            "cantidades que no pude leer, así que no puedo descartar que ingrese por otra letra."
        )
    if supuestos:
        parrafos.append("Cuentas hechas con sus datos: " + "; ".join(supuestos) + ".")
    umbrales = resultado.get("umbrales", [])
    causas = list(dict.fromkeys(t["tipologia"] for t in resultado.get("tipologias", [])))
    if len(causas) > 1:
        parrafos.append(f"Ingresa por {len(causas)} causas (basta una): {', '.join(causas)}.")
    for literal in dict.fromkeys(u["literal"] for u in umbrales):
        del_literal = [u for u in umbrales if u["literal"] == literal]
        cumplidos = [u["texto"] for u in del_literal if u["cumple"]]
        letra = literal.split(".")[0]
        # «literal i.1», pero «letra j)»: una letra del Art. 3 sin literales se cita como letra.
        nombre = f"del literal {literal}" if "." in literal else f"de la letra {literal})"
        referencias = marca(("Ley 19.300", "10", letra), ("DS 40", "3", literal))
        if literal in SOLO_LEY:  # la letra s) de la ley no tiene literal en el DS 40 de 2014
            parrafos.append(
                f"Alcanza la letra {literal}) del Art. 10 de la Ley 19.300: {'; '.join(cumplidos)}"
                f"{marca(('Ley 19.300', '10', literal))}."
            )
            continue
        if cumplidos:
            parrafos.append(
                f"Alcanza la tipología {nombre} del Art. 3 del DS 40 (letra {letra}) del "
                f"Art. 10 de la Ley 19.300): {'; '.join(cumplidos)}{referencias}."
            )
        else:
            textos = "; ".join(u["texto"] for u in del_literal)
            exige = "; ".join(f"«{c}»" for c in del_literal[0].get("exige", ()))
            dice = f", que exige {exige}" if exige else ""
            parrafos.append(
                f"No alcanza el umbral {nombre} del Art. 3 del DS 40{dice} (letra {letra}) del "
                f"Art. 10 de la Ley 19.300): {textos}{referencias}."
            )
    con_umbral = {u["literal"] for u in umbrales}
    for tipologia in resultado.get("tipologias", []):
        literal = tipologia["tipologia"]
        if literal in con_umbral:
            continue  # ya dicha con su umbral
        letra = literal.split(".")[0]
        referencias = marca(("Ley 19.300", "10", letra), ("DS 40", "3", literal))
        parrafos.append(
            f"Ingresa por la letra {letra}) del Art. 10 de la Ley 19.300: {tipologia['motivo']}{referencias}."
        )
    if clasificacion == "EIA":
        letras = sorted({t["letra"] for t in resultado["triggers"]})
        referencias = marca(*(("Ley 19.300", "11", letra) for letra in letras))
        parrafos.append(
            f"Presenta efectos del Art. 11 de la Ley 19.300, letra(s) {', '.join(letras)}), que obligan a "
            f"un EIA{referencias}."
        )
        for efecto in resultado["triggers"]:
            circunstancia = (efecto.get("evidencia") or {}).get("circunstancia", "")
            if circunstancia in dichas:
                articulo = ARTICULO_DEL_REGLAMENTO[efecto["letra"]]
                parrafos.append(
                    f"- Lo que usted indicó, «{dichas[circunstancia]}», es la letra {efecto['letra']}) del "
                    f"Art. 11: {_oracion(efecto['descripcion'])}; la desarrolla el Art. {articulo} del "
                    f"DS 40{marca(('Ley 19.300', '11', efecto['letra']), ('DS 40', articulo, ''))}."
                )
    elif clasificacion == "DIA":
        parrafos.append(
            "No se indicaron efectos, características o circunstancias del Art. 11 de la Ley 19.300; sin "
            f"ellos, el ingreso es por DIA{marca(('DS 40', '4', ''))}."
        )
    else:
        parrafos.append(
            "Si hay dudas sobre las cantidades o el proyecto cambia, puede consultar la pertinencia de "
            f"ingreso al SEA{marca(('DS 40', '26', ''))}."
        )
    if clasificacion == "NO_INGRESA":
        for alerta in resultado.get("alertas", []):
            circunstancia = (alerta.get("evidencia") or {}).get("circunstancia", "")
            if circunstancia in dichas:
                parrafos.append(f"Sobre lo que indicó, «{dichas[circunstancia]}»: {alerta['mensaje']}")
    if permisos := resultado.get("permisos"):
        lista = "; ".join(
            f"Art. {p['articulo']} ({', '.join(parte.partition(' (')[0] for parte in p['partes'])})"
            f"{marca(('DS 40', p['articulo'], ''))}"
            for p in permisos
        )
        parrafos.append(f"Permisos ambientales sectoriales que traen sus partes: {lista}.")
    pendientes = [a for a in resultado["advertencias"] if "pertinencia" not in a]
    if no_leidas:
        pendientes.insert(
            0,
            "No pude leer como parte del proyecto: "
            + ", ".join(f"«{c}»" for c in no_leidas)
            + ". Si alguna es una parte de la faena (una bodega, un estanque, una obra), dígala con su "
            "nombre y su unidad: puede cambiar el resultado.",
        )
    if pendientes:
        parrafos.append("Lo que podría cambiar el resultado:\n" + "\n".join(f"- {a}" for a in pendientes))
    if no_leidas:
        parrafos.append(
            "_Qué tan seguro estoy: medianamente; hay cantidades de su mensaje que no pude leer._"
        )
    else:
        parrafos.append(
            "_Qué tan seguro estoy: bastante; la vía sale del motor con las cantidades que usted dio, frente "
            "a los umbrales del reglamento._"
        )
    return "\n\n".join(parrafos), fuentes
