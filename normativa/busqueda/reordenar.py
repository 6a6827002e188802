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
- `familia`: el fragmento es de la clase que pide la familia de la pregunta (ver `familias`);
- `plazo`: pregunta de plazo y su mejor oración trae una expresión de tiempo («quince días»);
- `jerarquia`: el peso de búsqueda de la norma (ley 1, reglamento 0,9, guía 0,5);
- `modificatorio`, `transitorio`: artículos que modifican otras normas o regulan la entrada en
  vigencia; rara vez son la respuesta a una pregunta de hoy, así que restan;
- `instrumento_ajeno`: la pregunta habla de un solo instrumento (la DIA o el EIA) y el fragmento
  solo del otro («la Declaración» y «el Estudio» tienen procedimientos paralelos, con plazos
  distintos: el del otro es una respuesta equivocada que se parece mucho);
- `lista_de_contenidos`: una letra de una lista de contenidos o antecedentes («Los contenidos
  técnicos y formales … son los siguientes: a) …») cuando la pregunta no pide contenidos: la
  respuesta está en el artículo (qué permiso es, de qué ley), no en un punto de su lista;
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from django.db import connection

from config.texto import sin_tildes
from normativa.busqueda.familias import afin, tiene_tiempo
from normativa.models import FragmentoLegal

CANDIDATOS_REORDENADOS = 80
RRF_K = 10
PREFERENCIA_PLAZO = 0.3  # al elegir la oración: una con «quince días» gana a otra algo más parecida
SEGUNDA_ORACION = 0.7  # una segunda oración entra si alcanza el 70 % de la preferencia de la mejor
MAXIMO_ORACIONES = 80
PARTE_MINIMA = 0.1  # del peso IDF de la pregunta que un epígrafe debe explicar para contar entero
LARGO_RAIZ = 5  # por fragmento: acota el costo en artículos muy largos
PESOS: dict[str, float] = {
    "denso": 1.0,
    "texto": 0.6,
    "oracion": 1.0,
    "epigrafe": 0.4,
    "familia": 0.8,
    "plazo": 0.6,
    "jerarquia": 3.0,
    "modificatorio": -1.5,
    "transitorio": -1.0,
    "instrumento_ajeno": -1.0,
    "lista_de_contenidos": -0.6,
}

_ENCABEZADO = re.compile(r"^\s*art[ií]culo\s+[^\n]{1,40}?\.?-\s*\n([^\n]{3,140}?)\.(\s|$)", re.IGNORECASE)
_PUNTO_SEGUIDO = re.compile(r"(?<=\.)\s+(?=[A-ZÁÉÍÓÚÑ])")
_PRIMERA_LETRA = re.compile(r"\n\s*a\)\s")
LARGO_INICIO = 600  # el inicio de un artículo con letras es una o dos oraciones
LARGO_ANTESALA = 250  # lo que anuncia la lista: la oración justo antes de la letra a)
_ANUNCIA_CONTENIDOS = re.compile(r"contenidos?|contener|antecedentes|requisitos|informacion")
# Los instrumentos se nombran con mayúscula en la ley y el reglamento («la Declaración», «el Estudio»).
_DECLARACION = re.compile(r"\bDeclaraci[oó]n(es)?\b")
_ESTUDIO = re.compile(r"\bEstudios?\b")
_CONTINUACION = re.compile(
    r"(vencido|transcurrido|cumplido|expirado) (este|dicho|el|ese) (plazo|termino)"
    r"|(en tal caso|en dicho caso|en caso contrario|si asi no|con todo|sin embargo|no obstante)\b"
)
_ORACIONES = re.compile(r"(?<=[.;:])\s+(?=[A-ZÁÉÍÓÚÑ¿«(\d])|\n+")


@dataclass
class Candidato:
    fragmento_id: int
    rasgos: dict[str, float] = field(default_factory=dict)
    puntaje: float = 0.0
    oracion: str = ""  # la que mejor responde; su cobertura es el rasgo `oracion`
    epigrafe: str = ""  # el del artículo («Consulta de pertinencia de ingreso»), si lo tiene


def reordenar(
    *,
    lexemas: list[str],
    familias: tuple[str, ...],
    densos: list[int],
    textuales: list[int],
    orden_inicial: list[int],
    pesos: dict[str, float] | None = None,
) -> list[Candidato]:
    """Reordena los primeros `CANDIDATOS_REORDENADOS` de `orden_inicial` (mejor primero)."""
    pesos = pesos or PESOS
    ids = orden_inicial[:CANDIDATOS_REORDENADOS]
    if not ids:
        return []
    filas = {
        f.pk: f
        for f in FragmentoLegal.objects.filter(pk__in=ids)
        .select_related("norma")
        .only(
            "texto",
            "articulo",
            "letra",
            "jerarquia",
            "modificatorio",
            "transitorio",
            "norma__peso_busqueda",
            "norma_id",
        )
    }
    encabezados, inicios, antesalas = _encabezados(list(filas.values()))
    instrumento = _instrumento_de(set(map(_raiz, lexemas)))
    idf = _idf_por_raiz(_idf(lexemas))
    total_idf = sum(idf.values()) or 1.0
    oraciones = {pk: _oraciones(f.texto) for pk, f in filas.items()}
    lexemas_de = _lexemas_de(
        [o for lista in oraciones.values() for o in lista]
        + list(encabezados.values())
        + list(inicios.values())
    )
    posicion_densa = {pk: i for i, pk in enumerate(densos)}
    posicion_texto = {pk: i for i, pk in enumerate(textuales)}
    consulta = set(idf)
    cortas = [raiz for raiz in consulta if len(raiz) < LARGO_RAIZ]
    pide_plazo = "plazo" in familias
    candidatos = []
    for pk in ids:
        fragmento = filas.get(pk)
        if fragmento is None:
            continue
        puntuadas = []
        del_inicio = lexemas_de.get(inicios.get(pk, ""), set())
        for posicion, oracion in enumerate(oraciones[pk]):
            comunes = _comunes(lexemas_de.get(oracion, set()) | del_inicio, consulta, cortas)
            valor = sum(idf[lex] for lex in comunes) / total_idf
            # En una pregunta de plazo, la oración que trae el plazo es la respuesta.
            preferencia = valor + (
                PREFERENCIA_PLAZO if pide_plazo and tiene_tiempo(sin_tildes(oracion)) else 0.0
            )
            if valor > 0:
                puntuadas.append((preferencia, valor, posicion, oracion))
        puntuadas.sort(reverse=True)
        cobertura = puntuadas[0][1] if puntuadas else 0.0
        # La mejor oración y, si otra del mismo fragmento responde casi tanto, también esa (en el
        # orden del texto): la respuesta suele ocupar dos oraciones seguidas de un artículo largo.
        elegidas = [
            o for o in puntuadas[:2] if o is puntuadas[0] or o[0] >= SEGUNDA_ORACION * puntuadas[0][0]
        ]
        posiciones = sorted(o[2] for o in elegidas)
        # Una oración que sigue a la elegida y depende de ella («Vencido este plazo, el permiso se
        # tendrá por otorgado») es parte de la respuesta: la consecuencia del plazo, la excepción.
        siguiente = posiciones[-1] + 1 if posiciones else len(oraciones[pk])
        if siguiente < len(oraciones[pk]) and _CONTINUACION.match(sin_tildes(oraciones[pk][siguiente])):
            posiciones.append(siguiente)
        mejor = " ".join(oraciones[pk][i] for i in posiciones)
        encabezado = encabezados.get(pk, "")
        rasgos = {
            "denso": _rrf(posicion_densa.get(pk)),
            "texto": _rrf(posicion_texto.get(pk)),
            "oracion": cobertura,
            "epigrafe": _cobertura_del_encabezado(lexemas_de.get(encabezado, set()), consulta, idf),
            "familia": float(
                bool(familias)
                and afin(
                    familias,
                    sin_tildes("\n".join((encabezado, inicios.get(pk, ""), fragmento.texto[:300]))),
                )
            ),
            "plazo": float("plazo" in familias and tiene_tiempo(sin_tildes(mejor))),
            "jerarquia": fragmento.norma.peso_busqueda,
            "modificatorio": float(fragmento.modificatorio),
            "transitorio": float(fragmento.transitorio),
            "instrumento_ajeno": float(
                bool(instrumento) and _instrumentos(fragmento.texto) == {_OTRO[instrumento]}
            ),
            "lista_de_contenidos": float(
                bool(fragmento.letra) and bool(_ANUNCIA_CONTENIDOS.search(sin_tildes(antesalas.get(pk, ""))))
            ),
        }
        candidatos.append(
            Candidato(
                pk,
                rasgos=rasgos,
                puntaje=sum(pesos.get(nombre, 0.0) * valor for nombre, valor in rasgos.items()),
                oracion=mejor,
                epigrafe=encabezado if fragmento.articulo else "",
            )
        )
    candidatos.sort(key=lambda c: c.puntaje, reverse=True)
    return candidatos


def _rrf(posicion: int | None) -> float:
    return 0.0 if posicion is None else (RRF_K + 1) / (RRF_K + 1 + posicion)


def primera_oracion(texto: str) -> str:
    """Hasta el primer punto seguido (en una definición, «g) Modificación de proyecto o actividad:
    Realización de obras…», el término y su definición, sin cortar en los dos puntos)."""
    return " ".join(_PUNTO_SEGUIDO.split(texto.strip(), maxsplit=1)[0].split())


def _oraciones(texto: str) -> list[str]:
    partes = [" ".join(p.split()) for p in _ORACIONES.split(texto)]
    return [p for p in partes if len(p) >= 15][:MAXIMO_ORACIONES]


_OTRO = {"dia": "eia", "eia": "dia"}


def _instrumento_de(raices: set[str]) -> str:
    """El instrumento del que habla la pregunta, si nombra uno solo: «dia», «eia» o «». Las siglas
    ya vienen expandidas («DIA (Declaración…)»); «día» de plazo no cuenta."""
    dia = "decla" in raices
    eia = "estud" in raices
    return "dia" if dia and not eia else "eia" if eia and not dia else ""


def _instrumentos(texto: str) -> set[str]:
    return {nombre for nombre, patron in (("dia", _DECLARACION), ("eia", _ESTUDIO)) if patron.search(texto)}


def _encabezados(
    fragmentos: list[FragmentoLegal],
) -> tuple[dict[int, str], dict[int, str], dict[int, str]]:
    """Epígrafe del artículo de cada fragmento (el de su artículo completo, para las letras) o, en
    las guías, el título de la sección; para las letras, el inicio de su artículo (el texto antes
    de la primera letra, si es corto) y la antesala de la lista (lo que la anuncia)."""
    articulos = {(f.norma_id, f.articulo) for f in fragmentos if f.articulo}
    principales: dict[tuple[int, str], str] = {}
    iniciales: dict[tuple[int, str], str] = {}
    previas: dict[tuple[int, str], str] = {}
    if articulos:
        filtro = FragmentoLegal.objects.none()
        for norma_id, articulo in articulos:
            filtro = filtro | FragmentoLegal.objects.filter(
                norma_id=norma_id, articulo=articulo, letra="", version__vigente=True
            )
        for norma_id, articulo, texto in filtro.values_list("norma_id", "articulo", "texto"):
            if m := _ENCABEZADO.match(texto[:300]):
                principales[(norma_id, articulo)] = m.group(1).strip()
            if letra := _PRIMERA_LETRA.search(texto):
                previas[(norma_id, articulo)] = texto[max(0, letra.start() - LARGO_ANTESALA) : letra.start()]
                if letra.start() <= LARGO_INICIO:
                    iniciales[(norma_id, articulo)] = texto[: letra.start()]
    encabezados, inicios, antesalas = {}, {}, {}
    for f in fragmentos:
        if f.articulo:
            encabezados[f.pk] = principales.get((f.norma_id, f.articulo), "")
            if f.letra:
                inicios[f.pk] = iniciales.get((f.norma_id, f.articulo), "")
                antesalas[f.pk] = previas.get((f.norma_id, f.articulo), "")
        else:
            encabezados[f.pk] = re.sub(r"^[\d.\s]+", "", f.jerarquia[-1]) if f.jerarquia else ""
    return encabezados, inicios, antesalas


def _comunes(lexemas: set[str], consulta: set[str], cortas: list[str]) -> set[str]:
    """Raíces de la pregunta presentes en el texto; una raíz corta de la pregunta («min», de «mina»)
    está también en las más largas que empiezan con ella («miner», de «minero»)."""
    comunes = lexemas & consulta
    for corta in cortas:
        if corta not in comunes and any(lex.startswith(corta) for lex in lexemas):
            comunes.add(corta)
    return comunes


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
    """Cuántos fragmentos tiene el corpus y en cuántos aparece cada lexema (solo los que aparecen)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT documentos FROM normativa_estadistica_corpus")
        fila = cursor.fetchone()
        cursor.execute(
            "SELECT lexema, documentos FROM normativa_estadistica_lexema WHERE lexema = ANY(%s)", [lexemas]
        )
        return (float(fila[0]) if fila else 1.0), dict(cursor.fetchall())


def _idf_por_raiz(idf: dict[str, float]) -> dict[str, float]:
    raices: dict[str, float] = {}
    for lexema, valor in idf.items():
        raices[_raiz(lexema)] = max(valor, raices.get(_raiz(lexema), 0.0))
    return raices


def _lexemas_de(textos: list[str]) -> dict[str, set[str]]:
    """Lexemas (español, sin tildes) de cada texto, en una sola consulta."""
    unicos = list(dict.fromkeys(t for t in textos if t))
    if not unicos:
        return {}
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT s.n, array_agg(DISTINCT l.lexeme)
              FROM unnest(%s::text[]) WITH ORDINALITY AS s(t, n)
              CROSS JOIN LATERAL unnest(to_tsvector('spanish', normativa_sin_tildes(s.t))) AS l
             GROUP BY s.n
            """,
            [unicos],
        )
        return {unicos[n - 1]: {_raiz(lex) for lex in lexemas} for n, lexemas in cursor.fetchall()}


def _raiz(lexema: str) -> str:
    """Los primeros cinco caracteres del lexema: el lematizador español de PostgreSQL da raíces
    distintas a formas de la misma palabra («glaciares» → glaciar, «glaciar» → glaci)."""
    return lexema[:LARGO_RAIZ]


def _cobertura_del_encabezado(encabezado: set[str], consulta: set[str], idf: dict[str, float]) -> float:
    if not encabezado:
        return 0.0
    comunes = encabezado & consulta
    if not comunes:
        return 0.0
    # Peso de un lexema del encabezado que no está en la pregunta: el IDF medio de la pregunta.
    medio = sum(idf.values()) / len(idf) if idf else 1.0
    total = sum(idf.get(lex, medio) for lex in encabezado)
    comun = sum(idf[lex] for lex in comunes)
    del_encabezado = comun / total if total else 0.0
    de_la_pregunta = comun / (sum(idf.values()) or 1.0)
    # Un epígrafe de una palabra común («Presentación») calza entero con «presentar», pero explica muy
    # poco de una pregunta larga: cuenta en proporción hasta que explica `PARTE_MINIMA` de ella.
    return del_encabezado * min(1.0, de_la_pregunta / PARTE_MINIMA)
