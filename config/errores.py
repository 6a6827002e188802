"""La base de los errores de la aplicación: un mensaje en castellano y un código estable.

Los servicios lanzan errores del dominio (subclases de estas) y no saben de HTTP; cada adaptador los
traduce en un solo lugar: `config.api.manejar_excepcion` a una respuesta de la API y
`marco_de_error` al marco de error del websocket. Un error con `reintentar_en` lleva `Retry-After`.
"""

from __future__ import annotations

from typing import Any, ClassVar


class ErrorDeAplicacion(Exception):
    """Un error esperable: lo que el usuario hizo o pidió no se puede hacer, y se le dice por qué."""

    codigo: ClassVar[str] = "entrada_invalida"
    mensaje_por_omision: ClassVar[str] = "La solicitud no es válida."

    def __init__(
        self,
        mensaje: str = "",
        *,
        reintentar_en: int | None = None,
        errores: list[dict[str, str]] | None = None,
    ) -> None:
        super().__init__(mensaje or self.mensaje_por_omision)
        self.mensaje = mensaje or self.mensaje_por_omision
        self.reintentar_en = reintentar_en
        self.errores = errores  # problemas por campo: [{"campo", "mensaje"}, …]

    def como_json(self) -> dict[str, Any]:
        """El cuerpo de error de la API: `{"error"}`, y `"errores"` si los hay por campo."""
        return {"error": self.mensaje, **({"errores": self.errores} if self.errores else {})}


class EntradaNoValida(ErrorDeAplicacion):
    codigo = "entrada_invalida"


class NoEncontrado(ErrorDeAplicacion):
    codigo = "no_encontrado"
    mensaje_por_omision = "No se encontró lo pedido."


class EnConflicto(ErrorDeAplicacion):
    codigo = "en_conflicto"
    mensaje_por_omision = "La operación choca con el estado actual."


class Vencido(ErrorDeAplicacion):
    codigo = "vencido"
    mensaje_por_omision = "Lo pedido ya venció."


class LimiteExcedido(ErrorDeAplicacion):
    codigo = "limite_excedido"
    mensaje_por_omision = "Superó un límite de uso; intente más tarde."


class NoDisponible(ErrorDeAplicacion):
    codigo = "no_disponible"
    mensaje_por_omision = "El servicio no está disponible en este momento."


# La única tabla de código → estado HTTP (la API y el marco del websocket usan la misma).
ESTADO_HTTP: dict[str, int] = {
    EntradaNoValida.codigo: 400,
    NoEncontrado.codigo: 404,
    EnConflicto.codigo: 409,
    Vencido.codigo: 410,
    LimiteExcedido.codigo: 429,
    NoDisponible.codigo: 503,
}


def estado_http(error: ErrorDeAplicacion) -> int:
    return ESTADO_HTTP.get(error.codigo, 400)


def marco_de_error(error: ErrorDeAplicacion) -> dict[str, Any]:
    """Los datos del evento `error` del websocket: mensaje, estado (como en HTTP), tipo y espera."""
    datos: dict[str, Any] = {"mensaje": error.mensaje, "codigo": estado_http(error), "tipo": error.codigo}
    if error.reintentar_en:
        datos["reintentar_en"] = error.reintentar_en
    return datos
