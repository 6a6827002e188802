"""La configuración de producción sirve sus páginas: `collectstatic` con el almacenamiento de producción
(nombres con hash y compresión) termina, y daphne con `config.settings.production` responde la portada,
el ingreso, el admin y la documentación de la API con cada archivo estático que nombran.

Antes de esto `collectstatic` fallaba (la hoja de estilos de Leaflet-Geoman nombraba un `.map` que no
se copió) y, sin el manifiesto, esas cuatro páginas respondían 500.
"""

import os
import re
import secrets
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import httpx
import pytest
from django.db import connection

from tests.utilidades import puerto_libre

pytestmark = pytest.mark.lento
RAIZ = Path(__file__).resolve().parents[2]
PAGINAS = ["/", "/ingresar/", "/admin/login/", "/api/docs/"]
# Como llega detrás del balanceador que termina TLS (SECURE_PROXY_SSL_HEADER).
CABECERAS = {"X-Forwarded-Proto": "https"}


@pytest.fixture(scope="module")
def entorno_de_produccion(tmp_path_factory: pytest.TempPathFactory, django_db_setup: None) -> dict[str, str]:
    """Las variables obligatorias de producción, con la base de pruebas y un STATIC_ROOT vacío."""
    partes = urlsplit(os.environ["DATABASE_URL"])
    base_de_pruebas = urlunsplit(partes._replace(path=f"/{connection.settings_dict['NAME']}"))
    return {
        **{k: v for k, v in os.environ.items() if k != "DJANGO_DEBUG"},
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(60),
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
        "DATABASE_URL": base_de_pruebas,
        "DJANGO_STATIC_ROOT": str(tmp_path_factory.mktemp("staticfiles")),
    }


@pytest.fixture(scope="module")
def servidor_de_produccion(entorno_de_produccion: dict[str, str]) -> Iterator[str]:
    recolectar = subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput"],
        cwd=RAIZ, env=entorno_de_produccion, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert recolectar.returncode == 0, recolectar.stderr[-3000:]
    puerto = puerto_libre()
    daphne = subprocess.Popen(
        [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(puerto), "config.asgi:application"],
        cwd=RAIZ, env=entorno_de_produccion, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    url = f"http://127.0.0.1:{puerto}"
    try:
        _esperar(url, daphne)
        yield url
    finally:
        daphne.terminate()
        daphne.wait(20)


def test_collectstatic_de_produccion_deja_el_manifiesto_con_los_archivos_de_las_paginas(
    servidor_de_produccion: str, entorno_de_produccion: dict[str, str]
) -> None:
    destino = Path(entorno_de_produccion["DJANGO_STATIC_ROOT"])

    assert (destino / "staticfiles.json").is_file()
    assert list((destino / "vendor" / "leaflet-geoman").glob("leaflet-geoman.*.css"))


@pytest.mark.parametrize("ruta", PAGINAS)
def test_produccion_sirve_la_pagina_y_cada_archivo_estatico_que_nombra(
    servidor_de_produccion: str, ruta: str
) -> None:
    pagina = httpx.get(servidor_de_produccion + ruta, headers=CABECERAS, timeout=30)

    assert pagina.status_code == 200, pagina.text[:500]
    estaticos = set(re.findall(r"""(?:href|src)=["'](/static/[^"']+)["']""", pagina.text))
    assert estaticos, "la página no nombra archivos estáticos"
    for estatico in sorted(estaticos):
        # Con el almacenamiento de producción cada nombre lleva su hash (caché de un año).
        assert re.search(r"\.[0-9a-f]{12}\.", estatico), estatico
        archivo = httpx.get(servidor_de_produccion + estatico, headers=CABECERAS, timeout=30)
        assert archivo.status_code == 200, estatico


def test_ninguna_hoja_de_estilos_incluida_nombra_un_archivo_que_no_esta() -> None:
    """Un `sourceMappingURL` o un `url(...)` hacia un archivo ausente rompe `collectstatic` en producción."""
    for hoja in (RAIZ / "static").rglob("*.css"):
        texto = hoja.read_text(encoding="utf-8")
        # Solo las que nombran un archivo (no `data:` ni las de un SVG incrustado, que Django omite).
        referencias = re.findall(r"sourceMappingURL=([^\s*]+)", texto) + re.findall(
            r"url\(\s*['\"]?([\w./-]+\.\w+)(?:[?#][^'\")]*)?['\"]?\s*\)", texto
        )
        for referencia in referencias:
            assert (hoja.parent / referencia).is_file(), f"{hoja}: {referencia}"


def _esperar(url: str, proceso: subprocess.Popen[str], limite_s: float = 90) -> None:
    fin = time.monotonic() + limite_s
    while time.monotonic() < fin:
        if proceso.poll() is not None:
            raise AssertionError(proceso.stderr.read()[-3000:] if proceso.stderr else "daphne terminó")
        try:
            httpx.get(url + "/ingresar/", headers=CABECERAS, timeout=5)
            return
        except httpx.HTTPError:
            time.sleep(0.3)
    raise AssertionError("daphne de producción no respondió")
