"""Qué tan seguro está el asistente de una respuesta: por lo que el primer artículo dice, no por el
tono. Preguntas y oraciones escritas para estas pruebas (no son de ningún conjunto de evaluación)."""

from dataclasses import replace

from normativa.busqueda.hibrida import ResultadoBusqueda
from normativa.busqueda.seguridad import COBERTURA_BASTANTE, COBERTURA_NOMBRADO, COBERTURA_POCA, seguridad_de
from normativa.busqueda.tipos import Resultado
from normativa.referencias import Referencias


def resultado(oracion: str, *, cobertura: float = 0.5, familia: float = 1.0, texto: float = 1.0) -> Resultado:
    return Resultado(
        fragmento_id=1,
        norma="Ley 19.300",
        tipo_documento="ley",
        articulo="20",
        letra="",
        texto=oracion,
        breadcrumb="",
        cita="Ley 19.300, Art. 20",
        url="https://www.bcn.cl/leychile/navegar?idNorma=30667",
        score=1.0,
        similitud=0.9,
        oracion=oracion,
        cobertura=cobertura,
        rasgos={"familia": familia, "texto": texto},
    )


def busqueda(*resultados: Resultado, confianza: str = "HIGH", referencias: Referencias | None = None):
    return ResultadoBusqueda(
        consulta="",
        modo="hibrido",
        confianza=confianza,
        resultados=list(resultados),
        referencias=referencias or Referencias(),
    )


RECLAMO = "Podrá reclamarse, dentro del plazo de treinta días, ante el Comité de Ministros."


def test_el_articulo_que_trata_lo_preguntado_y_trae_el_plazo_da_bastante():
    seguridad = seguridad_de("¿En qué plazo se reclama contra la resolución?", busqueda(resultado(RECLAMO)))
    assert seguridad.nivel == "bastante"
    assert "trata directamente" in seguridad.motivo


def test_si_pide_un_plazo_y_ningun_articulo_cercano_lo_trae_es_poco_y_dice_que_falta():
    sin_plazo = resultado("En contra de la resolución podrá reclamarse ante el Comité de Ministros.")
    seguridad = seguridad_de("¿En qué plazo se reclama contra la resolución?", busqueda(sin_plazo))
    assert seguridad.nivel == "poco"
    assert "un plazo" in seguridad.motivo


def test_si_el_plazo_esta_en_el_segundo_articulo_es_medianamente_y_remite_a_los_otros():
    sin_plazo = resultado("En contra de la resolución podrá reclamarse ante el Comité de Ministros.")
    seguridad = seguridad_de("¿En qué plazo se reclama?", busqueda(sin_plazo, resultado(RECLAMO)))
    assert seguridad.nivel == "medianamente"
    assert "no dice un plazo" in seguridad.motivo


def test_si_pregunta_quien_y_el_articulo_no_nombra_un_organo_no_es_bastante():
    sin_organo = resultado("La resolución podrá reclamarse dentro de treinta días.")
    seguridad = seguridad_de("¿Ante quién se reclama la resolución?", busqueda(sin_organo))
    assert seguridad.nivel != "bastante"
    assert "quién" in seguridad.motivo


def test_quien_puede_pedir_algo_lo_responde_la_persona_a_quien_la_ley_da_el_derecho():
    a_peticion = resultado("La autorización podrá dejarse sin efecto a petición del titular o de oficio.")
    seguridad = seguridad_de(
        "¿Quién puede pedir que se deje sin efecto la autorización?", busqueda(a_peticion)
    )
    assert "quién" not in seguridad.motivo


def test_la_multa_maxima_pide_una_cifra():
    sin_cifra = resultado("Las infracciones gravísimas podrán ser sancionadas con multa.")
    seguridad = seguridad_de("¿Cuál es la multa máxima de una infracción?", busqueda(sin_cifra))
    assert seguridad.nivel == "poco"
    assert "una cifra" in seguridad.motivo


UNA_LETRA = replace(resultado("a.3) La descripción de las obras que se construirán."), letra="a.3")


def test_una_letra_sola_no_da_bastante_si_la_pregunta_pide_la_lista_entera():
    pide_la_lista = replace(busqueda(UNA_LETRA), familias=("contenido",))
    seguridad = seguridad_de("¿Qué debe contener el informe de la faena?", pide_la_lista)
    assert seguridad.nivel == "medianamente"
    assert "parte de la lista" in seguridad.motivo


def test_la_letra_que_la_pregunta_nombra_si_puede_dar_bastante():
    nombrada = replace(busqueda(UNA_LETRA), familias=("contenido",), referencias=Referencias(letra="a.3"))
    assert "parte de la lista" not in seguridad_de("¿Qué pide el literal a.3?", nombrada).motivo


def test_una_cobertura_bajo_el_minimo_es_poco():
    lejano = resultado(RECLAMO, cobertura=COBERTURA_POCA / 2)
    assert seguridad_de("¿Qué pasa con los glaciares?", busqueda(lejano)).nivel == "poco"


def test_una_cobertura_media_sin_familia_es_medianamente():
    medio = resultado(RECLAMO, cobertura=(COBERTURA_POCA + COBERTURA_BASTANTE) / 2, familia=0.0)
    assert seguridad_de("¿Cómo se reclama?", busqueda(medio)).nivel == "medianamente"


def test_sin_resultados_o_fuera_del_corpus_es_poco():
    assert seguridad_de("¿Algo?", busqueda(confianza="NONE")).nivel == "poco"


def test_nombrar_el_articulo_da_bastante_salvo_que_falte_el_dato_pedido():
    citado = Referencias(normas=("Ley 19.300",), articulo="20")
    sin_plazo = resultado("En contra de la resolución podrá reclamarse ante el Comité de Ministros.")
    assert (
        seguridad_de(
            "¿Qué dice el artículo 20 de la Ley 19.300?", busqueda(sin_plazo, referencias=citado)
        ).nivel
        == "bastante"
    )
    pide_plazo = seguridad_de(
        "¿Qué plazo da el artículo 20 de la Ley 19.300?", busqueda(sin_plazo, referencias=citado)
    )
    assert pide_plazo.nivel != "bastante"


def test_un_plazo_de_otro_tramite_no_da_seguridad_aunque_cubra_las_palabras_del_plazo():
    otro_tramite = resultado(RECLAMO)
    otro_tramite.tema = 0.0  # cubre «días» y «plazo», nada del tema de la pregunta
    seguridad = seguridad_de("¿Con cuántos días de aviso se cierra la faena?", busqueda(otro_tramite))
    assert seguridad.nivel == "poco"
    assert "otro trámite" in seguridad.motivo


def test_los_plazos_de_la_historia_no_hacen_de_la_pregunta_una_pregunta_de_plazo():
    aprobada = resultado(
        "Transcurridos los plazos sin pronunciamiento, la Declaración se entenderá aprobada."
    )
    seguridad = seguridad_de(
        "Se vencieron los plazos de la evaluación y nadie vota. ¿Se entiende aprobada la Declaración?",
        busqueda(aprobada),
    )
    assert "plazo" not in seguridad.motivo


def test_nombrar_el_articulo_no_basta_si_su_oracion_casi_no_cubre_el_caso_preguntado():
    citado = Referencias(normas=("Ley 19.300",), articulo="20")
    poco_del_caso = resultado(RECLAMO, cobertura=COBERTURA_NOMBRADO / 2)
    seguridad = seguridad_de(
        "Cerraron el camino de la escuela por la faena, ¿eso cabe en el artículo 20 de la Ley 19.300?",
        busqueda(poco_del_caso, referencias=citado),
    )
    assert seguridad.nivel != "bastante"


def test_un_termino_definido_da_bastante_aunque_su_definicion_cubra_poco_de_la_pregunta():
    definido = Referencias(termino_definido="Declaración de Impacto Ambiental")
    definicion = resultado(
        "Declaración de Impacto Ambiental: el documento descriptivo de una actividad o proyecto.",
        cobertura=COBERTURA_NOMBRADO / 2,
    )
    assert seguridad_de("¿Qué es una DIA?", busqueda(definicion, referencias=definido)).nivel == "bastante"


def test_la_familia_y_la_cobertura_dan_bastante_aunque_bm25_no_lo_ponga_primero():
    solo_denso = resultado(RECLAMO, cobertura=COBERTURA_BASTANTE + 0.05, texto=0.2)
    assert seguridad_de("¿En qué plazo se reclama contra la resolución?", busqueda(solo_denso)).nivel == (
        "bastante"
    )


def test_la_cifra_de_otra_categoria_de_infraccion_no_da_bastante():
    multa_leve = resultado(
        "Las infracciones leves se sancionarán con multa de hasta mil unidades tributarias."
    )
    seguridad = seguridad_de("¿De cuánto es la multa si la infracción es gravísima?", busqueda(multa_leve))
    assert seguridad.nivel != "bastante"
    assert "categoría" in seguridad.motivo
    multa_gravisima = resultado(
        "Las infracciones gravísimas se sancionarán con multa de hasta diez mil unidades tributarias."
    )
    assert (
        seguridad_de("¿De cuánto es la multa si la infracción es gravísima?", busqueda(multa_gravisima)).nivel
        == "bastante"
    )


def test_el_plazo_de_otro_tramite_del_procedimiento_no_da_bastante():
    participacion = resultado(
        "Se podrá decretar un proceso de participación ciudadana por un plazo de veinte días en las "
        "Declaraciones que se presenten a evaluación."
    )

    seguridad = seguridad_de("¿En cuántos días se admite a trámite una Declaración?", busqueda(participacion))

    assert seguridad.nivel == "medianamente"
    assert "otro trámite" in seguridad.motivo


def test_el_plazo_del_tramite_que_la_pregunta_nombra_si_da_bastante():
    participacion = resultado(
        "Se podrá decretar un proceso de participación ciudadana por un plazo de veinte días en las "
        "Declaraciones que se presenten a evaluación."
    )

    seguridad = seguridad_de(
        "¿Cuántos días dura la participación ciudadana de una Declaración?", busqueda(participacion)
    )

    assert seguridad.nivel == "bastante"


def test_la_ampliacion_de_un_plazo_no_responde_cuanto_es_el_plazo():
    ampliacion = resultado(
        "En casos calificados se podrá ampliar el plazo de evaluación hasta por treinta días adicionales."
    )

    del_plazo = seguridad_de("¿Cuánto plazo hay para evaluar una Declaración?", busqueda(ampliacion))
    de_la_ampliacion = seguridad_de("¿Cuánto se puede ampliar el plazo de evaluación?", busqueda(ampliacion))

    assert del_plazo.nivel == "medianamente"
    assert "ampliación" in del_plazo.motivo
    assert de_la_ampliacion.nivel == "bastante"


def test_el_articulo_de_otra_ley_que_la_del_organo_nombrado_no_da_bastante():
    reclamacion = resultado("De lo resuelto se podrá reclamar dentro del plazo de treinta días.")

    seguridad = seguridad_de(
        "¿En qué plazo se reclama contra una resolución de la Superintendencia?", busqueda(reclamacion)
    )

    assert reclamacion.norma == "Ley 19.300"
    assert seguridad.nivel == "medianamente"
    assert "órgano que nombra" in seguridad.motivo
    de_su_ley = replace(reclamacion, norma="Ley 20.417")
    assert (
        seguridad_de(
            "¿En qué plazo se reclama contra una resolución de la Superintendencia?", busqueda(de_su_ley)
        ).nivel
        == "bastante"
    )


def test_si_pregunta_por_la_etapa_que_se_repite_el_plazo_de_esa_etapa_si_responde():
    etapa = resultado(
        "Se deberá abrir una nueva etapa de participación ciudadana, esta vez por diez días, período en el "
        "cual se suspenderá el plazo de evaluación."
    )

    seguridad = seguridad_de(
        "¿Se repite la etapa de participación ciudadana y por cuántos días?", busqueda(etapa)
    )

    assert seguridad.nivel == "bastante"


def test_la_composicion_de_otro_organo_no_responde_quienes_integran_el_nombrado():
    tecnico = (
        "El Comité Técnico estará integrado por el Secretario Regional Ministerial y el Director Regional."
    )
    ministros = "El Comité de Ministros estará integrado por los Ministros de Salud y de Minería."
    pregunta = "¿Quiénes integran el Comité de Ministros?"

    def de_composicion(oracion: str):
        return replace(busqueda(resultado(oracion)), familias=("composicion",))

    seguridad = seguridad_de(pregunta, de_composicion(tecnico))

    assert seguridad.nivel == "medianamente"
    assert "no nombra el órgano" in seguridad.motivo
    assert seguridad_de(pregunta, de_composicion(ministros)).nivel == "bastante"


def test_si_la_ley_define_el_termino_pero_lo_primero_no_es_su_definicion_no_es_bastante_por_nombrarlo():
    definido = Referencias(termino_definido="línea de base")
    contenido = resultado("Los estudios considerarán la descripción de la línea de base.", familia=0.0)
    definicion = replace(
        resultado("Línea de base: la descripción detallada del área de influencia.", familia=0.0),
        rasgos={"definicion": 1.0},
    )

    segunda = seguridad_de("¿Qué es la línea de base?", busqueda(contenido, definicion, referencias=definido))
    primera = seguridad_de("¿Qué es la línea de base?", busqueda(definicion, contenido, referencias=definido))

    assert segunda.nivel == "medianamente"
    assert primera.nivel == "bastante"


def test_cada_cuanto_no_lo_responde_un_plazo_que_no_es_una_periodicidad():
    horizonte = resultado("El plan de descontaminación considerará un horizonte de diez años para sus metas.")
    periodica = resultado("Todo plan de descontaminación será revisado, a lo menos, cada cinco años.")
    pregunta = "¿Cada cuántos años se revisa el plan de descontaminación?"

    sin_periodicidad = seguridad_de(pregunta, busqueda(horizonte))
    con_periodicidad = seguridad_de(pregunta, busqueda(periodica))

    assert sin_periodicidad.nivel == "poco"
    assert "cada cuánto" in sin_periodicidad.motivo
    assert con_periodicidad.nivel == "bastante"


def test_si_pide_la_lista_de_circunstancias_no_basta_el_articulo_que_solo_comparte_el_tema():
    pago = resultado(
        "La multa será pagada en la Tesorería dentro de diez días desde la notificación de la multa."
    )
    lista = resultado("Para determinar la multa se considerarán las siguientes circunstancias:")
    pregunta = "¿Qué circunstancias se consideran para determinar la multa?"

    assert seguridad_de(pregunta, busqueda(pago, lista)).nivel == "medianamente"
    assert "la lista que pide" in seguridad_de(pregunta, busqueda(pago, lista)).motivo
    assert seguridad_de(pregunta, busqueda(lista)).nivel == "bastante"


def test_que_sanciones_no_lo_responde_la_oracion_que_clasifica_las_infracciones():
    clasifica = resultado("Las infracciones se clasificarán en gravísimas, graves y leves.")
    sanciona = resultado(
        "Las infracciones graves podrán ser objeto de clausura o multa de hasta cinco mil UTA."
    )
    pregunta = "¿Qué sanciones arriesga una infracción grave?"

    assert seguridad_de(pregunta, busqueda(clasifica, sanciona)).motivo.startswith(
        "el primer artículo no dice la sanción"
    )
    assert seguridad_de(pregunta, busqueda(sanciona)).nivel == "bastante"


def test_cubrir_poco_de_una_pregunta_larga_no_es_poco_si_el_epigrafe_y_la_busqueda_densa_coinciden():
    titularidad = resultado("Los titulares deberán informar de los cambios en la titularidad.", cobertura=0.1)
    de_acuerdo = replace(titularidad, rasgos={**titularidad.rasgos, "epigrafe": 1.0, "denso": 1.0})
    pregunta = "Compramos la mina a otra empresa y la resolución sigue a su nombre. ¿Hay que avisar?"

    assert seguridad_de(pregunta, busqueda(titularidad)).nivel == "poco"
    assert seguridad_de(pregunta, busqueda(de_acuerdo)).nivel == "medianamente"


def test_el_tema_que_cubre_poco_no_se_explica_como_plazo_de_otro_tramite_si_no_se_pregunta_un_plazo():
    aviso = replace(resultado("Los titulares informarán los cambios de titularidad."), tema=0.05)

    seguridad = seguridad_de("¿Hay que informar el cambio de titularidad?", busqueda(aviso))

    assert "plazo" not in seguridad.motivo


def test_quien_lo_responde_tambien_el_servicio_que_la_ley_nombra_con_su_nombre_corto():
    aprobacion = resultado("Los planes de manejo serán aprobados mediante resolución del Servicio.")

    seguridad = seguridad_de("¿Quién aprueba los planes de manejo?", busqueda(aprobacion))

    assert "quién" not in seguridad.motivo


def test_cuantas_de_algo_lo_responde_la_oracion_que_las_cuenta():
    sin_contar = resultado("El Servicio podrá realizar audiencias con la comunidad durante veinte días.")
    contando = resultado("El Servicio realizará a lo menos tres audiencias con la comunidad.")
    pregunta = "¿Cuántas audiencias realiza el Servicio con la comunidad?"

    assert "cuántas audiencias" in seguridad_de(pregunta, busqueda(sin_contar)).motivo
    assert seguridad_de(pregunta, busqueda(contando)).nivel == "bastante"


def test_lo_que_rige_en_una_region_lo_responde_el_articulo_que_la_nombra():
    general = resultado("Será competente el Tribunal Ambiental del lugar donde se aplique el instrumento.")
    regional = resultado(
        "Segundo Tribunal Ambiental, con asiento en Santiago y competencia en la Región Metropolitana."
    )
    general, regional = (replace(r, norma="Ley 20.600") for r in (general, regional))
    pregunta = "¿Qué tribunal ambiental es competente en la Región Metropolitana?"

    assert "no nombra la región" in seguridad_de(pregunta, busqueda(general)).motivo
    assert seguridad_de(pregunta, busqueda(regional)).nivel == "bastante"


def test_el_numero_de_una_lista_o_de_un_articulo_no_es_la_cifra_que_pide_la_pregunta():
    clases = resultado(
        "Las infracciones se clasificarán en gravísimas, graves y leves. 1.- Son infracciones gravísimas las "
        "que infrinjan el artículo 10 de la ley Nº 19.300. 2.- Son graves las demás."
    )
    con_la_cifra = resultado(
        "La infracción grave se sanciona con multa de hasta cinco mil unidades tributarias."
    )

    pregunta = "¿Cuál es la multa máxima de una infracción grave?"
    assert seguridad_de(pregunta, busqueda(clases)).nivel == "poco"
    assert seguridad_de(pregunta, busqueda(con_la_cifra)).nivel == "bastante"


def test_los_criterios_para_fijar_el_monto_o_lo_que_se_pide_como_minimo_no_piden_una_cifra():
    criterios = resultado(
        "Para determinar la sanción se considerarán las siguientes circunstancias: a) la importancia del "
        "daño causado; b) el beneficio económico obtenido con la infracción."
    )
    seguridad = seguridad_de(
        "¿Qué criterios se consideran para fijar el monto de la multa?", busqueda(criterios)
    )
    assert seguridad.nivel != "poco" and "cifra" not in seguridad.motivo
    contenido = resultado("La declaración deberá contener la descripción del proyecto y sus antecedentes.")
    seguridad = seguridad_de("¿Qué debe contener como mínimo la declaración?", busqueda(contenido))
    assert "cifra" not in seguridad.motivo


def test_el_plazo_de_otra_actuacion_del_mismo_tramite_no_da_bastante():
    presentar = resultado(
        "Iniciado el procedimiento, el infractor presentará un plan de acciones en un plazo de diez días."
    )
    pregunta = "¿Qué plazo tiene la autoridad para pronunciarse sobre el plan de acciones?"
    seguridad = seguridad_de(pregunta, busqueda(presentar))
    assert seguridad.nivel == "medianamente" and "otra actuación" in seguridad.motivo
    pronunciarse = resultado(
        "La autoridad deberá pronunciarse sobre el plan de acciones en el plazo de veinte días."
    )
    assert seguridad_de(pregunta, busqueda(pronunciarse)).nivel == "bastante"


def test_quien_lo_responden_tambien_los_organos_en_plural_y_los_comites():
    for oracion in (
        "La elaboración de los planes de cuenca corresponderá a los Comités de Cuenca.",
        "Las municipalidades deberán elaborar los planes de acción local.",
    ):
        seguridad = seguridad_de("¿A quién corresponde elaborar los planes?", busqueda(resultado(oracion)))

        assert "quién" not in seguridad.motivo, oracion


def test_si_pide_los_requisitos_y_la_oracion_no_dice_ninguno_no_es_bastante():
    eleccion = resultado("El presidente del consejo será elegido por sus miembros en la primera sesión.")
    requisitos = resultado("Los consejeros deberán tener título profesional y cinco años de experiencia.")
    pregunta = "¿Qué requisitos deben cumplir los consejeros?"

    assert seguridad_de(pregunta, busqueda(eleccion)).nivel != "bastante"
    assert "requisito" in seguridad_de(pregunta, busqueda(eleccion)).motivo
    assert "requisito" not in seguridad_de(pregunta, busqueda(requisitos)).motivo
