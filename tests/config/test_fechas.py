"""Fechas por meses calendario."""

from datetime import date

from config.fechas import meses_despues


def test_un_dia_que_el_mes_no_tiene_pasa_al_ultimo_del_mes_y_los_meses_cruzan_el_ano() -> None:
    assert meses_despues(date(2024, 3, 31), -1) == date(2024, 2, 29)
    assert meses_despues(date(2026, 11, 28), -24) == date(2024, 11, 28)
    assert meses_despues(date(2025, 12, 15), 2) == date(2026, 2, 15)
