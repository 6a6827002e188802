"""Ajuste de los pesos del reordenador sobre preguntas con respuesta esperada.

Se calculan una vez los rasgos de los candidatos de cada pregunta (la parte cara: base de datos y
embeddings) y luego se buscan los pesos por ascenso de coordenadas sobre el MRR@10 medio, con una
grilla gruesa por peso (pocos rasgos, pocos valores: lo que se ajusta se puede leer y explicar).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from normativa.busqueda import candidatos as busqueda_candidatos
from normativa.busqueda import orden as busqueda_orden
from normativa.busqueda.familias import familias_de
from normativa.busqueda.reordenar import PESOS, copias, la_ley_primero, reordenar
from normativa.embeddings import embeber_consulta
from normativa.glosario import expandir_consulta
from normativa.models import FragmentoLegal
from normativa.referencias import extraer_referencias

GRILLA = (-1.5, -1.0, -0.6, -0.3, 0.0, 0.2, 0.4, 0.6, 0.8, 1.0, 1.5, 2.0, 3.0)
VUELTAS = 3


@dataclass
class Muestra:
    """Los candidatos de una pregunta: sus rasgos, su realce fijo (citas, definiciones) y si aciertan."""

    id: str
    rasgos: list[dict[str, float]]
    realces: list[float]
    aciertos: list[bool]
    # (reglamento, ley que reproduce), como posiciones en `rasgos`: la regla `la_ley_primero`
    copias: list[tuple[int, int]] = field(default_factory=list)


def muestras(
    preguntas: Iterable[tuple[str, str, Callable[[FragmentoLegal], bool]]],
) -> list[Muestra]:
    """(id, pregunta, ¿acierta este fragmento?) → rasgos de sus candidatos."""
    resultado = []
    base = busqueda_candidatos.fragmentos_buscables(
        normas=None, temas=None, tipos_documento=None, incluir_derogados=False, incluir_documentacion=False
    )
    for identificador, pregunta, acierta in preguntas:
        vector = embeber_consulta(pregunta)
        densos = busqueda_candidatos.candidatos_densos(base, vector)
        expandida = expandir_consulta(pregunta)
        lexemas = busqueda_candidatos.lexemas_de_la_consulta(expandida)
        textuales = busqueda_candidatos.candidatos_texto(
            base, lexemas, pesos=busqueda_candidatos.pesos_de_las_siglas(pregunta, lexemas)
        )
        puntajes = busqueda_orden.fusionar(densos, textuales)
        pesos = busqueda_orden.pesos_normativos(list(puntajes))
        puntajes = {fid: p * pesos.get(fid, 1.0) for fid, p in puntajes.items()}
        familias = familias_de(pregunta)
        anclas = busqueda_orden.anclas_de_familias(base, familias, vector, lexemas)
        candidatos = reordenar(
            lexemas=lexemas,
            familias=familias,
            densos=[pk for pk, _ in densos],
            textuales=[pk for pk, _ in textuales],
            orden_inicial=busqueda_orden.orden_a_reordenar(
                {**dict.fromkeys(anclas, 0.0), **puntajes}, anclas
            ),
            consulta_texto=expandida,
        )
        referencias = extraer_referencias(pregunta)
        realces = busqueda_orden.fragmentos_citados(base, referencias)
        if referencias.termino_definido:
            for pk, valor in busqueda_orden.definiciones(base, referencias.termino_definido).items():
                realces[pk] = realces.get(pk, 0.0) + valor
        fragmentos = FragmentoLegal.objects.select_related("norma").in_bulk(
            [c.fragmento_id for c in candidatos]
        )
        resultado.append(
            Muestra(
                id=identificador,
                rasgos=[c.rasgos for c in candidatos],
                realces=[realces.get(c.fragmento_id, 0.0) * busqueda_orden.ESCALA_REALCE for c in candidatos],
                aciertos=[acierta(fragmentos[c.fragmento_id]) for c in candidatos],
                copias=copias(candidatos),
            )
        )
    return resultado


def mrr(muestras_: list[Muestra], pesos: dict[str, float]) -> float:
    """MRR@10 medio con estos pesos (una pregunta sin acierto entre los candidatos suma 0)."""
    total = 0.0
    for m in muestras_:
        puntajes = la_ley_primero(
            [sum(pesos.get(n, 0.0) * v for n, v in rasgos.items()) for rasgos in m.rasgos], m.copias
        )
        puntajes = [p + realce for p, realce in zip(puntajes, m.realces, strict=True)]
        orden = sorted(range(len(puntajes)), key=lambda i: puntajes[i], reverse=True)[:10]
        total += next((1.0 / (r + 1) for r, i in enumerate(orden) if m.aciertos[i]), 0.0)
    return total / len(muestras_) if muestras_ else 0.0


def ajustar(muestras_: list[Muestra], *, inicio: dict[str, float] | None = None) -> dict[str, float]:
    """Ascenso de coordenadas: cada peso toma el valor de la grilla que más sube el MRR, por vueltas.
    `denso` queda fijo en 1 (fija la escala)."""
    pesos = dict(inicio or PESOS)
    mejor = mrr(muestras_, pesos)
    for _ in range(VUELTAS):
        mejoro = False
        for nombre in pesos:
            if nombre == "denso":
                continue
            for valor in GRILLA:
                prueba = {**pesos, nombre: valor}
                if (puntaje := mrr(muestras_, prueba)) > mejor + 1e-9:
                    pesos, mejor, mejoro = prueba, puntaje, True
        if not mejoro:
            break
    return pesos
