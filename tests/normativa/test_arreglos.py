"""Filtrar por muchos ids con un solo parámetro: un arreglo de PostgreSQL."""

import pytest

from normativa.busqueda.arreglos import en_arreglo
from normativa.models import FragmentoLegal

pytestmark = pytest.mark.django_db


def test_filtra_por_los_ids_del_arreglo(corpus):
    ids = list(FragmentoLegal.objects.order_by("pk").values_list("pk", flat=True)[:500:7])

    encontrados = FragmentoLegal.objects.filter(pk__in=en_arreglo(ids)).values_list("pk", flat=True)

    assert sorted(encontrados) == ids


def test_un_arreglo_vacio_no_trae_nada(corpus):
    assert not FragmentoLegal.objects.filter(pk__in=en_arreglo([])).exists()
