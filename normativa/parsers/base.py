"""Estructura intermedia común a todos los parsers y su división en fragmentos citables.

Cada parser lee un formato (XML de BCN, PDF de LeyChile, Markdown, PDF de guía) y devuelve un
`DocumentoParseado`: artículos con su jerarquía (leyes) o secciones con su encabezado (guías).
`fragmentar()` convierte eso en fragmentos: un artículo entero, más uno por cada letra y por cada
numeral («i.1», «i.5.2») si los tiene —o, si no tiene letras, uno por cada número: «1)», «2.-»—; las
secciones largas de guías se parten en párrafos conservando el encabezado en cada trozo.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import date

from config.errores import EntradaNoValida


class ErrorDeParseo(EntradaNoValida, ValueError):
    """El archivo no tiene el formato esperado; el mensaje está en español para el usuario."""


@dataclass
class Articulo:
    numero: str
    texto: str
    jerarquia: list[str] = field(default_factory=list)
    id_parte: str = ""
    derogado: bool = False
    transitorio: bool = False


@dataclass
class Seccion:
    jerarquia: list[str]
    texto: str
    pagina: int | None = None


@dataclass
class DocumentoParseado:
    titulo: str
    fecha_version: date | None = None
    articulos: list[Articulo] = field(default_factory=list)
    secciones: list[Seccion] = field(default_factory=list)
    metadatos: dict[str, str] = field(default_factory=dict)


@dataclass
class Fragmento:
    tipo: str  # articulo | letra | numeral | seccion
    jerarquia: list[str]
    articulo: str
    letra: str
    texto: str
    id_parte: str = ""
    derogado: bool = False
    transitorio: bool = False
    pagina: int | None = None
    contexto: str = ""
    modificatorio: bool = False
    texto_busqueda: str = ""
    termino_definido: str = ""


# --- normalización ----------------------------------------------------------------------------

_SUFIJO = r"(?:bis|ter|qu[aá]ter|quinquies|sexies|septies|octies|nonies|decies)"


def normalizar_articulo(numero: str) -> str:
    """«7 BIS» → «7 bis», «7° quinquies» → «7 quinquies», «25 QUATER» → «25 quáter»."""
    texto = numero.strip().lower().replace("°", " ").replace("º", " ").replace(".", " ")
    texto = re.sub(r"\bquater\b", "quáter", texto)
    texto = re.sub(r"^art[ií]culo\s+", "", texto)
    return re.sub(r"\s+", " ", texto).strip()


_ORDINALES = {"primero": "1", "segundo": "2", "tercero": "3", "cuarto": "4", "quinto": "5",
              "sexto": "6", "séptimo": "7", "octavo": "8", "noveno": "9", "décimo": "10"}  # fmt: skip


def ordinal_a_numero(numero: str) -> str:
    """«primero» → «1»: los artículos transitorios se citan igual con ordinal o con número."""
    return _ORDINALES.get(numero, numero)


def fecha_iso(valor: str | None) -> date | None:
    """«2024-04-10» → date; vacío o inválido → None (la fecha de versión es opcional)."""
    try:
        return date.fromisoformat(valor) if valor else None
    except ValueError:
        return None


def normalizar_espacios(texto: str) -> str:
    """Une las líneas cortadas del Diario Oficial y deja un párrafo por línea.

    Una línea que empieza con sangría abre párrafo; una que empieza sin sangría continúa el anterior.
    """
    texto = texto.replace("\r\n", "\n").replace("\xa0", " ")
    lineas = texto.split("\n")
    parrafos: list[str] = []
    for linea in lineas:
        if not linea.strip():
            parrafos.append("")
            continue
        if parrafos and parrafos[-1] and not linea[:1].isspace():
            parrafos[-1] += " " + linea.strip()
        else:
            parrafos.append(linea.strip())
    limpio = "\n".join(re.sub(r"[ \t]+", " ", p) for p in parrafos)
    return re.sub(r"\n{2,}", "\n", limpio).strip()


def quitar_columna_de_notas(texto: str, *, columna: int | None = None) -> str:
    """Quita la columna derecha de notas de modificación («Ley 20417 / Art. PRIMERO Nº 8 / D.O. …»).

    LeyChile compone el texto en ancho fijo y pone esas notas a partir de una columna fija (64 en
    los PDF, 68 en obtxml). La columna se detecta como el inicio más frecuente de texto separado
    por tres o más espacios más allá de la columna 50; las líneas que solo tenían nota se eliminan.
    """
    lineas = texto.split("\n")
    if columna is None:
        inicios = Counter(
            m.start(1) for linea in lineas if (m := re.search(r"\s{3,}(\S)", linea)) and m.start(1) >= 50
        )
        if not inicios:
            return texto
        columna = inicios.most_common(1)[0][0]
    resultado = []
    for linea in lineas:
        if len(linea) > columna and linea[columna:].strip() and linea[columna - 2 : columna].isspace():
            cuerpo = linea[:columna].rstrip()
            if cuerpo.strip():
                resultado.append(cuerpo)
        else:
            resultado.append(linea)
    return "\n".join(resultado)


# --- fragmentación ----------------------------------------------------------------------------

# Letra al inicio de un párrafo: «a)», «a bis)», «ñ)».
# (a veces con un punto tras el paréntesis: «i bis). Evaluación Ambiental Estratégica: …»)
_LETRA = re.compile(rf"^([a-zñ](?:\s+{_SUFIJO})?)\)\.?\s", re.IGNORECASE)
# Numeral al inicio de un párrafo: «i.1.», «i.5.2», «a.2.1».
_NUMERAL = re.compile(r"^([a-zñ](?:\.\d+){1,3})\.?\s")
# Letras dentro de un párrafo largo (Markdown que juntó las letras en una línea).
_LETRA_EN_LINEA = re.compile(rf"(?:(?<=^)|(?<=[.;:]\s))([a-zñ](?:\s+{_SUFIJO})?)\)\s")
# Número al inicio de un párrafo: «1)», «2.-», «3.» (las competencias de un tribunal, las clases de
# infracción con sus letras adentro), o dentro de uno, tras el punto del anterior («… del artículo 32.
# 2) Área protegida: …», como junta la BCN las definiciones numeradas).
_NUMERO = re.compile(r"^(\d{1,2})(?:\)|\.-|\.)\s")
_NUMERO_EN_LINEA = re.compile(r"(?:(?<=^)|(?<=[.;:]\s))(\d{1,2})\)\s")
# Un párrafo que empieza con mayúscula tras el último número ya no es de la lista (sus letras, «a)», van
# en minúscula): es el resto del artículo.
_FUERA_DE_LA_LISTA = re.compile(r"^[«\"]?[A-ZÁÉÍÓÚÑ]")

MAXIMO_SECCION = 1400


def fragmentar(documento: DocumentoParseado) -> list[Fragmento]:
    """Divide el documento en fragmentos citables (artículo + letras + numerales, o secciones)."""
    fragmentos: list[Fragmento] = []
    for articulo in documento.articulos:
        fragmentos.extend(_fragmentos_de_articulo(articulo))
    for seccion in documento.secciones:
        for trozo in _partir_seccion(seccion.texto):
            fragmentos.append(
                Fragmento(
                    tipo="seccion", jerarquia=seccion.jerarquia, articulo="", letra="", texto=trozo,
                    pagina=seccion.pagina,
                )
            )  # fmt: skip
    return fragmentos


# Verbos con que una ley modifica otra («Introdúcense las siguientes modificaciones en la ley…»).
_MODIFICATORIO = re.compile(
    r"\b(?:Introd[úu]cen(?:se)?|Modif[íi]ca(?:n)?se|Reempl[áa]za(?:n)?se|Agr[ée]ga(?:n)?se|"
    r"Sustit[úu]ye(?:n)?se|Der[óo]ga(?:n)?se|Interc[áa]la(?:n)?se|Incorp[óo]ra(?:n)?se|Elim[íi]na(?:n)?se)\b"
)
MAXIMO_CONTEXTO = 500
MAXIMO_COLA = 1000  # caracteres de lo que sigue a la lista en el índice del artículo
# Artículo de definiciones («Para todos los efectos legales, se entenderá por:») y su término
# definido en cada letra («e) Daño Ambiental: toda pérdida…»).
_DEFINICIONES = re.compile(r"entender[áa]\s+por", re.IGNORECASE)
_TERMINO = re.compile(r"^(?:[a-zñ](?:\s+bis)?|\d{1,2})\)\.?\s*([^:]{3,90}):")


def es_modificatorio(texto: str) -> bool:
    """¿El artículo modifica otra norma? Su contenido ya está en el texto refundido de esa norma."""
    return bool(_MODIFICATORIO.search(texto[:300]))


def _fragmentos_de_articulo(articulo: Articulo) -> list[Fragmento]:
    plantilla = Fragmento(
        tipo="articulo",
        jerarquia=articulo.jerarquia,
        articulo=articulo.numero,
        letra="",
        texto=articulo.texto,
        id_parte=articulo.id_parte,
        derogado=articulo.derogado,
        transitorio=articulo.transitorio,
        modificatorio=es_modificatorio(articulo.texto),
    )
    # los números de un artículo que modifica otra ley son los cambios que introduce, no partes suyas
    letras = _divisiones(articulo.texto, con_numeros=not plantilla.modificatorio)
    if not letras:
        return [plantilla]
    # Una letra sola no dice de qué se trata: «i) Proyectos de desarrollo minero…» significa
    # «deben someterse al SEIA» por el encabezado del artículo, que la acompaña al embeberla.
    encabezado = _acotar(articulo.texto.split("\n" + letras[0][1].split("\n")[0])[0])
    # Y un artículo con letras se busca por su encabezado y el comienzo de cada letra (su índice):
    # su texto completo (38 000 caracteres el Art. 3 del DS 40) coincidiría con cualquier pregunta,
    # y el detalle ya lo representan sus letras.
    # Lo que sigue a la lista (el plazo para responder, quién lo resuelve) es del artículo y solo está en
    # su texto: entra también en su índice.
    cola = articulo.texto.partition(letras[-1][1])[2].strip()
    indice = "\n".join(
        [encabezado, *(_acotar(t.split("\n")[0], 160) for _, t in letras), _acotar(cola, MAXIMO_COLA)]
    ).strip()
    fragmentos = [replace(plantilla, texto_busqueda=indice)]
    define = bool(_DEFINICIONES.search(encabezado))
    for letra, texto in letras:
        termino = _TERMINO.match(texto) if define else None
        fragmentos.append(
            replace(
                plantilla,
                tipo="letra",
                letra=letra,
                texto=texto,
                contexto=encabezado,
                termino_definido=termino.group(1).strip() if termino else "",
            )
        )
        contexto_numeral = f"{encabezado}\n{_acotar(texto.split(chr(10))[0])}".strip()
        for numeral, texto_numeral in _numerales(letra, texto):
            fragmentos.append(
                replace(
                    plantilla, tipo="numeral", letra=numeral, texto=texto_numeral, contexto=contexto_numeral
                )
            )
    return fragmentos


def _acotar(texto: str, maximo: int = MAXIMO_CONTEXTO) -> str:
    texto = texto.strip()
    if len(texto) <= maximo:
        return texto
    return texto[:maximo].rsplit(" ", 1)[0] + " …"


def _divisiones(texto: str, *, con_numeros: bool = True) -> list[tuple[str, str]]:
    """Las letras del artículo (una por párrafo o, si menos de dos abren párrafo, juntas en uno); si no
    tiene, sus números («1)», «2.-»), que pueden llevar letras adentro (las infracciones gravísimas, a)
    a g); las graves, a) a g)…); y si tampoco, las letras juntas en un párrafo aunque otras abran uno."""
    parrafos = texto.split("\n")
    en_linea = _separar_en_linea(parrafos, _LETRA_EN_LINEA)
    letras = _bloques(
        parrafos if sum(1 for p in parrafos if _LETRA.match(p)) >= 2 else en_linea, _LETRA, _es_siguiente
    )
    if letras:
        return _sin_lo_que_sigue_a_la_lista(letras)
    if not con_numeros:
        return letras
    numeros = _bloques(parrafos, _NUMERO, _es_siguiente_numero) or _bloques(
        _separar_en_linea(parrafos, _NUMERO_EN_LINEA), _NUMERO, _es_siguiente_numero
    )
    if numeros:
        # lo que sigue a la lista es del artículo, no de su último número («5) La fecha hasta…» y luego
        # «La emisión de estos avisos deberá ser acreditada…»): un párrafo que no es una letra del número
        return _sin_la_cola(numeros)
    return _bloques(en_linea, _LETRA, _es_siguiente)


# El fin de una letra de un solo párrafo que no es la última («…de emergencia;», «…ambiental, y», o
# una oración entera: «a) El perfil … será definido por el Consejo.»): las letras son incisos de una
# sola enumeración.
_SIGUE_LA_LISTA = re.compile(r"(;|,? [yo]|;\s*[yo]|\.)\s*$")


def _sin_lo_que_sigue_a_la_lista(letras: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Si las letras son incisos de una enumeración (la penúltima es un solo párrafo que termina en «;»,
    en «y» o en punto) y la última la cierra con un punto, los párrafos que le siguen y empiezan con
    mayúscula son del artículo, no de la última letra: «e) Las que tengan por finalidad …
    otorgamiento.» y luego «El proponente podrá solicitar la extensión del plazo…». Si la penúltima
    tiene varios párrafos (las letras son textos enteros), la última queda entera."""
    penultima = letras[-2][1].split("\n")
    ultima = letras[-1][1].split("\n")
    if len(penultima) > 1 or not _SIGUE_LA_LISTA.search(penultima[0]) or not ultima[0].rstrip().endswith("."):
        return letras
    return _sin_la_cola(letras)


def _sin_la_cola(divisiones: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Las divisiones, con la última cortada antes de su primer párrafo que empieza con mayúscula."""
    ultima, texto = divisiones[-1]
    lineas = texto.split("\n")
    fin = next((i for i, linea in enumerate(lineas[1:], start=1) if _FUERA_DE_LA_LISTA.match(linea)), None)
    return [*divisiones[:-1], (ultima, "\n".join(lineas[:fin]))]


def _bloques(
    parrafos: list[str], patron: re.Pattern[str], siguiente: Callable[[str, str | None], bool]
) -> list[tuple[str, str]]:
    """(división, texto) de cada división enumerada con `patron` al inicio de un párrafo, en orden: una
    que no sigue a la anterior (una cita «letra c)» o «número 2)») es parte del texto de la anterior."""
    bloques: list[tuple[str, list[str]]] = []
    esperado: str | None = None
    for parrafo in parrafos:
        coincidencia = patron.match(parrafo)
        if coincidencia and siguiente(coincidencia.group(1), esperado):
            division = re.sub(r"\s+", " ", coincidencia.group(1).lower())
            bloques.append((division, [parrafo]))
            esperado = division
        elif bloques:
            bloques[-1][1].append(parrafo)
    if len(bloques) < 2:
        return []
    return [(division, "\n".join(lineas)) for division, lineas in bloques]


def _separar_en_linea(parrafos: list[str], patron: re.Pattern[str]) -> list[str]:
    resultado: list[str] = []
    for parrafo in parrafos:
        cortes = [m.start() for m in patron.finditer(parrafo) if m.start() > 0]
        if len(cortes) < 1 or not patron.search(parrafo[: cortes[0] + 3]):
            resultado.append(parrafo)
            continue
        inicio = 0
        for corte in cortes:
            resultado.append(parrafo[inicio:corte].strip())
            inicio = corte
        resultado.append(parrafo[inicio:].strip())
    return resultado


def _es_siguiente(letra: str, anterior: str | None) -> bool:
    """Acepta «a)» para empezar y luego solo letras que avanzan (evita citas como «letra c)»)."""
    letra = re.sub(r"\s+", " ", letra.lower())
    if anterior is None:
        return letra in ("a", "a bis")
    base, base_anterior = letra.split(" ")[0], anterior.split(" ")[0]
    if base == base_anterior:
        return letra != anterior and " " in letra
    # hay leyes que saltan la «ñ» (Ley 21.455, Art. 3: «n)» y luego «o)»)
    return _orden_letra(base) == _orden_letra(base_anterior) + 1 or (base_anterior, base) == ("n", "o")


def _es_siguiente_numero(numero: str, anterior: str | None) -> bool:
    return int(numero) == (int(anterior) if anterior else 0) + 1


def _orden_letra(letra: str) -> int:
    return "abcdefghijklmnñopqrstuvwxyz".find(letra)


def _numerales(letra: str, texto: str) -> list[tuple[str, str]]:
    """Devuelve los numerales «i.1», «i.5», «i.5.1»… de una letra, cada uno con su texto.

    Un numeral abarca a sus descendientes: «i.5» incluye el texto de «i.5.1» a «i.5.3».
    """
    base = letra.split(" ")[0]
    parrafos = texto.split("\n")
    inicios: list[tuple[str, int]] = []
    for indice, parrafo in enumerate(parrafos[1:], start=1):
        coincidencia = _NUMERAL.match(parrafo)
        if coincidencia and coincidencia.group(1).split(".")[0] == base:
            inicios.append((coincidencia.group(1), indice))
    resultado = []
    for posicion, (numeral, inicio) in enumerate(inicios):
        fin = next(
            (otro for nombre, otro in inicios[posicion + 1 :] if not nombre.startswith(numeral + ".")),
            len(parrafos),
        )
        resultado.append((numeral, "\n".join(parrafos[inicio:fin])))
    return resultado


def _partir_seccion(texto: str) -> list[str]:
    """Parte una sección larga en trozos de hasta ~MAXIMO_SECCION caracteres, por párrafos."""
    parrafos = [p for p in texto.split("\n") if p.strip()]
    trozos: list[str] = []
    actual = ""
    for parrafo in parrafos:
        if actual and len(actual) + len(parrafo) > MAXIMO_SECCION:
            trozos.append(actual)
            actual = ""
        actual = f"{actual}\n{parrafo}" if actual else parrafo
    if actual:
        trozos.append(actual)
    return trozos
