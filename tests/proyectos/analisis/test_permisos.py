"""De las partes del proyecto a sus permisos ambientales sectoriales: cada regla cita las palabras de su
artículo, cada parte trae el PAS esperado por el contrato JSON del motor, el Art. 155 compara sus obras
con el umbral (bajo, justo en y sobre él), las capas traen el de labores mineras en un área protegida, y
cada permiso trae su nombre, requisito, guía y clase del catálogo leído del corpus."""

from decimal import Decimal
from typing import Any

import pytest
from shapely.geometry import shape

from config.texto import texto_comparable
from normativa.citas import textos_vigentes
from normativa.models import PermisoSectorial
from proyectos.analisis import componentes
from proyectos.analisis.motor import evaluar
from proyectos.analisis.permisos import REGLAS, permisos_de
from proyectos.analisis.resultado import ResultadoAnalisis
from tests.proyectos.analisis.test_motor import cuadrado, elemento, entrada

pytestmark = pytest.mark.usefixtures("motor")


def permisos(resultado: ResultadoAnalisis) -> list[int]:
    return [int(p["articulo"]) for p in resultado.get("permisos", [])]


def con_partes(**partes: Any) -> dict[str, Any]:
    return entrada(componentes=partes)


def test_cada_regla_cita_palabras_que_estan_en_el_texto_vigente_de_su_articulo() -> None:
    for regla in REGLAS:
        for texto in (regla.texto_del_articulo, *regla.otros_textos):
            (vigente,) = textos_vigentes([texto.referencia])
            assert vigente is not None, f"{texto.referencia} no está en el corpus"
            for cita in texto.citas:
                assert cita in texto_comparable(vigente["texto"]), f"PAS {regla.numero}: «{cita}»"


def test_cada_parte_con_permiso_tiene_su_regla_y_su_etiqueta() -> None:
    numeros = {n for pas in componentes.PAS_DE_CAMPO.values() for n in pas}

    assert numeros <= {r.numero for r in REGLAS}
    assert set(componentes.PAS_DE_CAMPO) <= set(componentes.ETIQUETAS)


@pytest.mark.parametrize(
    ("parte", "esperados"),
    [
        ("deposito_relaves", [135]),
        ("botadero_esteriles", [136]),
        ("planta_aguas_servidas", [138]),
        ("tratamiento_residuos_liquidos", [139]),
        ("sitio_residuos", [140]),
        ("relleno_sanitario", [141]),
        ("bodega_residuos_peligrosos", [142]),
        ("transporte_residuos_peligrosos", [143]),
        ("eliminacion_residuos_peligrosos", [144]),
        ("reciclaje_residuos_peligrosos", [145]),
        ("captura_fauna", [146]),
        ("excavacion_arqueologica", [132]),
        ("intervencion_monumento_historico", [131]),
        ("corta_bosque_nativo", [148]),
        ("corta_plantaciones", [149]),
        ("intervencion_flora_clasificada", [150]),
        ("corta_formaciones_xerofiticas", [151]),
        ("sifon_o_canoa", [155]),
        ("modificacion_cauce", [156]),
        ("defensa_cauce", [157]),
        ("recarga_acuiferos", [158]),
        ("construcciones_fuera_limite_urbano", [160]),
    ],
)
def test_cada_parte_declarada_trae_el_permiso_de_su_articulo(parte: str, esperados: list[int]) -> None:
    sin = evaluar(
        entrada(tipo="prospeccion", capacidad_extraccion_t_mes=None, plataformas=50), espacial=False
    )
    con = evaluar(
        {
            **entrada(tipo="prospeccion", capacidad_extraccion_t_mes=None, plataformas=50),
            "componentes": {parte: True},
        },
        espacial=False,
    )

    assert permisos(sin) == []
    assert permisos(con) == esperados
    (permiso,) = con["permisos"]
    assert permiso["partes"] == [f"{next(r.parte for r in REGLAS if r.numero == esperados[0])} (declarado)"]


@pytest.mark.parametrize(
    ("campo", "bajo", "justo", "sobre", "texto"),
    [
        ("presa_altura_m", 4.9, 5, 5.1, "muro de presa de 5,10 m > 5 m"),
        ("embalse_m3", 49999, 50000, 50001, "embalse de 50.001 m³ > 50.000 m³"),
        ("acueducto_m3_s", 1.9, 2, 2.1, "acueducto de 2,10 m³/s > 2 m³/s"),
    ],
)
def test_las_obras_del_art_294_traen_el_155_solo_si_superan_su_umbral(
    campo: str, bajo: float, justo: float, sobre: float, texto: str
) -> None:
    """«superior a» y «más de»: el límite mismo no lo alcanza."""
    resultados = {
        valor: evaluar(con_partes(**{campo: valor}), espacial=False) for valor in (bajo, justo, sobre)
    }

    assert 155 not in permisos(resultados[bajo]) and 155 not in permisos(resultados[justo])
    assert 155 in permisos(resultados[sobre])
    (comparacion,) = resultados[sobre]["umbrales_permisos"]
    assert (
        comparacion["literal"] == "PAS 155"
        and comparacion["texto"].startswith(texto)
        and comparacion["cumple"]
    )
    (bajo_umbral,) = resultados[justo]["umbrales_permisos"]
    assert not bajo_umbral["cumple"] and "≤" in bajo_umbral["texto"]
    articulos = {(f["articulo"], f["letra"]) for f in comparacion["fundamento"]}
    assert ("155", None) in articulos and ({("3", "a.1")} & articulos or {("3", "a")} & articulos)


def test_el_tipo_de_proyecto_trae_su_permiso_y_una_faena_minera_el_de_su_plan_de_cierre() -> None:
    relaves = evaluar(entrada(tipo="deposito_relaves"), espacial=False)
    aridos = evaluar(
        entrada(tipo="aridos_cauce", capacidad_extraccion_t_mes=None, aridos_m3_total=30000), espacial=False
    )
    mina = evaluar(entrada(), espacial=False)

    assert permisos(relaves) == [135, 137]
    assert permisos(aridos) == [159]
    assert permisos(mina) == [137]
    assert mina["permisos"][0]["partes"] == [
        "la faena minera, que debe tener su plan de cierre (tipo de proyecto)"
    ]


def test_un_deposito_de_relaves_declarado_en_un_proyecto_de_relaves_se_lista_una_vez() -> None:
    resultado = evaluar(
        {**entrada(tipo="deposito_relaves"), "componentes": {"deposito_relaves": True}}, espacial=False
    )

    assert permisos(resultado) == [135, 137]
    assert len(resultado["permisos"][0]["partes"]) == 1


def test_mover_material_en_un_cauce_trae_el_156_o_el_157_segun_la_obra() -> None:
    resultado = evaluar(con_partes(cauce_movido_m3=1000), espacial=False)
    por_articulo = {p["articulo"]: p for p in resultado["permisos"]}

    assert permisos(resultado) == [137, 156, 157]
    assert "regulariza o protege las riberas" in por_articulo["157"]["condicion"]
    assert "altera el trazado o la sección" in por_articulo["156"]["condicion"]
    declarado = evaluar(con_partes(cauce_movido_m3=1000, defensa_cauce=True), espacial=False)
    assert {p["articulo"]: p["condicion"] for p in declarado["permisos"]}["157"] == "", (
        "declarada, no depende"
    )


def test_cada_permiso_trae_nombre_requisito_clase_guia_y_la_cita_de_su_articulo() -> None:
    resultado = evaluar(con_partes(deposito_relaves=True, bodega_residuos_peligrosos=True), espacial=False)
    relaves, _, respel = resultado["permisos"]

    assert relaves["nombre"] == "Permiso para la construcción y operación de depósitos de relaves"
    assert relaves["tipo"] == "mixto" and relaves["guia_url"].endswith("guia_pas_135.pdf")
    assert "Sernageomin" in relaves["organo"]
    (fundamento,) = relaves["fundamento"]
    assert fundamento["articulo"] == "135" and fundamento["fragmento_id"]
    assert fundamento["cita"].startswith(
        "El requisito para su otorgamiento consiste en velar por la estabilidad"
    )
    assert respel["articulo"] == "142" and respel["guia"] == "" and respel["requisito"]


def test_labores_mineras_dentro_de_un_parque_nacional_traen_el_121_con_el_nombre_del_parque() -> None:
    parque = shape(elemento("Parque Nacional Llullaillaco").geometria).representative_point()

    resultado = evaluar(entrada(geometria=cuadrado(parque.x, parque.y, 0.002)))

    permiso = next(p for p in resultado["permisos"] if p["articulo"] == "121")
    assert "Parque Nacional Llullaillaco" in permiso["partes"][0]
    assert "labores mineras" in permiso["nombre"]


def test_un_proyecto_que_no_ingresa_lista_sus_permisos_y_advierte_que_no_se_otorgan_por_el_seia() -> None:
    resultado = evaluar(
        {**entrada(capacidad_extraccion_t_mes=1000), "componentes": {"planta_aguas_servidas": True}},
        espacial=False,
    )

    assert resultado["clasificacion"] == "NO_INGRESA" and permisos(resultado) == [137, 138]
    assert any("Art. 107" in a for a in resultado["advertencias"])


def test_un_permiso_cuyo_articulo_cambio_lo_advierte_en_el_resultado() -> None:
    PermisoSectorial.objects.filter(numero=138).update(estado="revisar")

    (permiso,) = evaluar(
        entrada(
            tipo="prospeccion",
            capacidad_extraccion_t_mes=None,
            plataformas=50,
            componentes={"planta_aguas_servidas": True},
        ),
        espacial=False,
    )["permisos"]

    assert (
        "DS 40 Art. 138" in permiso["aviso_catalogo"]
        and "verifique el requisito" in permiso["aviso_catalogo"]
    )


def test_sin_catalogo_el_permiso_se_lista_por_su_regla_y_se_advierte() -> None:
    PermisoSectorial.objects.all().delete()

    resultado = evaluar(con_partes(deposito_relaves=True), espacial=False)

    assert permisos(resultado) == [135, 137]
    assert resultado["permisos"][0]["nombre"] == "Permiso del Art. 135 del DS 40"
    assert any("cargar_corpus" in a and "135" in a for a in resultado["advertencias"])


def test_las_partes_dichas_sin_proyecto_traen_sus_permisos_con_las_citas_resueltas() -> None:
    partes = componentes.Componentes(deposito_relaves=True, embalse_m3=Decimal(40000))

    resultado = permisos_de(tipo="", componentes=partes)

    assert [p["articulo"] for p in resultado.permisos] == ["135"]
    (umbral,) = resultado.umbrales
    assert not umbral["cumple"] and umbral["fundamento"][0]["fragmento_id"]
