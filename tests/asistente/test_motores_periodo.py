"""El periodo que un mensaje nombra en palabras, para listar o contar proyectos por fecha."""

from datetime import date

import pytest

from asistente.motores.periodo import periodo_de

HOY = date(2026, 11, 28)


@pytest.mark.parametrize(
    ("texto", "desde", "hasta"),
    [
        ("lista mis proyectos desde marzo de 2024", date(2024, 3, 1), None),
        ("proyectos creados entre 2021 y 2024", date(2021, 1, 1), date(2024, 12, 31)),
        ("lista mis proyectos del 01-03-2024 al 30-06-2024", date(2024, 3, 1), date(2024, 6, 30)),
        ("¿cuántos proyectos tengo de 2025?", date(2025, 1, 1), date(2025, 12, 31)),
        ("muéstrame los proyectos de los últimos 6 meses", date(2026, 5, 28), None),
        ("los proyectos de las últimas 2 semanas", date(2026, 11, 14), None),
        ("estadísticas de este año", date(2026, 1, 1), None),
        ("lista mis proyectos hasta febrero 2023", None, date(2023, 2, 28)),
        ("proyectos entre enero de 2023 y marzo de 2024", date(2023, 1, 1), date(2024, 3, 31)),
    ],
)
def test_el_periodo_nombrado_va_del_primer_dia_de_su_inicio_al_ultimo_de_su_termino(
    texto: str, desde: date | None, hasta: date | None
) -> None:
    assert periodo_de(texto, HOY) == (desde, hasta)


@pytest.mark.parametrize(
    "texto",
    ["lista mis proyectos en Atacama", "muéstrame el proyecto #2024", "lista mis proyectos de 8.000 t/mes"],
)
def test_sin_un_periodo_nombrado_no_hay_fechas(texto: str) -> None:
    assert periodo_de(texto, HOY) == (None, None)
