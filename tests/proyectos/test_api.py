"""API de proyectos: alcance por cliente y rol, validación completa, análisis guardado y sin estado."""

import json
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from proyectos.models import Analisis, Proyecto
from tests.proyectos.conftest import TALTAL, Empresa

CASOS = Path(__file__).resolve().parents[1] / "fixtures" / "analisis"


def nuevo(empresa: Empresa, **cambios: Any) -> dict[str, Any]:
    return {
        "cliente": empresa.cliente.pk,
        "nombre": "Mina Nueva",
        "region": "Región de Antofagasta",
        "tipo": "explotacion",
        "capacidad_extraccion_t_mes": 12000,
        **cambios,
    }


def test_un_usuario_lista_solo_los_proyectos_de_sus_clientes(empresa_a: Empresa, empresa_b: Empresa) -> None:
    respuesta = empresa_a.api(empresa_a.lectora).get("/api/proyectos/")

    assert respuesta.status_code == 200
    assert [p["nombre"] for p in respuesta.json()["results"]] == ["Mina Minera Atacama"]


def test_el_personal_ve_todos_los_clientes_y_proyectos(empresa_a: Empresa, empresa_b: Empresa) -> None:
    personal = get_user_model().objects.create_user("personal", is_staff=True, is_superuser=True)
    api = APIClient()
    api.force_authenticate(personal)

    assert api.get("/api/proyectos/").json()["count"] == 2
    assert len(api.get("/api/clientes/").json()) == 2


@pytest.mark.parametrize(
    ("metodo", "sufijo", "cuerpo"),
    [
        ("get", "", None),
        ("patch", "", {"nombre": "Robado"}),
        ("delete", "", None),
        ("post", "analisis/", {}),
        ("get", "analisis/", None),
    ],
)
def test_el_proyecto_de_otro_cliente_no_existe_para_el_usuario(
    empresa_a: Empresa, empresa_b: Empresa, metodo: str, sufijo: str, cuerpo: dict[str, Any] | None
) -> None:
    api = empresa_a.api(empresa_a.escritora)

    respuesta = getattr(api, metodo)(
        f"/api/proyectos/{empresa_b.proyecto.pk}/{sufijo}", cuerpo, format="json"
    )

    assert respuesta.status_code == 404
    empresa_b.proyecto.refresh_from_db()
    assert empresa_b.proyecto.nombre == "Mina Áridos del Sur" and empresa_b.proyecto.estado == "borrador"


def test_crear_un_proyecto_para_otro_cliente_se_rechaza(empresa_a: Empresa, empresa_b: Empresa) -> None:
    respuesta = empresa_a.api(empresa_a.escritora).post("/api/proyectos/", nuevo(empresa_b), format="json")

    # 400 en el campo, como cualquier dato inválido del cuerpo (y sin decir si ese cliente existe).
    assert respuesta.status_code == 400
    assert respuesta.json()["errores"][0]["campo"] == "cliente"
    assert not Proyecto.objects.filter(nombre="Mina Nueva").exists()


def test_un_lector_no_puede_crear_modificar_ni_analizar(empresa_a: Empresa) -> None:
    api = empresa_a.api(empresa_a.lectora)

    assert api.post("/api/proyectos/", nuevo(empresa_a), format="json").status_code == 403
    assert (
        api.patch(f"/api/proyectos/{empresa_a.proyecto.pk}/", {"nombre": "x"}, format="json").status_code
        == 403
    )
    assert api.post(f"/api/proyectos/{empresa_a.proyecto.pk}/analisis/", {}, format="json").status_code == 403


def test_un_escritor_crea_un_proyecto_con_la_region_como_la_escribe(empresa_a: Empresa) -> None:
    respuesta = empresa_a.api(empresa_a.escritora).post(
        "/api/proyectos/", nuevo(empresa_a, comuna="taltal", geometria=TALTAL), format="json"
    )

    assert respuesta.status_code == 201, respuesta.json()
    cuerpo = respuesta.json()
    assert (cuerpo["codigo_region"], cuerpo["comuna"], cuerpo["estado"]) == ("02", "Taltal", "borrador")
    assert cuerpo["geometria_modificada_at"] is not None


def test_datos_invalidos_listan_cada_problema_y_no_guardan_nada(empresa_a: Empresa) -> None:
    datos = nuevo(
        empresa_a,
        region="Mordor",
        capacidad_extraccion_t_mes=-3,
        comuna="Springfield",
        geometria={"type": "Point", "coordinates": [0, 0]},
    )

    respuesta = empresa_a.api(empresa_a.escritora).post("/api/proyectos/", datos, format="json")

    assert respuesta.status_code == 400
    assert {e["campo"] for e in respuesta.json()["errores"]} == {
        "region",
        "capacidad_extraccion_t_mes",
        "geometria",
    }
    assert not Proyecto.objects.filter(nombre="Mina Nueva").exists()


def test_cambiar_el_poligono_registra_cuando_cambio(empresa_a: Empresa) -> None:
    api = empresa_a.api(empresa_a.escritora)
    url = f"/api/proyectos/{empresa_a.proyecto.pk}/"

    primera = api.patch(url, {"geometria": TALTAL}, format="json").json()["geometria_modificada_at"]
    sin_cambio = api.patch(url, {"nombre": "Otro nombre", "geometria": TALTAL}, format="json").json()

    assert primera is not None and sin_cambio["geometria_modificada_at"] == primera
    assert sin_cambio["nombre"] == "Otro nombre"


def test_los_proyectos_se_filtran_por_estado_region_y_cliente(empresa_a: Empresa) -> None:
    api = empresa_a.api(empresa_a.escritora)
    api.post("/api/proyectos/", nuevo(empresa_a, region="Atacama", estado="archivado"), format="json")

    assert [p["nombre"] for p in api.get("/api/proyectos/?estado=archivado").json()["results"]] == [
        "Mina Nueva"
    ]
    assert [p["nombre"] for p in api.get("/api/proyectos/?region=02").json()["results"]] == [
        "Mina Minera Atacama"
    ]
    assert api.get(f"/api/proyectos/?cliente={empresa_a.cliente.pk}").json()["count"] == 2


@pytest.mark.usefixtures("motor")
def test_analizar_un_proyecto_guarda_la_entrada_y_el_resultado_congelados(empresa_a: Empresa) -> None:
    api = empresa_a.api(empresa_a.escritora)
    api.patch(f"/api/proyectos/{empresa_a.proyecto.pk}/", {"geometria": TALTAL}, format="json")

    respuesta = api.post(
        f"/api/proyectos/{empresa_a.proyecto.pk}/analisis/", {"tipo": "completo"}, format="json"
    )

    assert respuesta.status_code == 201
    analisis = Analisis.objects.get(pk=respuesta.json()["id"])
    assert analisis.clasificacion == "DIA" and analisis.resultado["tipologias"] == ["i.1"]
    assert analisis.entrada["codigo_region"] == "02" and analisis.entrada["geometria"]["type"] == "Polygon"
    empresa_a.proyecto.refresh_from_db()
    assert empresa_a.proyecto.estado == "analizado"
    assert api.get(f"/api/proyectos/{empresa_a.proyecto.pk}/").json()["ultima_clasificacion"] == "DIA"
    assert api.get(f"/api/analisis/{analisis.pk}/").status_code == 200


def test_un_borrador_puede_no_tener_cantidades_pero_analizarlo_las_pide(empresa_a: Empresa) -> None:
    api = empresa_a.api(empresa_a.escritora)
    creado = api.post("/api/proyectos/", nuevo(empresa_a, capacidad_extraccion_t_mes=None), format="json")

    respuesta = api.post(f"/api/proyectos/{creado.json()['id']}/analisis/", {}, format="json")

    assert creado.status_code == 201 and respuesta.status_code == 400
    assert "sin ese dato no se puede decidir" in respuesta.json()["errores"][0]["mensaje"]
    assert Analisis.objects.count() == 0


@pytest.mark.usefixtures("motor")
def test_el_analisis_de_otro_cliente_no_existe(empresa_a: Empresa, empresa_b: Empresa) -> None:
    ajeno = empresa_b.api(empresa_b.escritora).post(
        f"/api/proyectos/{empresa_b.proyecto.pk}/analisis/", {}, format="json"
    )

    assert empresa_a.api(empresa_a.lectora).get(f"/api/analisis/{ajeno.json()['id']}/").status_code == 404


@pytest.mark.usefixtures("motor")
def test_la_evaluacion_sin_estado_cumple_el_contrato_y_no_guarda_nada(empresa_a: Empresa) -> None:
    entrada = json.loads((CASOS / "d05.json").read_text(encoding="utf-8"))

    respuesta = empresa_a.api(empresa_a.lectora).post("/api/analisis/evaluar/", entrada, format="json")

    assert respuesta.status_code == 200
    cuerpo = respuesta.json()
    assert (cuerpo["clasificacion"], cuerpo["tipologias"]) == ("EIA", ["i.1"])
    assert {"letra", "descripcion", "severidad", "evidencia", "fundamento"} <= set(cuerpo["triggers"][0])
    assert Analisis.objects.count() == 0


def test_la_evaluacion_sin_estado_responde_400_con_cada_problema(empresa_a: Empresa) -> None:
    respuesta = empresa_a.api(empresa_a.lectora).post(
        "/api/analisis/evaluar/", {"nombre": "x", "tipo": "nada"}, format="json"
    )

    assert respuesta.status_code == 400
    assert {e["campo"] for e in respuesta.json()["errores"]} == {"region", "tipo"}


def test_un_cliente_anonimo_se_rechaza() -> None:
    assert APIClient().post("/api/analisis/evaluar/", {}, format="json").status_code in (401, 403)


@pytest.mark.django_db
def test_el_esquema_openapi_documenta_proyectos_y_el_motor() -> None:
    esquema = APIClient().get("/api/schema/?format=json")

    rutas = json.loads(esquema.content)["paths"]
    assert {
        "/api/proyectos/",
        "/api/proyectos/{id}/analisis/",
        "/api/analisis/evaluar/",
        "/api/clientes/",
    } <= set(rutas)


def test_la_lista_se_pagina_y_la_geometria_solo_va_si_se_pide(empresa_a: Empresa) -> None:
    api = empresa_a.api(empresa_a.escritora)
    for n in range(3):
        api.post("/api/proyectos/", nuevo(empresa_a, nombre=f"Mina {n}", geometria=TALTAL), format="json")

    primera = api.get("/api/proyectos/?limit=2").json()
    segunda = api.get(primera["next"]).json()
    con_geometria = api.get("/api/proyectos/?limit=1&geometria=1").json()["results"][0]

    assert primera["count"] == 4 and len(primera["results"]) == 2 and segunda["previous"]
    assert len(segunda["results"]) == 2 and segunda["next"] is None
    assert all("geometria" not in p for p in primera["results"] + segunda["results"])
    assert "geometria" in con_geometria
    assert api.get("/api/proyectos/?offset=" + "9" * 30).status_code in (200, 400)


@pytest.mark.usefixtures("motor")
def test_evaluar_por_la_api_lista_los_permisos_de_las_partes_declaradas(empresa_a: Empresa) -> None:
    datos = {
        "nombre": "Mina",
        "region": "Antofagasta",
        "tipo": "explotacion",
        "capacidad_extraccion_t_mes": 9000,
        "componentes": {"botadero_esteriles": True, "captura_fauna": True, "acueducto_m3_s": 2.5},
    }

    resultado = empresa_a.api(empresa_a.lectora).post("/api/analisis/evaluar/", datos, format="json").json()

    assert [p["articulo"] for p in resultado["permisos"]] == ["136", "137", "146", "155"]
    assert resultado["umbrales_permisos"][0]["texto"].startswith("acueducto de 2,50 m³/s > 2 m³/s")
    relocalizacion = resultado["permisos"][2]
    assert relocalizacion["requisito"].startswith(
        "El requisito para su otorgamiento consiste en que el proyecto de caza"
    )
