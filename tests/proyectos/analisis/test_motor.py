"""Motor de prefactibilidad: casos de desarrollo, capas reales, circunstancias y fundamento citado."""

import json
from pathlib import Path
from typing import Any

import pytest
import shapely
from django.core.management import call_command
from django.core.management.base import CommandError
from shapely.geometry import mapping, shape

from normativa.models import FragmentoLegal
from proyectos.analisis.entrada import CIRCUNSTANCIAS, EntradaInvalida
from proyectos.analisis.motor import evaluar
from proyectos.models import CapaGeografica, CategoriaCapa, ElementoSensible

CASOS = Path(__file__).resolve().parents[2] / "fixtures" / "analisis"
ESPERADO = json.loads((CASOS / "esperado.json").read_text(encoding="utf-8"))

pytestmark = pytest.mark.usefixtures("motor")


def analizar_por_comando(ruta: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    call_command("analizar_proyecto", "--json", str(ruta))
    resultado: dict[str, Any] = json.loads(capsys.readouterr().out)
    return resultado


def entrada(**cambios: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "nombre": "Proyecto de prueba",
        "region": "Antofagasta",
        "comuna": None,
        "tipo": "explotacion",
        "capacidad_extraccion_t_mes": 8000,
        "plataformas": None,
        "aridos_m3_mes": None,
        "aridos_m3_total": None,
        "superficie_ha": None,
        "geometria": None,
        "circunstancias": [],
    }
    return {**base, **cambios}


def cuadrado(lon: float, lat: float, lado_grados: float = 0.01) -> dict[str, Any]:
    geometria: dict[str, Any] = mapping(shapely.box(lon, lat, lon + lado_grados, lat + lado_grados))
    return geometria


def elemento(nombre_contiene: str, capa: str | None = None) -> ElementoSensible:
    elementos = ElementoSensible.objects.filter(nombre__icontains=nombre_contiene).order_by("id")
    return (elementos.filter(capa__codigo=capa) if capa else elementos).first()  # type: ignore[return-value]


@pytest.mark.parametrize("caso", sorted(ESPERADO))
def test_cada_caso_dev_da_la_clasificacion_tipologias_y_letras_esperadas(
    caso: str, capsys: pytest.CaptureFixture[str]
) -> None:
    resultado = analizar_por_comando(CASOS / f"{caso}.json", capsys)
    esperado = ESPERADO[caso]

    assert resultado["ingresa_seia"] is esperado["ingresa_seia"]
    assert resultado["clasificacion"] == esperado["clasificacion"]
    assert resultado["tipologias"] == esperado.get("tipologias", [])
    assert sorted({t["letra"] for t in resultado["triggers"]}) == esperado["letras"]


def test_el_comando_imprime_cada_problema_y_termina_con_error_ante_una_entrada_invalida(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    archivo = tmp_path / "malo.json"
    archivo.write_text(
        json.dumps(
            entrada(region="Gondor", tipo="oro", capacidad_extraccion_t_mes=-5, circunstancias=["ruido"])
        ),
        encoding="utf-8",
    )

    with pytest.raises(CommandError) as error:
        call_command("analizar_proyecto", "--json", str(archivo))

    assert error.value.returncode != 0
    cuerpo = json.loads(capsys.readouterr().out)
    assert {e["campo"] for e in cuerpo["errores"]} == {
        "region",
        "tipo",
        "capacidad_extraccion_t_mes",
        "circunstancias",
    }
    assert "Gondor" in json.dumps(cuerpo, ensure_ascii=False)


def test_el_comando_informa_un_archivo_que_no_es_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    archivo = tmp_path / "roto.json"
    archivo.write_text("{nombre: sin comillas", encoding="utf-8")

    with pytest.raises(CommandError):
        call_command("analizar_proyecto", "--json", str(archivo))

    assert "no es JSON válido" in json.loads(capsys.readouterr().out)["error"]


def test_un_proyecto_pequeno_dentro_de_un_parque_nacional_ingresa_por_la_letra_p_y_requiere_eia() -> None:
    parque = elemento("Parque Nacional Llullaillaco")
    punto = shape(parque.geometria).representative_point()

    resultado = evaluar(entrada(capacidad_extraccion_t_mes=100, geometria=cuadrado(punto.x, punto.y, 0.002)))

    assert resultado["tipologias"] == ["p"]
    assert resultado["clasificacion"] == "EIA"
    disparador = resultado["triggers"][0]
    assert disparador["letra"] == "d" and disparador["severidad"] == "critica"
    assert disparador["evidencia"]["elemento"] == "Parque Nacional Llullaillaco"
    assert disparador["evidencia"]["distancia_m"] == 0 and disparador["evidencia"]["interseccion_ha"] > 0
    assert ("Ley 19.300", "10", "p") in {
        (f["norma"], f["articulo"], f["letra"]) for f in disparador["fundamento"]
    }


def test_un_glaciar_bajo_el_poligono_informa_las_letras_b_y_d() -> None:
    glaciar = shape(elemento("Glaciar rocoso").geometria)
    punto = glaciar.representative_point()

    resultado = evaluar(entrada(geometria=cuadrado(punto.x - 0.001, punto.y - 0.001, 0.002)))

    assert resultado["clasificacion"] == "EIA"
    assert {"b", "d"} <= {t["letra"] for t in resultado["triggers"]}
    letra_b = next(t for t in resultado["triggers"] if t["letra"] == "b")
    assert ("DS 40", "6", "g.5") in {(f["norma"], f["articulo"], f["letra"]) for f in letra_b["fundamento"]}


def test_un_glaciar_cercano_es_una_alerta_con_su_distancia_no_una_causa() -> None:
    glaciar = shape(elemento("Glaciar rocoso").geometria)
    minx, miny, _, maxy = glaciar.bounds
    # Un cuadrado de ~220 m a unos 1,1 km al oeste del glaciar (sin otros glaciares en medio).
    lejos = cuadrado(minx - 0.013, (miny + maxy) / 2, 0.002)

    resultado = evaluar(entrada(geometria=lejos))

    glaciares = [a for a in resultado["alertas"] if a["evidencia"].get("categoria") == "glaciar"]
    assert glaciares, resultado["alertas"]
    assert all(0 < a["evidencia"]["distancia_m"] <= 3000 for a in glaciares)
    assert "m del proyecto" in glaciares[0]["mensaje"]
    assert not [t for t in resultado["triggers"] if t["evidencia"].get("categoria") == "glaciar"]


def test_un_humedal_del_inventario_bajo_el_poligono_es_solo_una_alerta() -> None:
    humedal = shape(elemento("Humedal", capa="humedales_antofagasta").geometria)
    punto = humedal.representative_point()

    resultado = evaluar(entrada(geometria=cuadrado(punto.x - 0.0005, punto.y - 0.0005, 0.001)))

    categorias_disparadas = {t["evidencia"].get("categoria") for t in resultado["triggers"]}
    assert "humedal_inventario" not in categorias_disparadas
    assert any(a["evidencia"].get("categoria") == "humedal_inventario" for a in resultado["alertas"])


def test_sin_geometria_se_omiten_las_revisiones_espaciales_y_el_resultado_lo_dice() -> None:
    resultado = evaluar(entrada(geometria=None))

    assert resultado["clasificacion"] == "DIA"
    assert any("Sin geometría" in a for a in resultado["advertencias"])


def test_un_proyecto_fuera_de_la_cobertura_de_una_capa_recibe_la_advertencia() -> None:
    # Copiapó (Atacama): las capas de glaciares y humedales solo cubren Antofagasta.
    resultado = evaluar(entrada(region="Atacama", geometria=cuadrado(-70.30, -27.40)))

    avisos = " ".join(resultado["advertencias"])
    assert "glaciares" in avisos.lower() and "no cubre" in avisos


@pytest.mark.parametrize("circunstancia", sorted(CIRCUNSTANCIAS))
def test_cada_circunstancia_declarada_activa_su_letra_del_articulo_11(circunstancia: str) -> None:
    resultado = evaluar(entrada(circunstancias=[circunstancia]))

    assert resultado["clasificacion"] == "EIA"
    assert [t["letra"] for t in resultado["triggers"]] == [CIRCUNSTANCIAS[circunstancia][0]]


def test_un_proyecto_que_no_ingresa_conserva_sus_efectos_como_alertas_y_sugiere_pertinencia() -> None:
    resultado = evaluar(entrada(capacidad_extraccion_t_mes=5000, circunstancias=["riesgo_salud_poblacion"]))

    assert resultado["clasificacion"] == "NO_INGRESA" and resultado["triggers"] == []
    assert "Art. 11 letra a" in resultado["alertas"][0]["mensaje"]
    assert resultado["fundamento_clasificacion"][0]["articulo"] == "26"


def test_un_umbral_no_alcanzado_dice_la_comparacion_que_lo_decide() -> None:
    # 5.000 t/mes justas no alcanzan el literal i.1: exige una extracción «superior a» esa cifra.
    resultado = evaluar(entrada(capacidad_extraccion_t_mes=5000))

    (umbral,) = [u for u in resultado["umbrales"] if u["literal"] == "i.1"]
    assert not umbral["cumple"]
    assert umbral["exige"] == ("superior a cinco mil toneladas mensuales (5.000 t/mes)",)


def test_cada_fragmento_citado_existe_y_su_cita_es_literal() -> None:
    parque = shape(elemento("Parque Nacional Llullaillaco").geometria).representative_point()
    resultado = evaluar(
        entrada(geometria=cuadrado(parque.x, parque.y, 0.002), circunstancias=list(CIRCUNSTANCIAS))
    )

    citas = [f for t in resultado["triggers"] + resultado["detalle_tipologias"] for f in t["fundamento"]]
    citas += resultado["fundamento_clasificacion"]
    assert len({t["letra"] for t in resultado["triggers"]}) == 6
    for cita in citas:
        assert cita["fragmento_id"] is not None
        fragmento = FragmentoLegal.objects.get(pk=cita["fragmento_id"])
        assert fragmento.norma.sigla == cita["norma"] and fragmento.articulo == cita["articulo"]
        assert cita["cita"].rstrip(" …") in " ".join(fragmento.texto.split())


def test_una_capa_inactiva_no_se_evalua() -> None:
    parque = shape(elemento("Parque Nacional Llullaillaco").geometria).representative_point()
    datos = entrada(geometria=cuadrado(parque.x, parque.y, 0.002))
    CapaGeografica.objects.filter(codigo="snaspe").update(activa=False)

    resultado = evaluar(datos)

    assert "p" not in resultado["tipologias"]


def test_una_faena_chica_con_un_mineroducto_ingresa_por_la_letra_j_con_su_literal_citado() -> None:
    resultado = evaluar(
        entrada(region="Atacama", capacidad_extraccion_t_mes=3000, componentes={"ducto_minero_km": 30})
    )

    assert resultado["ingresa_seia"] and resultado["tipologias"] == ["j"]
    assert resultado["clasificacion"] == "DIA"
    (letra_j,) = resultado["detalle_tipologias"]
    citas = {(f["norma"], f["articulo"], f["letra"]) for f in letra_j["fundamento"]}
    assert {("Ley 19.300", "10", "j"), ("DS 40", "3", "j")} <= citas
    assert all(f["fragmento_id"] for f in letra_j["fundamento"])
    # la extracción bajo el umbral sigue informada junto al ducto
    assert [(u["literal"], u["cumple"]) for u in resultado["umbrales"]] == [("i.1", False), ("j", True)]


def test_cada_parte_que_alcanza_su_literal_es_una_letra_de_ingreso_mas() -> None:
    resultado = evaluar(
        entrada(
            capacidad_extraccion_t_mes=8000,
            componentes={"linea_transmision_kv": 66, "generacion_mw": 2, "potencia_instalada_kva": 2000},
        )
    )

    assert resultado["tipologias"] == ["i.1", "b.1", "k.1"]
    assert "i.1, b.1, k.1" in resultado["resumen"]
    assert ("c", False) in [(u["literal"], u["cumple"]) for u in resultado["umbrales"]]


def test_una_obra_chica_sobre_un_glaciar_de_la_capa_ingresa_por_a5_y_requiere_eia() -> None:
    glaciar = shape(elemento("Glaciar rocoso").geometria)
    punto = glaciar.representative_point()

    resultado = evaluar(
        entrada(capacidad_extraccion_t_mes=3000, geometria=cuadrado(punto.x - 0.001, punto.y - 0.001, 0.002))
    )

    assert resultado["tipologias"] == ["a.5"] and resultado["clasificacion"] == "EIA"
    (a5,) = resultado["detalle_tipologias"]
    assert "glaciar" in a5["motivo"]
    assert ("DS 40", "3", "a.5") in {(f["norma"], f["articulo"], f["letra"]) for f in a5["fundamento"]}


def test_drenar_un_bofedal_en_antofagasta_ingresa_por_a21_y_en_el_sur_depende_de_la_superficie() -> None:
    norte = evaluar(entrada(capacidad_extraccion_t_mes=1000, componentes={"vegas_bofedales_ha": 2}))
    sur = evaluar(
        entrada(region="Los Lagos", capacidad_extraccion_t_mes=1000, componentes={"vegas_bofedales_ha": 2})
    )

    assert norte["tipologias"] == ["a.2.1"] and norte["clasificacion"] == "DIA"
    assert sur["tipologias"] == [] and sur["clasificacion"] == "NO_INGRESA"
    assert ("a.2.4", False) in [(u["literal"], u["cumple"]) for u in sur["umbrales"]]


def test_obras_en_un_humedal_urbano_ingresan_por_la_letra_s_citando_solo_la_ley() -> None:
    resultado = evaluar(
        entrada(capacidad_extraccion_t_mes=1000, componentes={"obras_en_humedal_urbano": True})
    )

    (letra_s,) = resultado["detalle_tipologias"]
    assert letra_s["tipologia"] == "s"
    assert [(f["norma"], f["articulo"], f["letra"]) for f in letra_s["fundamento"]] == [
        ("Ley 19.300", "10", "s")
    ]
    assert letra_s["fundamento"][0]["fragmento_id"] is not None


def test_un_poligono_sobre_un_humedal_urbano_de_las_capas_ingresa_por_la_letra_s() -> None:
    capa = CapaGeografica.objects.get(codigo="humedales_antofagasta")
    lon, lat = -68.93, -22.46  # Calama
    ElementoSensible.objects.create(
        capa=capa,
        categoria=CategoriaCapa.objects.get(codigo="humedal_urbano"),
        nombre="Humedal urbano de prueba",
        geometria=cuadrado(lon, lat, 0.004),
        min_lon=lon,
        min_lat=lat,
        max_lon=lon + 0.004,
        max_lat=lat + 0.004,
    )

    resultado = evaluar(
        entrada(capacidad_extraccion_t_mes=1000, geometria=cuadrado(lon + 0.001, lat + 0.001, 0.002))
    )

    assert "s" in resultado["tipologias"] and resultado["clasificacion"] == "EIA"
    letra_s = next(t for t in resultado["detalle_tipologias"] if t["tipologia"] == "s")
    assert "Humedal urbano de prueba" in letra_s["motivo"]


def test_un_area_protegida_dicha_sin_poligono_aplica_la_letra_p_y_la_d_y_lo_dice() -> None:
    resultado = evaluar(
        entrada(
            capacidad_extraccion_t_mes=900,
            areas_declaradas=[{"categoria": "monumento_natural", "nombre": "Monumento Natural La Portada"}],
        )
    )

    assert resultado["tipologias"] == ["p"] and resultado["clasificacion"] == "EIA"
    (detalle,) = resultado["detalle_tipologias"]
    assert "Monumento Natural La Portada (dicho en el texto, sin polígono)" in detalle["motivo"]
    (efecto,) = resultado["triggers"]
    assert efecto["letra"] == "d" and efecto["evidencia"]["origen"] == "ubicacion_declarada"
    assert ("Ley 19.300", "10", "p") in {
        (f["norma"], f["articulo"], f["letra"]) for f in efecto["fundamento"]
    }
    assert any("se tomó de lo dicho" in a for a in resultado["advertencias"])
    assert "121" in [p["articulo"] for p in resultado["permisos"]], "labores mineras dentro del área"


def test_un_sitio_prioritario_dicho_trae_la_letra_d_pero_no_la_p() -> None:
    resultado = evaluar(entrada(areas_declaradas=["sitio_prioritario"]))

    assert resultado["tipologias"] == ["i.1"] and resultado["clasificacion"] == "EIA"
    assert [t["letra"] for t in resultado["triggers"]] == ["d"]


def test_un_area_de_categoria_desconocida_se_rechaza_nombrando_las_validas() -> None:
    with pytest.raises(EntradaInvalida) as error:
        evaluar(entrada(areas_declaradas=[{"categoria": "bosque", "nombre": "x"}]))

    (problema,) = error.value.errores
    assert problema["campo"] == "areas_declaradas.0" and "reserva_nacional" in problema["mensaje"]
