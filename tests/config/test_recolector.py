"""Lo cargado al arrancar un proceso que sirve queda fuera de las colecciones del recolector."""

import gc
import sys
from collections.abc import Iterator

import pytest
from celery.signals import worker_process_init, worker_ready
from celery.utils.dispatch import Signal

from config.celery import _congelar_lo_cargado
from config.recolector import PRECARGAR, congelar_lo_cargado, precargar


@pytest.fixture
def sin_congelar() -> Iterator[None]:
    gc.unfreeze()
    yield
    gc.unfreeze()  # el resto de las pruebas, con su recolector normal


def test_congelar_precarga_los_motores_y_deja_todo_lo_cargado_fuera_de_las_colecciones(
    sin_congelar: None,
) -> None:
    congelar_lo_cargado()

    assert all(modulo in sys.modules for modulo in PRECARGAR)
    assert gc.get_freeze_count() > 100_000
    assert len(gc.get_objects()) < gc.get_freeze_count() / 10  # lo que el recolector aún recorre


@pytest.mark.parametrize("senal", [worker_ready, worker_process_init], ids=["worker listo", "hijo prefork"])
def test_un_worker_de_celery_congela_lo_que_cargo_al_arrancar(sin_congelar: None, senal: Signal) -> None:
    # Solo el receptor propio: enviar la señal entera correría también los de Celery para un proceso
    # hijo (cerrar los descriptores de las conexiones a la base de este proceso de pruebas).
    receptores = senal._live_receivers(sender=None)  # type: ignore[attr-defined]
    assert _congelar_lo_cargado in receptores

    _congelar_lo_cargado()

    assert gc.get_freeze_count() > 100_000


def test_precargar_deja_listo_lo_que_un_modulo_carga_en_su_primer_uso() -> None:
    from normativa.busqueda import ajenas

    ajenas._lema.cache_clear()
    ajenas._zipf.cache_clear()

    precargar()

    assert ajenas._lema.cache_info().currsize >= 1
    assert ajenas._zipf.cache_info().currsize >= 1
