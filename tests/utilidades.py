"""Utilidades de las pruebas (y del benchmark del asistente)."""

import json
import socket
from typing import Any


def puerto_libre() -> int:
    """Devuelve un puerto TCP libre en 127.0.0.1."""
    with socket.socket() as prueba:
        prueba.bind(("127.0.0.1", 0))
        return int(prueba.getsockname()[1])


class ServidorLocal:
    """Servidor HTTP real en 127.0.0.1 con respuestas programadas por ruta, para probar clientes.

    `responder(ruta, estado, cuerpo, cabeceras, demora_s)` encola respuestas para esa ruta (la última
    se repite); `pedidos` guarda (método, ruta con consulta, cabeceras, cuerpo, instante) de cada una.
    """

    def __init__(self) -> None:
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        servidor = self
        self.respuestas: dict[str, list[tuple[int, bytes, dict[str, str], float]]] = {}
        self.pedidos: list[tuple[str, str, dict[str, str], bytes, float]] = []

        class Manejador(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self._atender("GET")

            def do_POST(self) -> None:
                self._atender("POST")

            def _atender(self, metodo: str) -> None:
                import time

                largo = int(self.headers.get("content-length") or 0)
                cuerpo_pedido = self.rfile.read(largo) if largo else b""
                servidor.pedidos.append(
                    (metodo, self.path, dict(self.headers), cuerpo_pedido, time.monotonic())
                )
                ruta = self.path.split("?")[0]
                cola = servidor.respuestas.get(ruta) or [(404, b"no existe", {}, 0.0)]
                estado, cuerpo, cabeceras, demora = cola.pop(0) if len(cola) > 1 else cola[0]
                if demora:
                    time.sleep(demora)
                try:
                    self.send_response(estado)
                    for nombre, valor in {"Content-Type": "text/plain", **cabeceras}.items():
                        self.send_header(nombre, valor)
                    self.send_header("Content-Length", str(len(cuerpo)))
                    self.end_headers()
                    self.wfile.write(cuerpo)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def log_message(self, *args: object) -> None:
                pass

        self._http = ThreadingHTTPServer(("127.0.0.1", 0), Manejador)
        self.host = f"127.0.0.1:{self._http.server_address[1]}"
        self.url = f"http://{self.host}"
        self._hilo = threading.Thread(target=self._http.serve_forever, daemon=True)
        self._hilo.start()

    def responder(
        self,
        ruta: str,
        estado: int = 200,
        cuerpo: bytes | str = b"",
        cabeceras: dict[str, str] | None = None,
        demora_s: float = 0.0,
    ) -> None:
        datos = cuerpo.encode() if isinstance(cuerpo, str) else cuerpo
        self.respuestas.setdefault(ruta, []).append((estado, datos, cabeceras or {}, demora_s))

    def cerrar(self) -> None:
        self._http.shutdown()
        self._http.server_close()


def mensaje_sse(
    *bloques: dict[str, Any], stop: str = "end_turn", entrada: int = 120, salida: int = 30
) -> str:
    """Un mensaje de la API de Mensajes de Anthropic como flujo SSE (message_start … message_stop),
    con bloques de texto (en trozos por palabra) y `tool_use`; para el servidor local de pruebas."""
    eventos: list[tuple[str, dict[str, Any]]] = [
        (
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-prueba",
                    "content": [],
                    "stop_reason": None, "stop_sequence": None,
                    "usage": {"input_tokens": entrada, "output_tokens": 1, "cache_read_input_tokens": 100},
                },
            },
        )
    ]  # fmt: skip
    for indice, bloque in enumerate(bloques):
        if bloque["type"] == "text":
            eventos.append(
                (
                    "content_block_start",
                    {
                        "type": "content_block_start",
                        "index": indice,
                        "content_block": {"type": "text", "text": ""},
                    },
                )
            )
            for trozo in bloque["text"].split(" "):
                eventos.append(
                    (
                        "content_block_delta",
                        {
                            "type": "content_block_delta",
                            "index": indice,
                            "delta": {"type": "text_delta", "text": trozo + " "},
                        },
                    )
                )
        else:
            eventos.append(
                (
                    "content_block_start",
                    {
                        "type": "content_block_start",
                        "index": indice,
                        "content_block": {**bloque, "input": {}},
                    },
                )
            )
            eventos.append(
                (
                    "content_block_delta",
                    {
                        "type": "content_block_delta",
                        "index": indice,
                        "delta": {"type": "input_json_delta", "partial_json": json.dumps(bloque["input"])},
                    },
                )
            )
        eventos.append(("content_block_stop", {"type": "content_block_stop", "index": indice}))
    eventos.append(
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": salida},
            },
        )
    )
    eventos.append(("message_stop", {"type": "message_stop"}))
    return "".join(f"event: {nombre}\ndata: {json.dumps(datos)}\n\n" for nombre, datos in eventos)
