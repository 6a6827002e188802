"""Las familias de pregunta se reconocen sin modelo, por la forma de la pregunta."""

import pytest
from pgvector.django import CosineDistance

from config.texto import sin_tildes
from normativa.busqueda.familias import (
    ASPECTOS,
    acciones_del_plazo,
    afin,
    anclas,
    anclas_por_cercania,
    aspectos_de,
    de_otra_categoria,
    familias_de,
    hace_en_el_plazo,
    tiene_tiempo,
)
from normativa.embeddings import embeber_consulta
from normativa.indice import actualizar_texto_completo, estadisticas_refrescar
from normativa.models import FragmentoLegal, Norma, VersionNorma


@pytest.mark.parametrize(
    ("pregunta", "familia"),
    [
        ("¿Podemos pedir más tiempo para responder la Adenda?", "plazo"),
        ("Ya se presentó la solicitud hace meses; ¿todavía pueden rechazarla?", "plazo"),
        ("¿Estamos a tiempo de reclamar contra la resolución?", "plazo"),
        ("¿Cuánto se puede demorar la Comisión en votar el Estudio?", "plazo"),
        ("¿Cuánto nos va a tardar la respuesta del Comité de Ministros?", "plazo"),
        ("¿Qué multa arriesga quien no cumple la RCA?", "sancion"),
        ("¿Qué es una línea de base?", "definicion"),
        ("¿Qué debe contener una DIA como mínimo?", "contenido"),
        ("¿Cuándo se requiere un EIA en vez de una DIA?", "eia_o_dia"),
        ("¿Un concentraducto tiene que entrar al SEIA por sí solo?", "ingreso"),
        ("¿Conviene hacer una consulta de pertinencia?", "pertinencia"),
        ("Queremos ampliar la planta, ¿es un cambio de consideración?", "modificacion"),
        ("¿Se puede dividir el proyecto por etapas?", "fraccionamiento"),
        ("¿Cuántos avisos radiales hay que pasar?", "participacion"),
        ("¿Hay que consultar a los pueblos indígenas?", "consulta_indigena"),
        ("¿Qué PAS corresponde para el botadero?", "permiso"),
        ("¿Cuándo caduca una RCA?", "caducidad"),
        ("¿Ante quién se reclama si rechazan la DIA?", "recursos"),
        ("¿Quiénes forman parte de la Comisión de Evaluación?", "composicion"),
        # lo que se toma en cuenta para decidir algo son sus criterios: la respuesta es la lista
        ("¿Qué toma en cuenta el Tribunal al fijar la indemnización?", "composicion"),
        ("¿Qué considera el Servicio para otorgar el permiso?", "composicion"),
        ("¿Qué atribuciones tiene la Superintendencia?", "composicion"),
        # lo mismo dicho en la faena, sin el nombre de la institución
        ("¿Y si separamos la faena en dos proyectos distintos?", "fraccionamiento"),
        ("Si no hemos empezado a construir, ¿se cae la RCA?", "caducidad"),
        ("¿Le podemos consultar al SEA si el cambio tiene que ingresar?", "pertinencia"),
    ],
)
def test_cada_familia_se_reconoce_en_una_pregunta_de_su_clase(pregunta, familia):
    assert familia in familias_de(pregunta)


def test_donde_sin_un_reclamo_es_un_lugar_y_no_pregunta_por_un_organo():
    assert "quien" not in [a.nombre for a in aspectos_de("¿Dónde se publica el extracto del Estudio?")]


def test_una_pregunta_ajena_al_seia_no_tiene_familia():
    assert familias_de("¿Cuánto IVA pago al importar un camión?") == ()


@pytest.mark.parametrize(
    ("pregunta", "aspecto"),
    [
        ("¿Ante quién se presenta el recurso?", "quien"),
        ("Si nos rechazan la pertinencia, ¿alguien más puede revisar esa decisión?", "quien"),
        ("Si la comunidad reclama, ¿puede hacerse parte del procedimiento?", "parte"),
        ("¿El denunciante queda como parte del sancionatorio?", "parte"),
        ("¿Qué arriesgamos si no informamos?", "consecuencia"),
        # la consecuencia se pregunta también sin «qué»
        ("No entregamos el informe a tiempo. ¿Tiene alguna consecuencia?", "consecuencia"),
        ("¿Pasa algo si lo presentamos tarde?", "consecuencia"),
        ("¿Qué tenemos que hacer antes de operar?", "obligacion"),
        # dónde se reclama o se impugna es ante quién: el tribunal o el órgano que conoce
        ("Nos negaron la solicitud. ¿Se puede reclamar? ¿Dónde y hasta cuándo?", "quien"),
        ("¿Dónde se presenta la demanda por daño ambiental?", "quien"),
    ],
)
def test_lo_que_la_pregunta_pide_ademas_de_su_tema_se_reconoce_por_su_forma(pregunta, aspecto):
    assert aspecto in [a.nombre for a in aspectos_de(pregunta)]


@pytest.mark.parametrize(
    ("oracion", "aspecto"),
    [
        ("Dos de ellos deberán tener título de abogado y diez años de ejercicio.", "condicion"),
        ("La elaboración de los planes corresponderá a los Comités Regionales.", "quien"),
        ("Las municipalidades deberán elaborar planes comunales.", "quien"),
    ],
)
def test_la_oracion_que_dice_el_requisito_o_el_organo_responde_ese_aspecto(oracion, aspecto):
    respuesta = next(a.respuesta for a in ASPECTOS if a.nombre == aspecto)

    assert respuesta.search(sin_tildes(oracion).lower())


def test_formar_parte_de_un_organo_no_es_preguntar_por_la_calidad_de_parte():
    assert "parte" not in [
        a.nombre for a in aspectos_de("¿Quiénes forman parte de la Comisión de Evaluación?")
    ]


def test_la_afinidad_reconoce_la_clase_del_fragmento_por_su_encabezado():
    assert afin(("permiso",), "permiso para la corta, destruccion o descepado de formaciones xerofiticas")
    # el epígrafe largo de un permiso no se lee como epígrafe: abre la segunda línea del artículo
    assert afin(("permiso",), "\narticulo 131.-\npermiso para realizar trabajos de conservacion")
    assert not afin(("caducidad",), "permiso para la corta de bosque nativo")
    # así anuncia la ley a los miembros de un órgano o sus funciones
    assert afin(("composicion",), "articulo 81.- correspondera al servicio:\na) la administracion del")
    assert afin(("composicion",), "habra un consejo nacional para la sustentabilidad integrado por:")


def test_una_expresion_de_tiempo_se_reconoce_en_palabras_en_cifras_y_en_horas():
    assert tiene_tiempo("en el plazo de quince dias")
    assert tiene_tiempo("hasta por dos veces")
    assert tiene_tiempo("entre las 9:00 y 21:00 horas")
    assert not tiene_tiempo("el titular del proyecto")


@pytest.mark.django_db
@pytest.mark.usefixtures("corpus")
def test_las_anclas_de_una_familia_son_los_articulos_de_ley_o_reglamento_de_su_clase():
    caducidad = FragmentoLegal.objects.filter(pk__in=anclas("caducidad")).select_related("norma")

    assert {(f.norma.sigla, f.articulo) for f in caducidad} >= {("DS 40", "73"), ("Ley 19.300", "25 ter")}
    assert all(not f.letra for f in caducidad)


def test_un_plazo_que_solo_cuenta_la_historia_no_hace_de_la_pregunta_una_de_plazo():
    consulta = "Ya pasaron los plazos de la evaluación y nadie resolvió. ¿Qué efecto tiene ese silencio?"

    assert "plazo" in familias_de(consulta)
    assert "plazo" not in familias_de(consulta, preguntado="¿Qué efecto tiene ese silencio?")
    assert "plazo" in familias_de(consulta, preguntado="¿Cuánto tiempo tenemos?")


def test_repartir_no_es_reparar():
    assert "medidas" in familias_de("Si no se puede reparar el daño, ¿qué medida corresponde?")
    assert "medidas" not in familias_de("¿Cómo se reparten las ganancias entre los dueños?")


@pytest.mark.django_db
def test_las_anclas_se_ordenan_por_cercania_como_las_ordena_pgvector(corpus):
    vector = embeber_consulta("¿En qué plazo se pronuncian los organismos sobre una Declaración?")

    cercanas = anclas_por_cercania(("plazo",), vector)["plazo"]

    por_pgvector = list(
        FragmentoLegal.objects.filter(pk__in=anclas("plazo"), embedding__isnull=False)
        .annotate(distancia=CosineDistance("embedding", vector))
        .order_by("distancia", "pk")
        .values_list("pk", flat=True)
    )
    assert len(cercanas) > 4
    assert cercanas[:10] == por_pgvector[:10]


@pytest.mark.django_db
def test_un_articulo_nuevo_es_ancla_en_cuanto_la_ingesta_refresca_el_corpus(corpus):
    antes = set(anclas("caducidad"))
    norma = Norma.objects.create(sigla="Ley de prueba", tipo=Norma.Tipo.LEY, nombre="Ley de prueba")
    version = VersionNorma.objects.create(norma=norma, fuente="prueba", hash="prueba", vigente=True)
    nuevo = FragmentoLegal.objects.create(
        norma=norma,
        version=version,
        tipo=FragmentoLegal.Tipo.ARTICULO,
        orden=1,
        breadcrumb="Ley de prueba › Artículo 1",
        articulo="1",
        texto="Artículo 1.-\nCaducidad del permiso.\nEl permiso caducará si no se ejecuta en cinco años.",
        hash_contenido="",
        embedding=[0.05] * 384,
    )
    actualizar_texto_completo(ids=[nuevo.pk])

    estadisticas_refrescar()

    assert set(anclas("caducidad")) == antes | {nuevo.pk}


def test_la_oracion_que_nombra_solo_otra_categoria_de_infraccion_no_responde():
    assert de_otra_categoria("¿Qué multa tiene una infracción grave?", "las infracciones leves, con multa")
    assert not de_otra_categoria(
        "¿Qué multa tiene una infracción grave?", "las infracciones graves, con multa"
    )
    assert not de_otra_categoria("¿Qué multa hay?", "las infracciones leves, con multa")


def test_quien_sin_tilde_en_un_texto_con_tildes_es_el_relativo_y_no_pregunta_por_un_organo():
    def nombres(consulta: str) -> set[str]:
        return {a.nombre for a in aspectos_de(consulta)}

    assert "quien" not in nombres("¿Con qué se sanciona a quien fracciona un proyecto?")
    assert "quien" in nombres("¿Ante quién se reclama?")
    assert "quien" in nombres("ante quien se reclama la multa")  # sin tildes puede ser cualquiera


def test_el_responsable_del_proyecto_no_es_una_consecuencia_y_la_responsabilidad_por_el_dano_si():
    consecuencia = next(a for a in aspectos_de("¿Qué pasa si no cumplo?") if a.nombre == "consecuencia")

    assert not consecuencia.respuesta.search(
        "el responsable del proyecto podra presentar una nueva declaracion"
    )
    assert consecuencia.respuesta.search("se presume legalmente la responsabilidad del autor del dano")
    # repartir las tareas de un plan no es una consecuencia de no cumplirlo
    assert not consecuencia.respuesta.search("con indicacion de plazos y asignacion de responsabilidades, y")
    assert consecuencia.respuesta.search("el infractor sera responsable de la reparacion")


@pytest.mark.parametrize(
    ("pregunta", "acciones"),
    [
        ("¿En qué plazo debe resolver el consejo la apelación?", {"resolv"}),
        ("¿Qué plazo tiene el titular para pronunciarse sobre el informe?", {"pronun"}),
        ("¿En qué plazo hay que pagarla?", {"pag"}),
        # lo que aclara una sigla no es lo que se hace
        ("¿Cuánto tiempo tiene el SEA (Servicio de Evaluación Ambiental) para evaluar?", {"evalu"}),
        # «¿cuántos avisos…?» no pide un plazo aunque siga un «cuando»
        ("¿Cuántos avisos hay que pasar cuando se ingresa?", set()),
        ("¿Qué es una declaración?", set()),
    ],
)
def test_lo_que_se_hace_en_el_plazo_preguntado_es_el_verbo_que_sigue_a_la_pregunta(pregunta, acciones):
    assert acciones_del_plazo(pregunta) == acciones


def test_el_plazo_de_lo_que_se_hace_es_el_de_la_clausula_que_lo_nombra():
    dos_plazos = (
        "La autoridad resolverá, mediante resolución fundada, en un plazo de sesenta días. De lo resuelto se "
        "podrá reclamar dentro de diez días."
    )
    assert hace_en_el_plazo(frozenset({"resolv"}), dos_plazos)
    assert not hace_en_el_plazo(
        frozenset({"resolv"}), "De lo resuelto se podrá reclamar dentro de diez días."
    )
    # un participio irregular lleva la raíz acortada: «interponer» → «interp»
    assert hace_en_el_plazo(
        acciones_del_plazo("¿En qué plazo se puede interponer?"), "Será interpuesto en diez días."
    )


@pytest.mark.parametrize(
    ("oracion", "es_consecuencia"),
    [
        ("Desde la aprobación del plan, el plazo de prescripción se suspenderá.", True),
        ("La notificación de los cargos interrumpirá la prescripción y se interrumpirá el plazo.", True),
        ("Una propuesta de plan de corrección de la degradación causada por el hecho infraccional.", False),
    ],
)
def test_suspender_un_plazo_es_una_consecuencia_y_el_hecho_infraccional_no(oracion, es_consecuencia):
    respuesta = next(a.respuesta for a in ASPECTOS if a.nombre == "consecuencia")

    assert bool(respuesta.search(sin_tildes(oracion).lower())) is es_consecuencia


def test_la_oracion_que_encarga_los_requisitos_a_un_reglamento_no_los_dice():
    condicion = next(a for a in ASPECTOS if a.nombre == "condicion")

    assert not condicion.responde(
        "un reglamento establecera los requisitos para la procedencia de los proyectos"
    )
    assert condicion.responde("lo anterior, sujeto a que dichas reducciones sean adicionales y verificables")
