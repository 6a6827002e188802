"""Las cantidades de un proyecto descrito en palabras, llevadas a las unidades del motor."""

import pytest

from asistente.motores.descripcion import cantidades_dichas, cantidades_no_leidas, componentes_dichos
from config.texto import sin_tildes


def _leer(texto: str) -> tuple[dict[str, float], list[str]]:
    dichas = cantidades_dichas(" ".join(sin_tildes(texto).split()))
    return dichas.valores, dichas.supuestos


def test_lo_que_aportan_varias_faenas_a_una_planta_se_suma_y_se_dice_la_cuenta() -> None:
    valores, supuestos = _leer("la planta recibe de dos minas: una de 1.800 t/mes y la otra de 3.700 t/mes")

    assert valores["capacidad_extraccion_t_mes"] == pytest.approx(5500)
    assert supuestos == ["1.800 + 3.700 = 5.500 t/mes (sumé lo que aporta cada una; si no es así, indíquelo)"]


def test_un_cambio_de_capacidad_se_compara_con_la_que_tendra() -> None:
    valores, supuestos = _leer("la faena subirá de 2.000 a 5.200 toneladas al mes")

    assert valores["capacidad_extraccion_t_mes"] == pytest.approx(5200)
    assert supuestos == ["de 2.000 a 5.200 t/mes: comparé la capacidad que tendrá con el cambio"]


def test_dos_cantidades_sin_varias_fuentes_no_se_suman() -> None:
    valores, _ = _leer("una mina de 3.000 t/mes cuya planta procesará 3.000 t/mes")

    assert valores["capacidad_extraccion_t_mes"] == pytest.approx(3000)


@pytest.mark.parametrize(
    ("texto", "campo", "valor"),
    [
        ("una faena de 48.000 toneladas al año", "capacidad_extraccion_t_mes", 4000),
        ("extraemos 2,4 millones de toneladas anuales", "capacidad_extraccion_t_mes", 200_000),
        ("la mina saca 7 mil t/mes", "capacidad_extraccion_t_mes", 7000),
        ("el pozo da 4.500 metros cúbicos mensuales", "aridos_m3_mes", 4500),
        ("un cerro de 80 mil m3 de grava", "aridos_m3_total", 80_000),
        ("30 plataformas de sondaje", "plataformas", 30),
    ],
)
def test_las_cantidades_se_leen_en_las_unidades_del_motor(texto: str, campo: str, valor: float) -> None:
    valores, _ = _leer(texto)

    assert valores[campo] == pytest.approx(valor)


def test_las_toneladas_diarias_se_multiplican_por_los_dias_trabajados_que_dice_el_mensaje() -> None:
    valores, supuestos = _leer("Rajo de 180 toneladas por día, con 22 días de trabajo al mes.")

    assert valores["capacidad_extraccion_t_mes"] == 180 * 22
    assert supuestos == ["180 t/día × 22 días = 3.960 t/mes"]


def test_sin_dias_trabajados_se_suponen_treinta_y_se_dice() -> None:
    valores, supuestos = _leer("Mina de 120 t/día en Atacama")

    assert valores["capacidad_extraccion_t_mes"] == 3600
    assert "supuse 30 días al mes" in supuestos[0]


def test_las_toneladas_por_hora_se_multiplican_por_las_horas_y_los_dias_de_operacion() -> None:
    valores, supuestos = _leer("el chancador primario procesa 95 t/h, 16 horas al día y 25 días al mes")

    assert valores["capacidad_extraccion_t_mes"] == 95 * 16 * 25
    assert supuestos == ["95 t/h × 16 h/día × 25 días = 38.000 t/mes"]


@pytest.mark.parametrize(
    ("regimen", "horas"),
    [
        ("con dos turnos de 8 horas y 25 días de operación al mes", 16),
        ("en 3 turnos de 8 h, 25 días al mes", 24),
        ("operando 20 horas diarias y 25 días al mes", 20),
    ],
)
def test_las_horas_de_operacion_se_leen_de_los_turnos_o_de_las_horas_diarias(
    regimen: str, horas: int
) -> None:
    valores, supuestos = _leer(f"la mina extrae 100 toneladas por hora, {regimen}")

    assert valores["capacidad_extraccion_t_mes"] == 100 * horas * 25
    assert "supuse" not in supuestos[0]


@pytest.mark.parametrize(
    "dias",
    [
        "26 jornadas de operación al mes",
        "26 días hábiles de trabajo por mes",
        "26 jornadas efectivas cada mes",
        "26 días mensuales",
        "26 jornadas mensuales",
    ],
)
def test_los_dias_de_operacion_al_mes_se_leen_tambien_como_jornadas_o_mensuales(dias: str) -> None:
    valores, supuestos = _leer(f"la mina extrae 20 toneladas por hora, 10 horas diarias y {dias}")

    assert valores["capacidad_extraccion_t_mes"] == 20 * 10 * 26
    assert "supuse" not in supuestos[0]


def test_la_capacidad_a_la_que_se_quiere_subir_es_la_que_se_compara() -> None:
    valores, supuestos = _leer(
        "Hoy operamos con 4.200 t/mes y vamos a aumentar la producción hasta 6.100 t/mes"
    )

    assert valores["capacidad_extraccion_t_mes"] == 6100
    assert supuestos == ["6.100 t/mes: comparé la capacidad que tendrá con el cambio"]


def test_duplicar_la_produccion_compara_el_doble_y_lo_dice() -> None:
    valores, supuestos = _leer("producimos 2.800 t/mes y el plan es duplicar la producción")

    assert valores["capacidad_extraccion_t_mes"] == 5600
    assert supuestos == ["2.800 t/mes × 2 = 5.600 t/mes: comparé la capacidad que tendrá con el cambio"]


def test_lo_que_una_planta_recibe_ademas_se_suma_a_lo_propio() -> None:
    valores, _ = _leer("la planta trata 3.500 t/mes propias y recibe además 1.700 t/mes de terceros")

    assert valores["capacidad_extraccion_t_mes"] == 5200


def test_sin_horas_de_operacion_se_suponen_veinticuatro_y_se_dice() -> None:
    valores, supuestos = _leer("Planta concentradora de 12 toneladas por hora en Atacama")

    assert valores["capacidad_extraccion_t_mes"] == 12 * 24 * 30
    assert "supuse 24 horas al día y 30 días al mes" in supuestos[0]


def test_metros_cubicos_al_mes_por_la_duracion_dan_el_total() -> None:
    valores, supuestos = _leer("Sacaremos 3.000 m³ al mes durante 2 años.")

    assert valores == {"aridos_m3_mes": 3000, "aridos_m3_total": 72_000}
    assert supuestos == ["3.000 m³/mes × 24 meses = 72.000 m³ en total"]


def test_el_volumen_total_dicho_ademas_del_mensual_se_compara_con_el_umbral_total() -> None:
    valores, _ = _leer("Sacaremos 1.000 m³ al mes; en toda la explotación serán unos 130.000 m³.")

    assert valores == {"aridos_m3_mes": 1000, "aridos_m3_total": 130_000}


def test_el_total_de_otra_unidad_no_vuelve_total_al_volumen_mensual() -> None:
    valores, _ = _leer("Una cantera de 4.000 m³ al mes y 2 ha en total.")

    assert valores == {"aridos_m3_mes": 4000, "superficie_ha": 2}


def test_lo_que_se_agrega_a_la_capacidad_de_hoy_se_suma_y_se_dice() -> None:
    valores, supuestos = _leer("Hoy sacamos 3.200 t/mes y queremos ampliar en 2.000 t/mes más.")

    assert valores["capacidad_extraccion_t_mes"] == 5200
    assert supuestos == ["3.200 + 2.000 = 5.200 t/mes: comparé la capacidad que tendrá con el cambio"]


@pytest.mark.parametrize(
    ("texto", "t_mes"),
    [
        ("una planta de 120 ktpd", 120_000 * 30),
        ("una mina de 0,3 Mtpa", 300_000 / 12),
        ("procesamos 25 kt al mes", 25_000),
        ("unas 2 Mt al año de mineral", 2_000_000 / 12),
    ],
)
def test_las_toneladas_en_miles_o_millones_de_la_industria_se_leen_en_toneladas(
    texto: str, t_mes: float
) -> None:
    valores, _ = _leer(texto)

    assert valores["capacidad_extraccion_t_mes"] == pytest.approx(t_mes)


def test_varias_minas_de_la_misma_capacidad_cada_una_se_suman_y_se_dice() -> None:
    valores, supuestos = _leer("Tres faenas de 1.800 t/mes cada una alimentan la planta.")

    assert valores["capacidad_extraccion_t_mes"] == 5400
    assert supuestos[0].startswith("3 × 1.800 t/mes = 5.400 t/mes")


def test_dos_campanas_de_plataformas_del_mismo_prospecto_se_suman_y_se_dice_por_que() -> None:
    valores, supuestos = _leer("Una campaña de 12 plataformas este año y otra de 10 plataformas el próximo.")

    assert valores["plataformas"] == 22 and "Art. 11 bis" in supuestos[0]


def test_los_metros_cubicos_diarios_se_multiplican_por_los_dias_trabajados() -> None:
    valores, supuestos = _leer("sacaremos 300 m³ diarios del pozo, 22 días al mes")

    assert valores == {"aridos_m3_mes": 6600}
    assert supuestos == ["300 m³/día × 22 días = 6.600 m³/mes"]


@pytest.mark.parametrize(
    ("texto", "t_mes"),
    [
        ("la planta trata 50 t por hora, 18 hrs al día y 30 días al mes", 50 * 18 * 30),
        ("una mina de 6.200 toneladas métricas secas al mes", 6200),
        ("la planta recibe 150 TMS/día, 30 días al mes", 4500),
        ("un rajo de 7.300 tpm", 7300),
        ("la planta trata 210 t/d, con 24 días hábiles al mes", 210 * 24),
    ],
)
def test_las_abreviaturas_de_terreno_se_leen(texto: str, t_mes: float) -> None:
    valores, _ = _leer(texto)

    assert valores["capacidad_extraccion_t_mes"] == t_mes


def test_lo_que_produce_una_planta_de_una_sustancia_peligrosa_no_es_la_capacidad_de_una_faena() -> None:
    normal = " ".join(sin_tildes("una planta de soda cáustica que producirá 150 t/día").split())

    assert cantidades_dichas(normal).valores == {}


def test_lo_que_se_produce_de_una_sustancia_peligrosa_no_es_la_capacidad_de_la_faena() -> None:
    texto = (
        "fabricaremos 12 t/día de emulsión para las tronaduras; la mina saca 300 t/día de mineral y usa ácido"
    )
    normal = " ".join(sin_tildes(texto).split())

    assert cantidades_dichas(normal).valores["capacidad_extraccion_t_mes"] == 300 * 30
    assert componentes_dichos(normal)["explosivos_kg_dia"] == 12_000


def test_un_volumen_al_mes_no_se_toma_tambien_como_total() -> None:
    valores, _ = _leer("vamos a sacar 9.000 m3 por mes")

    assert valores == {"aridos_m3_mes": 9000}


def test_los_sondajes_sin_plataformas_dichas_cuentan_una_plataforma_cada_uno_y_se_dice() -> None:
    valores, supuestos = _leer("una campaña de 25 sondajes")

    assert valores["plataformas"] == 25 and "una plataforma por sondaje" in supuestos[0]


@pytest.mark.parametrize(
    ("texto", "dichos"),
    [
        ("sacamos el concentrado por un mineroducto de 30 km", {"ducto_minero_km": 30}),
        ("un relaveducto de 12,5 kilómetros hasta el tranque", {"ducto_minero_km": 12.5}),
        ("una línea de transmisión de 66 kV y una subestación", {"linea_transmision_kv": 66}),
        ("una planta solar de 9 MW para la faena", {"generacion_mw": 9}),
        ("una fundición con 2.500 kVA instalados", {"potencia_instalada_kva": 2500}),
        ("el camino pasa por encima de un glaciar rocoso", {"obras_en_glaciar": True}),
        ("vamos a extraer turba de la vega", {"extraccion_turba": True}),
        ("hay que drenar un bofedal de 3 ha para el camino", {"vegas_bofedales_ha": 3}),
        ("vamos a rellenar 12 hectáreas de vegas para el camino", {"vegas_bofedales_ha": 12}),
        ("guardaremos 40 toneladas de ANFO para las tronaduras", {"explosivos_almacenamiento_kg": 40_000}),
        ("vamos a dragar 25.000 m3 de la laguna", {"dragado_m3": 25_000}),
        ("un tranque de agua con un muro de 8 metros", {"presa_altura_m": 8}),
        (
            "un tranque de agua con un muro de 4 metros que embalsará 80.000 m³",
            {"presa_altura_m": 4, "embalse_m3": 80_000},
        ),
        ("quedarán 60.000 m3 de agua embalsados tras el muro", {"embalse_m3": 60_000}),
        ("un terreno que incluye parte de un humedal urbano", {"obras_en_humedal_urbano": True}),
        ("la planta está en las cercanías de un humedal urbano", {}),
        (
            "un campamento para 300 trabajadores con su planta de aguas servidas",
            {"planta_aguas_servidas": True, "aguas_servidas_habitantes": 300},
        ),
        ("un campamento para 300 trabajadores", {}),
        ("un tranque de relaves cuyo muro tendrá 30 m de alto", {"deposito_relaves": True}),
        ("una fundición de 12 MVA", {"potencia_instalada_kva": 12_000}),
        ("con el bombeo, las vegas del salar se van a secar", {"desecacion_vegas_bofedales": True}),
        ("el bofedal queda lejos y no se va a secar", {}),
        ("una tubería de 9 km que llevará la pulpa hasta el puerto", {"ducto_minero_km": 9}),
        ("una planta de soda cáustica que producirá 150 t/día", {"corrosivas_kg_dia": 150_000}),
        (
            "los riles tratados se usarán para humectar caminos",
            {"tratamiento_residuos_liquidos": True, "riles_riego_o_infiltracion": True},
        ),
        (
            "el tratamiento de riles tendrá lagunas de estabilización",
            {"tratamiento_residuos_liquidos": True, "riles_lagunas_estabilizacion": True},
        ),
        (
            "llevaremos en camiones 500 t/día de ácido sulfúrico a la planta",
            {"transporte_sustancias_t_dia": 500},
        ),
        ("el tren trae 600 toneladas diarias de concentrado", {}),
        ("el acopio va a rellenar parte de un humedal urbano", {"obras_en_humedal_urbano": True}),
        ("la planta queda junto a un humedal urbano", {}),
        ("el botadero queda lejos del glaciar", {"botadero_esteriles": True}),
        ("no vamos a tocar ningún glaciar", {}),
        ("un polvorín de 20 toneladas de explosivos", {"explosivos_almacenamiento_kg": 20_000}),
        ("almacenamos explosivos en un polvorín de 1.800 kg", {"explosivos_almacenamiento_kg": 1800}),
        ("una faena de 3.000 t/mes", {}),
    ],
)
def test_las_otras_partes_de_la_faena_se_leen_en_los_campos_del_motor(
    texto: str, dichos: dict[str, object]
) -> None:
    assert componentes_dichos(" ".join(sin_tildes(texto).split())) == dichos


def test_dos_sustancias_guardadas_en_una_frase_llevan_cada_una_su_cantidad() -> None:
    supuestos: list[str] = []
    normal = " ".join(
        sin_tildes(
            "la bodega guardará 30 toneladas de ácido sulfúrico y 120.000 litros de petróleo diésel"
        ).split()
    )

    dichos = componentes_dichos(normal, supuestos)

    assert dichos["corrosivas_almacenamiento_kg"] == pytest.approx(30_000)
    assert dichos["inflamables_almacenamiento_kg"] == pytest.approx(102_000)
    assert supuestos == ["120.000 litros × 850 kg/m³ (densidad supuesta) = 102.000 kg"]


def test_el_largo_de_una_linea_o_un_camino_no_es_una_cantidad_sin_leer() -> None:
    normal = "una linea de 66 kv de 12 km, 8 km de camino de acceso y un estanque de 9 km raro"

    assert cantidades_no_leidas(normal, leidas=[66]) == ["9 km"]


def test_la_magnitud_de_un_efecto_dicho_no_es_una_cantidad_sin_leer() -> None:
    normal = "el bombeo daria un descenso de 3 m del nivel freatico y guardamos 35 toneladas de algo raro"

    assert cantidades_no_leidas(normal, leidas=[]) == ["35 toneladas"]


@pytest.mark.parametrize(
    "texto",
    [
        "un galpón donde juntaremos los aceites lubricantes usados de la flota",
        "una bodega para baterías en desuso y tubos fluorescentes",
        "un sitio de acopio de trapos contaminados con hidrocarburos",
    ],
)
def test_los_residuos_peligrosos_nombrados_por_lo_que_son_traen_su_bodega(texto: str) -> None:
    assert (
        componentes_dichos(" ".join(sin_tildes(texto).lower().split()))["bodega_residuos_peligrosos"] is True
    )
