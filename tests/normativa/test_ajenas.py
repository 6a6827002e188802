"""Palabras ajenas: el tema de una pregunta que el corpus no trata se reconoce por sus sustantivos."""

import pytest

from normativa.busqueda.ajenas import _palabras_del_tema, es_ajena, palabras_ajenas
from normativa.busqueda.hibrida import buscar_normativa
from normativa.busqueda.preguntas import nucleo_de_la_pregunta
from normativa.glosario import expandir_consulta


def test_el_tema_no_cuenta_verbos_palabras_comunes_nombres_propios_ni_interrogativos():
    tema = _palabras_del_tema("¿Cuándo empezamos a construir en Copiapó la bodega nueva?")

    assert list(tema) == ["bodega"]


def test_una_palabra_tras_un_pronombre_que_solo_acompana_verbos_es_un_verbo_y_no_el_tema():
    tema = _palabras_del_tema("¿Nos toca pagar la bodega, o le toca al arrendador?")

    assert "toca" not in tema and "bodega" in tema


@pytest.mark.django_db
@pytest.mark.usefixtures("corpus")
def test_una_palabra_del_tema_que_lo_respondido_contiene_no_es_ajena():
    pregunta = "¿Cómo se constituye una servidumbre sobre el predio del vecino?"

    assert {"servidumbre", "vecino"} <= set(palabras_ajenas(pregunta, []))
    assert "servidumbre" not in palabras_ajenas(pregunta, ["Las servidumbres se constituyen así."])


@pytest.mark.django_db
@pytest.mark.usefixtures("corpus")
def test_las_palabras_del_dominio_no_son_ajenas_aunque_lo_respondido_no_las_traiga():
    assert not es_ajena("¿Qué botadero de estériles requiere evaluación ambiental?", [])


@pytest.mark.django_db
@pytest.mark.usefixtures("corpus")
@pytest.mark.parametrize(
    "pregunta",
    [
        "¿Cuánto se paga de arriendo por la bodega y se puede descontar el IVA?",
        "¿Qué indemnización corresponde al vecino por la servidumbre de paso sobre su predio?",
        "¿Cómo se cobra la patente de una pertenencia por hectárea?",
        "¿Qué arancel aduanero paga la importación de explosivos?",
        "¿Cuánto dura el fuero maternal de una trabajadora de la faena?",
        # «factura» y «contratista» aparecen de paso en algún artículo largo, no en lo que se mostraría
        "¿Qué pasa si el contratista no paga las facturas a 30 días?",
    ],
)
def test_una_pregunta_de_otra_rama_del_derecho_con_palabras_del_corpus_no_tiene_base(pregunta):
    assert buscar_normativa(consulta=pregunta).confianza == "NONE"


@pytest.mark.django_db
@pytest.mark.usefixtures("corpus")
@pytest.mark.parametrize(
    "pregunta",
    [
        "¿Hay que tramitar aparte el permiso del plan de cierre?",
        "¿Los avisos radiales tienen algún horario?",
        "¿Corresponde consulta indígena si el proyecto afecta a una comunidad aymara?",
        "¿En qué casos la Superintendencia puede clausurar una faena?",
    ],
)
def test_una_pregunta_del_corpus_dicha_en_lenguaje_de_faena_no_se_declara_ajena(pregunta):
    assert buscar_normativa(consulta=pregunta).confianza != "NONE"


@pytest.mark.django_db
@pytest.mark.usefixtures("corpus")
def test_una_pregunta_que_nombra_una_sigla_del_seia_es_del_seia_aunque_traiga_palabras_ajenas():
    pregunta = "¿Cuánto arriendo se paga por la bodega de la faena"

    assert es_ajena(f"{pregunta}?", [])
    assert not es_ajena(f"{pregunta} mientras se evalúa la DIA?", [])


@pytest.mark.parametrize(
    ("consulta", "nucleo"),
    [
        (
            "Hace un año hubo un derrame en la piscina de la planta. ¿La acción ya prescribió",
            "¿La acción ya prescribió",
        ),
        ("si el tranque rebalsa y mueren peces, ¿quién responde", "¿quién responde"),
        ("Tenemos un botadero. ¿Qué permiso necesitamos? La faena es chica", "¿Qué permiso necesitamos?"),
        ("Tenemos un botadero. ¿Necesita permiso? cuanto demora", "¿Necesita permiso? cuanto demora"),
        ("¿Qué dice el Art. 11 letra c", "¿Qué dice el Art. 11 letra c"),
    ],
)
def test_el_nucleo_de_la_pregunta_es_lo_que_pregunta_sin_la_situacion_que_lo_rodea(consulta, nucleo):
    assert nucleo_de_la_pregunta(consulta) == nucleo


@pytest.mark.django_db
@pytest.mark.usefixtures("corpus")
def test_las_palabras_de_la_historia_que_antecede_a_la_pregunta_no_la_hacen_ajena():
    consulta = (
        "Se rompió una piscina de solución ácida y la filtración llegó a un estero. ¿Cuándo prescribe la "
        "acción por daño ambiental"
    )

    busqueda = buscar_normativa(consulta=consulta, top_k=5)

    assert busqueda.confianza != "NONE" and busqueda.senales is not None
    assert busqueda.senales.ajenas == () and not busqueda.senales.fuera_del_corpus()


@pytest.mark.django_db
@pytest.mark.usefixtures("corpus")
def test_una_palabra_de_la_jerga_de_faena_del_glosario_no_es_ajena():
    # «cancha» no está en el corpus, pero «cancha de acopio» es jerga de faena con su término legal.
    assert "cancha" not in palabras_ajenas("¿Qué permiso requiere la cancha de acopio?", [])
    assert "cancha" in palabras_ajenas("¿Qué permiso requiere la cancha de fútbol del campamento?", [])


@pytest.mark.django_db
@pytest.mark.usefixtures("corpus")
def test_el_umbral_es_jerga_del_consultor_por_la_cantidad_que_fija_la_norma():
    # ninguna norma del corpus dice «umbral»: escribe «igual o superior a» una cantidad
    assert "umbral" not in palabras_ajenas("¿Cuál es el umbral de toneladas para una mina?", [])
    assert expandir_consulta("¿Qué umbral tiene una mina?").endswith("(cantidad igual o superior a)")


@pytest.mark.parametrize(
    ("consulta", "termino"),
    [
        ("¿Se puede alargar el plazo de la evaluación?", "ampliar el plazo"),
        ("¿El Servicio puede estirar los plazos?", "ampliar el plazo"),
        ("Lo hicimos hace seis años: ¿todavía nos pueden sancionar?", "prescripción"),
        ("¿Ya no nos podrían demandar por ese derrame?", "prescripción"),
        ("¿Quiénes deciden si se aprueba el proyecto?", "calificados por una Comisión"),
        ("¿Quién rechaza la DIA?", "calificados por una Comisión"),
        ("¿Qué pasa si después no lo cumplimos?", "incumplimiento"),
        ("¿La nueva chancadora entra al SEIA?", "someterse al sistema de evaluación"),
        ("¿Hay que ingresar la ampliación al sistema de evaluación?", "someterse al sistema de evaluación"),
        ("Antes de tocar la faena, ¿le podemos consultar al Servicio?", "consulta de pertinencia"),
        ("¿Hasta cuándo se puede presentar el PdC?", "programa de cumplimiento"),
        ("Nos acusan de elusión.", "sin contar con Resolución de Calificación Ambiental"),
        ("¿De cuánto es la rebaja por pronto pago?", "se le reducirá"),
        ("¿Quién preside la Coeva?", "Comisión de Evaluación"),
        ("¿Hubo consulta ciudadana?", "participación ciudadana"),
        ("¿Qué OAECA opinan?", "con competencia ambiental"),
        ("¿En cuántos días nos califican la DIA?", "plazo para pronunciarse"),
        ("Perdimos en el Tribunal Ambiental: el fallo nos fue adverso. ¿Hay recurso?", "casación"),
        ("El tribunal declaró inadmisible nuestra demanda, ¿se puede apelar?", "apelación"),
    ],
)
def test_lo_que_el_consultor_dice_con_sus_palabras_se_busca_con_las_de_la_ley(consulta, termino):
    assert termino in expandir_consulta(consulta)


def test_reclamar_ante_el_tribunal_no_es_recurrir_contra_lo_que_el_tribunal_resolvio():
    assert "casación" not in expandir_consulta("¿Qué recurso hay ante el Tribunal Ambiental contra la RCA?")
    assert "casación" not in expandir_consulta("La sentencia del tribunal civil nos dio la razón.")


def test_extender_un_plazo_ya_son_palabras_de_la_ley():
    # «El proponente podrá solicitar la extensión del plazo» (DS 40, Art. 50): no es ampliar la evaluación
    assert "ampliar" not in expandir_consulta("¿Podemos pedir que nos extiendan el plazo?")
