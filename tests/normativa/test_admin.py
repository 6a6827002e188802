"""Curaduría en el admin: «Probar búsqueda», carga de documentos con avance, edición y borrado lógico."""

import json

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from normativa import tasks
from normativa.busqueda import buscar_normativa
from normativa.models import CargaDocumento, FragmentoLegal, Norma

pytestmark = pytest.mark.django_db

PROBAR = reverse("admin:normativa_probar_busqueda")
CARGAR = reverse("admin:normativa_cargadocumento_add")
NORMA_JSON = json.dumps(
    {"articulos": [{"numero": "1", "texto": "Artículo 1.- Esta ley protege los humedales altoandinos."}]}
).encode()


@pytest.fixture(autouse=True)
def _corpus(corpus):
    return corpus


@pytest.fixture
def curadora(client):
    usuaria = User.objects.create_superuser("curadora", "curadora@example.cl", "clave-segura-123")
    client.force_login(usuaria)
    return client


def test_probar_busqueda_muestra_los_fragmentos_con_puntaje_y_confianza(curadora):
    respuesta = curadora.get(
        PROBAR, {"consulta": "art. 11 letra d ley 19.300", "modo": "hibrido", "top_k": 5}
    )

    html = respuesta.content.decode()
    assert respuesta.status_code == 200
    assert 'id="confianza">HIGH<' in html
    assert "Ley 19.300, Art. 11, letra d)" in html
    assert "idParte=" in html, "cada resultado enlaza a LeyChile"


def test_probar_busqueda_en_modo_texto_no_tiene_similitud_densa(curadora):
    respuesta = curadora.get(PROBAR, {"consulta": "glaciares", "modo": "texto", "top_k": 3})

    assert respuesta.status_code == 200
    assert "modo texto" in respuesta.content.decode()
    assert respuesta.context["busqueda"].resultados[0].similitud is None


def test_probar_busqueda_sin_pregunta_muestra_solo_el_formulario(curadora):
    respuesta = curadora.get(PROBAR)

    assert respuesta.status_code == 200 and respuesta.context["busqueda"] is None


def test_probar_busqueda_exige_ser_personal(client):
    respuesta = client.get(PROBAR, {"consulta": "glaciares"})

    assert respuesta.status_code == 302 and "/admin/login/" in respuesta["Location"]


def test_la_lista_de_fragmentos_enlaza_a_probar_busqueda(curadora):
    respuesta = curadora.get(reverse("admin:normativa_fragmentolegal_changelist"))

    assert PROBAR in respuesta.content.decode()


def test_subir_un_documento_lo_encola_y_el_worker_lo_ingiere_con_avance(
    curadora, django_capture_on_commit_callbacks
):
    archivo = SimpleUploadedFile("humedales.json", NORMA_JSON, content_type="application/json")
    with django_capture_on_commit_callbacks(execute=False) as encolados:
        respuesta = curadora.post(
            CARGAR, {"archivo": archivo, "sigla": "Ley 99.996", "tipo": "ley", "nombre": "Humedales"}
        )

    assert respuesta.status_code == 302
    carga = CargaDocumento.objects.get()
    assert carga.estado == "pendiente" and len(encolados) == 1
    en_curso = curadora.get(reverse("admin:normativa_cargadocumento_change", args=[carga.pk]))
    assert 'http-equiv="refresh"' in en_curso.content.decode(), "la página se recarga mientras se procesa"

    assert tasks.carga_procesar(carga.pk) == "completada"

    carga.refresh_from_db()
    assert (carga.hechos, carga.total) == (1, 1) and carga.version is not None
    pagina = curadora.get(reverse("admin:normativa_cargadocumento_change", args=[carga.pk])).content.decode()
    assert "Versión nueva de Ley 99.996" in pagina and 'http-equiv="refresh"' not in pagina
    assert buscar_normativa(consulta="humedales altoandinos", normas=["Ley 99.996"]).resultados
    assert tasks.carga_procesar(carga.pk) == "completada", "procesar dos veces no ingiere dos veces"


def test_subir_de_nuevo_el_texto_anterior_de_una_norma_lo_vuelve_a_dejar_vigente(
    curadora, django_capture_on_commit_callbacks
):
    anterior = NORMA_JSON
    corregida = NORMA_JSON.replace(b"humedales altoandinos", b"bofedales altoandinos")
    for contenido in (anterior, corregida, anterior):
        archivo = SimpleUploadedFile("humedales.json", contenido, content_type="application/json")
        with django_capture_on_commit_callbacks(execute=False):
            curadora.post(CARGAR, {"archivo": archivo, "sigla": "Ley 99.994", "tipo": "ley", "nombre": "H"})
        assert tasks.carga_procesar(CargaDocumento.objects.latest("pk").pk) == "completada"

    ultima = CargaDocumento.objects.latest("pk")
    assert "Vuelve a estar vigente una versión anterior de Ley 99.994" in ultima.mensaje
    resultados = buscar_normativa(consulta="humedales altoandinos", normas=["Ley 99.994"], modo="texto")
    assert [r.texto for r in resultados.resultados] == [
        "Artículo 1.- Esta ley protege los humedales altoandinos."
    ]


@pytest.mark.parametrize(
    ("nombre", "contenido", "datos", "mensaje"),
    [
        ("guia.pdf", b"no soy un PDF", {"sigla": "DS 40"}, "no es un PDF"),
        ("norma.json", NORMA_JSON, {"sigla": "Ley 99.995"}, "no existe: indique también su tipo y su nombre"),
        ("norma.exe", b"MZ", {"sigla": "DS 40"}, "Formato no soportado"),
    ],
)
def test_un_archivo_invalido_se_rechaza_en_el_formulario_sin_crear_nada(
    curadora, nombre, contenido, datos, mensaje
):
    respuesta = curadora.post(CARGAR, {"archivo": SimpleUploadedFile(nombre, contenido), **datos})

    assert respuesta.status_code == 200
    assert mensaje in respuesta.content.decode()
    assert not CargaDocumento.objects.exists()


def test_una_carga_que_no_se_puede_leer_queda_fallida_con_el_motivo(curadora):
    archivo = SimpleUploadedFile("lista.md", b"# Compras\n- pan\n")
    curadora.post(CARGAR, {"archivo": archivo, "sigla": "Ley 99.994", "tipo": "ley", "nombre": "Compras"})

    assert tasks.carga_procesar(CargaDocumento.objects.get().pk) == "fallida"
    assert "no parece una norma" in CargaDocumento.objects.get().mensaje
    assert not Norma.objects.filter(sigla="Ley 99.994").exists()


def test_editar_el_texto_de_un_fragmento_en_el_admin_lo_reembebe(curadora):
    fragmento = FragmentoLegal.objects.get(norma__sigla="Ley 19.300", articulo="39", letra="")
    antes = list(fragmento.embedding)
    url = reverse("admin:normativa_fragmentolegal_change", args=[fragmento.pk])

    respuesta = curadora.post(
        url,
        {
            "articulo": "39",
            "letra": "",
            "texto": "Artículo 39.- La ley velará por el uso racional del suelo y de los salares.",
            "texto_busqueda": "",
        },
    )

    assert respuesta.status_code == 302
    fragmento.refresh_from_db()
    assert "salares" in fragmento.texto and list(fragmento.embedding) != antes
    assert "Ley 19.300, Art. 39" in [
        r.cita for r in buscar_normativa(consulta="salares", modo="texto", normas=["Ley 19.300"]).resultados
    ]


def test_el_borrado_logico_desde_el_admin_saca_el_fragmento_de_la_busqueda_y_restaurar_lo_devuelve(curadora):
    fragmento = FragmentoLegal.objects.get(norma__sigla="Ley 19.300", articulo="39", letra="")
    lista = reverse("admin:normativa_fragmentolegal_changelist")

    def citas() -> list[str]:
        busqueda = buscar_normativa(consulta="uso racional del suelo", normas=["Ley 19.300"], top_k=5)
        return [r.cita for r in busqueda.resultados]

    assert "Ley 19.300, Art. 39" in citas()
    curadora.post(lista, {"action": "eliminar", "_selected_action": [fragmento.pk]})
    assert "Ley 19.300, Art. 39" not in citas()
    curadora.post(lista, {"action": "restaurar", "_selected_action": [fragmento.pk]})
    assert "Ley 19.300, Art. 39" in citas()


def test_el_peso_de_busqueda_se_edita_desde_la_lista_de_normas(curadora):
    respuesta = curadora.get(reverse("admin:normativa_norma_changelist"))

    assert 'name="form-0-peso_busqueda"' in respuesta.content.decode()
