"""Páginas de proyectos: alcance por cliente, formulario en castellano, mapa, informe y carga de capas."""

import json

import pytest
import shapely
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from proyectos.models import Analisis, CapaGeografica, CategoriaCapa, Proyecto
from tests.proyectos.conftest import TALTAL, Empresa
from tests.proyectos.test_geo import shapefile_zip


def navegador(usuario: object) -> Client:
    cliente = Client()
    cliente.force_login(usuario)  # type: ignore[arg-type]
    return cliente


def test_la_lista_muestra_solo_los_proyectos_del_usuario_y_los_filtra(
    empresa_a: Empresa, empresa_b: Empresa
) -> None:
    web = navegador(empresa_a.lectora)

    pagina = web.get("/proyectos/").content.decode()
    filtrada = web.get("/proyectos/?estado=analizado").content.decode()

    assert "Mina Minera Atacama" in pagina and "Áridos del Sur" not in pagina
    assert "Mina Minera Atacama" not in filtrada


@pytest.mark.parametrize("ruta", ["/proyectos/{pk}/", "/proyectos/{pk}/mapa/", "/proyectos/{pk}/editar/"])
def test_las_paginas_del_proyecto_de_otro_cliente_no_existen(
    empresa_a: Empresa, empresa_b: Empresa, ruta: str
) -> None:
    respuesta = navegador(empresa_a.escritora).get(ruta.format(pk=empresa_b.proyecto.pk))

    assert respuesta.status_code == 404


def test_las_paginas_piden_iniciar_sesion_a_los_anonimos(empresa_a: Empresa) -> None:
    respuesta = Client().get(f"/proyectos/{empresa_a.proyecto.pk}/")

    assert respuesta.status_code == 302 and "/ingresar/" in respuesta["Location"]


def test_el_formulario_muestra_cada_problema_en_castellano_y_no_guarda_nada(empresa_a: Empresa) -> None:
    datos = {
        "nombre": "Pozo Nuevo",
        "cliente": empresa_a.cliente.pk,
        "region": "06",
        "comuna": "Taltal",
        "tipo": "aridos_pozo",
    }

    respuesta = navegador(empresa_a.escritora).post("/proyectos/nuevo/", datos)

    texto = respuesta.content.decode()
    assert respuesta.status_code == 200
    assert "La comuna Taltal pertenece a la Región de Antofagasta" in texto
    assert not Proyecto.objects.filter(nombre="Pozo Nuevo").exists()


def test_un_lector_no_puede_abrir_el_formulario(empresa_a: Empresa) -> None:
    assert navegador(empresa_a.lectora).get("/proyectos/nuevo/").status_code == 403


@pytest.mark.usefixtures("motor")
def test_guardar_un_poligono_en_el_mapa_sugiere_su_comuna(empresa_a: Empresa) -> None:
    web = navegador(empresa_a.escritora)

    respuesta = web.post(
        f"/proyectos/{empresa_a.proyecto.pk}/mapa/", {"geometria": json.dumps(TALTAL)}, follow=True
    )

    empresa_a.proyecto.refresh_from_db()
    assert (empresa_a.proyecto.geometria or {}).get("type") == "Polygon"
    assert "comuna de Taltal" in respuesta.content.decode()


@pytest.mark.usefixtures("motor")
def test_un_poligono_que_se_cruza_se_rechaza_en_el_mapa(empresa_a: Empresa) -> None:
    corbata = {
        "type": "Polygon",
        "coordinates": [[[-70.0, -25.3], [-69.99, -25.29], [-69.99, -25.3], [-70.0, -25.29], [-70.0, -25.3]]],
    }

    respuesta = navegador(empresa_a.escritora).post(
        f"/proyectos/{empresa_a.proyecto.pk}/mapa/", {"geometria": json.dumps(corbata)}
    )

    assert "auto-intersecta" in respuesta.content.decode()
    empresa_a.proyecto.refresh_from_db()
    assert empresa_a.proyecto.geometria is None


@pytest.mark.usefixtures("motor")
def test_el_mapa_recibe_los_elementos_sensibles_alrededor_de_una_caja(empresa_a: Empresa) -> None:
    respuesta = navegador(empresa_a.lectora).get("/proyectos/elementos/?caja=-70.7,-23.4,-70.4,-23.1")

    nombres = {f["properties"]["nombre"] for f in respuesta.json()["features"]}
    assert "Sitio prioritario Península de Mejillones" in nombres
    assert navegador(empresa_a.lectora).get("/proyectos/elementos/?caja=norte").status_code == 400


@pytest.mark.usefixtures("motor")
def test_el_informe_muestra_la_insignia_efectos_evidencia_y_articulos_enlazados(empresa_a: Empresa) -> None:
    mejillones = shapely.box(-70.555, -23.286, -70.545, -23.277)
    empresa_a.proyecto.geometria = shapely.geometry.mapping(mejillones)
    empresa_a.proyecto.save()
    web = navegador(empresa_a.escritora)

    respuesta = web.post(f"/proyectos/{empresa_a.proyecto.pk}/analizar/", {"tipo": "completo"}, follow=True)

    texto = respuesta.content.decode()
    assert 'id="clasificacion">EIA<' in texto
    assert "Península de Mejillones" in texto and "Letra d)" in texto
    assert "https://www.bcn.cl/leychile/navegar?idNorma=30667" in texto
    assert "Art. 11 letra d" in texto


@pytest.mark.usefixtures("motor")
def test_un_lector_ve_pero_no_puede_marcar_alertas_como_revisadas(empresa_a: Empresa) -> None:
    navegador(empresa_a.escritora).post(f"/proyectos/{empresa_a.proyecto.pk}/analizar/", {"tipo": "rapido"})
    analisis = Analisis.objects.get()

    assert navegador(empresa_a.lectora).get(f"/proyectos/analisis/{analisis.pk}/").status_code == 200
    assert (
        navegador(empresa_a.lectora)
        .post(f"/proyectos/analisis/{analisis.pk}/revisado/", {"revisadas": "1"})
        .status_code
        == 403
    )
    navegador(empresa_a.escritora).post(f"/proyectos/analisis/{analisis.pk}/revisado/", {"revisadas": "1"})
    analisis.refresh_from_db()
    assert analisis.alertas_revisadas


@pytest.mark.usefixtures("capas")
@pytest.mark.django_db
def test_el_personal_sube_una_capa_despues_de_ver_su_vista_previa() -> None:
    personal = get_user_model().objects.create_superuser("curadora", "c@example.cl", "clave-123!")
    web = navegador(personal)
    geojson = {
        "type": "FeatureCollection",
        "features": [
            {
                "type": "Feature",
                "properties": {"nombre": f"ADI {n}"},
                "geometry": shapely.geometry.mapping(shapely.box(-68.5 + n, -23.0, -68.4 + n, -22.9)),
            }
            for n in (0, 0.2)
        ],
    }
    campos = {
        "nombre": "Áreas de desarrollo indígena",
        "codigo": "adi",
        "categoria": CategoriaCapa.objects.get(codigo="area_desarrollo_indigena").pk,
        "letras": ["c", "d"],
        "fuente": "CONADI",
        "campo_nombre": "nombre",
    }

    vista_previa = web.post(
        "/admin/proyectos/capageografica/subir/",
        {
            **campos,
            "archivo": SimpleUploadedFile("adi.geojson", json.dumps(geojson).encode()),
            "previsualizar": "1",
        },
    )
    texto = vista_previa.content.decode()
    assert '<td id="n-elementos">2</td>' in texto and "Antofagasta" in texto
    assert not CapaGeografica.objects.filter(codigo="adi").exists()
    pendiente = vista_previa.context["formulario"].initial["pendiente"]

    confirmada = web.post(
        "/admin/proyectos/capageografica/subir/", {**campos, "pendiente": pendiente, "confirmar": "1"}
    )

    assert confirmada.status_code == 302
    capa = CapaGeografica.objects.get(codigo="adi")
    assert capa.elementos.count() == 2 and capa.letras_art11 == ["c", "d"]


@pytest.mark.usefixtures("capas")
@pytest.mark.django_db
def test_una_capa_con_un_sustituto_suelto_en_sus_propiedades_se_rechaza_en_la_vista_previa() -> None:
    personal = get_user_model().objects.create_superuser("curadora", "c@example.cl", "clave-123!")
    caja = shapely.geometry.mapping(shapely.box(-68.5, -23.0, -68.4, -22.9))
    capa = {"type": "Feature", "properties": {"nombre": "ADI \ud800"}, "geometry": caja}

    respuesta = navegador(personal).post(
        "/admin/proyectos/capageografica/subir/",
        {
            "nombre": "ADI",
            "codigo": "adi",
            "categoria": CategoriaCapa.objects.get(codigo="area_desarrollo_indigena").pk,
            "fuente": "CONADI",
            "archivo": SimpleUploadedFile("adi.geojson", json.dumps(capa).encode()),
            "previsualizar": "1",
        },
    )

    assert respuesta.status_code == 200
    assert "sustituto UTF-16 suelto" in respuesta.context["formulario"].errors["archivo"][0]
    assert "pendiente" not in respuesta.context["formulario"].initial
    assert not CapaGeografica.objects.filter(codigo="adi").exists()


@pytest.mark.usefixtures("capas")
@pytest.mark.django_db
def test_una_capa_subida_sin_prj_se_rechaza_en_el_formulario() -> None:
    personal = get_user_model().objects.create_superuser("curador", "d@example.cl", "clave-123!")

    respuesta = navegador(personal).post(
        "/admin/proyectos/capageografica/subir/",
        {
            "nombre": "X",
            "codigo": "x",
            "categoria": CapaGeografica.objects.get(codigo="snaspe").categoria_id,
            "fuente": "Y",
            "archivo": SimpleUploadedFile("x.zip", shapefile_zip(con_prj=False)),
            "previsualizar": "1",
        },
    )

    assert ".prj" in respuesta.content.decode()
    assert not CapaGeografica.objects.filter(codigo="x").exists()


@pytest.mark.usefixtures("motor")
def test_el_formulario_guarda_las_partes_con_permiso_y_el_informe_imprimible_lista_sus_pas(
    empresa_a: Empresa,
) -> None:
    web = navegador(empresa_a.escritora)
    datos = {
        "nombre": "Mina con campamento",
        "cliente": empresa_a.cliente.pk,
        "region": "02",
        "tipo": "explotacion",
        "capacidad_extraccion_t_mes": "9000",
        "bodega_residuos_peligrosos": "on",
        "construcciones_fuera_limite_urbano": "on",
    }

    web.post("/proyectos/nuevo/", datos)
    proyecto = Proyecto.objects.get(nombre="Mina con campamento")
    ficha = web.get(f"/proyectos/{proyecto.pk}/").content.decode()
    web.post(f"/proyectos/{proyecto.pk}/analizar/", {"tipo": "rapido"})
    informe = web.get(f"/proyectos/analisis/{proyecto.analisis.get().pk}/").content.decode()

    assert proyecto.componentes == {
        "bodega_residuos_peligrosos": True,
        "construcciones_fuera_limite_urbano": True,
    }
    assert "PAS del art. 142 del DS 40" in ficha
    for articulo in ("137", "142", "160"):
        assert f'data-pas="{articulo}"' in informe
    assert "Permiso para todo sitio destinado al almacenamiento de residuos peligrosos" in informe
