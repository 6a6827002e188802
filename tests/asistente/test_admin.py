"""El panel «Métricas del asistente» en el admin: solo para el personal con permiso, con sus gráficos y
las preguntas sin respuesta enlazadas a «Probar búsqueda» y «Nueva respuesta curada»."""

import json
from datetime import timedelta
from urllib.parse import parse_qs, urlparse

import pytest
from django.contrib.auth.models import Permission, User
from django.urls import reverse
from django.utils import timezone

from asistente.metricas import horas_resumir
from asistente.models import Mensaje
from bench.turnos_sinteticos import sembrar

pytestmark = pytest.mark.django_db

PANEL = reverse("admin:asistente_resumenhora_changelist")
GRAFICOS = {
    "turnos",
    "latencia",
    "primer_token",
    "costo",
    "herramientas_exito",
    "herramientas_latencia",
    "acciones",
    "valoraciones",
    "confianza",
    "abstencion",
    "caches",
    "fuentes",
}


@pytest.fixture
def operadora(client):
    usuaria = User.objects.create_superuser("operadora", "operadora@example.cl", "clave-segura-123")
    ahora = timezone.now()
    sembrar(usuaria, turnos=200, dias=3, ahora=ahora)
    horas_resumir(desde=ahora - timedelta(days=4), hasta=ahora)
    client.force_login(usuaria)
    return client


def test_el_panel_trae_cada_grafico_sus_datos_y_las_preguntas_sin_respuesta(operadora) -> None:
    respuesta = operadora.get(PANEL, {"rango": "30d"})

    html = respuesta.content.decode()
    assert respuesta.status_code == 200
    assert "Métricas del asistente" in html and 'aria-current="page">Últimos 30 días' in html
    assert {g for g in GRAFICOS if f'data-grafico="{g}"' in html} == GRAFICOS
    assert "vendor/chartjs/chart.umd.min.js" in html
    datos = respuesta.context["datos"]
    assert datos["resumen"]["turnos"] == Mensaje.objects.filter(rol=Mensaje.Rol.ASISTENTE).count()
    assert json.loads(_json_de(html))["rango"] == "30d"
    assert datos["sin_respuesta"] and 'id="sin-respuesta"' in html


def test_cada_pregunta_sin_respuesta_abre_probar_busqueda_con_ella_y_la_busqueda_corre(
    operadora, corpus
) -> None:
    fila = operadora.get(PANEL).context["datos"]["sin_respuesta"][0]

    enlace = urlparse(fila["probar"])
    assert enlace.path == reverse("admin:normativa_probar_busqueda")
    assert parse_qs(enlace.query)["consulta"] == [fila["pregunta"]]
    busqueda = operadora.get(fila["probar"])
    assert busqueda.status_code == 200 and busqueda.context["busqueda"] is not None


def test_nueva_respuesta_curada_abre_el_formulario_con_la_pregunta_escrita(operadora) -> None:
    fila = operadora.get(PANEL).context["datos"]["sin_respuesta"][0]

    formulario = operadora.get(fila["curar"])

    assert formulario.status_code == 200
    assert formulario.context["adminform"].form.initial["pregunta"] == fila["pregunta"]


def test_un_rango_desconocido_avisa_en_espanol_y_muestra_siete_dias(operadora) -> None:
    respuesta = operadora.get(PANEL, {"rango": "siempre"})

    assert respuesta.status_code == 200 and respuesta.context["rango"] == "7d"
    avisos = [str(m) for m in respuesta.context["messages"]]
    assert avisos == ["Rango «siempre» desconocido: se muestran los últimos 7 días."]


def test_quien_no_es_del_personal_va_al_ingreso_y_el_personal_sin_permiso_recibe_403(client) -> None:
    usuaria = User.objects.create_user("consultora", password="clave-segura-123")
    client.force_login(usuaria)
    assert client.get(PANEL).status_code == 302

    usuaria.is_staff = True
    usuaria.save()
    assert client.get(PANEL).status_code == 403

    usuaria.user_permissions.add(Permission.objects.get(codename="view_resumenhora"))
    assert User.objects.get(pk=usuaria.pk).has_perm("asistente.view_resumenhora")
    assert client.get(PANEL).status_code == 200


def _json_de(html: str) -> str:
    inicio = html.index('<script id="metricas-datos" type="application/json">') + len(
        '<script id="metricas-datos" type="application/json">'
    )
    return html[inicio : html.index("</script>", inicio)]
