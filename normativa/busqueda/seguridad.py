"""Qué tan seguro se puede estar de una respuesta tomada de la búsqueda: «bastante», «medianamente» o
«poco».

La confianza de la búsqueda (HIGH a NONE) mide si el corpus trata el tema de la pregunta, y e5 acerca
casi cualquier pregunta jurídica a algún artículo: en preguntas nuevas, «HIGH» acertaba menos de la
mitad de las veces. Esta estimación mira, en cambio, si el primer resultado responde lo preguntado:

- que la pregunta cite el artículo o el término definido (la respuesta es ese texto);
- que el primer resultado sea de la clase que pide la pregunta (su familia: plazo, sanción, recurso…);
- cuánto del peso IDF de la pregunta cubre la oración elegida;
- y, si la pregunta pide un hecho de cierta clase —un plazo, un órgano, una cifra, una consecuencia—,
  que la oración lo traiga.

Las reglas y sus umbrales se midieron sobre los conjuntos públicos, juntos, mirando la precisión de cada
nivel (`evaluar_respuestas` la imprime) y no el puntaje de un conjunto; ver docs/busqueda_normativa.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from config.texto import sin_tildes
from normativa.busqueda.familias import (
    acciones_del_plazo,
    aspectos_de,
    categorias_de,
    contados,
    hace_en_el_plazo,
    lo_que_se_cuenta,
    pide_ampliacion,
    pide_cifra,
    pide_plazo,
    solo_plazo_de_ampliacion,
    tiene_tiempo,
    tramites_de,
)
from normativa.busqueda.hibrida import ResultadoBusqueda
from normativa.busqueda.preguntas import nucleo_de_la_pregunta
from normativa.busqueda.tipos import Resultado
from normativa.glosario import nombrar_siglas, normas_de_los_organos

Nivel = Literal["bastante", "medianamente", "poco"]

COBERTURA_BASTANTE = 0.25  # del peso IDF de la pregunta en la oración elegida
COBERTURA_POCA = 0.12
# Nombrar el artículo no basta si lo preguntado es si un caso calza en él: la oración elegida debe
# cubrir además esto del resto de la pregunta. (Un término definido sí basta: «¿qué es…?» pide su
# definición.)
COBERTURA_NOMBRADO = 0.2
ACUERDO = 0.99  # el epígrafe y la búsqueda densa señalan el mismo artículo (rasgos normalizados a 1)
# Un órgano o una autoridad nombrada (quién decide, ante quién se reclama), o la persona a quien la ley
# da el derecho de pedir (el titular, el directamente afectado, cualquier persona) o que actúa de oficio.
_ORGANO = re.compile(
    r"\b(comision de evaluacion|director\w* (ejecutivo|regional)|comite de ministros|superintenden\w*"
    r"|tribunal\w* ambiental\w*|corte (suprema|de apelaciones)|servicio de (evaluacion|biodiversidad)"
    # las leyes nombran a su servicio con su nombre corto: «aprobados mediante resolución del Servicio»
    r"|(?<=\b(el|al) )servicio|(?<=\bdel )servicio"
    r"|ministerios?|ministros?|municipalidad(es)?|alcaldes?|juzgados?|consejos?|comites?"
    r"|secretari\w* regional\w* ministerial\w*|seremi"
    r"|contraloria|gobierno regional|delegad\w* presidencial|consejo de monumentos"
    r"|titular|proponente|interesad[oa]s?|directamente afectad[oa]s?|cualquier persona|de oficio)\b"
)
# Las instituciones con nombre propio (no «el ministerio» ni «el consejo» sueltos): si la pregunta por
# quiénes integran un órgano lo nombra, lo citado tiene que nombrarlo.
_INSTITUCION = re.compile(
    r"\b(comision de evaluacion|director ejecutivo|comite de ministros|comite tecnico|superintendencia"
    r"|tribunal(es)? ambiental(es)?|corte suprema|corte de apelaciones|servicio de evaluacion ambiental"
    r"|servicio de biodiversidad|consejo de ministros|consejo consultivo|consejo de monumentos"
    r"|contraloria|municipalidad)"
)


# Una región de Chile nombrada («la Región de Antofagasta», «las Regiones de Arica y Parinacota, de
# Tarapacá…», «la Región Metropolitana»), en minúsculas y sin tildes.
_REGION = re.compile(
    r"\bregion(es)? (de |del )?(arica|tarapaca|antofagasta|atacama|coquimbo|valparaiso|metropolitana"
    r"|libertador|o'?higgins|maule|nuble|biobio|la araucania|los rios|los lagos|aysen|magallanes)"
)


def _instituciones(texto: str) -> frozenset[str]:
    normal = " ".join(sin_tildes(texto).split())
    return frozenset(
        m.group(0).replace("tribunales ambientales", "tribunal ambiental")
        for m in _INSTITUCION.finditer(normal)
    )


# Una cifra: un número que no es el de una lista («2.-», «4)») ni el de una norma o un artículo
# («artículo 36», «Ley Nº 19.300»), o uno en palabras («diez mil»; «una» es también un artículo).
_CIFRA = re.compile(
    r"(?<!articulo )(?<!articulos )(?<!ley )(?<!ds )(?<!nº )(?<!n° )(?<![\w.,])\d+(?:[.,]\d+)*(?![\d)]|\.-)"
    r"|\b(dos|tres|cuatro|cinco|seis|siete|ocho|nueve|diez|veinte|treinta|cien|mil)\b"
)


@dataclass(frozen=True)
class Seguridad:
    nivel: Nivel
    motivo: str  # en palabras del usuario: por qué ese nivel


def seguridad_de(pregunta: str, busqueda: ResultadoBusqueda) -> Seguridad:
    """El nivel de la respuesta que empieza por el primer resultado de `busqueda`, con su motivo."""
    if busqueda.confianza == "NONE" or not busqueda.resultados:
        return Seguridad("poco", "no encontré en el corpus un artículo que lo trate")
    primero = busqueda.resultados[0]
    referencias = busqueda.referencias
    rasgos = primero.rasgos
    cobertura = primero.cobertura or 0.0
    entera = pregunta
    # lo que la pregunta pide se lee en lo que pregunta, no en la historia que la rodea («se vencieron
    # los plazos… ¿se entiende aprobada?» no pide un plazo)
    pregunta = nucleo_de_la_pregunta(pregunta)
    falta = _hecho_que_falta(pregunta, [r.oracion or r.texto for r in busqueda.resultados[:1]])
    # el término por el que pregunta cuenta si lo primero es su definición o si la ley no lo define en
    # lo encontrado («¿qué es …?» no lo responde la letra que pide ese término en el contenido de un
    # Estudio, si la definición va segunda)
    definiciones = [r for r in busqueda.resultados if r.rasgos.get("definicion", 0.0) >= 1.0]
    define = bool(referencias.termino_definido) and (not definiciones or definiciones[0] is primero)
    nombrado = define or (referencias.articulo and cobertura >= COBERTURA_NOMBRADO)
    if nombrado and not falta:
        return Seguridad("bastante", "cita el artículo o el término que usted nombró")
    # cubrir poco de una pregunta larga (la historia que la rodea) no es «poco» si el epígrafe del
    # artículo dice lo preguntado y la búsqueda densa también lo pone primero: las dos lo encuentran
    acuerdo = rasgos.get("epigrafe", 0.0) >= ACUERDO and rasgos.get("denso", 0.0) >= ACUERDO
    if busqueda.confianza == "LOW" or (cobertura < COBERTURA_POCA and not acuerdo):
        return Seguridad("poco", "ningún artículo trata directamente lo que pregunta")
    if primero.tema is not None and primero.tema < COBERTURA_POCA and pide_plazo(pregunta):
        return Seguridad("poco", "el plazo que encontré es de otro trámite, no del que pregunta")
    if falta and _hecho_que_falta(pregunta, [r.oracion or r.texto for r in busqueda.resultados[:3]]):
        return Seguridad("poco", f"ninguno de los artículos más cercanos dice {falta}")
    if _una_parte_de_la_lista(busqueda) and not falta:
        return Seguridad("medianamente", "cito una parte de la lista; el artículo entero trae el resto")
    if (
        not falta
        and rasgos.get("familia", 0.0) >= 1.0
        and cobertura >= COBERTURA_BASTANTE
        and (primero.tema is None or primero.tema >= COBERTURA_BASTANTE)  # el plazo de otro trámite no
    ):
        if duda := _duda_de_lo_citado(entera, pregunta, primero, busqueda.familias):
            return Seguridad("medianamente", duda)
        return Seguridad("bastante", "el artículo trata directamente lo que pregunta")
    if falta:
        return Seguridad("medianamente", f"el primer artículo no dice {falta}; revise los otros citados")
    return Seguridad("medianamente", "revise que calce con su caso")


def _duda_de_lo_citado(entera: str, pregunta: str, primero: Resultado, familias: tuple[str, ...]) -> str:
    """Por qué lo citado, que trata el tema, puede no ser lo preguntado («» si no hay por qué).
    `entera` es la pregunta con su situación (ahí se nombran el órgano y el trámite: «si la Superintendencia
    ya sancionó, ¿dentro de cuánto se puede impugnar?»); `pregunta`, lo que pregunta."""
    nombrados = _instituciones(nombrar_siglas(pregunta)) if "composicion" in familias else frozenset()
    if nombrados and not nombrados & _instituciones(f"{primero.oracion}\n{primero.texto}"):
        # «¿cómo se compone el Consejo Consultivo?» no lo responde la composición del Consejo de Ministros
        return "el artículo no nombra el órgano por el que pregunta; revise los otros citados"
    if _REGION.search(sin_tildes(pregunta)) and not _REGION.search(
        sin_tildes(f"{primero.oracion}\n{primero.texto}")
    ):
        # «¿qué tribunal conoce en la Región Metropolitana?» no lo responde la regla general del «tribunal
        # del lugar»: lo que rige en una región lo dice el artículo que la nombra
        return "el artículo no nombra la región por la que pregunta; revise los otros citados"
    leyes = normas_de_los_organos(entera)
    if leyes and primero.norma not in leyes:
        # la reclamación del reglamento del SEIA tiene plazo y trata de reclamar, pero no es la que da
        # la ley de la Superintendencia que la pregunta nombra
        return "el artículo es de otra ley que la del órgano que nombra; revise los otros citados"
    if not pide_plazo(pregunta):
        return ""
    oracion = primero.oracion or primero.texto
    de_la_oracion = tramites_de(oracion)
    if de_la_oracion and not de_la_oracion & tramites_de(entera, pregunta=True):
        return "el plazo que cito es de otro trámite del procedimiento; revise los otros citados"
    if solo_plazo_de_ampliacion(oracion) and not pide_ampliacion(pregunta):
        return "el plazo que cito es una ampliación o una etapa nueva; el plazo mismo puede ser otro"
    if (accion := acciones_del_plazo(pregunta)) and not hace_en_el_plazo(accion, oracion):
        # «¿qué plazo tiene el órgano para pronunciarse…?» no lo responde el plazo del titular para
        # presentar lo que el órgano revisa, aunque la oración trate de lo mismo
        return "el plazo que cito es de otra actuación que la que pregunta; revise los otros citados"
    return ""


# Las familias de pregunta cuya respuesta es una lista entera: qué debe contener un documento, quiénes
# integran un órgano, qué circunstancias se consideran.
_PIDEN_LA_LISTA = frozenset({"contenido", "composicion"})


def _una_parte_de_la_lista(busqueda: ResultadoBusqueda) -> bool:
    """La pregunta pide una lista entera y lo primero es una sola de sus letras, que no nombró: responde
    una parte (un contenido entre varios), no lo preguntado."""
    primero = busqueda.resultados[0]
    return (
        bool(_PIDEN_LA_LISTA & set(busqueda.familias))
        and bool(primero.letra)
        and primero.letra != busqueda.referencias.letra
    )


def _hecho_que_falta(pregunta: str, oraciones: list[str]) -> str:
    """La clase de hecho que la pregunta pide y ninguna de las oraciones trae («un plazo», «quién»…), o
    «» si no pide uno o alguna lo trae."""
    normal = " ".join(sin_tildes(pregunta).split())
    textos = [" ".join(sin_tildes(o).split()) for o in oraciones]
    pedidos: list[tuple[str, bool]] = []
    if pide_plazo(normal):
        pedidos.append(("un plazo", any(tiene_tiempo(t) for t in textos)))
    if pide_cifra(normal):
        pedidos.append(("una cifra", any(_CIFRA.search(t) for t in textos)))
    if nombre := lo_que_se_cuenta(normal):
        # «¿cuántas audiencias…?»: la oración dice cuántas («a lo menos tres audiencias»)
        cuantos = "cuántas" if nombre.endswith("as") else "cuántos"
        pedidos.append((f"{cuantos} {nombre}", any(contados(nombre, t) for t in textos)))
    if categorias := categorias_de(normal):
        # «si la infracción es gravísima…»: la cifra o la sanción de otra categoría no responde
        pedidos.append(
            ("la categoría de infracción que pregunta", any(categorias & categorias_de(t) for t in textos))
        )
    for aspecto in aspectos_de(pregunta):
        if aspecto.nombre == "quien":
            pedidos.append(("quién", any(_ORGANO.search(t) for t in textos)))
        elif aspecto.falta:
            pedidos.append((aspecto.falta, any(aspecto.responde(t) for t in textos)))
    return next((que for que, dicho in pedidos if not dicho), "")
