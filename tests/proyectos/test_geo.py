"""Lectura de capas: GeoJSON en cualquier CRS y shapefile comprimido con su .prj, a WGS84."""

import gzip
import io
import json
import re
import zipfile

import pytest
import shapefile
from pyproj import CRS

from proyectos.geo import ErrorDeCapa, leer_capa

# Cerro Paranal aprox. (-70.404, -24.627) en UTM 19S.
UTM_X, UTM_Y = 356_700.0, 7_275_500.0


def shapefile_zip(*, con_prj: bool = True, crs: int = 32719, nombre: str = "Santuario de prueba") -> bytes:
    shp, shx, dbf = io.BytesIO(), io.BytesIO(), io.BytesIO()
    with shapefile.Writer(shp=shp, shx=shx, dbf=dbf, shapeType=shapefile.POLYGON) as escritor:
        escritor.field("nombre", "C")
        escritor.poly([[(UTM_X, UTM_Y), (UTM_X + 1000, UTM_Y), (UTM_X + 1000, UTM_Y + 1000), (UTM_X, UTM_Y)]])
        escritor.record(nombre)
    salida = io.BytesIO()
    with zipfile.ZipFile(salida, "w") as archivo:
        archivo.writestr("capa.shp", shp.getvalue())
        archivo.writestr("capa.shx", shx.getvalue())
        archivo.writestr("capa.dbf", dbf.getvalue())
        if con_prj:
            archivo.writestr("capa.prj", CRS.from_epsg(crs).to_wkt("WKT1_ESRI"))
    return salida.getvalue()


def test_un_shapefile_comprimido_en_utm_se_reproyecta_a_longitud_latitud() -> None:
    capa = leer_capa(contenido=shapefile_zip(), nombre_archivo="santuarios.zip")

    (elemento,) = capa.elementos
    assert elemento.atributos["nombre"] == "Santuario de prueba"
    lon, lat = elemento.geometria.centroid.coords[0]
    assert -70.42 < lon < -70.38 and -24.64 < lat < -24.61


def test_una_propiedad_con_un_sustituto_suelto_rechaza_la_capa_nombrando_el_campo() -> None:
    caja = {"type": "Polygon", "coordinates": [[[-70, -23], [-69, -23], [-69, -22], [-70, -23]]]}
    capa = {"type": "Feature", "properties": {"nombre": "Santuario \ud800"}, "geometry": caja}

    with pytest.raises(ErrorDeCapa, match=r"«properties\.nombre».*sustituto UTF-16 suelto") as error:
        leer_capa(contenido=json.dumps(capa).encode(), nombre_archivo="capa.geojson")

    assert "\ud800" not in str(error.value)


def test_un_registro_de_shapefile_con_un_caracter_de_control_rechaza_la_capa_nombrando_el_registro() -> None:
    contenido = shapefile_zip(nombre="Santuario\x01de prueba")

    with pytest.raises(ErrorDeCapa, match=r"registro 1 .*carácter de control \(U\+0001\)"):
        leer_capa(contenido=contenido, nombre_archivo="capa.zip")


def test_un_shapefile_sin_prj_se_rechaza_diciendo_por_que() -> None:
    with pytest.raises(ErrorDeCapa, match=r"\.prj"):
        leer_capa(contenido=shapefile_zip(con_prj=False), nombre_archivo="capa.zip")


def test_un_geojson_con_un_crs_proyectado_se_reproyecta() -> None:
    geojson = {
        "type": "FeatureCollection",
        "crs": {"type": "name", "properties": {"name": "urn:ogc:def:crs:EPSG::32719"}},
        "features": [
            {
                "type": "Feature",
                "properties": {"nombre": "A"},
                "geometry": {"type": "Point", "coordinates": [UTM_X, UTM_Y]},
            },
            {"type": "Feature", "properties": {}, "geometry": None},
        ],
    }

    capa = leer_capa(contenido=json.dumps(geojson).encode(), nombre_archivo="capa.geojson")

    assert len(capa.elementos) == 1 and capa.descartados == ["elemento 2: sin geometría"]
    assert round(capa.elementos[0].geometria.x, 1) == -70.4


@pytest.mark.parametrize(
    ("contenido", "nombre", "mensaje"),
    [
        (b"no json", "capa.geojson", "JSON"),
        (b"PK-no-zip", "capa.zip", "zip"),
        (b"{}", "capa.gpx", "Formato no soportado"),
    ],
)
def test_un_archivo_ilegible_da_un_error_claro(contenido: bytes, nombre: str, mensaje: str) -> None:
    with pytest.raises(ErrorDeCapa, match=mensaje):
        leer_capa(contenido=contenido, nombre_archivo=nombre)


def test_un_geojson_en_grados_declarado_como_utm_se_detecta() -> None:
    geojson = {
        "type": "FeatureCollection",
        "crs": {"type": "name", "properties": {"name": "EPSG:4326"}},
        "features": [
            {
                "type": "Feature",
                "properties": {},
                "geometry": {"type": "Point", "coordinates": [-70.4, -24.6]},
            }
        ],
    }
    assert leer_capa(contenido=json.dumps(geojson).encode(), nombre_archivo="ok.json").elementos


def _con_miembros(**reemplazos: bytes) -> bytes:
    """El shapefile de prueba con miembros reemplazados o agregados («cpg», «shp», «dbf»…)."""
    original = zipfile.ZipFile(io.BytesIO(shapefile_zip()))
    salida = io.BytesIO()
    with zipfile.ZipFile(salida, "w") as archivo:
        for nombre in original.namelist():
            extension = nombre.rsplit(".", 1)[1]
            archivo.writestr(nombre, reemplazos.pop(extension, original.read(nombre)))
        for extension, contenido in reemplazos.items():
            archivo.writestr(f"capa.{extension}", contenido)
    return salida.getvalue()


CAPAS_MAL_FORMADAS = {
    "tipo_desconocido": (json.dumps({"type": "Foo", "coordinates": []}).encode(), "capa.geojson"),
    "features_no_lista": (json.dumps({"type": "FeatureCollection", "features": 5}).encode(), "capa.geojson"),
    "crs_raro": (
        json.dumps({"type": "FeatureCollection", "crs": "EPSG:4326", "features": []}).encode(),
        "capa.geojson",
    ),
    "crs_con_nombre_no_texto": (
        json.dumps(
            {"type": "FeatureCollection", "crs": {"properties": {"name": 5}}, "features": []}
        ).encode(),
        "capa.geojson",
    ),
    "gz_que_no_es_gzip": (b"esto no es gzip", "capa.geojson.gz"),
    "cpg_no_ascii": (_con_miembros(cpg="codificación".encode("latin-1")), "capa.zip"),
    "cpg_desconocido": (_con_miembros(cpg=b"klingon-8"), "capa.zip"),
    "shapefile_roto": (_con_miembros(shp=b"\x00\x00\x27\x0a" + b"\xff" * 200), "capa.zip"),
    "dbf_roto": (_con_miembros(dbf=b"\x03basura"), "capa.zip"),
    "json_anidado_sin_fin": (b"[" * 100_000 + b"]" * 100_000, "capa.geojson"),
}


@pytest.mark.parametrize(("contenido", "nombre"), CAPAS_MAL_FORMADAS.values(), ids=CAPAS_MAL_FORMADAS.keys())
def test_una_capa_mal_formada_da_un_error_de_capa_en_castellano_y_no_otra_excepcion(
    contenido: bytes, nombre: str
) -> None:
    with pytest.raises(ErrorDeCapa) as error:
        leer_capa(contenido=contenido, nombre_archivo=nombre)

    mensaje = str(error.value)
    assert mensaje and not INTERIORES_DE_PYTHON.search(mensaje), mensaje


# Lo que decían las excepciones de Python, pyshp o shapely cuando el mensaje las repetía.
INTERIORES_DE_PYTHON = re.compile(
    r"recursion|unpack|buffer|requires|expect|invalid|codec|decode|error|exception|\bat least\b", re.I
)


def test_un_gz_que_se_infla_mas_alla_del_maximo_se_rechaza_sin_descomprimirlo_entero(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from proyectos import geo

    monkeypatch.setattr(geo, "TAMANO_MAXIMO_DESCOMPRIMIDO", 1024 * 1024)
    bomba = gzip.compress(b" " * (5 * 1024 * 1024))  # 5 KB que se inflan a 5 MB

    with pytest.raises(ErrorDeCapa, match="supera 1 MB"):
        leer_capa(contenido=bomba, nombre_archivo="capa.geojson.gz")


def test_un_elemento_con_coordenadas_nan_se_descarta_diciendolo() -> None:
    coleccion = {
        "type": "FeatureCollection",
        "features": [
            {"type": "Feature", "properties": {}, "geometry": {"type": "Point", "coordinates": [1e999, 1]}},
            {
                "type": "Feature",
                "properties": {},
                "geometry": {"type": "Point", "coordinates": [-70.4, -24.6]},
            },
        ],
    }

    capa = leer_capa(contenido=json.dumps(coleccion).encode(), nombre_archivo="capa.geojson")

    assert capa.descartados and "no son números" in capa.descartados[0]


KML = """<?xml version="1.0" encoding="UTF-8"?>
<kml xmlns="http://www.opengis.net/kml/2.2"><Document><Folder>
  <Placemark><name>Rajo Norte</name>
    <ExtendedData><Data name="faena"><value>Norte</value></Data></ExtendedData>
    <Polygon><outerBoundaryIs><LinearRing><coordinates>
      -70.40,-24.60,0 -70.38,-24.60,0 -70.38,-24.62,0 -70.40,-24.62,0 -70.40,-24.60,0
    </coordinates></LinearRing></outerBoundaryIs>
    <innerBoundaryIs><LinearRing><coordinates>
      -70.395,-24.605 -70.385,-24.605 -70.385,-24.615 -70.395,-24.605
    </coordinates></LinearRing></innerBoundaryIs></Polygon></Placemark>
  <Placemark><name>Campamento</name><MultiGeometry>
    <Point><coordinates>-70.30,-24.50,0</coordinates></Point>
    <Polygon><outerBoundaryIs><LinearRing><coordinates>
      -70.31,-24.51 -70.29,-24.51 -70.29,-24.49 -70.31,-24.51
    </coordinates></LinearRing></outerBoundaryIs></Polygon>
  </MultiGeometry></Placemark>
  <Placemark><name>Sin geometría</name></Placemark>
</Folder></Document></kml>"""


def test_un_kml_se_lee_con_sus_poligonos_agujeros_multigeometrias_y_nombres() -> None:
    capa = leer_capa(contenido=KML.encode(), nombre_archivo="Faena.KML")

    assert [e.atributos["name"] for e in capa.elementos] == ["Rajo Norte", "Campamento"]
    rajo = capa.elementos[0]
    assert rajo.atributos["faena"] == "Norte" and len(rajo.geometria.interiors) == 1
    assert capa.crs_origen == "EPSG:4326" and capa.descartados == ["elemento 3: sin geometría"]


@pytest.mark.parametrize(
    ("contenido", "mensaje"),
    [
        (b'<?xml version="1.0"?><!DOCTYPE kml [<!ENTITY a "aaaa">]><kml>&a;</kml>', "entidades o un DTD"),
        (b"<kml><Placemark>", r"no es XML válido \(línea 1\)"),
        (b"<gpx></gpx>", "no es un KML"),
    ],
    ids=["entidades", "xml_roto", "otro_xml"],
)
def test_un_kml_peligroso_o_roto_se_rechaza_diciendo_por_que(contenido: bytes, mensaje: str) -> None:
    with pytest.raises(ErrorDeCapa, match=mensaje):
        leer_capa(contenido=contenido, nombre_archivo="capa.kml")
