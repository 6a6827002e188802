"""El primer uso en un navegador real (Chromium de Debian sin interfaz, vía Playwright) contra daphne:
una base recién preparada muestra los proyectos de demostración y sus informes; la portada responde
un proyecto descrito y lo guarda; una lista vacía lleva al paso siguiente.

Las capturas quedan en `var/capturas/primer_uso_*.png` (el README las muestra).
"""

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from proyectos import demo
from proyectos.models import Cliente, Proyecto
from proyectos.roles import Rol
from proyectos.services import usuario_crear_o_actualizar
from tests.utilidades import CHROMIUM, OPCIONES_CHROMIUM, marcas_navegador

CAPTURAS = Path(__file__).resolve().parents[2] / "var" / "capturas"
CLAVE = "clave-primer-uso-1"

pytestmark = marcas_navegador()


@pytest.fixture
def instalacion_nueva(
    capas: Any,
    corpus: Any,
    django_db_blocker: Any,
    settings: Any,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> Iterator[None]:
    """Lo que `preparar` deja en una instalación local nueva: la demostración cargada (confirmada:
    daphne corre aparte), un administrador, una consultora con cliente y otra sin él."""
    monkeypatch.setattr(demo, "directorio_var", lambda: tmp_path)
    settings.DATOS_DEMO = True
    with django_db_blocker.unblock():
        call_command("demo", "--primera-vez", verbosity=0)  # el paso de `preparar`
        get_user_model().objects.create_superuser("admin-primer-uso", "admin@example.cl", CLAVE)
        cliente = Cliente.objects.create(nombre="Consultora Primer Uso")
        consultora = usuario_crear_o_actualizar(nombre="consultora-nueva", rol=Rol.ESCRITURA, password=CLAVE)
        cliente.usuarios.add(consultora.usuario.pk)
        usuario_crear_o_actualizar(nombre="consultora-sin-cliente", rol=Rol.ESCRITURA, password=CLAVE)
        yield
        Proyecto.objects.filter(cliente=cliente).delete()
        cliente.delete()
        demo.demo_borrar()
        get_user_model().objects.filter(
            username__in=["admin-primer-uso", "consultora-nueva", "consultora-sin-cliente"]
        ).delete()


class Navegador:
    def __init__(self, playwright: Any, url: str) -> None:
        self.url = url
        self.instancia = playwright.chromium.launch(executable_path=CHROMIUM, args=OPCIONES_CHROMIUM)
        self.errores: list[str] = []

    def ingresar(self, usuario: str, destino: str = "/") -> Any:
        pagina = self.instancia.new_page(viewport={"width": 1280, "height": 900})
        pagina.set_default_timeout(20_000)
        pagina.on("pageerror", lambda error: self.errores.append(str(error)))
        pagina.goto(f"{self.url}/ingresar/?next={destino}")
        pagina.fill("#id_username", usuario)
        pagina.fill("#id_password", CLAVE)
        pagina.click("button[type=submit]")
        return pagina


def capturar(pagina: Any, nombre: str) -> None:
    CAPTURAS.mkdir(parents=True, exist_ok=True)
    pagina.screenshot(path=str(CAPTURAS / f"{nombre}.png"), full_page=True)


def test_primer_uso_demostracion_portada_que_responde_y_lista_vacia_que_guia(
    instalacion_nueva: None, daphne: Callable[..., str], django_db_blocker: Any
) -> None:
    from playwright.sync_api import expect, sync_playwright

    url = daphne()
    with django_db_blocker.unblock(), sync_playwright() as p:
        navegador = Navegador(p, url)

        # 1. La demostración: la lista con sus cuatro proyectos y el informe de uno, con su mapa.
        pagina = navegador.ingresar("admin-primer-uso", "/proyectos/")
        filas = pagina.locator("table.tabla tbody tr", has_text="(demostración)")
        expect(filas).to_have_count(4)
        capturar(pagina, "primer_uso_proyectos")
        pagina.get_by_role("link", name="Mina Península de Mejillones (demostración)").click()
        pagina.locator("table.tabla a").first.click()
        expect(pagina.locator("#clasificacion")).to_have_text("EIA")
        expect(pagina.locator("body")).to_contain_text("Sitio prioritario Península de Mejillones")
        expect(pagina.locator("#mapa-informe path.leaflet-interactive").first).to_be_attached()
        capturar(pagina, "primer_uso_informe")

        # 2. La portada responde un proyecto descrito y lo guarda como proyecto.
        pagina = navegador.ingresar("consultora-nueva", "/")
        formulario = pagina.locator("#form-evaluacion")
        formulario.locator("#id_tipo").select_option("explotacion")
        formulario.locator("#id_region").select_option("02")
        formulario.locator("#id_capacidad_extraccion_t_mes").fill("15000")
        formulario.get_by_role("button", name="Evaluar").click()
        expect(pagina.locator("#clasificacion")).to_have_text("DIA")
        expect(pagina.locator("#umbrales")).to_contain_text("alcanza el umbral")
        capturar(pagina, "primer_uso_portada")
        pagina.fill("#id_nombre", "Mina descrita en la portada")
        pagina.get_by_role("button", name="Guardar como proyecto").click()
        expect(pagina.locator(".mensajes")).to_contain_text("Proyecto guardado y analizado.")
        expect(pagina.locator("h1")).to_contain_text("Mina descrita en la portada")

        # 3. Sin cliente: la lista vacía dice por qué y lleva a evaluar en la portada.
        pagina = navegador.ingresar("consultora-sin-cliente", "/proyectos/")
        expect(pagina.locator("#sin-proyectos")).to_contain_text("Su usuario no pertenece a ningún cliente")
        pagina.locator("#sin-proyectos").get_by_role("link", name="evaluar un proyecto en la portada").click()
        expect(pagina.locator("#form-evaluacion")).to_be_visible()
        navegador.instancia.close()

    assert navegador.errores == []
    with django_db_blocker.unblock():
        guardado = Proyecto.objects.get(nombre="Mina descrita en la portada")
        assert (
            guardado.estado == Proyecto.Estado.ANALIZADO
            and guardado.cliente.nombre == "Consultora Primer Uso"
        )
