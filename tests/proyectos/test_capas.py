"""Capas incluidas: carga idempotente, reproyección, unidades sin duplicar y categorías del personal."""

import json

import pytest
import shapely
from shapely.geometry import shape

from proyectos.capas import capa_importar, capas_cargar
from proyectos.models import CapaGeografica, CategoriaCapa, Comuna, ElementoSensible, Region

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("capas")]


def test_cada_capa_incluida_se_carga_con_su_cobertura() -> None:
    cuentas = {c.codigo: c.elementos.count() for c in CapaGeografica.objects.all()}

    assert cuentas == {
        "snaspe": 86,
        "sitios_prioritarios": 63,
        "ramsar": 8,
        "glaciares_antofagasta": 450,
        "humedales_antofagasta": 1722,
        "observacion_astronomica": 29,
    }
    glaciares = CapaGeografica.objects.get(codigo="glaciares_antofagasta")
    assert list(glaciares.cobertura_regiones.values_list("codigo", flat=True)) == ["02"]


def test_cargar_de_nuevo_no_cambia_nada_y_conserva_los_ids() -> None:
    ids = set(ElementoSensible.objects.values_list("id", flat=True))

    resumenes = capas_cargar()

    assert not any(r.cargada for r in resumenes)
    assert set(ElementoSensible.objects.values_list("id", flat=True)) == ids


def test_el_archivo_utm_se_reproyecta_y_cada_unidad_snaspe_aparece_una_vez() -> None:
    snaspe = ElementoSensible.objects.filter(capa__codigo="snaspe")
    identificadores = list(snaspe.values_list("identificador", flat=True))

    assert len(identificadores) == len(set(identificadores))
    lauca = snaspe.get(nombre__icontains="Parque Nacional Lauca")
    centro = shape(lauca.geometria).centroid
    assert -69.6 < centro.x < -69.0 and -18.6 < centro.y < -18.0
    assert lauca.categoria.codigo == "parque_nacional"


def test_regiones_y_comunas_reciben_limites_oficiales_validos() -> None:
    assert Region.objects.filter(limite__isnull=True).count() == 0
    assert list(Comuna.objects.filter(limite__isnull=True).values_list("codigo", flat=True)) == ["12202"]
    taltal = shape(Comuna.objects.get(codigo="02104").limite)
    assert taltal.is_valid and taltal.contains(shapely.Point(-70.48, -25.40))


def test_recargar_nunca_sobrescribe_lo_que_el_personal_edito_en_una_categoria() -> None:
    CategoriaCapa.objects.filter(codigo="glaciar").update(buffer_alerta_m=9999)

    capas_cargar(forzar=True)

    assert CategoriaCapa.objects.get(codigo="glaciar").buffer_alerta_m == 9999


def test_el_personal_importa_una_capa_geojson_con_su_categoria_y_letras() -> None:
    geojson = {
        "type": "FeatureCollection",
        "features": [
            {
                "type": "Feature",
                "properties": {"nombre": "Santuario Quebrada de Prueba"},
                "geometry": shapely.geometry.mapping(shapely.box(-70.5, -23.7, -70.4, -23.6)),
            }
        ],
    }

    resumen = capa_importar(
        nombre="Santuarios",
        codigo="santuarios",
        categoria=CategoriaCapa.objects.get(codigo="santuario_naturaleza"),
        contenido=json.dumps(geojson).encode(),
        nombre_archivo="santuarios.geojson",
        fuente="MMA",
        letras=["d"],
    )

    capa = CapaGeografica.objects.get(codigo="santuarios")
    assert resumen.elementos == 1 and capa.letras_art11 == ["d"]
    assert capa.elementos.get().nombre == "Santuario Quebrada de Prueba"
    assert list(capa.cobertura_regiones.values_list("codigo", flat=True)) == ["02"]
