"""Los tipos que comparten las partes de la búsqueda: un resultado citable y el error de una consulta."""

from __future__ import annotations

from dataclasses import dataclass, field

from config.errores import EntradaNoValida


class ErrorDeBusqueda(EntradaNoValida, ValueError):
    """Consulta o filtros inválidos; el mensaje está en español para el usuario."""


@dataclass
class Resultado:
    fragmento_id: int
    norma: str
    tipo_documento: str
    articulo: str
    letra: str
    texto: str
    breadcrumb: str
    cita: str
    url: str
    score: float
    similitud: float | None
    pagina: int | None = None
    derogado: bool = False
    advertencia: str = ""
    # Fecha (ISO) de la versión del texto citado; vacía si la fuente no la trae (guías).
    fecha_version: str = ""
    # La oración del fragmento que mejor responde (la elige el reordenador; vacía en otros modos).
    oracion: str = ""
    # Fracción del peso IDF de la pregunta que cubre el extracto (la mejor de sus oraciones; None fuera
    # del modo híbrido).
    cobertura: float | None = None
    # La misma cobertura sin las palabras con que se pide un plazo: cuánto del tema trae el extracto.
    tema: float | None = None
    # El epígrafe del artículo («Consulta de pertinencia de ingreso»): nombra la institución.
    epigrafe: str = ""
    # Los rasgos con que el reordenador lo puntuó (`reordenar.PESOS`), vacíos fuera del modo híbrido.
    rasgos: dict[str, float] = field(default_factory=dict)

    def como_dict(self) -> dict[str, object]:
        return self.__dict__.copy()
