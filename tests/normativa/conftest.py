"""Corpus real cargado una vez por sesión en la base de pruebas, con los embeddings incluidos."""

import pytest

from normativa.services import corpus_cargar, embeddings_faltantes


@pytest.fixture(scope="session")
def corpus(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock():
        faltantes = embeddings_faltantes()
        if faltantes:
            pytest.fail(
                f"Sin embeddings precalculados para: {', '.join(faltantes)}. "
                "Ejecute `manage.py cargar_corpus --exportar-embeddings` y confirme embeddings.npz."
            )
        resultados = corpus_cargar()
        assert sum(r.embebidos for r in resultados) == 0
    return resultados
