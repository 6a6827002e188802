"""La portada responde su pregunta: evaluación rápida sin guardar, con los mismos mensajes que la API,
con el polígono en un archivo, y «Guardar como proyecto» que lo crea, lo analiza y abre su informe."""

import json

import pytest
import shapely
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from proyectos.models import Analisis, Cliente, Proyecto
from proyectos.roles import Rol
from proyectos.services import usuario_crear_o_actualizar
from tests.proyectos.conftest import Empresa
from tests.proyectos.test_views import navegador

pytestmark = pytest.mark.usefixtures("motor")

EVALUAR = "/proyectos/evaluar/"
# Explotación de 15 000 t/mes en Antofagasta, junto al sitio prioritario Península de Mejillones.
MEJILLONES = shapely.geometry.mapping(shapely.box(-70.555, -23.286, -70.545, -23.277))
MINA = {"tipo": "explotacion", "region": "02", "capacidad_extraccion_t_mes": "15000"}  # región por su código


def test_la_portada_trae_el_formulario_para_quien_ingreso_y_un_boton_de_ingreso_para_quien_no(
    empresa_a: Empresa,
) -> None:
    portada = navegador(empresa_a.lectora).get("/").content.decode()
    anonima = Client().get("/").content.decode()

    assert 'id="form-evaluacion"' in portada and f'action="{EVALUAR}"' in portada
    assert 'href="/proyectos/"' in portada, "las tarjetas llevan a sus páginas"
    assert "Ingresar para evaluar un proyecto" in anonima and 'id="form-evaluacion"' not in anonima


def test_una_mina_descrita_recibe_su_clasificacion_el_umbral_de_su_literal_y_articulos_enlazados(
    empresa_a: Empresa,
) -> None:
    respuesta = navegador(empresa_a.lectora).post(EVALUAR, MINA)

    html = respuesta.content.decode()
    r = respuesta.context["r"]
    assert (
        respuesta.status_code == 200 and r["clasificacion"] in ("DIA", "EIA") and r["tipologias"] == ["i.1"]
    )
    assert 'id="clasificacion"' in html and 'id="umbrales"' in html
    assert "Literal i.1" in html and "alcanza el umbral" in html
    assert "https://www.bcn.cl/leychile/navegar?idNorma=" in html, "los artículos citados enlazan a LeyChile"
    assert Proyecto.objects.count() == 1 and Analisis.objects.count() == 0, "nada se guarda"


def test_los_errores_son_los_mismos_que_los_de_la_api(empresa_a: Empresa) -> None:
    sin_cantidad = {"tipo": "explotacion", "region": "02"}

    pagina = navegador(empresa_a.lectora).post(EVALUAR, sin_cantidad)
    api = empresa_a.api(empresa_a.lectora).post(
        "/api/analisis/evaluar/", {"nombre": "x", "tipo": "explotacion", "region": "2"}, format="json"
    )

    mensajes_api = {e["mensaje"] for e in api.json()["errores"]}
    errores_pagina = {e for errores in pagina.context["formulario"].errors.values() for e in errores}
    assert mensajes_api and mensajes_api <= errores_pagina
    assert pagina.context["r"] is None


def test_un_poligono_en_geojson_se_evalua_con_las_capas_y_vuelve_en_el_formulario(empresa_a: Empresa) -> None:
    archivo = SimpleUploadedFile(
        "mina.geojson", json.dumps({"type": "Feature", "geometry": MEJILLONES}).encode()
    )

    respuesta = navegador(empresa_a.lectora).post(EVALUAR, {**MINA, "archivo": archivo})

    r = respuesta.context["r"]
    assert r["triggers"], "junto a un sitio prioritario hay efectos del Art. 11"
    assert any(t["evidencia"].get("origen") == "capa" for t in r["triggers"] + r["alertas"])
    assert json.loads(respuesta.context["geometria_json"])["type"] == "Polygon"


def test_un_archivo_sin_poligono_se_explica_en_su_campo(empresa_a: Empresa) -> None:
    punto = SimpleUploadedFile(
        "punto.geojson", json.dumps({"type": "Point", "coordinates": [-70, -23]}).encode()
    )

    respuesta = navegador(empresa_a.lectora).post(EVALUAR, {**MINA, "archivo": punto})

    assert respuesta.context["formulario"].errors["archivo"] == [
        "El archivo no trae un polígono: dibuje el área del proyecto o suba otro archivo."
    ]


def test_un_kml_subido_sin_javascript_se_lee_y_se_evalua_con_su_poligono(empresa_a: Empresa) -> None:
    anillo = " ".join(f"{x},{y},0" for x, y in MEJILLONES["coordinates"][0])
    kml = (
        '<kml xmlns="http://www.opengis.net/kml/2.2"><Placemark><name>Faena</name><Polygon><outerBoundaryIs>'
        f"<LinearRing><coordinates>{anillo}</coordinates></LinearRing></outerBoundaryIs></Polygon></Placemark></kml>"
    )
    archivo = SimpleUploadedFile(
        "faena.kml", kml.encode(), content_type="application/vnd.google-earth.kml+xml"
    )

    respuesta = navegador(empresa_a.lectora).post(EVALUAR, {**MINA, "archivo": archivo})

    assert respuesta.status_code == 200 and not respuesta.context["formulario"].errors
    assert "Península de Mejillones" in respuesta.content.decode()


# Un sustituto UTF-16 suelto escrito como escape JSON: el texto es JSON válido, pero lo que trae no es texto.
CON_SUSTITUTO = '{"type": "\\ud800", "coordinates": []}'


@pytest.mark.parametrize("como", ["archivo", "campo"])
def test_un_geojson_con_un_sustituto_suelto_se_explica_en_castellano_sin_repetirlo_ni_dar_500(
    empresa_a: Empresa, como: str
) -> None:
    enviado = (
        {"archivo": SimpleUploadedFile("poligono.geojson", CON_SUSTITUTO.encode())}
        if como == "archivo"
        else {"geometria": CON_SUSTITUTO}
    )

    respuesta = navegador(empresa_a.lectora).post(EVALUAR, {**MINA, **enviado})

    assert respuesta.status_code == 200
    errores = " ".join(str(e) for e in respuesta.context["formulario"].errors.values())
    assert "sustituto UTF-16 suelto (U+D800)" in errores and "\ud800" not in errores
    respuesta.content.decode()  # la página se pudo codificar


def test_guardar_como_proyecto_lo_crea_con_su_poligono_lo_analiza_y_abre_el_informe(
    empresa_a: Empresa,
) -> None:
    datos = {
        **MINA,
        "geometria": json.dumps(MEJILLONES),
        "nombre": "Mina Mejillones Norte",
        "cliente": str(empresa_a.cliente.pk),
        "guardar": "1",
    }

    respuesta = navegador(empresa_a.escritora).post(EVALUAR, datos)

    proyecto = Proyecto.objects.get(nombre="Mina Mejillones Norte")
    analisis = proyecto.analisis.get()
    assert respuesta.status_code == 302 and respuesta["Location"] == f"/proyectos/analisis/{analisis.pk}/"
    assert proyecto.geometria is not None and proyecto.cliente == empresa_a.cliente
    assert analisis.resultado["tipologias"] == ["i.1"] and proyecto.estado == Proyecto.Estado.ANALIZADO


def test_guardar_sin_nombre_lo_pide_y_no_crea_nada(empresa_a: Empresa) -> None:
    datos = {**MINA, "cliente": str(empresa_a.cliente.pk), "guardar": "1"}

    respuesta = navegador(empresa_a.escritora).post(EVALUAR, datos)

    assert respuesta.context["formulario"].errors["nombre"] == ["Indique un nombre para guardar el proyecto."]
    assert Proyecto.objects.count() == 1


def test_quien_no_tiene_cliente_sabe_que_no_puede_guardar_y_quien_puede_arreglarlo(
    empresa_a: Empresa,
) -> None:
    sola = usuario_crear_o_actualizar(nombre="sin-cliente", rol=Rol.ESCRITURA, password="clave-123!").usuario

    html = navegador(sola).post(EVALUAR, MINA).content.decode()

    assert (
        "Su usuario no pertenece a ningún cliente" in html and "crear_usuario sin-cliente --cliente" in html
    )
    assert 'name="guardar"' not in html


def test_la_lectora_evalua_pero_no_ve_guardar_ni_puede_forzarlo(empresa_a: Empresa) -> None:
    web = navegador(empresa_a.lectora)

    html = web.post(EVALUAR, MINA).content.decode()
    forzado = web.post(EVALUAR, {**MINA, "nombre": "x", "cliente": str(empresa_a.cliente.pk), "guardar": "1"})

    assert "Guardar como proyecto" not in html
    assert forzado.status_code == 403 and not Cliente.objects.filter(proyectos__nombre="x").exists()


def test_sin_proyectos_la_lista_dice_que_hacer_segun_quien_mira(empresa_a: Empresa) -> None:
    Proyecto.objects.all().delete()
    sola = usuario_crear_o_actualizar(nombre="sin-cliente", rol=Rol.ESCRITURA, password="clave-123!").usuario

    escritora = navegador(empresa_a.escritora).get("/proyectos/").content.decode()
    sin_cliente = navegador(sola).get("/proyectos/").content.decode()
    filtrada = navegador(empresa_a.escritora).get("/proyectos/?estado=archivado").content.decode()

    assert 'id="sin-proyectos"' in escritora and 'href="/proyectos/nuevo/">Cree el primero' in escritora
    assert "Su usuario no pertenece a ningún cliente" in sin_cliente and "--cliente NOMBRE" in sin_cliente
    assert "No hay proyectos con esos filtros." in filtrada and ">Ver todos</a>" in filtrada


def test_un_proyecto_sin_analisis_ni_poligono_lleva_a_dibujarlo(empresa_a: Empresa) -> None:
    html = navegador(empresa_a.escritora).get(f"/proyectos/{empresa_a.proyecto.pk}/").content.decode()

    assert 'id="sin-analisis"' in html
    assert f'href="/proyectos/{empresa_a.proyecto.pk}/mapa/">Dibuje o suba su polígono' in html


def test_la_portada_lista_los_permisos_de_las_partes_marcadas_con_su_requisito_y_su_guia(
    empresa_a: Empresa,
) -> None:
    partes = {"deposito_relaves": "on", "planta_aguas_servidas": "on", "embalse_m3": "80000"}

    respuesta = navegador(empresa_a.lectora).post(EVALUAR, {**MINA, **partes})

    html = respuesta.content.decode()
    assert [p["articulo"] for p in respuesta.context["r"]["permisos"]] == ["135", "137", "138", "155"]
    assert 'id="permisos"' in html and "Permisos ambientales sectoriales (4)" in html
    assert 'data-pas="135"' in html and "Requisito para su otorgamiento" in html
    assert "velar por la estabilidad física y química del depósito" in html
    assert 'class="guia-pas" href="https://sea.gob.cl/' in html
    assert "embalse de 80.000 m³ &gt; 50.000 m³" in html, "la obra hidráulica frente al Art. 294"
    assert 'id="partes-con-permiso" open' in html, "el grupo con lo marcado queda abierto"
