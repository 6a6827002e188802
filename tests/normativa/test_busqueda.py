"""Búsqueda híbrida sobre el corpus real: referencias explícitas, filtros, citas y confianza."""

from dataclasses import replace

import numpy as np
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from normativa import services
from normativa.busqueda import analisis, candidatos, instrumentos
from normativa.busqueda import orden as modulo_orden
from normativa.busqueda.abstencion import SIMILITUD_DEL_CORPUS, SIMILITUD_MINIMA, SenalesDeAbstencion
from normativa.busqueda.hibrida import buscar_documentacion, buscar_normativa
from normativa.busqueda.orden import PESO_MODIFICATORIO, pesos_normativos
from normativa.busqueda.reordenar import CANDIDATOS_REORDENADOS, la_ley_primero, reordenar
from normativa.busqueda.tipos import ErrorDeBusqueda
from normativa.embeddings import embeber_consulta
from normativa.glosario import expandir_consulta, expandir_siglas
from normativa.ingesta.corpus import documentacion_cargar
from normativa.models import FragmentoLegal, Norma

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _corpus(corpus):
    return corpus


def citas(busqueda) -> list[str]:
    return [r.cita for r in busqueda.resultados]


def test_una_referencia_explicita_a_articulo_y_letra_va_primero():
    busqueda = buscar_normativa(consulta="¿qué dice el art. 11 letra d de la ley 19.300?")

    primero = busqueda.resultados[0]
    assert primero.cita == "Ley 19.300, Art. 11, letra d)"
    assert primero.url.startswith("https://www.bcn.cl/leychile/navegar?idNorma=30667&idParte=")
    assert busqueda.confianza == "HIGH"


def test_un_literal_del_reglamento_se_encuentra_por_su_numeracion():
    busqueda = buscar_normativa(consulta="¿qué exige el literal i.1 del DS 40?")

    assert busqueda.resultados[0].cita == "DS 40, Art. 3, literal i.1"
    assert "5.000 t/mes" in busqueda.resultados[0].texto
    assert "DS 17/2025" in busqueda.resultados[0].advertencia


def test_una_pregunta_sobre_glaciares_trae_el_articulo_11_letra_d_de_la_ley_19300():
    busqueda = buscar_normativa(
        consulta="Mi proyecto está cerca de glaciares, ¿debo presentar un estudio de impacto ambiental?",
        top_k=5,
    )

    assert any(r.norma == "Ley 19.300" and r.articulo in ("11", "10") for r in busqueda.resultados), citas(
        busqueda
    )


def test_el_filtro_por_norma_restringe_los_resultados():
    busqueda = buscar_normativa(consulta="plazos de evaluación", normas=["DS 40"], top_k=10)

    assert busqueda.resultados and {r.norma for r in busqueda.resultados} == {"DS 40"}


def test_el_filtro_por_tipo_de_documento_trae_solo_guias():
    busqueda = buscar_normativa(consulta="botadero de estériles", tipos_documento=["guia"], top_k=5)

    assert busqueda.resultados and all(r.tipo_documento == "guia" for r in busqueda.resultados)
    assert all(r.url.startswith("https://sea.gob.cl/") for r in busqueda.resultados)


def test_los_articulos_derogados_no_se_citan_como_ley_vigente():
    busqueda = buscar_normativa(consulta="artículo 17 de la ley 19.300", top_k=10)

    assert all(not r.derogado for r in busqueda.resultados)
    con_derogados = buscar_normativa(
        consulta="artículo 17 de la ley 19.300", top_k=10, incluir_derogados=True
    )
    assert any(r.derogado and r.articulo == "17" for r in con_derogados.resultados)


@pytest.mark.parametrize(
    "pregunta",
    [
        "receta de empanadas de pino con aceitunas y huevo duro",
        "¿Qué dice la ley sobre el divorcio?",
        "¿Cuántos días de vacaciones tiene un trabajador?",
    ],
)
def test_una_pregunta_ajena_al_corpus_no_tiene_base_aunque_suene_juridica(pregunta):
    assert buscar_normativa(consulta=pregunta).confianza == "NONE"


def test_una_palabra_coloquial_que_el_corpus_no_usa_no_anula_una_pregunta_del_corpus():
    busqueda = buscar_normativa(consulta="¿En cuánto tiempo prescribe la acción por daño ambiental?")

    assert busqueda.confianza in ("HIGH", "MEDIUM")
    assert "Ley 19.300, Art. 63" in citas(busqueda)


@pytest.mark.parametrize("modo", ["hibrido", "denso", "texto"])
def test_los_tres_modos_devuelven_resultados(modo):
    assert buscar_normativa(consulta="declaración de impacto ambiental", modo=modo).resultados


@pytest.mark.parametrize(
    ("argumentos", "mensaje"),
    [
        ({"consulta": "   "}, "vacía"),
        ({"consulta": "x" * 1001}, "demasiado larga"),
        ({"consulta": "glaciares", "normas": ["Ley 1.234"]}, "Norma desconocida: Ley 1.234"),
        ({"consulta": "glaciares", "modo": "magico"}, "Modo desconocido"),
        ({"consulta": "glaciares", "top_k": 0}, "top_k"),
        ({"consulta": "glaciares", "tipos_documento": ["novela"]}, "Tipo de documento desconocido"),
    ],
)
def test_una_consulta_invalida_da_un_error_en_espanol(argumentos, mensaje):
    with pytest.raises(ErrorDeBusqueda, match=mensaje):
        buscar_normativa(**argumentos)


@pytest.mark.parametrize(
    ("pregunta", "cita"),
    [
        ("¿Qué se entiende por daño ambiental?", "Ley 19.300, Art. 2, letra e)"),
        ("¿Qué es una DIA?", "Ley 19.300, Art. 2, letra f)"),
        ("¿Qué es la línea de base?", "Ley 19.300, Art. 2, letra l)"),
        # el término definido con su complemento («de un EIA», «de contaminación»)
        ("¿Qué es la línea de base de un EIA?", "Ley 19.300, Art. 2, letra l)"),
        ("¿Qué es un plan de prevención de contaminación?", "Ley 19.300, Art. 2, letra v)"),
        # las definiciones numeradas de la ley del Servicio de Biodiversidad y las de la ley de cambio
        # climático, que la BCN junta en un párrafo
        ("¿Qué es un área protegida privada?", "Ley 21.600, Art. 3, número 4)"),
        ("¿Qué se entiende por carbono azul?", "Ley 21.455, Art. 3, letra d)"),
    ],
)
def test_una_pregunta_por_una_definicion_trae_primero_la_letra_que_la_define(pregunta, cita):
    busqueda = buscar_normativa(consulta=pregunta)

    assert busqueda.referencias.termino_definido
    assert busqueda.resultados[0].cita == cita, citas(busqueda)


def test_la_definicion_de_una_letra_con_punto_tras_el_parentesis_se_cita_entera():
    busqueda = buscar_normativa(consulta="¿Qué es la evaluación ambiental estratégica?")

    primero = busqueda.resultados[0]
    assert primero.cita == "Ley 19.300, Art. 2, letra i bis)", citas(busqueda)
    assert primero.oracion.startswith("i bis) Evaluación Ambiental Estratégica: el procedimiento")


def test_la_competencia_de_un_tribunal_se_encuentra_en_su_numero_del_articulo_que_las_enumera():
    busqueda = buscar_normativa(
        consulta="¿Qué tribunal conoce de una demanda para reparar el medio ambiente dañado?"
    )

    assert busqueda.resultados[0].cita == "Ley 20.600, Art. 17, número 2)", citas(busqueda)


def test_el_extracto_de_una_pregunta_de_plazo_trae_el_plazo_de_lo_que_se_hace_en_el():
    # el artículo trae también el plazo para reclamar de lo resuelto, con más palabras de la pregunta
    busqueda = buscar_normativa(
        consulta="¿En qué plazo debe resolver el Comité de Ministros la reclamación contra un EIA rechazado?"
    )

    primero = busqueda.resultados[0]
    assert (primero.norma, primero.articulo) == ("Ley 19.300", "20"), citas(busqueda)
    assert "resolverá, mediante resolución fundada, en un plazo fatal de treinta o sesenta días" in (
        primero.oracion
    )


def test_una_letra_se_encuentra_por_el_sentido_que_le_da_su_articulo():
    busqueda = buscar_normativa(
        consulta="¿Cuándo una mina tiene que entrar al sistema de evaluación ambiental?"
    )

    assert "Ley 19.300, Art. 10, letra i)" in citas(busqueda)


def test_el_peso_de_una_norma_curado_en_el_admin_cambia_su_posicion():
    pregunta = "¿Qué se entiende por daño ambiental?"
    assert buscar_normativa(consulta=pregunta).resultados[0].norma == "Ley 19.300"

    Norma.objects.filter(sigla="Ley 19.300").update(peso_busqueda=0.05)

    assert buscar_normativa(consulta=pregunta).resultados[0].norma != "Ley 19.300"


def test_un_articulo_que_modifica_otra_ley_pesa_menos_que_el_texto_refundido():
    base = FragmentoLegal.objects.filter(version__vigente=True)
    modificatorio = base.get(breadcrumb="Ley 20.417 › Artículo primero")
    refundido = base.get(norma__sigla="Ley 19.300", articulo="11", letra="", transitorio=False)

    pesos = pesos_normativos([modificatorio.pk, refundido.pk])

    assert modificatorio.modificatorio and not refundido.modificatorio
    assert pesos[modificatorio.pk] == pytest.approx(0.8 * PESO_MODIFICATORIO)
    assert pesos[refundido.pk] == 1.0


def test_el_modo_texto_pondera_mas_la_palabra_rara_que_la_comun():
    busqueda = buscar_normativa(consulta="proyecto glaciares", modo="texto", top_k=3)

    assert all("glaciar" in r.texto.lower() for r in busqueda.resultados), citas(busqueda)


def test_la_sigla_de_la_pregunta_se_expande_para_la_busqueda_de_texto():
    assert (
        expandir_siglas("Me rechazaron la DIA") == "Me rechazaron la DIA (Declaración de Impacto Ambiental)"
    )
    assert expandir_siglas("el día que sea") == "el día que sea", "las palabras comunes no son siglas"


def test_la_documentacion_se_busca_aparte_y_no_aparece_en_la_normativa(tmp_path):
    (tmp_path / "README.md").write_text(
        "# Producto\n## Pruebas\nEjecute make test para correr las pruebas.\n"
    )
    documentacion_cargar(raiz=tmp_path)

    documentacion = buscar_documentacion(consulta="¿cómo corro las pruebas?", top_k=3)
    normativa = buscar_normativa(consulta="¿cómo corro las pruebas?", top_k=20)

    assert documentacion.resultados[0].cita.startswith("README.md")
    assert all(r.tipo_documento == "documentacion" for r in documentacion.resultados)
    assert all(r.tipo_documento != "documentacion" for r in normativa.resultados)


def test_un_parrafo_nuevo_de_la_documentacion_no_cambia_la_busqueda_de_la_normativa(tmp_path):
    pregunta = "¿Qué plazo tiene la evaluación de una declaración de impacto ambiental?"
    antes = buscar_normativa(consulta=pregunta, top_k=8)
    (tmp_path / "README.md").write_text(
        "# Producto\n## Plazos\nEl plazo de la evaluación de una declaración de impacto ambiental se "
        "muestra en la ficha; cada declaración, cada plazo y cada evaluación quedan en el historial.\n"
    )
    documentacion_cargar(raiz=tmp_path)

    despues = buscar_normativa(consulta=pregunta, top_k=8)

    assert buscar_documentacion(consulta=pregunta, top_k=1).resultados[0].cita.startswith("README.md")
    assert [(r.cita, r.score) for r in despues.resultados] == [(r.cita, r.score) for r in antes.resultados]
    assert despues.confianza == antes.confianza


def test_una_palabra_que_solo_trae_la_documentacion_se_cuenta_en_sus_estadisticas_y_no_en_las_de_la_ley(
    tmp_path,
):
    (tmp_path / "README.md").write_text("# Producto\n## Capas\nEl zumbadorcillo carga las capas.\n")
    documentacion_cargar(raiz=tmp_path)

    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM normativa_estadistica_lexema WHERE lexema = 'zumbadorcill'")
        en_la_ley = cursor.fetchone()[0]
        cursor.execute(
            "SELECT documentos FROM normativa_estadistica_documentacion WHERE lexema = 'zumbadorcill'"
        )
        en_la_documentacion = cursor.fetchone()

    assert en_la_ley == 0
    assert en_la_documentacion == (1,)
    busqueda = buscar_documentacion(consulta="¿qué hace el zumbadorcillo?", top_k=1)
    assert busqueda.confianza != "NONE"
    assert busqueda.resultados[0].cita.startswith("README.md")


def test_una_palabra_de_todos_los_dias_que_la_ley_no_usa_no_hace_desconocida_la_pregunta():
    lexemas = candidatos.lexemas_de_la_consulta("todavía no empezamos la caducidad")

    assert candidatos.fraccion_desconocida(lexemas) > 0
    assert candidatos.fraccion_desconocida(lexemas, comunes=["todavía"]) < candidatos.fraccion_desconocida(
        lexemas
    )


def test_el_nombre_de_una_sigla_pesa_en_el_texto_como_una_sola_palabra():
    consulta = "¿Qué gana una minera al autodenunciarse ante la SMA?"
    lexemas = candidatos.lexemas_de_la_consulta(expandir_siglas(consulta))

    pesos = candidatos.pesos_de_las_siglas(consulta, lexemas)

    assert pesos["autodenunci"] == pesos["sma"] == 1.0, "lo que el usuario dijo pesa entero"
    del_nombre = [lexema for lexema, peso in pesos.items() if peso < 1]
    assert {"superintendent", "medi"} <= set(del_nombre)
    assert sum(pesos[lexema] for lexema in del_nombre) == pytest.approx(1.0)
    assert pesos["superintendent"] > pesos["medi"], "lo que identifica el nombre pesa más"


def test_una_pregunta_con_siglas_busca_en_el_texto_lo_que_pregunta_y_no_el_nombre_de_las_siglas():
    busqueda = buscar_normativa(consulta="¿En cuántos días el SEA admite a trámite una DIA?", modo="texto")

    assert citas(busqueda)[0] == "DS 40, Art. 31"


def test_un_vector_de_consulta_precalculado_da_el_mismo_resultado():
    pregunta = "¿Qué plazo tiene la evaluación de una declaración?"
    vector = embeber_consulta(pregunta)

    assert citas(buscar_normativa(consulta=pregunta, vector_consulta=vector)) == citas(
        buscar_normativa(consulta=pregunta)
    )


def test_con_un_filtro_restrictivo_el_texto_puntua_toda_la_norma_filtrada(monkeypatch):
    monkeypatch.setattr(candidatos, "PREFILTRO_TEXTO", 5)  # los 5 mejores no son de la Ley 20.600

    busqueda = buscar_normativa(
        consulta="evaluación ambiental de proyectos", modo="texto", normas=["Ley 20.600"], top_k=5
    )

    assert len(busqueda.resultados) == 5
    assert {r.norma for r in busqueda.resultados} == {"Ley 20.600"}


def test_una_seccion_que_todas_las_guias_repiten_no_acapara_los_resultados():
    busqueda = buscar_normativa(
        consulta="alcances generales de la evaluación de impacto ambiental", tipos_documento=["guia"], top_k=5
    )

    repetidas = [
        r
        for r in busqueda.resultados
        if r.breadcrumb.endswith("Alcances generales de la evaluación de impacto ambiental")
    ]
    assert len(repetidas) == 2, citas(busqueda)
    assert len(busqueda.resultados) == 5


@pytest.mark.usefixtures("corpus")
@pytest.mark.django_db
def test_una_definicion_hallada_por_su_termino_da_confianza_alta_aunque_la_pregunta_sea_corta() -> None:
    busqueda = buscar_normativa(consulta="¿Qué es una DIA?", top_k=3)

    assert busqueda.resultados[0].cita == "Ley 19.300, Art. 2, letra f)"
    assert busqueda.confianza == "HIGH"


def test_una_palabra_compuesta_ausente_del_corpus_busca_por_sus_partes():
    lexemas = candidatos.lexemas_de_la_consulta("¿Un concentraducto entre la planta y el puerto?")

    assert "concentraduct" in lexemas and "duct" in lexemas


def test_una_forma_del_verbo_que_el_corpus_no_trae_busca_la_que_si_trae():
    lexemas = candidatos.lexemas_de_la_consulta("¿Cuándo prescriben las faltas?")

    assert "prescrib" in lexemas and "prescribir" in lexemas
    busqueda = buscar_normativa(consulta="¿Cuándo prescriben las infracciones que sanciona la SMA?")
    assert "Ley 20.417, Art. 37" in citas(busqueda)


def test_las_letras_de_un_articulo_cuentan_aparte_al_diversificar():
    # Las tipologías del Art. 10 son disposiciones distintas: una pregunta por una no las agota a dos.
    busqueda = buscar_normativa(
        consulta="¿Un concentraducto de 25 km entre la planta y el puerto tiene que entrar al SEIA?"
    )

    assert "Ley 19.300, Art. 10, letra j)" in citas(busqueda)


def test_una_pregunta_de_otra_rama_del_derecho_no_tiene_base_aunque_e5_la_acerque():
    busqueda = buscar_normativa(
        consulta="¿Cuánto IVA se paga al importar un camión y sirve como crédito fiscal?"
    )

    assert busqueda.confianza == "NONE"


def test_una_pregunta_del_seia_con_una_cifra_desconocida_no_se_declara_ajena():
    busqueda = buscar_normativa(consulta="Tengo una RCA de 2019 y no he empezado las obras, ¿caduca?")

    assert busqueda.confianza != "NONE"
    assert "Ley 19.300, Art. 25 ter" in citas(busqueda) or "DS 40, Art. 73" in citas(busqueda)


def test_la_jerga_de_faena_se_busca_con_el_termino_de_la_norma():
    assert expandir_consulta("¿El mineroducto entra al SEIA?").endswith(
        "(ductos mineros; someterse al sistema de evaluación de impacto ambiental)"
    )
    assert expandir_consulta("¿Y el ICSARA?") == (
        "¿Y el ICSARA (Informe Consolidado de Solicitud de Aclaraciones, Rectificaciones o Ampliaciones)?"
    )

    busqueda = buscar_normativa(
        consulta="¿Un relaveducto hasta el tranque tiene que evaluarse ambientalmente?"
    )

    assert "Ley 19.300, Art. 10, letra j)" in citas(busqueda)[:3]


def test_preguntarle_antes_al_servicio_si_hay_que_ingresar_es_la_consulta_de_pertinencia():
    busqueda = buscar_normativa(
        consulta="Vamos a cambiar el trazado del camino minero. ¿Le podemos preguntar antes al SEA si hay que"
        " entrar al SEIA?"
    )

    assert "DS 40, Art. 26" in citas(busqueda)[:3]


@pytest.mark.parametrize(
    ("pregunta", "articulo"),
    [
        # «calcular la multa» es, en la ley, la determinación de las sanciones (Art. 40 de la LOSMA)
        ("¿Con qué criterios se calcula la multa que impone la Superintendencia?", "Ley 20.417, Art. 40"),
        # «paralizar la faena» es la detención del funcionamiento, una medida provisional (Art. 48)
        ("¿Nos pueden paralizar la faena durante el procedimiento sancionatorio?", "Ley 20.417, Art. 48"),
        # fijar el monto de la sanción (no solo de la multa) también es determinarla
        ("¿Qué toma en cuenta la Superintendencia para fijar el monto de la sanción?", "Ley 20.417, Art. 40"),
    ],
)
def test_el_habla_comun_de_la_fiscalizacion_se_busca_con_las_palabras_de_la_ley(pregunta, articulo):
    assert "(determinación de las sanciones" in expandir_consulta("¿Cómo se calcula la multa?")

    assert articulo in citas(buscar_normativa(consulta=pregunta))[:3]


@pytest.mark.parametrize(
    ("pregunta", "cita"),
    [
        # un proyecto «interregional» (la palabra de las guías) se presenta ante el Director Ejecutivo
        ("Nuestro proyecto es interregional: ¿quién lo evalúa?", "Ley 19.300, Art. 9"),
        # agregar después una pieza: el reglamento no acepta antecedentes que quedaron pendientes
        ("¿Podemos presentar la DIA hoy y agregar después el anexo de arqueología?", "DS 40, Art. 28"),
        # un tribunal que queda lejos: la reclamación se puede entregar en el juzgado del domicilio
        (
            "Somos de Chañaral y el Tribunal Ambiental nos queda lejos, ¿dónde entregamos la reclamación?",
            "Ley 20.600, Art. 20",
        ),
        # obras chicas que se suman: la suma de lo no calificado puede ser un cambio de consideración
        (
            "Llevamos cinco modificaciones menores de la planta, cada una con su pertinencia. ¿Se suman en"
            " algún momento?",
            "DS 40, Art. 2, letra g)",
        ),
        # la luz de noche de una faena afecta la observación astronómica (Art. 11 d)
        (
            "En la faena habrá iluminación nocturna intensa. ¿Eso puede hacernos ingresar por EIA?",
            "Ley 19.300, Art. 11, letra d)",
        ),
        # que un tribunal revise de oficio una clausura de la Superintendencia es la consulta (Art. 57)
        (
            "La Superintendencia nos aplicó una clausura definitiva. ¿Esa resolución la revisa algún tribunal"
            " aunque no reclamemos?",
            "Ley 20.417, Art. 57",
        ),
    ],
)
def test_el_habla_del_procedimiento_se_busca_con_las_palabras_de_la_ley(pregunta, cita):
    assert citas(buscar_normativa(consulta=pregunta))[0] == cita


def test_un_articulo_cuyo_plazo_del_tramite_preguntado_esta_en_otro_inciso_es_de_la_familia_plazo():
    # «Admisión a trámite. El procedimiento … se iniciará con una verificación…»: los cinco días para
    # admitir están en el segundo inciso
    busqueda = buscar_normativa(
        consulta="Subimos la Declaración hace dos días y no hay noticias: ¿cuánto puede tardar la admisión a"
        " trámite?",
        top_k=3,
    )

    admision = next(r for r in busqueda.resultados if r.cita == "DS 40, Art. 31")
    assert admision.rasgos["familia"] == 1.0


def test_una_pregunta_sobre_la_dia_no_trae_primero_el_articulo_paralelo_del_eia():
    # El reglamento repite el procedimiento para la Declaración y para el Estudio, con plazos distintos.
    busqueda = buscar_normativa(
        consulta="Nos mandaron el ICSARA de nuestra DIA. ¿Podemos pedir que nos extiendan el plazo?", top_k=3
    )

    for resultado in busqueda.resultados:
        assert "Declaraci" in resultado.texto, resultado.cita


def test_una_letra_de_una_lista_de_contenidos_no_tapa_al_articulo_que_responde():
    busqueda = buscar_normativa(
        consulta="¿Qué permiso sectorial se pide para sacar formaciones xerofíticas en un botadero?", top_k=3
    )

    assert busqueda.resultados[0].cita == "DS 40, Art. 151"
    assert "20.283" in busqueda.resultados[0].oracion  # qué permiso es: el de la ley de bosque nativo


def test_quien_elabora_un_plan_lo_responde_el_articulo_y_no_las_letras_de_lo_que_el_plan_contendra():
    # «Los planes … contendrán, al menos: a) …»: cada letra es un contenido del plan, no quién lo elabora
    busqueda = buscar_normativa(
        consulta="¿Quién elabora el plan de acción regional de cambio climático?", top_k=3
    )

    assert busqueda.resultados[0].cita == "Ley 21.455, Art. 11"
    assert "Comités Regionales" in busqueda.resultados[0].oracion


def test_la_oracion_que_depende_del_plazo_elegido_va_con_el():
    busqueda = buscar_normativa(
        consulta="¿Qué pasa si un organismo sectorial no se pronuncia sobre un permiso al final del EIA?"
    )

    art_46 = next(r for r in busqueda.resultados if r.cita == "DS 40, Art. 46")
    assert "quince días" in art_46.oracion and "Vencido este plazo" in art_46.oracion


def test_las_anclas_de_la_familia_entran_al_grupo_que_se_reordena():
    puntajes = {pk: 1.0 / pk for pk in range(1, 201)}

    orden = modulo_orden.orden_a_reordenar(puntajes, anclas=[150, 3])

    grupo = orden[:CANDIDATOS_REORDENADOS]
    assert 150 in grupo and 3 in grupo and len(orden) == len(puntajes)
    assert orden[:5] == [1, 2, 3, 4, 5]  # lo que ya estaba arriba no se mueve


def test_una_pregunta_de_eia_o_dia_reordena_el_articulo_11_aunque_la_busqueda_no_lo_traiga():
    base = candidatos.fragmentos_buscables(
        normas=None, temas=None, tipos_documento=None, incluir_derogados=False, incluir_documentacion=False
    )
    pregunta = "¿Qué efectos obligan a presentar un estudio en vez de una declaración?"

    anclas = modulo_orden.anclas_de_familias(base, ("eia_o_dia",), embeber_consulta(pregunta))

    citas_anclas = {f.norma.sigla + " " + f.articulo for f in FragmentoLegal.objects.filter(pk__in=anclas)}
    assert "Ley 19.300 11" in citas_anclas


def test_un_permiso_nombrado_por_su_epigrafe_en_palabras_de_faena_se_reordena_aunque_quede_lejos():
    base = candidatos.fragmentos_buscables(
        normas=None, temas=None, tipos_documento=None, incluir_derogados=False, incluir_documentacion=False
    )
    pregunta = "Para el camino de acceso hay que desviar un estero. ¿Qué permiso sectorial se necesita?"
    # el glosario traduce «desviar un estero» al nombre del PAS: «modificaciones de cauce»
    lexemas = candidatos.lexemas_de_la_consulta(expandir_consulta(pregunta))

    anclas = modulo_orden.anclas_de_familias(base, ("permiso",), embeber_consulta(pregunta), lexemas)
    sin_epigrafe = modulo_orden.anclas_de_familias(base, ("permiso",), embeber_consulta(pregunta))

    def citas(ids: list[int]) -> set[str]:
        return {f.norma.sigla + " " + f.articulo for f in FragmentoLegal.objects.filter(pk__in=ids)}

    assert "DS 40 156" in citas(anclas) and "DS 40 156" not in citas(sin_epigrafe)


def test_la_definicion_del_termino_preguntado_responde_con_la_definicion_entera():
    busqueda = buscar_normativa(
        consulta="¿Qué se entiende por modificación de un proyecto según el reglamento?"
    )

    primero = busqueda.resultados[0]
    assert primero.cita == "DS 40, Art. 2, letra g)"
    assert primero.oracion.startswith("g) Modificación de proyecto o actividad: Realización de obras")
    assert primero.oracion.endswith("cambios de consideración.")


def test_el_resultado_trae_el_epigrafe_de_su_articulo():
    busqueda = buscar_normativa(consulta="¿Puedo consultarle al SEA si mi proyecto debe ingresar?")

    pertinencia = next(r for r in busqueda.resultados if r.cita == "DS 40, Art. 26")
    assert pertinencia.epigrafe == "Consulta de pertinencia de ingreso"


@pytest.mark.parametrize(
    ("pregunta", "ley", "reglamento"),
    [
        # el DS 40, Art. 77 («Reclamación del proponente») copia la Ley 19.300, Art. 20
        (
            "Si el SEA rechaza nuestra declaración, ¿ante quién y en qué plazo reclamamos?",
            "Ley 19.300, Art. 20",
            "DS 40, Art. 77",
        ),
        # el DS 40, Art. 73 («Caducidad de la RCA») copia la Ley 19.300, Art. 25 ter y le agrega detalle
        ("¿Cuándo caduca la RCA si el proyecto no empieza?", "Ley 19.300, Art. 25 ter", "DS 40, Art. 73"),
    ],
)
def test_la_ley_va_antes_que_el_articulo_del_reglamento_que_la_reproduce(pregunta, ley, reglamento):
    orden = citas(buscar_normativa(consulta=pregunta))

    assert ley in orden and reglamento in orden
    assert orden.index(ley) < orden.index(reglamento)


def test_la_ley_sube_solo_sobre_el_reglamento_que_la_reproduce_y_solo_si_estaba_debajo():
    # posiciones: 0 reglamento, 1 otro, 2 la ley que el 0 reproduce, 3 una ley que ya estaba arriba
    assert la_ley_primero([3.0, 2.0, 1.0, 4.0], [(0, 2), (0, 3)]) == [3.0, 2.0, 3.001, 4.0]
    assert la_ley_primero([3.0, 2.0], []) == [3.0, 2.0]


def test_una_pregunta_por_los_integrantes_de_un_organo_trae_el_articulo_entero_y_no_sus_letras():
    busqueda = buscar_normativa(
        consulta="¿Quiénes integran el Consejo Nacional para la Sustentabilidad y el Cambio Climático?"
    )

    assert "composicion" in busqueda.familias
    assert busqueda.resultados[0].cita == "Ley 19.300, Art. 76"
    assert not any(cita.startswith("Ley 19.300, Art. 76, letra") for cita in citas(busqueda))


def test_fuera_de_una_pregunta_por_una_lista_las_letras_de_un_articulo_siguen_siendo_disposiciones():
    busqueda = buscar_normativa(consulta="¿Qué se entiende por daño ambiental?")

    assert busqueda.resultados[0].cita == "Ley 19.300, Art. 2, letra e)"


def test_una_palabra_ajena_y_lo_que_se_mostraria_poco_parecido_bastan_para_abstenerse():
    senales = SenalesDeAbstencion(ajenas=("quórum",), cobertura=0.4, similitud=SIMILITUD_MINIMA - 0.02)

    assert senales.puntos() == 2 and senales.fuera_del_corpus()
    assert not replace(senales, similitud=SIMILITUD_MINIMA + 0.02).fuera_del_corpus()


def test_lo_mostrado_muy_parecido_a_la_pregunta_la_hace_del_corpus_aunque_traiga_palabras_ajenas():
    # «¿qué documentos acompañan la solicitud del permiso…?»: el artículo del permiso a 0,92
    senales = SenalesDeAbstencion(ajenas=("documentos", "solicitud"), cobertura=0.36, similitud=0.92)

    assert senales.puntos() == 2 and not senales.fuera_del_corpus()
    assert replace(senales, similitud=SIMILITUD_DEL_CORPUS - 0.005).fuera_del_corpus()


def test_sin_palabra_ajena_no_hay_abstencion_aunque_lo_mostrado_cubra_poco_y_se_parezca_poco():
    # Una pregunta dicha con palabras de faena pero con el vocabulario del corpus sigue siendo del corpus.
    senales = SenalesDeAbstencion(ajenas=(), cobertura=0.1, similitud=0.8)

    assert senales.puntos() == 2 and not senales.fuera_del_corpus()


def test_citar_el_corpus_gana_a_cualquier_senal_y_citar_solo_normas_ausentes_es_estar_fuera():
    assert not SenalesDeAbstencion(
        cita_el_corpus=True, ajenas=("iva", "renta"), similitud=0.7
    ).fuera_del_corpus()
    assert SenalesDeAbstencion(normas_ausentes=True).fuera_del_corpus()


def test_las_anclas_respetan_los_filtros_de_la_busqueda_aunque_las_mas_cercanas_queden_fuera():
    base = candidatos.fragmentos_buscables(
        normas=["DS 40"],
        temas=None,
        tipos_documento=None,
        incluir_derogados=False,
        incluir_documentacion=False,
    )
    pregunta = "¿Qué plazo tiene la Ley 19.300 para reclamar ante el Comité de Ministros?"

    anclas = modulo_orden.anclas_de_familias(base, ("plazo", "recursos"), embeber_consulta(pregunta))

    normas = set(FragmentoLegal.objects.filter(pk__in=anclas).values_list("norma__sigla", flat=True))
    assert normas == {"DS 40"}
    assert len(anclas) == 2 * modulo_orden.ANCLAS_POR_FAMILIA


def test_el_epigrafe_que_lee_el_reordenador_sigue_al_texto_corregido_en_el_admin():
    articulo = FragmentoLegal.objects.get(norma__sigla="DS 40", articulo="73", letra="")

    def epigrafe_de(fragmento_id: int) -> str:
        (candidato,) = reordenar(
            lexemas=["caduc"], familias=(), densos=[fragmento_id], textuales=[], orden_inicial=[fragmento_id]
        )
        return candidato.epigrafe

    assert epigrafe_de(articulo.pk) != "Vigencia de la resolución"
    primera, _, resto = articulo.texto.partition("\n")
    _, _, cuerpo = resto.partition("\n")
    services.fragmento_actualizar_texto(
        fragmento=articulo, texto=f"{primera}\nVigencia de la resolución.\n{cuerpo}"
    )

    assert epigrafe_de(articulo.pk) == "Vigencia de la resolución"


def test_una_busqueda_lee_el_estado_del_corpus_una_sola_vez():
    buscar_normativa(consulta="¿Cuándo caduca una RCA?")

    with CaptureQueriesContext(connection) as consultas:
        buscar_normativa(consulta="¿Cuándo caduca una RCA si no se ejecuta el proyecto?")

    lecturas = [
        c
        for c in consultas.captured_queries
        if "FROM normativa_estadistica_corpus" in c["sql"] and "refrescada" in c["sql"]
    ]
    assert len(lecturas) == 1


def test_un_fragmento_retirado_en_el_admin_deja_de_aparecer_en_la_busqueda():
    pregunta = "¿Cuándo caduca la resolución de calificación ambiental?"
    primero = buscar_normativa(consulta=pregunta).resultados[0]

    services.fragmentos_eliminar(ids=[primero.fragmento_id])

    assert primero.fragmento_id not in {
        r.fragmento_id for r in buscar_normativa(consulta=pregunta).resultados
    }


@pytest.fixture
def memoria_del_reordenador_vacia():
    """Sin los textos ya analizados en el proceso: el reordenador lee lo guardado (o lo calcula)."""
    analisis._TEXTOS.clear()
    yield
    analisis._TEXTOS.clear()  # lo alterado en la prueba no queda en la memoria del proceso


def candidato_unico(fragmento_id: int, lexemas: list[str]):
    (candidato,) = reordenar(
        lexemas=lexemas, familias=(), densos=[fragmento_id], textuales=[], orden_inicial=[fragmento_id]
    )
    return candidato


def test_el_reordenador_lee_las_raices_que_la_ingesta_guardo_con_cada_oracion(memoria_del_reordenador_vacia):
    articulo = FragmentoLegal.objects.get(norma__sigla="DS 40", articulo="73", letra="")
    assert candidato_unico(articulo.pk, ["caduc"]).rasgos["oracion"] > 0
    analisis._TEXTOS.clear()

    FragmentoLegal.objects.filter(pk=articulo.pk).update(raices=[""] * len(articulo.raices))

    assert candidato_unico(articulo.pk, ["caduc"]).rasgos["oracion"] == 0.0


def test_lo_guardado_con_otra_version_del_analisis_se_calcula_de_nuevo_y_da_lo_mismo(
    memoria_del_reordenador_vacia,
):
    articulo = FragmentoLegal.objects.get(norma__sigla="DS 40", articulo="73", letra="")
    antes = candidato_unico(articulo.pk, ["caduc", "resolu"])
    analisis._TEXTOS.clear()

    FragmentoLegal.objects.filter(pk=articulo.pk).update(
        oraciones=["Otra oración cualquiera de prueba."], raices=[""], analisis="anterior"
    )

    despues = candidato_unico(articulo.pk, ["caduc", "resolu"])
    assert (despues.puntaje, despues.oracion) == (antes.puntaje, antes.oracion)


def test_un_articulo_citado_sin_norma_es_el_de_la_norma_que_calza_con_la_pregunta():
    busqueda = buscar_normativa(
        consulta="Cortar el único camino del caserío, ¿altera los sistemas de vida según el art. 11 letra c)?"
    )

    assert busqueda.resultados[0].cita == "Ley 19.300, Art. 11, letra c)"
    assert not [c for c in citas(busqueda) if c.startswith("Ley 21.455, Art. 11")]


def test_el_articulo_del_reglamento_que_desarrolla_la_letra_citada_de_la_ley_viene_con_ella():
    busqueda = buscar_normativa(consulta="¿Qué dice el art. 11 letra d de la ley 19.300 sobre la proximidad?")

    assert "DS 40, Art. 8" in citas(busqueda)[:3]


def test_el_tema_de_una_pregunta_de_plazo_no_cuenta_las_palabras_con_que_se_pide_el_plazo():
    busqueda = buscar_normativa(
        consulta="¿Con cuántos días de anticipación se avisa al vecino del cierre del taller?"
    )

    primero = busqueda.resultados[0]
    assert primero.tema is not None and primero.cobertura is not None
    assert primero.tema < primero.cobertura


def test_los_casos_paralelos_de_una_regla_van_juntos_en_el_extracto():
    busqueda = buscar_normativa(
        consulta="Una Declaración de un proyecto con cargas ambientales, "
        "¿qué día del mes se entiende ingresada?"
    )

    art_94 = next(r for r in busqueda.resultados if r.cita == "DS 40, Art. 94")
    assert (
        "Si se ingresaren antes" in art_94.oracion and "Si se ingresaren con posterioridad" in art_94.oracion
    )


def test_el_organo_nombrado_pone_primero_un_articulo_de_su_propia_ley():
    busqueda = buscar_normativa(consulta="¿Ante quién se reclama de una resolución sancionatoria de la SMA?")

    # sin el rasgo, la reclamación de la Ley 21.600 (Servicio de Biodiversidad) iba primero
    assert busqueda.resultados[0].norma == "Ley 20.417"
    assert busqueda.resultados[0].rasgos["organo"] == 1.0


def test_una_letra_se_cita_con_la_oracion_que_la_anuncia():
    busqueda = buscar_normativa(
        consulta="¿Durante el procedimiento sancionador se puede clausurar la planta?"
    )

    letra = next(r for r in busqueda.resultados if r.cita == "Ley 20.417, Art. 48, letra c)")
    assert "las siguientes medidas provisionales:" in letra.oracion
    assert letra.oracion.index("medidas provisionales") < letra.oracion.index("Clausura temporal")


def test_el_epigrafe_de_un_articulo_permanente_no_es_el_de_su_transitorio_del_mismo_numero():
    busqueda = buscar_normativa(
        consulta="¿Qué se entiende por efectos adversos del cambio climático?", top_k=10
    )

    del_3 = [r for r in busqueda.resultados if r.cita.startswith("Ley 21.455, Art. 3")]
    assert del_3 and all("reglamentos" not in r.epigrafe for r in del_3)


def test_una_lista_de_sanciones_se_elige_con_la_categoria_que_la_anuncia():
    busqueda = buscar_normativa(
        consulta="Sanción máxima en dinero por una infracción grave a la ley del SBAP"
    )

    art_120 = next(r for r in busqueda.resultados if r.cita == "Ley 21.600, Art. 120")
    assert "En el caso de las infracciones graves:" in art_120.oracion
    assert "10.000 unidades tributarias mensuales" in art_120.oracion


def test_la_consecuencia_de_no_cumplir_el_deber_va_con_la_oracion_que_lo_impone():
    busqueda = buscar_normativa(
        consulta=(
            "Pedimos al municipio que demande por daño ambiental: ¿en cuánto debe decidir, y si no contesta?"
        )
    )

    art_54 = next(r for r in busqueda.resultados if r.cita == "Ley 19.300, Art. 54")
    assert "45 días" in art_54.oracion and "solidariamente responsable" in art_54.oracion


def test_un_articulo_que_no_nombra_el_instrumento_toma_el_de_su_parrafo():
    busqueda = buscar_normativa(
        consulta="¿Cuánto se puede ampliar el plazo de evaluación de una Declaración?"
    )

    posiciones = {r.cita: i for i, r in enumerate(busqueda.resultados)}
    # el Art. 45 amplía el plazo del Estudio (su párrafo es el del EIA); el 57, el de la Declaración
    assert posiciones["DS 40, Art. 57"] < posiciones.get("DS 40, Art. 45", len(posiciones))
    art_45 = [r for r in busqueda.resultados if r.cita == "DS 40, Art. 45"]
    assert not art_45 or art_45[0].rasgos["instrumento_ajeno"] == 1.0


@pytest.mark.parametrize(
    ("consulta", "instrumento"),
    [
        ("El galpón está junto a una casona declarada Monumento Histórico", ""),
        ("El estudio hidrogeológico no estará listo para la DIA (Declaración de Impacto Ambiental)", "dia"),
        ("El estudio de suelos irá como anexo de la DIA (Declaración de Impacto Ambiental)", "dia"),
        ("¿Cuánto demora la calificación del Estudio de Impacto Ambiental?", "eia"),
        ("¿Cuánto demora el estudio?", "eia"),
    ],
)
def test_el_instrumento_de_la_pregunta_es_el_que_nombra_y_no_una_palabra_parecida(consulta, instrumento):
    assert instrumentos.instrumento_de(set(), consulta) == instrumento


def test_el_permiso_para_intervenir_un_monumento_historico_esta_entre_los_primeros():
    # su epígrafe es largo (nombra todo lo que autoriza) y el monumento está «declarado»
    busqueda = buscar_normativa(
        consulta="Queremos reparar una bodega declarada Monumento Histórico y levantar otra a su lado. ¿Qué "
        "permiso sectorial se necesita?",
        top_k=5,
    )

    assert "DS 40, Art. 131" in [r.cita for r in busqueda.resultados]


def test_un_numero_con_letras_se_lee_con_lo_que_anuncia_la_lista_de_numeros_y_no_con_el_numero_1():
    busqueda = buscar_normativa(
        consulta="¿Qué multa corresponde a una infracción grave según la ley del Servicio de Biodiversidad?",
        top_k=6,
    )

    graves = next(r for r in busqueda.resultados if r.cita == "Ley 21.600, Art. 120, número 2)")
    assert graves.oracion.startswith("Las infracciones a esta ley podrán ser objeto de alguna de las")
    assert "gravísimas" not in graves.oracion and "Multa de hasta 10.000" in graves.oracion


def test_una_pregunta_que_nombra_a_la_sma_no_trae_primero_el_articulo_parecido_de_la_ley_del_sbap():
    busqueda = buscar_normativa(consulta="¿En cuánto tiempo prescriben las infracciones que persigue la SMA?")

    assert busqueda.resultados[0].norma == "Ley 20.417"
    sbap = [r for r in busqueda.resultados if r.norma == "Ley 21.600"]
    assert all(r.rasgos["organo_ajeno"] == 1.0 for r in sbap)


def test_una_pregunta_por_los_criterios_de_una_lista_trae_el_articulo_entero_y_no_la_letra_parecida():
    busqueda = buscar_normativa(consulta="¿Cuáles son los criterios para determinar una sanción de la SMA?")

    assert busqueda.resultados[0].cita == "Ley 20.417, Art. 40"
    assert not any(r.cita.startswith("Ley 20.417, Art. 40, letra") for r in busqueda.resultados)
    # un artículo transitorio con el mismo número no toma el lugar del permanente
    assert not any("transitorio" in r.cita for r in busqueda.resultados[:3])


SITUACION_Y_PREGUNTA = (
    "La SMA nos formuló cargos el año pasado por el polvo del chancado, tenemos un programa de "
    "cumplimiento en ejecución y la DGA revisa los derechos de agua del pozo 3; aparte, ingresamos la DIA "
    "de la nueva correa transportadora. ¿En cuántos días deben admitirla a trámite?"
)


def test_el_vector_de_busqueda_se_acerca_a_lo_preguntado_cuando_la_consulta_trae_una_situacion():
    from normativa.busqueda.hibrida import _con_lo_preguntado
    from normativa.busqueda.preguntas import nucleo_de_la_pregunta

    nucleo = nucleo_de_la_pregunta(SITUACION_Y_PREGUNTA)
    entera, preguntado = embeber_consulta(SITUACION_Y_PREGUNTA), embeber_consulta(nucleo)

    busqueda = _con_lo_preguntado(entera, SITUACION_Y_PREGUNTA, nucleo)

    assert nucleo.startswith("¿En cuántos días")
    assert float(busqueda @ preguntado) > float(entera @ preguntado)  # más cerca de lo que pregunta
    assert float(busqueda @ entera) > float(busqueda @ preguntado)  # sin perder la situación
    assert abs(float(busqueda @ busqueda) - 1.0) < 1e-5
    corta = "¿En cuántos días se admite a trámite una DIA?"
    vector = embeber_consulta(corta)
    assert _con_lo_preguntado(vector, corta, nucleo_de_la_pregunta(corta)) is vector


def test_la_similitud_que_calibra_confianza_y_abstencion_es_la_de_la_consulta_entera():
    busqueda = buscar_normativa(consulta=SITUACION_Y_PREGUNTA, top_k=3)

    entera = embeber_consulta(SITUACION_Y_PREGUNTA)
    for resultado in busqueda.resultados:
        embedding = FragmentoLegal.objects.get(pk=resultado.fragmento_id).embedding
        assert resultado.similitud == pytest.approx(float(entera @ embedding), abs=1e-3)


def test_con_el_corpus_real_la_busqueda_densa_trae_los_mas_cercanos_exactos():
    base = candidatos.fragmentos_buscables(
        normas=None, temas=None, tipos_documento=None, incluir_derogados=False, incluir_documentacion=False
    )
    todos = list(base.values_list("pk", "embedding"))
    ids = [pk for pk, _ in todos]
    matriz = np.asarray([np.asarray(vector, dtype=np.float32) for _, vector in todos])
    for pregunta in ("¿Qué plazo tiene la evaluación de una declaración?", "¿Quién fiscaliza la RCA?"):
        vector = embeber_consulta(pregunta)
        similitudes = matriz @ vector / (np.linalg.norm(matriz, axis=1) * np.linalg.norm(vector))
        exactos = [ids[i] for i in np.argsort(-similitudes)[: candidatos.CANDIDATOS]]

        densos = [pk for pk, _ in candidatos.candidatos_densos(base, vector)]

        assert set(densos) == set(exactos)


def test_el_acta_de_un_fiscalizador_de_la_sma_se_responde_con_la_ley_de_la_sma_y_no_con_la_del_sbap():
    busqueda = buscar_normativa(
        consulta="¿Qué peso tiene en el sancionatorio el acta de fiscalización que levantó la SMA?", top_k=5
    )

    # la Ley 21.600 copia el procedimiento de la SMA (su Art. 122 se titula «Acta de fiscalización»)
    assert busqueda.resultados[0].norma == "Ley 20.417"
    assert not any(r.norma == "Ley 21.600" for r in busqueda.resultados[:3])


def test_las_reglas_del_personal_de_un_servicio_no_responden_por_las_infracciones_del_titular():
    busqueda = buscar_normativa(
        consulta="El Servicio de Biodiversidad descubrió una infracción nuestra de hace cuatro años: "
        "¿aún puede sancionarnos?"
    )

    assert busqueda.resultados[0].cita == "Ley 21.600, Art. 119"
    personal = [r for r in busqueda.resultados if r.cita.startswith("Ley 21.600, Art. 20")]
    assert all(r.rasgos["regimen_interno"] == 1.0 for r in personal)


def test_las_reglas_del_personal_responden_si_la_pregunta_es_por_el_personal():
    busqueda = buscar_normativa(
        consulta="¿Qué valor tienen los hechos que constata un fiscalizador de la SMA?"
    )

    assert "Ley 20.417, Art. 8" in [r.cita for r in busqueda.resultados]
    assert all(r.rasgos.get("regimen_interno", 0.0) == 0.0 for r in busqueda.resultados)


def test_cada_pregunta_de_la_consulta_trae_la_oracion_que_la_responde():
    busqueda = buscar_normativa(
        consulta="Presentamos descargos con una pericia. "
        "¿La Superintendencia debe hacerla o la puede rechazar?"
    )

    art_50 = next(r for r in busqueda.resultados if r.cita == "Ley 20.417, Art. 50")
    # la que rechaza depende de la anterior («En caso contrario, …»): van juntas
    assert "las rechazará mediante resolución motivada" in art_50.oracion
    assert "pertinentes y conducentes" in art_50.oracion


def test_quien_hace_algo_lo_responde_la_oracion_con_el_organo_y_lo_que_hace():
    busqueda = buscar_normativa(
        consulta="El infractor de la ley del SBAP presentó un plan de corrección. ¿Quién lo aprueba?"
    )

    art_141 = next(r for r in busqueda.resultados if r.cita == "Ley 21.600, Art. 141")
    assert "al Ministerio del Medio Ambiente para su aprobación" in art_141.oracion


def test_la_condicion_que_sigue_a_una_oracion_elegida_va_con_ella_aunque_no_sea_la_ultima():
    busqueda = buscar_normativa(
        consulta="¿Qué requisitos deben reunir los certificados de reducción de emisiones para cumplir una "
        "norma de emisión de gases de efecto invernadero?"
    )

    art_15 = next(r for r in busqueda.resultados if r.cita == "Ley 21.455, Art. 15")
    assert "Lo anterior, sujeto a que dichas reducciones" in art_15.oracion
