"""Redacción sin modelo: la primera fuente responde y nombra la institución que su artículo regula."""

import pytest

from asistente.motores.redaccion import elegir_fuentes, hecho_preguntado, la_del_hecho, recortar, redactar
from asistente.registro import Fuente


def fuente(
    extracto: str, epigrafe: str = "", *, norma: str = "DS 40", articulo: str = "26", letra: str = ""
) -> Fuente:
    cita = f"{norma}, Art. {articulo}" if articulo else f"{norma} › {extracto[:20]}"
    datos: Fuente = {
        "fragmento_id": 1,
        "norma": norma,
        "articulo": articulo,
        "letra": letra,
        "cita": cita + (f", letra {letra})" if letra else ""),
        "url": "https://www.bcn.cl/leychile/navegar?idNorma=1053563",
        "extracto": extracto,
        "advertencia": "",
    }
    if epigrafe:
        datos["epigrafe"] = epigrafe
    return datos


def test_la_primera_oracion_nombra_el_epigrafe_del_articulo():
    texto = redactar(
        [
            fuente(
                "Los proponentes podrán dirigirse al Director Regional", "Consulta de pertinencia de ingreso"
            )
        ]
    )

    assert texto.startswith(
        "Según el DS 40, Art. 26 (Consulta de pertinencia de ingreso): «Los proponentes podrán dirigirse"
    )
    assert texto.endswith("[1]")


def test_el_epigrafe_no_se_repite_si_la_oracion_ya_lo_dice():
    texto = redactar(
        [
            fuente(
                "Artículo 26.- Consulta de pertinencia de ingreso. Los proponentes…",
                "Consulta de pertinencia de ingreso",
            )
        ]
    )

    assert texto.count("Consulta de pertinencia de ingreso") == 1


def test_sin_epigrafe_la_cita_va_sola():
    assert redactar([fuente("Los proponentes podrán dirigirse")]).startswith("Según el DS 40, Art. 26: «")


def test_las_letras_de_un_mismo_articulo_no_dejan_fuera_a_los_otros_articulos():
    fuentes = [
        fuente("b) En caso de no requerir…", norma="Ley 19.300", articulo="18 quáter", letra="b"),
        fuente("e) …", norma="Ley 19.300", articulo="18 quáter", letra="e"),
        fuente("d) …", norma="Ley 19.300", articulo="18 quáter", letra="d"),
        fuente("Las empresas de menor tamaño…", articulo="69"),
    ]

    elegidas = elegir_fuentes(fuentes)

    assert [f["cita"] for f in elegidas] == ["Ley 19.300, Art. 18 quáter, letra b)", "DS 40, Art. 69"]


def test_las_secciones_de_una_misma_guia_cuentan_como_una_sola_fuente():
    fuentes = [
        fuente("El plan de cierre se aprueba…", norma="Guía SEA PAS 137", articulo=""),
        fuente("Antecedentes del permiso…", norma="Guía SEA PAS 137", articulo=""),
        fuente("Requisitos para su otorgamiento…", norma="Guía SEA PAS 137", articulo=""),
        fuente("Permiso para la aprobación del plan de cierre…", articulo="137"),
    ]

    elegidas = elegir_fuentes(fuentes)

    assert [f["norma"] for f in elegidas] == ["Guía SEA PAS 137", "DS 40"]


LARGA = (
    "Si el titular es una empresa de menor tamaño y presenta una Declaración, podrá comprometer a su costo "
    "un proceso de evaluación y certificación de conformidad respecto del cumplimiento de la normativa "
    "aplicable al proyecto, de acuerdo a lo señalado en la ley y en el reglamento, y la empresa de menor "
    "tamaño deberá acompañar los antecedentes que acrediten esa calidad ante el Servicio, junto con los "
    "documentos del proyecto y de la empresa de menor tamaño que lo presenta, y el Servicio verificará la "
    "presentación dentro del plazo de diez días contados desde su ingreso, y si cumple la calificará."
)


def test_una_oracion_corta_no_se_recorta():
    assert recortar("La Declaración se presenta ante el Servicio.", "¿Dónde se presenta?", 70) == (
        "La Declaración se presenta ante el Servicio."
    )


def test_una_oracion_larga_se_recorta_a_la_ventana_que_responde_con_puntos_suspensivos():
    recortada = recortar(LARGA, "¿Qué debe acompañar la empresa de menor tamaño?", 30)
    assert len(recortada.split()) <= 32
    assert "…" in recortada
    assert "menor tamaño" in recortada


def test_si_pregunta_por_rapidez_la_ventana_trae_el_plazo_aunque_repita_menos_palabras():
    recortada = recortar(LARGA, "Somos empresa de menor tamaño, ¿hay un camino más rápido?", 30)
    assert "diez días" in recortada


def test_una_lista_de_letras_no_se_recorta():
    lista = "Deberá contener: " + " ".join(
        f"{letra}) un antecedente de la lista del proyecto y su entorno" for letra in "abcdefgh"
    )
    assert recortar(lista, "¿Qué debe contener?", 20) == lista


def test_el_plazo_preguntado_va_primero_tal_como_lo_dice_la_oracion():
    assert hecho_preguntado("¿En qué plazo se califica?", LARGA) == "Diez días"
    assert hecho_preguntado("¿Quién califica?", LARGA) == ""


def test_el_plazo_que_va_primero_dice_para_que_es_si_la_oracion_lo_dice_junto_a_el():
    cargos = "Se notificarán los cargos, confiriéndole un plazo de quince días para formular los descargos."
    assert hecho_preguntado("¿Cuánto tiempo tenemos?", cargos) == "Quince días para formular los descargos"
    # lo que sigue al plazo en otra cláusula no es para qué es
    informe = (
        "El órgano informará dentro de diez días, contados desde la solicitud, para lo cual pedirá datos."
    )
    assert hecho_preguntado("¿En qué plazo informa el órgano?", informe) == "Diez días"


def test_la_cifra_preguntada_va_primero():
    multa = "La infracción gravísima se sancionará con multa de hasta diez mil unidades tributarias anuales."
    assert hecho_preguntado("¿De cuánto es la multa?", multa) == "Diez mil unidades tributarias anuales"
    assert hecho_preguntado("¿Qué multa máxima arriesga?", multa) == "Diez mil unidades tributarias anuales"


def test_la_cifra_que_la_pregunta_ya_trae_no_va_primero():
    umbral = "Es planta grande aquella cuya capacidad es superior a cinco mil metros cúbicos (5.000 m³)."
    pregunta = "Para el umbral de 5.000 m³ de una planta, ¿cuenta el agua de lluvia?"
    assert hecho_preguntado(pregunta, umbral) == ""
    assert hecho_preguntado("¿Cuál es el umbral de una planta grande?", umbral) == "Cinco mil metros cúbicos"
    plazo = "El titular podrá reclamar dentro de treinta días."
    assert hecho_preguntado("¿Los treinta días para reclamar son hábiles?", plazo) == ""


def test_el_plazo_que_va_primero_es_el_de_la_oracion_que_responde_no_el_de_otro_tramite():
    dos_tramites = (
        "De lo que resuelva el consejo podrá apelarse ante la Corte dentro de diez días. "
        "El consejo resolverá la solicitud de permiso en un plazo de cuarenta días."
    )
    assert hecho_preguntado("¿En qué plazo resuelve el consejo la solicitud?", dos_tramites) == (
        "Cuarenta días"
    )


def test_de_varias_preguntas_el_plazo_se_elige_por_la_que_lo_pide():
    dos_plazos = (
        "Si paga la multa dentro de cinco días hábiles sin apelar a la Corte, se le rebajará un tercio. "
        "Podrá apelarse ante la Corte dentro de diez días hábiles."
    )
    pregunta = "¿En qué plazo se apela ante la Corte? ¿Hay rebaja si se paga la multa sin apelar?"
    assert hecho_preguntado(pregunta, dos_plazos) == "Diez días hábiles"


def test_cuantos_de_algo_que_no_es_tiempo_se_responde_con_lo_contado():
    avisos = "El titular publicará, a lo menos, tres avisos en un diario regional dentro de diez días."
    assert hecho_preguntado("¿Cuántos avisos hay que publicar y en qué plazo?", avisos) == "Tres avisos"


def test_con_un_total_las_oraciones_que_siguen_entran_solo_si_caben():
    dos = "La Declaración se presenta ante el Servicio. " + LARGA
    recortada = recortar(dos, "¿Dónde se presenta?", 70, total=20)
    assert recortada == "La Declaración se presenta ante el Servicio."


def test_con_un_total_la_oracion_que_trae_el_dato_gana_a_la_que_solo_anuncia_una_lista():
    extracto = (
        "El informe deberá contener lo siguiente: "
        "El informe deberá estar disponible en el sitio web con cinco días de anticipación a la sesión."
    )
    recortada = recortar(extracto, "¿Con cuánta anticipación se publica el informe?", 40, total=20)
    assert (
        recortada
        == "El informe deberá estar disponible en el sitio web con cinco días de anticipación a la sesión."
    )


# Una oración legal larga cuya consecuencia viene al final, tras la condición.
CONSECUENCIA = (
    "Transcurrido el plazo sin que el Servicio se hubiere pronunciado sobre la solicitud del titular, "
    "y cumplidos los requisitos que establece la ley para el silencio de la administración, "
    "la solicitud, con las aclaraciones que se hubieren presentado durante el procedimiento, "
    "se entenderá aceptada para todos los efectos legales."
)


def test_una_oracion_larga_conserva_la_consecuencia_que_viene_al_final():
    recortada = recortar(
        CONSECUENCIA, "Si el Servicio no se pronuncia a tiempo, ¿qué pasa con la solicitud?", 24
    )

    assert recortada.startswith("Transcurrido el plazo sin que el Servicio se hubiere pronunciado")
    assert recortada.endswith("… se entenderá aceptada para todos los efectos legales.")
    assert len(recortada.split()) < len(CONSECUENCIA.split())


def test_la_excepcion_que_sigue_a_un_inciso_elegido_no_se_corta():
    regla = (
        "Las medidas de compensación se ejecutarán en el mismo predio en que se produzca el impacto "
        "significativo, o, si no fuera posible, en otros predios "
        "de la misma cuenca en que resulten efectivas, y el titular deberá informar su ubicación al "
        "Servicio antes de iniciar su ejecución, con los antecedentes que la acrediten."
    )
    recortada = recortar(regla, "¿La compensación se puede hacer en otro predio que el del impacto?", 25)

    assert "si no fuera posible, en otros predios de la misma cuenca en que resulten efectivas" in recortada


def test_la_fuente_que_apoya_muestra_lo_que_la_primera_no_dijo():
    primera = fuente("La reclamación se presenta ante el Tribunal Ambiental dentro de quince días.")
    segunda = fuente(
        "La reclamación se presenta ante el Tribunal Ambiental del lugar del acto, conforme a las reglas "
        "generales de competencia de los tribunales y de notificación de las partes del procedimiento, y si "
        "el reclamante vive fuera de la región, podrá presentarla en el juzgado de letras de su domicilio.",
        articulo="20",
        norma="Ley 20.600",
    )
    texto = redactar([primera, segunda], pregunta="¿Dónde se presenta la reclamación si vivo en otra región?")

    assert "podrá presentarla en el juzgado de letras de su domicilio" in texto.split("\n\n")[1]


def test_la_cita_no_repite_el_numero_del_articulo_que_ya_nombra():
    texto = redactar(
        [fuente("Artículo 11 ter.- En caso de modificarse un proyecto, la calificación recae en ella.")]
    )
    assert texto.startswith("Según el DS 40, Art. 26: «En caso de modificarse")


def test_una_hora_del_dia_no_es_un_plazo():
    horario = "Los avisos se transmitirán entre las 9:00 y 21:00 horas, dentro de los cinco días siguientes."
    assert hecho_preguntado("¿En qué plazo y horario se transmiten los avisos?", horario) == "Cinco días"


def test_el_numero_del_articulo_al_que_remite_una_oracion_no_cuenta_como_dato():
    extracto = (
        "Los permisos a que se refiere el artículo 83 se regirán por sus leyes respectivas. "
        "Para otorgarlos se requerirá que la autoridad cuente con un plan aprobado y vigente."
    )
    recortada = recortar(extracto, "¿Qué se necesita para obtener los permisos?", 40, total=16)

    assert recortada == "Para otorgarlos se requerirá que la autoridad cuente con un plan aprobado y vigente."


def test_la_oracion_que_depende_de_la_elegida_entra_aunque_pase_el_total_por_poco():
    extracto = (
        "Para otorgar la autorización se requerirá que el área cuente con un plan de manejo aprobado. "
        "Para tal efecto, el órgano competente pedirá el informe favorable del Servicio."
    )
    recortada = recortar(extracto, "¿Qué se requiere para la autorización?", 40, total=16)

    assert recortada.endswith("pedirá el informe favorable del Servicio.")


def test_la_oracion_que_remite_a_otra_que_no_entro_no_se_muestra_sola():
    extracto = (
        "La Comisión podrá abrir un proceso de participación ciudadana por un plazo de veinte días. "
        "El Servicio considerará las observaciones y se pronunciará sobre ellas en su resolución. "
        "Dicho pronunciamiento estará disponible en el sitio web con cinco días de anticipación."
    )
    recortada = recortar(extracto, "¿Cuántos días dura la participación ciudadana?", 40, total=30)

    assert recortada.startswith("La Comisión podrá abrir")
    assert "Dicho pronunciamiento" not in recortada  # sin el pronunciamiento al que remite, no se entiende


def test_la_oracion_que_depende_de_otra_que_no_entro_la_trae_si_cabe_con_la_holgura():
    extracto = (
        "Tratándose de permisos de contenido ambiental, la resolución favorable dispondrá su otorgamiento"
        " por parte de los órganos sectoriales. "
        "Tratándose de permisos mixtos, la resolución favorable certificará que se cumplen sus requisitos"
        " ambientales. "
        "En tal caso, los órganos no podrán denegar esos permisos."
    )
    pregunta = (
        "¿La resolución favorable dispone el otorgamiento de los permisos de contenido ambiental o los"
        " órganos pueden denegarlos?"
    )
    recortada = recortar(extracto, pregunta, 40, total=30)

    # «En tal caso» es el de los permisos mixtos: sin esa oración diría que se trata de los otros
    assert "Tratándose de permisos mixtos" in recortada
    assert recortada.endswith("En tal caso, los órganos no podrán denegar esos permisos.")


@pytest.mark.timeout(10)
def test_una_cadena_de_oraciones_que_dependen_de_una_que_no_cabe_sale_entera_y_el_recorte_termina():
    extracto = (
        "El titular deberá presentar el plan de cierre de la faena ante el servicio dentro del plazo de seis"
        " meses desde la aprobación. "
        "Tratándose de faenas con relaves, el servicio exigirá además una garantía financiera suficiente para"
        " cubrir todas las obras de estabilización física y química del depósito durante su vida útil. "
        "En tal caso, el plan de cierre incluirá la garantía. "
        "Con todo, el plan de cierre podrá actualizarse cada cinco años."
    )
    pregunta = "¿En qué plazo debe el titular presentar el plan de cierre de la faena ante el servicio?"

    assert recortar(extracto, pregunta, 40, total=40) == (
        "El titular deberá presentar el plan de cierre de la faena ante el servicio dentro del plazo de seis"
        " meses desde la aprobación."
    )


def test_dicho_permiso_se_lee_con_la_oracion_que_nombra_el_permiso_aunque_no_sea_la_anterior():
    extracto = (
        "Toda actividad transitoria en un área protegida deberá contar con un permiso del Servicio. "
        "Con todo, no lo requerirán las actividades exceptuadas en el plan de manejo. "
        "Dicho permiso se otorgará solo si la actividad se ajusta al plan de manejo."
    )
    pregunta = "¿En qué casos se otorga el permiso para una actividad transitoria en un área protegida?"
    recortada = recortar(extracto, pregunta, 40, total=28)

    assert recortada.startswith("Toda actividad transitoria")
    assert recortada.endswith("Dicho permiso se otorgará solo si la actividad se ajusta al plan de manejo.")


RANGOS = (
    "Las sanciones que corresponda aplicar se determinarán, según su gravedad, dentro de los siguientes "
    "rangos: a) Las infracciones gravísimas, con revocación de la autorización, clausura temporal o "
    "definitiva, o multa de hasta diez mil unidades. b) Las infracciones graves, con revocación de la "
    "autorización, clausura temporal o definitiva, o multa de hasta cinco mil unidades. c) Las infracciones "
    "leves, con amonestación por escrito o multa de hasta mil unidades."
)


def test_de_una_lista_que_solo_apoya_se_muestra_la_letra_de_la_categoria_preguntada():
    primera = fuente("Las infracciones se clasifican en gravísimas, graves y leves.")
    segunda = fuente(RANGOS, articulo="39", norma="Ley 20.417")
    texto = redactar([primera, segunda], pregunta="¿Cuál es la sanción de una infracción leve?")

    apoyo = texto.split("\n\n")[1]
    assert "c) Las infracciones leves, con amonestación" in apoyo
    assert "diez mil" not in apoyo


def test_la_lista_de_la_primera_fuente_se_muestra_entera():
    texto = redactar([fuente(RANGOS)], pregunta="¿Qué sanciones hay para cada categoría de infracción?")

    assert "a) Las infracciones gravísimas" in texto and "c) Las infracciones leves" in texto


def test_la_fuente_que_repite_a_una_ya_citada_se_nombra_sin_volver_a_citarla():
    regla = "Cuando una resolución sea modificada por otras, el Servicio podrá establecer su texto refundido"
    texto = redactar(
        [
            fuente(regla, norma="Ley 19.300", articulo="25 sexies"),
            fuente("El titular deberá informar cada modificación al Servicio", articulo="12"),
            fuente(f"Artículo 75.- {regla}", articulo="75"),
        ],
        pregunta="¿quién refunde la resolución modificada?",
    )

    assert texto.count("texto refundido") == 1
    assert "El DS 40, Art. 75 dice lo mismo que la Ley 19.300, Art. 25 sexies [3]." in texto
    assert "«El titular deberá informar cada modificación al Servicio» [2]" in texto


def test_una_fuente_que_solo_comparte_el_tema_se_cita():
    texto = redactar(
        [
            fuente(
                "El Servicio podrá establecer el texto refundido de la resolución modificada", articulo="75"
            ),
            fuente("La resolución modificada se notificará al titular dentro de cinco días", articulo="76"),
        ],
        pregunta="¿qué pasa con la resolución modificada?",
    )

    assert "dice lo mismo" not in texto
    assert "cinco días» [2]" in texto


def test_una_cifra_en_palabras_se_dice_entera_y_no_por_su_ultima_palabra():
    oracion = (
        "cuya capacidad de extracción de mineral es superior a cinco mil toneladas mensuales (5.000 t/mes)"
    )

    assert hecho_preguntado("¿Desde cuántas toneladas al mes?", oracion) == "Cinco mil toneladas"


def test_una_regla_casi_igual_con_otro_plazo_se_cita_y_no_se_da_por_repetida():
    texto = redactar(
        [
            fuente(
                "Los órganos dispondrán de un plazo de quince días para informar sobre la Adenda del Estudio"
            ),
            fuente(
                "Los órganos dispondrán de un plazo de diez días para informar sobre la Adenda de la DIA",
                articulo="52",
            ),
        ],
        pregunta="¿cuántos días tienen los órganos para informar sobre la Adenda?",
    )

    assert "dice lo mismo" not in texto and "diez días" in texto


def test_con_seguridad_bastante_la_fuente_que_solo_comparte_el_tema_se_nombra_sin_citarla():
    fuentes = [
        fuente(
            "El titular deberá presentar el plan de cierre al Servicio dentro de treinta días", articulo="4"
        ),
        fuente("El plan de cierre de la faena considera las obras que el titular construyó", articulo="9"),
    ]
    pregunta = "¿En qué plazo el titular presenta el plan de cierre?"

    segura = redactar(fuentes, pregunta=pregunta, seguridad="bastante")
    dudosa = redactar(fuentes, pregunta=pregunta, seguridad="medianamente")

    assert "las obras que el titular construyó" not in segura
    assert segura.endswith("También trata el tema: el DS 40, Art. 9 [2].")
    assert "«El plan de cierre de la faena considera las obras que el titular construyó» [2]" in dudosa


def test_con_seguridad_bastante_la_fuente_que_agrega_otro_plazo_se_cita():
    texto = redactar(
        [
            fuente(
                "El titular deberá presentar el plan de cierre al Servicio dentro de treinta días",
                articulo="4",
            ),
            fuente("Las observaciones al plan de cierre se responden dentro de diez días", articulo="9"),
        ],
        pregunta="¿En qué plazo el titular presenta el plan de cierre?",
        seguridad="bastante",
    )

    assert "«Las observaciones al plan de cierre se responden dentro de diez días» [2]" in texto
    assert "También trata" not in texto


def test_con_seguridad_bastante_un_numero_nuevo_solo_se_cita_si_la_pregunta_pide_una_cifra_o_un_plazo():
    fuentes = [
        fuente("El titular presentará el plan de cierre ante el Servicio", articulo="4"),
        fuente("El plan de cierre de la faena cubre las obras ubicadas a menos de 5 km", articulo="9"),
    ]

    sin_cifra = redactar(fuentes, pregunta="¿Ante quién se presenta el plan de cierre?", seguridad="bastante")
    con_cifra = redactar(
        fuentes, pregunta="¿Cuál es la distancia máxima que cubre el plan de cierre?", seguridad="bastante"
    )

    assert sin_cifra.endswith("También trata el tema: el DS 40, Art. 9 [2].")
    assert "«El plan de cierre de la faena cubre las obras ubicadas a menos de 5 km» [2]" in con_cifra


def test_cada_cuanto_se_responde_con_la_periodicidad_y_no_con_otro_tiempo_de_la_oracion():
    oracion = "El plan tendrá un horizonte de treinta años y será actualizado a lo menos cada cinco años."

    assert hecho_preguntado("¿Cada cuántos años se actualiza el plan?", oracion) == "Cada cinco años"
    assert hecho_preguntado("¿Con qué frecuencia se actualiza?", "Tendrá un horizonte de treinta años.") == ""


def test_el_plazo_que_va_primero_es_el_que_esta_junto_a_lo_preguntado_en_su_oracion():
    oracion = (
        "Los afectados podrán reclamar ante el Tribunal dentro del plazo de quince días hábiles. Si el "
        "infractor no reclama ante el Tribunal y paga la multa dentro de cinco días hábiles, se le rebajará."
    )

    assert hecho_preguntado("¿En qué plazo se presenta la reclamación?", oracion) == "Quince días hábiles"


def test_el_plazo_de_una_ampliacion_va_primero_solo_si_se_pregunta_por_la_ampliacion():
    oracion = (
        "El Servicio calificará el Estudio dentro del plazo de ciento veinte días. En casos calificados, "
        "este plazo podrá ser ampliado hasta por sesenta días adicionales."
    )

    assert hecho_preguntado("¿Cuánto tiempo tiene para calificar y se puede ampliar?", oracion) == (
        "Ciento veinte días"
    )
    assert (
        hecho_preguntado("¿Hasta cuántos días se puede ampliar la calificación?", oracion) == "Sesenta días"
    )


def test_la_cita_de_la_primera_fuente_no_pasa_de_cien_palabras_y_guarda_la_oracion_que_responde():
    relleno = " ".join(["el titular informará las medidas adoptadas en la faena"] * 5)
    extracto = (
        f"Primero, {relleno}. El titular deberá presentar el plan de cierre dentro de treinta días. "
        f"Luego, {relleno}. Finalmente, {relleno}."
    )

    texto = redactar([fuente(extracto)], pregunta="¿En qué plazo se presenta el plan de cierre?")
    cita = texto.split("«", 1)[1].split("»", 1)[0]

    assert "dentro de treinta días" in cita
    assert len(cita.split()) <= 100


def test_de_un_plazo_con_dos_valores_segun_el_instrumento_va_primero_el_del_instrumento_preguntado():
    alternativa = (
        "El consejo resolverá el recurso en un plazo de veinte o cuarenta días, según se trate de una "
        "Declaración o un Estudio de Impacto Ambiental."
    )
    assert hecho_preguntado("¿En qué plazo se resuelve el recurso contra un EIA?", alternativa) == (
        "Cuarenta días"
    )
    assert (
        hecho_preguntado("¿En qué plazo se resuelve el recurso contra una DIA?", alternativa) == "Veinte días"
    )
    # sin instrumento en la pregunta, los dos
    assert hecho_preguntado("¿En qué plazo se resuelve el recurso?", alternativa) == "Veinte o cuarenta días"


def test_el_plazo_que_va_primero_es_el_de_lo_que_se_hace_en_el_aunque_lejos_del_plazo():
    dos_plazos = (
        "El consejo resolverá, mediante acuerdo fundado, en un plazo fatal de cuarenta días. De lo resuelto "
        "mediante dicho acuerdo se podrá recurrir, dentro del plazo de diez días, ante la Corte."
    )
    assert hecho_preguntado("¿En qué plazo debe resolver el consejo el recurso?", dos_plazos) == (
        "Cuarenta días"
    )


def test_con_el_hecho_al_inicio_se_cita_la_oracion_que_lo_dice_y_la_que_la_continua():
    articulo = fuente(
        "Si el permiso carece de antecedentes esenciales, el Servicio lo devolverá al titular. "
        "La devolución solo podrá decidirse dentro de los primeros veinte días desde la solicitud. "
        "Vencido este plazo, no procederá devolver la solicitud por esa causa. "
        "El titular podrá pedir copia del expediente en cualquier momento del trámite."
    )

    texto = redactar([articulo], pregunta="¿En qué plazo puede el Servicio devolver la solicitud?")

    assert texto.startswith("Veinte días, según el DS 40, Art. 26 [1]: «La devolución solo podrá decidirse")
    assert "Vencido este plazo, no procederá devolver" in texto
    assert "carece de antecedentes" not in texto and "copia del expediente" not in texto


def test_la_oracion_del_hecho_trae_la_anterior_si_depende_de_ella():
    citado = (
        "El titular podrá solicitar la ampliación del plazo de la Adenda. "
        "Con todo, la ampliación no podrá exceder de diez días. "
        "El expediente se publicará en el sitio del Servicio."
    )

    assert la_del_hecho(citado, "Diez días", "¿Hasta cuánto se amplía el plazo de la Adenda?") == (
        "El titular podrá solicitar la ampliación del plazo de la Adenda. "
        "Con todo, la ampliación no podrá exceder de diez días."
    )
    # un hecho que ninguna oración trae tal cual deja lo citado entero
    assert la_del_hecho(citado, "Al menos tres avisos", "¿Cuántos avisos?") == citado


def test_la_oracion_del_hecho_no_deja_fuera_la_que_responde_otra_pregunta_ni_la_que_responde_mas():
    citado = (
        "Podrá reclamarse ante el Tribunal dentro de quince días. "
        "Si se paga la multa sin reclamar, se rebajará en un tercio."
    )
    dos_preguntas = "¿En qué plazo se reclama? ¿Hay rebaja si se paga sin reclamar?"
    assert la_del_hecho(citado, "Quince días", dos_preguntas) == citado
    umbral = (
        "Es faena grande aquella cuya extracción de mineral supera las cinco mil toneladas mensuales. "
        "Las canteras son grandes si extraen más de diez mil metros cúbicos."
    )
    pregunta = "Para el umbral de una faena grande, ¿se cuenta solo la extracción de mineral?"
    assert la_del_hecho(umbral, "Diez mil metros cúbicos", pregunta) == umbral


def test_la_fuente_que_apoya_y_trata_solo_del_otro_instrumento_se_nombra_sin_citarla():
    fuentes = [
        fuente("El Estudio de Impacto Ambiental se califica dentro de ciento veinte días", articulo="15"),
        fuente("La Declaración de Impacto Ambiental se califica dentro de sesenta días", articulo="18"),
    ]

    texto = redactar(fuentes, pregunta="¿En cuántos días se califica un EIA?", seguridad="medianamente")
    ambos = redactar(
        fuentes, pregunta="¿En cuántos días se califica una DIA y un EIA?", seguridad="medianamente"
    )

    assert "sesenta días" not in texto
    assert texto.endswith("También trata el tema: el DS 40, Art. 18 [2].")
    assert "«La Declaración de Impacto Ambiental se califica dentro de sesenta días» [2]" in ambos


def test_la_cifra_de_otra_magnitud_que_la_preguntada_no_va_primero():
    articulo = (
        "Es faena grande aquella cuya extracción supera las cinco mil toneladas mensuales (5.000 t/mes). "
        "Las canteras son grandes si extraen más de diez mil metros cúbicos mensuales."
    )

    # la cifra que la pregunta ya trae tampoco: no queda ninguna que responda
    assert hecho_preguntado(
        "Con 300 t/día de mineral, ¿cuál es el umbral de una faena grande?", articulo
    ) == ("Cinco mil toneladas")
    assert hecho_preguntado("Para las 5.000 toneladas del umbral, ¿cuál es el límite?", articulo) == ""


def test_de_una_lista_que_apoya_se_muestran_las_letras_que_responden_partes_distintas_de_la_pregunta():
    lista = (
        "Habrá una oficina regional en cada una de las siguientes ciudades, con la zona que se indica: "
        "a) Oficina del Norte, con sede en la ciudad de Iquique, que atiende en días hábiles los trámites "
        "de las provincias de Arica, Parinacota, Tamarugal y El Loa. "
        "b) Oficina del Centro, con sede en la ciudad de Talca, que atiende en días hábiles los trámites "
        "de las provincias de Curicó, Talca, Linares y Cauquenes. "
        "c) Oficina del Sur, con sede en la ciudad de Osorno, que atiende en días hábiles los trámites "
        "de las provincias de Llanquihue, Chiloé y Palena."
    )
    pregunta = "La obra está en Tamarugal y el efecto llega a Linares. ¿Qué oficina atiende?"

    recortada = recortar(lista, pregunta, 40, listas_enteras=False)

    assert "a) Oficina del Norte" in recortada and "b) Oficina del Centro" in recortada
    assert "Oficina del Sur" not in recortada
    # la que apoya no se alarga si la pregunta nombra una sola parte de la lista
    assert "b) Oficina" not in recortar(lista, "¿Qué oficina atiende Tamarugal?", 40, listas_enteras=False)


def test_las_pistas_de_una_respuesta_poco_segura_no_copian_una_lista_entera():
    lista = "Corresponderá al Director: " + " ".join(
        f"{letra}) una atribución administrativa distinta del servicio" for letra in "abcdefgh"
    )
    texto = redactar(
        [fuente(lista)], pregunta="¿Quién firma los convenios?", seguridad="poco", motivo="ninguno trata"
    )

    assert "h) una atribución" not in texto


def test_el_plazo_de_una_ampliacion_no_encabeza_si_se_pregunta_por_el_plazo_mismo():
    ampliacion = (
        "El Director podrá, por una sola vez, ampliar el plazo de revisión hasta por quince días adicionales."
    )

    assert hecho_preguntado("¿En cuántos días se revisa la solicitud?", ampliacion) == ""
    assert hecho_preguntado("¿Hasta cuántos días se puede ampliar la revisión?", ampliacion) == "Quince días"


def test_el_plazo_que_pide_una_pregunta_sin_verbo_es_el_de_lo_que_pregunto_la_anterior():
    perito = (
        "El juez fijará un plazo al perito para que presente su informe, que no podrá exceder de 30 días."
    )
    apelacion = "De la resolución se podrá recurrir dentro de diez días ante la Corte."
    pregunta = "El tribunal desechó nuestra acción. ¿Cabe recurrir? ¿Hasta cuándo?"

    assert hecho_preguntado(pregunta, perito) == ""
    assert hecho_preguntado(pregunta, apelacion) == "Diez días"
    # la pregunta que dice lo que se hace en el plazo no mira la anterior
    assert (
        hecho_preguntado("¿Cabe recurrir? ¿En qué plazo debe presentar el perito su informe?", perito)
        == "30 días"
    )
