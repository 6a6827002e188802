"""El manejador ASGI de Django, con los errores que ocurren antes de armar el pedido en JSON para la API.

Django responde por su cuenta, sin pasar por ningún middleware, si no puede ni armar el pedido: una
dirección que no es UTF-8 válido (400 vacío, en HTML) o un cuerpo demasiado grande (413 en texto). La
API responde sus errores siempre en JSON (`config/middleware.py`): estos dos también.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.core.handlers.asgi import ASGIHandler, ASGIRequest
from django.http import HttpResponseBase, JsonResponse

from config.validacion import MENSAJE_DEMASIADO_GRANDE

MENSAJE_MAL_CODIFICADO = "La dirección del pedido no es UTF-8 válido."


class ManejadorAsgi(ASGIHandler):
    def create_request(
        self, scope: Mapping[str, Any], body_file: Any
    ) -> tuple[ASGIRequest, None] | tuple[None, HttpResponseBase]:
        pedido, error = super().create_request(scope, body_file)
        if error is None or not str(scope.get("path", "")).startswith("/api/"):
            return pedido, error  # type: ignore[return-value]
        mensaje = MENSAJE_DEMASIADO_GRANDE if error.status_code == 413 else MENSAJE_MAL_CODIFICADO
        return None, JsonResponse(
            {"error": mensaje}, status=error.status_code, json_dumps_params={"ensure_ascii": False}
        )
