"""Señales de la normativa.

`normativa_actualizada(norma, version, cambios)`: una norma del corpus tiene una versión nueva
(detectada en la BCN); `cambios` lista los artículos modificados, agregados, eliminados y derogados.
La usan los avisos proactivos para avisar a quienes tienen análisis que la citan.

`version_ingerida(norma, version)`: una versión pasó a ser la vigente de su norma, llegue de la BCN, de la
carga del corpus o de un archivo subido por el personal. Con ella el motor revisa si sus reglas siguen
atadas al texto que las funda.
"""

from django.dispatch import Signal

normativa_actualizada = Signal()
version_ingerida = Signal()
