"""Un ajuste de daphne: que Twisted no lea los formularios del cuerpo de cada POST (Django ya lo hace).

Bajo daphne, Twisted lee cada POST de formulario antes que la aplicación y, si el multipart viene mal
formado (un cuerpo vacío con su boundary, p. ej.), responde él mismo un 400 vacío, sin tipo de
contenido, y corta la conexión: la API no alcanzaba a responder su error en JSON. Twisted trae la
opción para no hacerlo (`parsePOSTFormSubmission` de `twisted.web.http.Request`), pero daphne no la
expone: su clase de pedido se reemplaza por una que la apaga. De paso, cada formulario (un shapefile
subido, por ejemplo) se lee una vez y no dos.
"""

from __future__ import annotations

from typing import Any

from daphne import http_protocol


class PedidoSinLecturaDeFormularios(http_protocol.WebRequest):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("parsePOSTFormSubmission", False)
        super().__init__(*args, **kwargs)


def ajustar_daphne() -> None:
    """Hace que los servidores daphne de este proceso usen `PedidoSinLecturaDeFormularios`.

    `HTTPFactory.buildProtocol` de daphne toma la clase del módulo al crear cada conexión: basta con
    llamarla antes de servir (lo hace `config.asgi` al cargarse).
    """
    http_protocol.WebRequest = PedidoSinLecturaDeFormularios
