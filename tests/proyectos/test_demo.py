"""Datos de demostración: cuatro proyectos reales junto a las capas, analizados, una sola vez por
instalación, y que se quitan con un comando o una acción del admin."""

from io import StringIO
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.urls import reverse

from proyectos import demo
from proyectos.models import Analisis, Cliente, Proyecto

pytestmark = pytest.mark.usefixtures("motor")


@pytest.fixture(autouse=True)
def var_aparte(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """La marca «ya se cargó» va a un directorio de la prueba, no al var/ del repositorio."""
    monkeypatch.setattr(demo, "directorio_var", lambda: tmp_path)
    return tmp_path


def test_la_demostracion_trae_cuatro_proyectos_analizados_con_clasificaciones_distintas() -> None:
    creados = demo.demo_cargar()

    cliente = Cliente.objects.get(nombre=demo.CLIENTE_DEMO)
    assert cliente.demo and len(creados) == 4
    clasificaciones = {p.nombre: p.analisis.get().clasificacion for p in cliente.proyectos.all()}
    assert clasificaciones == {
        "Mina Península de Mejillones (demostración)": "EIA",
        "Prospección Laguna del Negro Francisco (demostración)": "DIA",
        "Áridos Pirque (demostración)": "DIA",
        "Pequeña minería Andacollo (demostración)": "NO_INGRESA",
    }
    mejillones = Analisis.objects.get(proyecto__nombre__startswith="Mina Península")
    assert any(t["evidencia"].get("origen") == "capa" for t in mejillones.resultado["triggers"])
    assert all(p.geometria for p in cliente.proyectos.all())


def test_cargarla_otra_vez_no_duplica_y_borrada_no_vuelve_sola() -> None:
    demo.demo_cargar()
    assert demo.demo_cargar() == []

    borrados = demo.demo_borrar()

    assert borrados == 4 and not Cliente.objects.filter(demo=True).exists()
    assert demo.demo_cargar_primera_vez() is None, "make run no la vuelve a cargar"
    assert Proyecto.objects.filter(cliente__demo=True).count() == 0


def test_el_comando_carga_y_borra_y_se_niega_donde_no_hay_demostracion(settings) -> None:
    salida = StringIO()
    with pytest.raises(CommandError, match="no carga datos de demostración"):
        call_command("demo", stdout=salida)

    settings.DATOS_DEMO = True
    call_command("demo", stdout=salida)
    call_command("demo", "--borrar", stdout=salida)

    assert "4 proyectos de «Minera Demostración (datos de ejemplo)», analizados." in salida.getvalue()
    assert "Datos de demostración borrados: 4 proyectos." in salida.getvalue()


def test_la_accion_del_admin_borra_solo_los_clientes_de_demostracion(client) -> None:
    demo.demo_cargar()
    real = Cliente.objects.create(nombre="Minera Real")
    client.force_login(User.objects.create_superuser("adm", "adm@example.cl", "clave-segura-123"))

    client.post(
        reverse("admin:proyectos_cliente_changelist"),
        {"action": "borrar_demo", "_selected_action": list(Cliente.objects.values_list("pk", flat=True))},
    )

    assert list(Cliente.objects.all()) == [real]
