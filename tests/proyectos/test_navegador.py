"""Las páginas de proyectos en un navegador real (Chromium de Debian sin interfaz, vía Playwright):
subir un polígono en el mapa, guardarlo, analizar y leer el informe.

La aplicación la sirve daphne en otro proceso (fixture `daphne`), que solo ve datos confirmados: la
prueba crea los suyos fuera de una transacción y los borra al terminar. No usa el `live_server` de
pytest-django porque este activa `transactional_db`, que al terminar vacía todas las tablas (corpus,
capas y grupos de roles que las demás pruebas de la sesión necesitan).
"""

import json
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model

from proyectos.models import Cliente, Proyecto
from proyectos.roles import Rol
from proyectos.services import proyecto_crear, usuario_crear_o_actualizar
from tests.utilidades import CHROMIUM, OPCIONES_CHROMIUM, marcas_navegador

CASOS = Path(__file__).resolve().parents[1] / "fixtures" / "analisis"

pytestmark = marcas_navegador()


@contextmanager
def confirmado(cliente: str, usuaria: str, clave: str, datos: dict[str, Any]) -> Iterator[Proyecto]:
    """Cliente, usuaria y proyecto confirmados (daphne los ve), borrados al salir."""
    nuevo = Cliente.objects.create(nombre=cliente)
    usuario = usuario_crear_o_actualizar(nombre=usuaria, rol=Rol.ESCRITURA, password=clave).usuario
    nuevo.usuarios.add(usuario.pk)
    try:
        yield proyecto_crear(cliente=nuevo, datos=datos)
    finally:
        Proyecto.objects.filter(cliente=nuevo).delete()
        nuevo.delete()
        get_user_model().objects.filter(username=usuaria).delete()


@pytest.fixture
def proyecto_confirmado(corpus: Any, capas: Any, django_db_blocker: Any) -> Iterator[Proyecto]:
    datos = {
        "nombre": "Mina Mejillones",
        "region": "Antofagasta",
        "tipo": "explotacion",
        "capacidad_extraccion_t_mes": 15000,
    }
    with (
        django_db_blocker.unblock(),
        confirmado("Minera Navegador", "navegadora", "clave-navegador-1", datos) as p,
    ):
        yield p


@contextmanager
def con_sesion(servidor_web: str, usuaria: str, clave: str, destino: str) -> Iterator[tuple[Any, list[str]]]:
    """Chromium con la sesión de la usuaria iniciada en `destino`; junta los errores de JavaScript."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        navegador = p.chromium.launch(executable_path=CHROMIUM, args=OPCIONES_CHROMIUM)
        pagina = navegador.new_page()
        pagina.set_default_timeout(20_000)
        errores: list[str] = []
        pagina.on("pageerror", lambda error: errores.append(str(error)))
        pagina.goto(f"{servidor_web}/ingresar/?next={destino}")
        pagina.fill("#id_username", usuaria)
        pagina.fill("#id_password", clave)
        pagina.click("button[type=submit]")
        yield pagina, errores
        navegador.close()


def test_una_usuaria_sube_un_poligono_corre_el_analisis_y_lee_el_informe(
    proyecto_confirmado: Proyecto, daphne: Callable[..., str], django_db_blocker: Any, tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    servidor_web = daphne()
    poligono = tmp_path / "mejillones.geojson"
    geometria = json.loads((CASOS / "d05.json").read_text(encoding="utf-8"))["geometria"]
    poligono.write_text(
        json.dumps({"type": "Feature", "properties": {}, "geometry": geometria}), encoding="utf-8"
    )

    destino = f"/proyectos/{proyecto_confirmado.pk}/mapa/"
    with (
        django_db_blocker.unblock(),
        con_sesion(servidor_web, "navegadora", "clave-navegador-1", destino) as (pagina, errores),
    ):
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

    assert errores == []


@pytest.fixture
def mina_con_partes(corpus: Any, capas: Any, django_db_blocker: Any) -> Iterator[Proyecto]:
    datos = {
        "nombre": "Mina Chica con mineroducto",
        "region": "Atacama",
        "tipo": "explotacion",
        "capacidad_extraccion_t_mes": 3000,
        "componentes": {"ducto_minero_km": 30, "linea_transmision_kv": 66},
    }
    with (
        django_db_blocker.unblock(),
        confirmado("Minera Partes", "partes-navegadora", "clave-navegador-2", datos) as proyecto,
    ):
        yield proyecto


def test_el_informe_muestra_las_dos_letras_de_ingreso_y_la_fecha_del_texto_junto_a_la_cita_del_ds_40(
    mina_con_partes: Proyecto, daphne: Callable[..., str], django_db_blocker: Any, tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    servidor_web = daphne()
    destino = f"/proyectos/{mina_con_partes.pk}/"
    with (
        django_db_blocker.unblock(),
        con_sesion(servidor_web, "partes-navegadora", "clave-navegador-2", destino) as (pagina, errores),
    ):
        expect(pagina.locator("#componentes")).to_contain_text("literal j")
        pagina.get_by_role("button", name="Analizar", exact=True).click()

        expect(pagina.locator("#clasificacion")).to_have_text("DIA")
        expect(pagina.locator("#causas-ingreso")).to_have_text("Ingresa por 2 causas (basta una): b.1, j.")
        expect(pagina.locator("#tipologias > li")).to_have_count(2)
        cita_j = pagina.locator("#tipologias li[data-tipologia='j'] .fundamento li", has_text="DS 40, Art. 3")
        expect(cita_j).to_contain_text("(texto del 06-10-2014)")
        expect(cita_j.locator(".advertencia-vigencia")).to_be_visible()
        expect(cita_j.locator(".advertencia-vigencia")).to_contain_text("no incluye las modificaciones")
        pagina.screenshot(path=str(tmp_path / "informe-partes.png"), full_page=True)

    assert errores == []


@pytest.fixture
def consultora_sin_proyectos(corpus: Any, capas: Any, django_db_blocker: Any) -> Iterator[Cliente]:
    with django_db_blocker.unblock():
        cliente = Cliente.objects.create(nombre="Minera Permisos")
        usuario = usuario_crear_o_actualizar(
            nombre="pas-navegadora", rol=Rol.ESCRITURA, password="clave-pas-3"
        )
        cliente.usuarios.add(usuario.usuario.pk)
        try:
            yield cliente
        finally:
            Proyecto.objects.filter(cliente=cliente).delete()
            cliente.delete()
            get_user_model().objects.filter(username="pas-navegadora").delete()


def test_una_mina_con_relaves_botadero_campamento_rural_con_aguas_servidas_y_bodega_de_respel_ve_cada_pas(
    consultora_sin_proyectos: Cliente, daphne: Callable[..., str], django_db_blocker: Any, tmp_path: Path
) -> None:
    """El proyecto se crea en el formulario marcando sus partes; el informe lista cada permiso con su
    requisito y, los que la tienen en el corpus, el enlace a su guía trámite del SEA."""
    from playwright.sync_api import expect

    servidor_web = daphne()
    with (
        django_db_blocker.unblock(),
        con_sesion(servidor_web, "pas-navegadora", "clave-pas-3", "/proyectos/nuevo/") as (pagina, errores),
    ):
        pagina.fill("#id_nombre", "Mina Cerro Permisos")
        pagina.select_option("#id_region", label="Región de Atacama")
        pagina.select_option("#id_tipo", value="explotacion")
        pagina.fill("#id_capacidad_extraccion_t_mes", "12000")
        pagina.click("#partes-con-permiso summary")
        for parte in (
            "deposito_relaves",
            "botadero_esteriles",
            "construcciones_fuera_limite_urbano",
            "planta_aguas_servidas",
            "bodega_residuos_peligrosos",
        ):
            pagina.check(f"#id_{parte}")
        pagina.get_by_role("button", name="Guardar").click()
        pagina.get_by_role("link", name="Mina Cerro Permisos").click()  # del mapa a la ficha
        expect(pagina.locator("#componentes")).to_contain_text("PAS del art. 135 del DS 40")

        pagina.get_by_role("button", name="Analizar", exact=True).click()
        expect(pagina.locator("#clasificacion")).to_have_text("DIA")
        permisos = pagina.locator("#lista-permisos > li")
        expect(permisos).to_have_count(6)
        for articulo in ("135", "136", "137", "138", "142", "160"):
            permiso = pagina.locator(f"#lista-permisos li[data-pas='{articulo}']")
            expect(permiso).to_contain_text(f"PAS del Art. {articulo}")
            expect(permiso.locator(".requisito")).to_contain_text("para su otorgamiento")
        for articulo in ("135", "136", "137"):
            guia = pagina.locator(f"#lista-permisos li[data-pas='{articulo}'] a.guia-pas")
            expect(guia).to_have_attribute("href", re.compile(r"^https://sea\.gob\.cl/.+\.pdf$"))
        expect(pagina.locator("#lista-permisos li[data-pas='160']")).to_contain_text(
            "las construcciones fuera de los límites urbanos (declarado)"
        )
        pagina.screenshot(path=str(tmp_path / "informe-permisos.png"), full_page=True)

    assert errores == []
