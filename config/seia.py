"""La estructura de la ley del SEIA que la búsqueda y el motor comparten: qué artículo del Reglamento
(DS 40) desarrolla cada artículo de la Ley 19.300.

El Reglamento repite la ley y la precisa: el Art. 11 de la ley enumera los efectos que obligan a un
Estudio (letras a a f) y los Arts. 5 a 10 del Reglamento dicen, uno por letra, cuándo se presentan;
el Art. 10 de la ley enumera las tipologías y el Art. 3 del Reglamento, letra por letra, sus umbrales.
Quien pregunta por la ley quiere también lo que el Reglamento precisa, y al revés.
"""

from __future__ import annotations

LEY = "Ley 19.300"
REGLAMENTO = "DS 40"

# Letra del Art. 11 de la Ley 19.300 → artículo del Reglamento (DS 40) que la desarrolla.
ARTICULO_REGLAMENTO = {"a": "5", "b": "6", "c": "7", "d": "8", "e": "9", "f": "10"}

# Letras del Art. 10 de la ley que el Reglamento cargado (texto de 2014) no desarrolla: su letra s) es
# otra (cotos de caza); la s) de la ley (humedales urbanos, Ley 21.202) se cita sola.
SOLO_LEY = frozenset({"s"})


def desarrollo(norma: str, articulo: str, letra: str) -> tuple[str, str, str] | None:
    """El (norma, artículo, letra) que desarrolla o es desarrollado por el citado, o None.

    Ley 19.300 Art. 11 d) ↔ DS 40 Art. 8; Ley 19.300 Art. 10 i) ↔ DS 40 Art. 3 i)."""
    if norma == LEY and articulo == "11" and letra in ARTICULO_REGLAMENTO:
        return REGLAMENTO, ARTICULO_REGLAMENTO[letra], ""
    if norma == LEY and articulo == "10" and letra and letra not in SOLO_LEY:
        return REGLAMENTO, "3", letra
    if norma == REGLAMENTO:
        if letra_de_la_ley := next((k for k, v in ARTICULO_REGLAMENTO.items() if v == articulo), ""):
            return LEY, "11", letra_de_la_ley
        if articulo == "3" and letra and letra not in SOLO_LEY:
            return LEY, "10", letra.split(".")[0]  # el literal i.1 del Reglamento es la letra i) de la ley
    return None
