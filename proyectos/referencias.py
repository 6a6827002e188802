"""Referencias que otras apps agregan al resultado de un análisis completo.

No son fundamento de la clasificación: son contexto (por ejemplo, cómo ingresaron al SEIA proyectos
mineros de la misma región, que aporta `fuentes_externas` desde el e-SEIA). `proyectos` no importa a
quien las provee: cada app registra la suya en su `ready()` y las flechas siguen en un solo sentido.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from proyectos.models import Proyecto

Referencia = Callable[[Proyecto], list[dict[str, Any]]]

_REFERENCIAS: dict[str, Referencia] = {}


def registrar_referencia(clave: str, referencia: Referencia) -> None:
    """`referencia(proyecto)` se guarda en `resultado[clave]` de cada análisis completo."""
    _REFERENCIAS[clave] = referencia


def referencias_para(proyecto: Proyecto) -> dict[str, list[dict[str, Any]]]:
    """Las referencias registradas para este proyecto, por clave."""
    return {clave: referencia(proyecto) for clave, referencia in _REFERENCIAS.items()}
