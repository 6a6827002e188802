"""Las páginas de proyectos en un navegador real (Chromium de Debian sin interfaz, vía Playwright):
subir un polígono en el mapa, guardarlo, analizar y leer el informe.

El servidor corre en otro hilo y necesita ver datos confirmados: la prueba crea los suyos fuera de
una transacción y los borra al terminar. No usa el `live_server` de pytest-django porque este activa
`transactional_db`, que al terminar vacía todas las tablas (corpus, capas y grupos de roles que las
demás pruebas de la sesión necesitan).
"""

import json
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model

from proyectos.models import Cliente, Proyecto
from proyectos.roles import Rol
from proyectos.services import proyecto_crear, usuario_crear_o_actualizar

CHROMIUM = "/usr/bin/chromium"
OPCIONES = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
CASOS = Path(__file__).resolve().parents[1] / "fixtures" / "analisis"

pytestmark = [
    pytest.mark.lento,
    pytest.mark.skipif(not shutil.which(CHROMIUM), reason="falta Chromium de Debian (make test lo instala)"),
]


@pytest.fixture
def servidor_web(django_db_blocker: Any) -> Iterator[str]:
    """La aplicación WSGI (con archivos estáticos) en 127.0.0.1, en un hilo; devuelve su URL."""
    from socketserver import ThreadingMixIn
    from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

    from django.contrib.staticfiles.handlers import StaticFilesHandler
    from django.core.wsgi import get_wsgi_application

    class Servidor(ThreadingMixIn, WSGIServer):
        daemon_threads = True

    class Silencioso(WSGIRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

    with django_db_blocker.unblock():
        servidor = make_server(
            "127.0.0.1",
            0,
            StaticFilesHandler(get_wsgi_application()),
            server_class=Servidor,
            handler_class=Silencioso,
        )
        hilo = threading.Thread(target=servidor.serve_forever, daemon=True)
        hilo.start()
        yield f"http://127.0.0.1:{servidor.server_port}"
        servidor.shutdown()
        servidor.server_close()


@pytest.fixture
def proyecto_confirmado(corpus: Any, capas: Any, django_db_blocker: Any) -> Iterator[Proyecto]:
    with django_db_blocker.unblock():
        cliente = Cliente.objects.create(nombre="Minera Navegador")
        usuaria = usuario_crear_o_actualizar(
            nombre="navegadora", rol=Rol.ESCRITURA, password="clave-navegador-1"
        ).usuario
        cliente.usuarios.add(usuaria.pk)
        proyecto = proyecto_crear(
            cliente=cliente,
            datos={
                "nombre": "Mina Mejillones",
                "region": "Antofagasta",
                "tipo": "explotacion",
                "capacidad_extraccion_t_mes": 15000,
            },
        )
        yield proyecto
        Proyecto.objects.filter(cliente=cliente).delete()
        cliente.delete()
        get_user_model().objects.filter(username="navegadora").delete()


def test_a_user_uploads_a_polygon_runs_the_analysis_and_reads_the_report(
    proyecto_confirmado: Proyecto, servidor_web: str, django_db_blocker: Any, tmp_path: Path
) -> None:
    from playwright.sync_api import expect, sync_playwright

    poligono = tmp_path / "mejillones.geojson"
    geometria = json.loads((CASOS / "d05.json").read_text(encoding="utf-8"))["geometria"]
    poligono.write_text(
        json.dumps({"type": "Feature", "properties": {}, "geometry": geometria}), encoding="utf-8"
    )

    with django_db_blocker.unblock(), sync_playwright() as p:
        navegador = p.chromium.launch(executable_path=CHROMIUM, args=OPCIONES)
        pagina = navegador.new_page()
        pagina.set_default_timeout(20_000)
        errores: list[str] = []
        pagina.on("pageerror", lambda error: errores.append(str(error)))

        pagina.goto(f"{servidor_web}/ingresar/?next=/proyectos/{proyecto_confirmado.pk}/mapa/")
        pagina.fill("#id_username", "navegadora")
        pagina.fill("#id_password", "clave-navegador-1")
        pagina.click("button[type=submit]")
        expect(pagina.locator(".leaflet-pm-toolbar").first).to_be_visible()

        pagina.set_input_files("#archivo", str(poligono))
        expect(pagina.locator("#estado-mapa")).to_contain_text("Se cargó «mejillones.geojson»")
        pagina.click("#guardar")
        expect(pagina.locator(".mensajes")).to_contain_text("Polígono guardado")
        expect(pagina.locator("#mapa path.leaflet-interactive").first).to_be_attached()

        pagina.click("#analizar")
        expect(pagina.locator("#clasificacion")).to_have_text("EIA")
        expect(pagina.locator("body")).to_contain_text("Sitio prioritario Península de Mejillones")
        expect(pagina.locator("a", has_text="Ley 19.300, Art. 11 letra d").first).to_have_attribute(
            "href", "https://www.bcn.cl/leychile/navegar?idNorma=30667&idParte=8640083"
        )
        expect(pagina.locator("#mapa-informe path.leaflet-interactive")).to_have_count(3)
        pagina.screenshot(path=str(tmp_path / "informe.png"), full_page=True)
        navegador.close()

    assert errores == []
