"""Redacción sin modelo: la primera fuente responde y nombra la institución que su artículo regula."""

from asistente.motores.redaccion import redactar
from asistente.registro import Fuente


def fuente(extracto: str, epigrafe: str = "") -> Fuente:
    datos: Fuente = {
        "fragmento_id": 1,
        "norma": "DS 40",
        "articulo": "26",
        "letra": "",
        "cita": "DS 40, Art. 26",
        "url": "https://www.bcn.cl/leychile/navegar?idNorma=1053563",
        "extracto": extracto,
        "advertencia": "",
    }
    if epigrafe:
        datos["epigrafe"] = epigrafe
    return datos


def test_la_primera_oracion_nombra_el_epigrafe_del_articulo():
    texto = redactar(
        [
            fuente(
                "Los proponentes podrán dirigirse al Director Regional", "Consulta de pertinencia de ingreso"
            )
        ]
    )

    assert texto.startswith(
        "Según el DS 40, Art. 26 (Consulta de pertinencia de ingreso): «Los proponentes podrán dirigirse"
    )
    assert texto.endswith("[1]")


def test_el_epigrafe_no_se_repite_si_la_oracion_ya_lo_dice():
    texto = redactar(
        [
            fuente(
                "Artículo 26.- Consulta de pertinencia de ingreso. Los proponentes…",
                "Consulta de pertinencia de ingreso",
            )
        ]
    )

    assert texto.count("Consulta de pertinencia de ingreso") == 1


def test_sin_epigrafe_la_cita_va_sola():
    assert redactar([fuente("Los proponentes podrán dirigirse")]).startswith("Según el DS 40, Art. 26: «")
