"""Ninguna redacción de una pregunta de evaluación en el código del producto.

Una racha de cinco palabras seguidas (minúsculas, sin tildes) de cualquier pregunta de cualquier
conjunto de evaluación —los de `tests/fixtures/eval/` y, si está al lado, los de `../shared/eval/`—
no puede aparecer en el código fuera de `tests/`, salvo que esa racha también esté en el texto del
propio corpus (las frases de la ley son legítimas). Tampoco una racha de tres palabras de contenido
(las vacías —artículos, preposiciones, pronombres, auxiliares— aparte): «camiones cortan camino» no
está en la ley, y en el código sería una pregunta leída. Las preguntas miden; no se leen dentro del
código.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from config.texto import normalizar
from normativa.models import FragmentoLegal

RAIZ = Path(__file__).resolve().parent.parent
CONJUNTOS = [RAIZ / "tests" / "fixtures" / "eval", RAIZ.parent / "shared" / "eval"]
CODIGO = ["asistente", "config", "normativa", "proyectos", "fuentes_externas", "templates", "static/js"]
EXTENSIONES = {".py", ".js", ".html", ".json", ".txt", ".md"}
EXCLUIDOS = [RAIZ / "normativa" / "corpus", RAIZ / "static" / "vendor"]
LARGO = 5
LARGO_CONTENIDO = 3
# Palabras vacías del español (sin tildes): no dicen de qué trata una frase.
VACIAS = frozenset(
    re.findall(
        r"\w+",
        """
        a al algo algun alguna algunas alguno algunos ante antes aqui asi aun aunque cada casi
        como con contra cual cuales cualquier cuando cuanta cuantas cuanto cuantos de del desde
        donde dos durante e el ella ellas ellos en entre era eran es esa esas ese eso esos esta
        estaba estan estar estas este esto estos fue fueron ha habia han has hasta hay he la las
        le les lo los mas me mi mis mismo muy nada ni no nos nosotros nuestra nuestras nuestro
        nuestros o otra otras otro otros para pero poco por porque pues que quien quienes se sea
        sean segun ser si sido siempre sin sino sobre solo son su sus tal tambien tan tanto te
        tener tenemos tengo tiene tienen toda todas todo todos tras tu tus u un una unas uno
        unos usted ustedes va van vamos y ya puede pueden podemos podria debe deben debemos hace
        hacer hacen estamos somos igual bien vez veces luego despues ahora entonces realmente
        """,
    )
)

pytestmark = pytest.mark.django_db


def _rachas(texto: str) -> set[str]:
    palabras = normalizar(texto).split()
    return {" ".join(palabras[i : i + LARGO]) for i in range(len(palabras) - LARGO + 1)}


# Un identificador (`parque_nacional`) es código, no prosa: corta la racha en vez de aportar palabras.
_IDENTIFICADOR = re.compile(r"\b\w*_\w*\b")
_CORTE = "corte0"
# Los nombres oficiales de los datos incluidos («Inventario Público de Glaciares») son de sus fuentes.
PROCEDENCIAS = [
    RAIZ / "normativa" / "corpus" / "SOURCE.md",
    RAIZ / "proyectos" / "datos" / "capas" / "SOURCE.md",
]


def _rachas_de_contenido(texto: str) -> set[str]:
    sin_codigo = normalizar(_IDENTIFICADOR.sub(f" {_CORTE} ", texto)).split()
    palabras = [p for p in sin_codigo if len(p) > 1 and p not in VACIAS and not p.isdigit()]
    largo = LARGO_CONTENIDO
    rachas = (palabras[i : i + largo] for i in range(len(palabras) - largo + 1))
    return {" ".join(racha) for racha in rachas if _CORTE not in racha}


def _preguntas() -> list[str]:
    preguntas = []
    for carpeta in CONJUNTOS:
        for archivo in sorted(carpeta.glob("*.jsonl")) if carpeta.is_dir() else []:
            for linea in archivo.read_text(encoding="utf-8").splitlines():
                if linea.strip():
                    item = json.loads(linea)
                    preguntas.append(item.get("pregunta") or item.get("consulta") or "")
    return preguntas


def _archivos_de_codigo() -> list[Path]:
    archivos = []
    for carpeta in CODIGO:
        for archivo in (RAIZ / carpeta).rglob("*"):
            if (
                archivo.suffix in EXTENSIONES
                and archivo.is_file()
                and not any(archivo.is_relative_to(excluido) for excluido in EXCLUIDOS)
            ):
                archivos.append(archivo)
    return archivos


def test_el_codigo_no_contiene_rachas_de_cinco_palabras_de_las_preguntas_de_evaluacion(corpus):
    preguntas = _preguntas()
    assert len(preguntas) >= 150, "no se encontraron los conjuntos de evaluación"
    del_corpus: set[str] = set()
    for texto in FragmentoLegal.objects.values_list("texto", flat=True):
        del_corpus |= _rachas(texto)
    prohibidas = set().union(*(_rachas(p) for p in preguntas)) - del_corpus
    halladas = []
    for archivo in _archivos_de_codigo():
        comunes = _rachas(archivo.read_text(encoding="utf-8", errors="ignore")) & prohibidas
        halladas += [f"{archivo.relative_to(RAIZ)}: «{racha}»" for racha in sorted(comunes)]
    assert not halladas, "Redacción de preguntas de evaluación en el código:\n" + "\n".join(halladas)


def test_el_codigo_no_contiene_tres_palabras_de_contenido_seguidas_de_una_pregunta(corpus):
    preguntas = _preguntas()
    del_corpus: set[str] = set()
    for texto in FragmentoLegal.objects.values_list("texto", flat=True):
        del_corpus |= _rachas_de_contenido(texto)
    for procedencia in PROCEDENCIAS:
        del_corpus |= _rachas_de_contenido(procedencia.read_text(encoding="utf-8"))
    prohibidas = set().union(*(_rachas_de_contenido(p) for p in preguntas)) - del_corpus
    halladas = []
    for archivo in _archivos_de_codigo():
        comunes = _rachas_de_contenido(archivo.read_text(encoding="utf-8", errors="ignore")) & prohibidas
        halladas += [f"{archivo.relative_to(RAIZ)}: «{racha}»" for racha in sorted(comunes)]
    assert not halladas, "Palabras de preguntas de evaluación en el código:\n" + "\n".join(halladas)


def test_tres_palabras_de_contenido_de_una_pregunta_se_detectan_entre_palabras_vacias():
    pregunta = "¿Los camiones cortan el camino del caserío?"
    assert "camiones cortan camino" in _rachas_de_contenido(pregunta)
    assert "camiones cortan camino" in _rachas_de_contenido("# si los camiones ya cortan un camino")


def test_un_identificador_del_codigo_corta_la_racha():
    assert not _rachas_de_contenido('("parque_nacional", "Parque nacional")') & {"nacional parque nacional"}


def test_una_racha_copiada_de_una_pregunta_se_detecta():
    pregunta = next(p for p in _preguntas() if len(normalizar(p).split()) >= LARGO)
    assert _rachas(pregunta) & _rachas(f"x = '{pregunta.upper()}'")
