"""Comandos del corpus: buscar_normativa --json, evaluar_busqueda y cargar_corpus idempotente."""

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

pytestmark = pytest.mark.django_db
DEV = Path(__file__).resolve().parents[2] / "fixtures" / "eval" / "dev_normativa.jsonl"


@pytest.fixture(autouse=True)
def _corpus(corpus):
    return corpus


def ejecutar(*argumentos: str) -> str:
    salida = StringIO()
    call_command(*argumentos, stdout=salida)
    return salida.getvalue()


def test_buscar_normativa_json_trae_los_campos_de_cita():
    filas = json.loads(
        ejecutar("buscar_normativa", "glaciares y área de influencia", "--top-k", "3", "--json")
    )

    assert len(filas) == 3
    for campo in ("norma", "articulo", "letra", "texto", "score", "confianza", "cita", "url"):
        assert campo in filas[0]


def test_buscar_normativa_con_una_norma_desconocida_falla_en_espanol():
    with pytest.raises(CommandError, match="Norma desconocida"):
        ejecutar("buscar_normativa", "glaciares", "--norma", "Ley 1")


def test_evaluar_busqueda_imprime_los_tres_modos_en_la_misma_corrida():
    metricas = json.loads(ejecutar("evaluar_busqueda", str(DEV), "--json"))

    assert set(metricas) == {"hibrido", "denso", "texto"}
    for valores in metricas.values():
        assert set(valores) == {"hit1", "hit5", "mrr10"}
    assert metricas["hibrido"]["mrr10"] >= metricas["texto"]["mrr10"]


def test_evaluar_busqueda_rechaza_un_archivo_mal_formado(tmp_path):
    malo = tmp_path / "malo.jsonl"
    malo.write_text('{"pregunta": "sin esperado"}\n')

    with pytest.raises(CommandError, match="Línea 1 inválida"):
        ejecutar("evaluar_busqueda", str(malo))


def test_cargar_corpus_por_segunda_vez_no_cambia_nada():
    salida = ejecutar("cargar_corpus")

    assert "0 versiones nuevas, 0 fragmentos embebidos" in salida
