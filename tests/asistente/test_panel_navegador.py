"""El panel «Métricas del asistente» en un navegador real (Chromium de Debian sin interfaz, vía
Playwright) contra la aplicación servida por daphne, con una semana de turnos sintéticos: cada
gráfico queda dibujado (su lienzo tiene píxeles pintados) y la tabla de preguntas sin respuesta trae
sus enlaces. La captura queda en `var/capturas/metricas_del_asistente.png`.
"""

from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from asistente.metricas import horas_resumir
from asistente.models import ResumenHora
from bench.turnos_sinteticos import sembrar
from fuentes_externas.models import EstadoFuente
from tests.utilidades import CHROMIUM, OPCIONES_CHROMIUM, marcas_navegador

CAPTURA = Path(__file__).resolve().parents[2] / "var" / "capturas" / "metricas_del_asistente.png"
OPERADORA, CLAVE = "operadora-panel", "clave-panel-1"

# Cuántos lienzos tienen algún píxel pintado (un gráfico vacío de Chart.js igual dibuja sus ejes).
LIENZOS_PINTADOS = """() => Array.from(document.querySelectorAll("canvas[data-grafico]")).map((lienzo) => {
  const datos = lienzo.getContext("2d").getImageData(0, 0, lienzo.width, lienzo.height).data;
  let pintados = 0;
  for (let i = 3; i < datos.length; i += 4) { if (datos[i] > 0) { pintados += 1; } }
  return [lienzo.dataset.grafico, lienzo.dataset.dibujado || "", pintados];
})"""

pytestmark = marcas_navegador()


@pytest.fixture
def semana_de_turnos(django_db_setup: Any, django_db_blocker: Any) -> Iterator[None]:
    """Una operadora y 300 turnos en 7 días, resumidos por hora y confirmados (daphne corre aparte)."""
    with django_db_blocker.unblock():
        operadora = get_user_model().objects.create_superuser(OPERADORA, "panel@example.cl", CLAVE)
        ahora = timezone.now()
        sembrar(operadora, turnos=300, dias=7, ahora=ahora)
        horas_resumir(desde=ahora - timedelta(days=8), hasta=ahora)
        originales = list(EstadoFuente.objects.all())
        EstadoFuente.objects.update_or_create(
            fuente=EstadoFuente.Fuente.BCN,
            defaults={"ultima_ejecucion_at": ahora, "ultimo_exito_at": ahora, "fallos_consecutivos": 0},
        )
        EstadoFuente.objects.update_or_create(
            fuente=EstadoFuente.Fuente.SEA,
            defaults={
                "ultima_ejecucion_at": ahora,
                "ultimo_error": "Tiempo agotado",
                "ultimo_error_at": ahora,
                "fallos_consecutivos": 3,
            },
        )
        yield
        operadora.delete()  # sus conversaciones, mensajes, llamadas y acciones con ella
        ResumenHora.objects.all().delete()
        EstadoFuente.objects.all().delete()
        EstadoFuente.objects.bulk_create(originales)


def test_el_panel_dibuja_cada_grafico_y_la_tabla_de_preguntas_sin_respuesta(
    semana_de_turnos: None, daphne: Callable[..., str], django_db_blocker: Any
) -> None:
    from playwright.sync_api import expect, sync_playwright

    url = daphne()
    with django_db_blocker.unblock(), sync_playwright() as p:
        navegador = p.chromium.launch(executable_path=CHROMIUM, args=OPCIONES_CHROMIUM)
        pagina = navegador.new_page(viewport={"width": 1400, "height": 1000})
        errores: list[str] = []
        pagina.on("pageerror", lambda error: errores.append(str(error)))
        pagina.goto(f"{url}/admin/login/?next=/admin/asistente/resumenhora/")
        pagina.fill("#id_username", OPERADORA)
        pagina.fill("#id_password", CLAVE)
        pagina.click("input[type=submit]")

        pagina.wait_for_url("**/admin/asistente/resumenhora/")
        expect(pagina.locator("h1")).to_have_text("Métricas del asistente")
        lienzos = pagina.locator("canvas[data-grafico]")
        expect(lienzos).to_have_count(12)
        expect(pagina.locator('canvas[data-grafico][data-dibujado="si"]')).to_have_count(12)
        pintados = pagina.evaluate(LIENZOS_PINTADOS)
        filas = pagina.locator("#sin-respuesta tbody tr")
        expect(filas.first.get_by_role("link", name="Probar búsqueda")).to_be_visible()
        expect(filas.first.get_by_role("link", name="Nueva respuesta curada")).to_be_visible()
        expect(pagina.locator("#fuentes .salud-con-fallas")).to_have_text("con fallas")
        preguntas = filas.count()
        CAPTURA.parent.mkdir(parents=True, exist_ok=True)
        pagina.screenshot(path=str(CAPTURA), full_page=True)

        pagina.get_by_role("link", name="Últimas 24 horas").click()
        expect(pagina.locator('.metricas-rangos a[aria-current="page"]')).to_have_text("Últimas 24 horas")
        expect(pagina.locator('canvas[data-grafico][data-dibujado="si"]')).to_have_count(12)
        navegador.close()

    assert errores == []
    assert [nombre for nombre, dibujado, pixeles in pintados if dibujado != "si" or pixeles < 500] == []
    assert preguntas >= 2, "las preguntas fuera del corpus de la siembra aparecen en la tabla"
    assert CAPTURA.stat().st_size > 20_000
