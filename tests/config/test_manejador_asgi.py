"""Lo que Django rechaza antes de armar el pedido también sale en JSON bajo /api/
(`config/manejador_asgi.py`)."""

import json
from typing import Any

from asgiref.testing import ApplicationCommunicator

from config.asgi import aplicacion_http


async def _pedir(ruta: str, consulta: bytes) -> tuple[int, dict[bytes, bytes], bytes]:
    alcance = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET",
        "scheme": "http", "path": ruta, "raw_path": ruta.encode(), "query_string": consulta,
        "headers": [(b"host", b"127.0.0.1")], "client": ("127.0.0.1", 5000), "server": ("127.0.0.1", 80),
    }  # fmt: skip
    comunicador: Any = ApplicationCommunicator(aplicacion_http, alcance)  # type: ignore[no-untyped-call]
    await comunicador.send_input({"type": "http.request", "body": b""})
    inicio = await comunicador.receive_output(10)
    cuerpo = await comunicador.receive_output(10)
    return inicio["status"], dict(inicio["headers"]), cuerpo.get("body", b"")


async def test_una_direccion_de_la_api_que_no_es_utf8_recibe_un_400_en_json() -> None:
    estado, cabeceras, cuerpo = await _pedir("/api/proyectos/", b"region=\xff\xfe")

    assert estado == 400
    assert cabeceras[b"Content-Type"] == b"application/json"
    assert "UTF-8" in json.loads(cuerpo)["error"]


async def test_fuera_de_la_api_el_rechazo_sigue_siendo_el_de_django() -> None:
    estado, cabeceras, _ = await _pedir("/proyectos/", b"region=\xff\xfe")

    assert estado == 400 and not cabeceras[b"Content-Type"].startswith(b"application/json")
