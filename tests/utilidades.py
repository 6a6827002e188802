"""Utilidades de las pruebas (y del benchmark del asistente)."""

import json
import math
import multiprocessing
import socket
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from daphne.testing import DaphneProcess

CHROMIUM = "/usr/bin/chromium"
OPCIONES_CHROMIUM = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]


def marcas_navegador() -> list[Any]:
    """Marcas de las pruebas en navegador: lentas, y omitidas (diciéndolo) si falta Chromium."""
    import shutil

    import pytest

    return [
        pytest.mark.lento,
        pytest.mark.skipif(
            not shutil.which(CHROMIUM), reason="falta Chromium de Debian (make test lo instala)"
        ),
    ]


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


class ServidorClaude:
    """Suplente local de la API de Mensajes que transmite de verdad: escribe cada evento SSE apenas lo
    arma, con `pausa_s` entre trozos de texto (como un modelo que va generando).

    `guion(pedido) -> str` devuelve el flujo SSE (p. ej. con `mensaje_sse`) para el cuerpo JSON del
    pedido; `al_enviar(evento) -> evento` se aplica a cada evento justo antes de escribirlo (el
    benchmark estampa ahí la hora de envío de cada trozo).
    """

    def __init__(
        self,
        *,
        guion: Callable[[dict[str, Any]], str],
        pausa_s: float = 0.0,
        al_enviar: Callable[[str], str] | None = None,
    ) -> None:
        import threading
        import time
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        servidor = self
        self.pedidos: list[dict[str, Any]] = []

        class Manejador(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"  # sin Content-Length: el cuerpo termina al cerrar

            def do_POST(self) -> None:
                pedido = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)))
                servidor.pedidos.append(pedido)
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                try:
                    for evento in guion(pedido).split("\n\n"):
                        if not evento.strip():
                            continue
                        if pausa_s and "text_delta" in evento:
                            time.sleep(pausa_s)
                        salida = al_enviar(evento) if al_enviar else evento
                        self.wfile.write((salida + "\n\n").encode())
                        self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def log_message(self, *args: object) -> None:
                pass

        class Servidor(ThreadingHTTPServer):
            daemon_threads = True
            request_queue_size = 256

        self._http = Servidor(("127.0.0.1", 0), Manejador)
        self.url = f"http://127.0.0.1:{self._http.server_address[1]}"
        threading.Thread(target=self._http.serve_forever, daemon=True).start()

    def cerrar(self) -> None:
        self._http.shutdown()
        self._http.server_close()


@contextmanager
def con_claude(
    daphne: Callable[..., str], guion: Callable[[dict[str, Any]], str], **opciones: Any
) -> Iterator[Any]:
    """daphne con el motor Claude apuntado a un suplente local que responde según `guion`; da
    (url, suplente)."""
    suplente = ServidorClaude(guion=guion, **opciones)
    try:
        yield (
            daphne(
                ANTHROPIC_API_KEY="clave-de-prueba",
                ANTHROPIC_BASE_URL=suplente.url,
                ASISTENTE_MOTOR="claude",
                ASISTENTE_ENRUTADOR=False,  # lo que se prueba es el camino del modelo
            ),
            suplente,
        )
    finally:
        suplente.cerrar()


def preparar_hijo_daphne(base: str, ajustes: dict[str, Any]) -> None:
    """En el proceso de daphne: la base de pruebas y los ajustes pedidos (p. ej. el suplente de Claude)."""
    from django.conf import settings

    settings.DATABASES["default"]["NAME"] = base
    for nombre, valor in ajustes.items():
        setattr(settings, nombre, valor)


_SPAWN = multiprocessing.get_context("spawn")


class DaphneAparte(DaphneProcess):
    """`DaphneProcess` en un proceso nuevo (spawn), con sus señales creadas en ese contexto."""

    _start_method = "spawn"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.port, self.ready, self.errors = _SPAWN.Value("i", 0), _SPAWN.Event(), _SPAWN.Queue()

    @staticmethod
    def _Popen(proceso: Any) -> Any:
        from multiprocessing.popen_spawn_posix import Popen

        return Popen(proceso)


def pdf_de_texto(paginas: list[list[str]]) -> bytes:
    """Un PDF real y mínimo (Helvetica, WinAnsi) con una línea de texto extraíble por elemento: sirve
    para probar descargas e ingestas de guías sin archivos de megabytes."""

    def literal(linea: str) -> bytes:
        crudo = linea.encode("cp1252")
        return b"(" + crudo.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)") + b")"

    objetos: list[bytes] = [b"<< /Type /Catalog /Pages 2 0 R >>", b""]
    fuente = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"
    objetos.append(fuente)
    hojas = []
    for lineas in paginas:
        flujo = b"BT /F1 11 Tf 14 TL 50 780 Td " + b" ".join(literal(x) + b" Tj T*" for x in lineas) + b" ET"
        objetos.append(b"<< /Length %d >>\nstream\n" % len(flujo) + flujo + b"\nendstream")
        objetos.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 3 0 R >> >>"
            b" /Contents %d 0 R >>" % len(objetos)
        )
        hojas.append(len(objetos))
    hijos = b" ".join(b"%d 0 R" % n for n in hojas)
    objetos[1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (hijos, len(hojas))
    salida = bytearray(b"%PDF-1.4\n")
    posiciones = []
    for numero, cuerpo in enumerate(objetos, start=1):
        posiciones.append(len(salida))
        salida += b"%d 0 obj\n" % numero + cuerpo + b"\nendobj\n"
    inicio_xref = len(salida)
    salida += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objetos) + 1)
    salida += b"".join(b"%010d 00000 n \n" % p for p in posiciones)
    salida += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objetos) + 1,
        inicio_xref,
    )
    return bytes(salida)


def fuente_local(settings: Any, ajuste: str) -> ServidorLocal:
    """Un `ServidorLocal` en el lugar de una fuente externa: `settings.<ajuste>` apunta a él, es el
    único host permitido y sin pausa de cortesía. Quien lo pide lo cierra."""
    local = ServidorLocal()
    settings.HTTP_HOSTS_PERMITIDOS = [local.host]
    settings.HTTP_INTERVALO_POR_HOST_MS = 0
    setattr(settings, ajuste, local.url)
    return local


def eventos_sse(respuesta: Any) -> Iterator[tuple[int, str, dict[str, Any]]]:
    """(id, evento, datos) de cada evento de un flujo SSE de `httpx.stream`; id 0 si el evento no
    trae `id:` (los marcos fuera del turno)."""
    id_evento, evento = 0, ""
    for linea in respuesta.iter_lines():
        if linea.startswith("id:"):
            id_evento = int(linea[3:])
        elif linea.startswith("event:"):
            evento = linea[6:].strip()
        elif linea.startswith("data:"):
            yield id_evento, evento, json.loads(linea[5:])
            id_evento, evento = 0, ""


def poligono_en_el_salar(*, vertices: int) -> dict[str, Any]:
    """La entrada del motor para un círculo de 1,2° de radio y `vertices` vértices en el Salar de
    Atacama (cientos de glaciares y humedales cerca): con ~30 000 vértices, una evaluación de ~1 s."""
    anillo = [
        [round(-68.2 + 1.2 * math.cos(2 * math.pi * i / vertices), 6),
         round(-23.2 + 1.2 * math.sin(2 * math.pi * i / vertices), 6)]
        for i in range(vertices)
    ]  # fmt: skip
    anillo.append(anillo[0])
    return {
        "nombre": "Mina en el salar",
        "region": "02",
        "tipo": "explotacion",
        "capacidad_extraccion_t_mes": 8000,
        "geometria": {"type": "Polygon", "coordinates": [anillo]},
    }
