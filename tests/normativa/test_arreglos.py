"""Filtrar por muchos ids con un solo parámetro: un arreglo de PostgreSQL."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from normativa.models import FragmentoLegal

pytestmark = pytest.mark.django_db


def test_filtra_por_los_ids_del_arreglo_con_un_solo_parametro(corpus):
    ids = list(FragmentoLegal.objects.order_by("pk").values_list("pk", flat=True)[:500:7])

    with CaptureQueriesContext(connection) as consultas:
        encontrados = list(FragmentoLegal.objects.filter(pk__en_arreglo=ids).values_list("pk", flat=True))

    assert sorted(encontrados) == ids
    assert "= ANY(" in consultas.captured_queries[0]["sql"]


def test_un_arreglo_vacio_no_trae_nada(corpus):
    assert not FragmentoLegal.objects.filter(pk__en_arreglo=[]).exists()
