"""Señales de la normativa.

`normativa_actualizada(norma, version, cambios)`: una norma del corpus tiene una versión nueva
(detectada en la BCN); `cambios` lista los artículos modificados, agregados, eliminados y derogados.
La usan los avisos proactivos para avisar a quienes tienen análisis que la citan.
"""

from django.dispatch import Signal

normativa_actualizada = Signal()
