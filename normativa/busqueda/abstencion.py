"""Si el corpus trata la pregunta: la confianza de la búsqueda (HIGH a NONE, por la similitud densa y
las palabras que el corpus no tiene) y las señales con que se decide que una pregunta está fuera del
corpus aunque la búsqueda traiga algo."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from pgvector.django import CosineDistance

from normativa.busqueda.ajenas import palabras_ajenas
from normativa.busqueda.candidatos import FRACCION_DESCONOCIDA_MAXIMA, normas_cargadas
from normativa.busqueda.preguntas import nucleo_de_la_pregunta
from normativa.busqueda.tipos import Resultado
from normativa.glosario import nombra_sigla
from normativa.models import FragmentoLegal
from normativa.referencias import Referencias

UMBRAL_ALTA, UMBRAL_MEDIA, UMBRAL_BAJA = 0.86, 0.835, 0.81


# Calibrada en los conjuntos de desarrollo y propios (ver docs/busqueda_normativa.md): cobertura de
# la mejor oración entre los tres primeros resultados.
COBERTURA_MINIMA = 0.21


MOSTRADOS_PARA_COBERTURA = 3


PUNTOS_PARA_ABSTENERSE = 2


# Similitud densa de lo que se mostraría bajo la cual suma un punto. Elegida en la curva de los
# conjuntos públicos: el centro del hueco entre la pregunta ajena con una palabra ajena más parecida
# a lo que se mostraría (0,866) y la del corpus con una palabra ajena menos parecida (0,887).
SIMILITUD_MINIMA = 0.87
# Y sobre la cual no hay tema ajeno aunque la pregunta use palabras que el corpus no usa («¿qué
# documentos acompañan la solicitud del permiso…?» tiene el artículo del permiso a 0,92): el centro del
# hueco entre la pregunta ajena más parecida a lo que se mostraría en los conjuntos públicos (0,874) y
# la del corpus menos parecida que se abstenía por dos palabras ajenas (0,889).
SIMILITUD_DEL_CORPUS = 0.88


def similitudes_de(
    vector: np.ndarray | None, elegidos: list[int], densos: list[tuple[int, float]]
) -> dict[int, float]:
    """Similitud coseno de cada elegido: la de su candidatura densa o, si no la tuvo, calculada."""
    if vector is None:
        return {}
    similitudes = {pk: 1.0 - distancia for pk, distancia in densos if pk in set(elegidos)}
    faltantes = [pk for pk in elegidos if pk not in similitudes]
    if faltantes:
        filas = (
            FragmentoLegal.objects.filter(pk__en_arreglo=faltantes, embedding__isnull=False)
            .annotate(distancia=CosineDistance("embedding", vector))
            .order_by()
            .values_list("pk", "distancia")
        )
        similitudes.update({pk: 1.0 - float(distancia) for pk, distancia in filas})
    return similitudes


@dataclass(frozen=True)
class SenalesDeAbstencion:
    """Las señales con que se decide que una pregunta está fuera del corpus aunque la búsqueda traiga
    algo (e5 acerca cualquier pregunta jurídica a cualquier artículo). Es un clasificador de puntos:
    - cada palabra ajena del núcleo de la pregunta (`ajenas.nucleo_de_la_pregunta`: lo que pregunta,
      sin la situación que lo rodea) suma un punto;
    - que ninguna de las oraciones que se mostrarían cubra `COBERTURA_MINIMA` del peso IDF de la
      pregunta suma otro;
    - que ninguno de los fragmentos que se mostrarían llegue a `SIMILITUD_MINIMA` de similitud densa
      con la pregunta suma otro;
    con `PUNTOS_PARA_ABSTENERSE` o más, y al menos una palabra ajena, la pregunta es de un tema que el
    corpus no trata, salvo que lo mostrado llegue a `SIMILITUD_DEL_CORPUS`. Sin palabra ajena no hay
    tema ajeno: una pregunta dicha con el vocabulario del corpus pero en palabras de faena cubre poco y
    se parece poco, y aun así es del corpus. Citar solo
    normas que no están cargadas es estar fuera; citar un artículo, un término definido, una norma
    cargada o nombrar una sigla del SEIA es estar dentro. El punto de operación se eligió sobre la
    curva de falsas abstenciones y abstenciones omitidas de todos los conjuntos públicos
    (`evaluar_respuestas` con varios archivos; ver docs/busqueda_normativa.md).
    """

    normas_ausentes: bool = False
    cita_el_corpus: bool = False
    ajenas: tuple[str, ...] = ()
    cobertura: float = 1.0
    similitud: float = 1.0
    # La confianza ya era NONE antes de mirar el tema (similitud baja o palabras que el corpus no tiene).
    sin_evidencia: bool = False

    def puntos(
        self, *, cobertura_minima: float = COBERTURA_MINIMA, similitud_minima: float = SIMILITUD_MINIMA
    ) -> int:
        return len(self.ajenas) + (self.cobertura < cobertura_minima) + (self.similitud < similitud_minima)

    def fuera_del_corpus(
        self,
        *,
        minimo: int = PUNTOS_PARA_ABSTENERSE,
        cobertura_minima: float = COBERTURA_MINIMA,
        similitud_minima: float = SIMILITUD_MINIMA,
    ) -> bool:
        if self.normas_ausentes:
            return True
        if self.cita_el_corpus or not self.ajenas or self.similitud >= SIMILITUD_DEL_CORPUS:
            return False
        return self.puntos(cobertura_minima=cobertura_minima, similitud_minima=similitud_minima) >= minimo


def senales_de_abstencion(
    consulta: str, referencias: Referencias, mostrados: list[Resultado], coberturas: list[float]
) -> SenalesDeAbstencion:
    cargadas = normas_cargadas()
    if referencias.normas and not set(referencias.normas) & cargadas:
        return SenalesDeAbstencion(normas_ausentes=True)
    if (
        referencias.articulo
        or referencias.termino_definido
        or set(referencias.normas) & cargadas
        or nombra_sigla(consulta)
    ):
        return SenalesDeAbstencion(cita_el_corpus=True)
    textos = [f"{r.oracion or r.texto}\n{r.epigrafe}" for r in mostrados]
    return SenalesDeAbstencion(
        ajenas=tuple(palabras_ajenas(nucleo_de_la_pregunta(consulta), textos)),
        cobertura=max(coberturas, default=0.0),
        similitud=max((r.similitud for r in mostrados if r.similitud is not None), default=1.0),
    )


def confianza_de(
    resultados: list[Resultado],
    *,
    citados: bool,
    desconocidas: float = 0.0,
    mejor_densa: float | None = None,
) -> str:
    if not resultados:
        return "NONE"
    if citados:
        return "HIGH"
    if desconocidas >= FRACCION_DESCONOCIDA_MAXIMA:
        return "NONE"
    # La mejor evidencia de que el corpus trata la pregunta: tras el reordenamiento, el primero puede
    # ser uno que entró por el texto (una palabra rara) con menor similitud densa que otros candidatos.
    similitudes = [r.similitud for r in resultados if r.similitud is not None]
    if mejor_densa is not None:
        similitudes.append(mejor_densa)
    similitud = max(similitudes) if similitudes else None
    if similitud is None:  # modo texto: sin señal densa, la confianza no puede ser alta
        return "LOW" if resultados[0].score > 0 else "NONE"
    if similitud >= UMBRAL_ALTA:
        return "HIGH"
    if similitud >= UMBRAL_MEDIA:
        return "MEDIUM"
    if similitud >= UMBRAL_BAJA:
        return "LOW"
    return "NONE"
