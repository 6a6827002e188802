"""Herramientas del asistente, por familia: la ley (`ley`), proyectos y análisis (`analisis`,
`escritura`), fuentes externas (`externas`) y el sistema (`sistema`); lo compartido, en `comunes`.

Cada una llama a un selector o servicio: no contienen reglas propias. El docstring de cada función es la
descripción que ve el modelo. Importar este paquete las registra (`asistente.registro`).
"""

from asistente.herramientas import analisis, escritura, externas, ley, sistema
from asistente.herramientas.comunes import GRUPO_PROYECTOS

__all__ = ["GRUPO_PROYECTOS", "analisis", "escritura", "externas", "ley", "sistema"]
