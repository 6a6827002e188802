"""El envoltorio HTTP contra un servidor local real: hosts permitidos, reintentos, cortesía y límites."""

import json

import pytest

from config import http
from config.http import ErrorHttp, solicitar
from tests.utilidades import ServidorLocal


@pytest.fixture
def servidor(settings):
    local = ServidorLocal()
    settings.HTTP_HOSTS_PERMITIDOS = [local.host]
    settings.HTTP_SIN_PAUSA = []
    settings.HTTP_INTERVALO_POR_HOST_MS = 0
    settings.HTTP_TIMEOUT_S = 2
    yield local
    local.cerrar()


@pytest.fixture(autouse=True)
def _sin_esperas_largas(monkeypatch):
    monkeypatch.setattr(http, "ESPERA_BASE_S", 0.05)


def test_una_respuesta_json_se_lee_con_user_agent_y_parametros(servidor):
    servidor.responder(
        "/datos", cuerpo=json.dumps({"ok": True}), cabeceras={"Content-Type": "application/json"}
    )

    respuesta = solicitar(
        url=f"{servidor.url}/datos", parametros={"idNorma": 30667}, tipos_aceptados=("application/json",)
    )

    assert respuesta.json() == {"ok": True}
    metodo, ruta, cabeceras, _, _ = servidor.pedidos[0]
    assert (metodo, ruta) == ("GET", "/datos?idNorma=30667")
    assert cabeceras["User-Agent"].startswith("PrefactibilidadAmbientalMinera/")


def test_un_host_fuera_de_la_lista_no_se_llama_y_el_error_es_permanente(servidor):
    with pytest.raises(ErrorHttp, match="Host no permitido") as error:
        solicitar(url="http://169.254.169.254/latest/meta-data/")

    assert error.value.permanente
    assert servidor.pedidos == []


def test_una_redireccion_hacia_un_host_no_permitido_se_corta(servidor):
    servidor.responder("/salto", estado=302, cabeceras={"Location": "http://10.0.0.1/interno"})

    with pytest.raises(ErrorHttp, match="Host no permitido"):
        solicitar(url=f"{servidor.url}/salto")


def test_un_500_se_reintenta_y_si_luego_responde_se_obtiene_la_respuesta(servidor):
    servidor.responder("/inestable", estado=500)
    servidor.responder("/inestable", estado=200, cuerpo="ahora sí")

    assert solicitar(url=f"{servidor.url}/inestable").texto() == "ahora sí"
    assert len(servidor.pedidos) == 2


def test_un_429_respeta_retry_after_antes_de_reintentar(servidor):
    servidor.responder("/limitada", estado=429, cabeceras={"Retry-After": "1"})
    servidor.responder("/limitada", estado=200, cuerpo="ok")

    solicitar(url=f"{servidor.url}/limitada")

    primero, segundo = servidor.pedidos[0][4], servidor.pedidos[1][4]
    assert segundo - primero >= 0.9


def test_fallas_persistentes_terminan_en_un_error_transitorio_que_dice_cuantos_intentos(servidor):
    servidor.responder("/caida", estado=503)

    with pytest.raises(ErrorHttp, match="tras 3 intentos") as error:
        solicitar(url=f"{servidor.url}/caida", reintentos=2)

    assert not error.value.permanente and error.value.estado == 503


def test_un_404_es_permanente_y_no_se_reintenta(servidor):
    with pytest.raises(ErrorHttp) as error:
        solicitar(url=f"{servidor.url}/no-existe")

    assert error.value.permanente and error.value.estado == 404
    assert len(servidor.pedidos) == 1


def test_un_servidor_que_no_responde_a_tiempo_es_una_falla_transitoria(servidor):
    servidor.responder("/lenta", cuerpo="tarde", demora_s=1.5)

    with pytest.raises(ErrorHttp, match="no respondió") as error:
        solicitar(url=f"{servidor.url}/lenta", timeout_s=0.3, reintentos=0)

    assert not error.value.permanente


def test_una_respuesta_mayor_que_el_limite_se_rechaza(servidor):
    servidor.responder("/grande", cuerpo=b"x" * 5000)

    with pytest.raises(ErrorHttp, match="supera el máximo"):
        solicitar(url=f"{servidor.url}/grande", maximo_bytes=1024)


def test_un_html_donde_se_esperaba_xml_es_un_error(servidor):
    servidor.responder("/obtxml", cuerpo="<html>aviso</html>", cabeceras={"Content-Type": "text/html"})

    with pytest.raises(ErrorHttp, match="se esperaba application/xml"):
        solicitar(url=f"{servidor.url}/obtxml", tipos_aceptados=("application/xml", "text/xml"))


def test_la_cortesia_separa_dos_llamados_al_mismo_host(servidor, settings):
    settings.HTTP_INTERVALO_POR_HOST_MS = 1000
    servidor.responder("/pagina", cuerpo="ok")

    solicitar(url=f"{servidor.url}/pagina")
    solicitar(url=f"{servidor.url}/pagina")

    # El turno se toma justo antes de enviar: el servidor ve llegar el primero algo tarde (63 ms en CI,
    # 111 ms en una máquina cargada), así que la separación que mide es el intervalo menos ese retraso;
    # sin cortesía los dos llegan a milisegundos.
    assert servidor.pedidos[1][4] - servidor.pedidos[0][4] >= 0.6


def test_el_texto_latin1_se_decodifica_con_la_codificacion_indicada(servidor):
    servidor.responder(
        "/eseia", cuerpo="Región de Atacama".encode("latin-1"), cabeceras={"Content-Type": "text/html"}
    )

    assert solicitar(url=f"{servidor.url}/eseia").texto(codificacion="iso-8859-1") == "Región de Atacama"


def test_un_post_de_formulario_llega_codificado(servidor):
    servidor.responder("/buscar", cuerpo="ok")

    solicitar(url=f"{servidor.url}/buscar", metodo="POST", formulario={"nombre": "Mina Norte"})

    assert servidor.pedidos[0][3] == b"nombre=Mina+Norte"


def test_un_esquema_distinto_de_http_se_rechaza_como_permanente(servidor):
    with pytest.raises(ErrorHttp, match="Host no permitido") as error:
        solicitar(url=f"ftp://{servidor.host}/archivo")

    assert error.value.permanente and servidor.pedidos == []


def test_un_retry_after_demasiado_largo_no_bloquea_y_se_informa(servidor):
    servidor.responder("/saturada", estado=503, cabeceras={"Retry-After": "120"})

    with pytest.raises(ErrorHttp, match="el servidor pide esperar 120 s") as error:
        solicitar(url=f"{servidor.url}/saturada")

    assert not error.value.permanente and len(servidor.pedidos) == 1


def test_un_plazo_compartido_corta_los_reintentos_y_lo_dice(servidor):
    servidor.responder("/lenta", cuerpo="tarde", demora_s=1.5)

    with http.plazo(1.0), pytest.raises(ErrorHttp, match="plazo") as error:
        solicitar(url=f"{servidor.url}/lenta", timeout_s=5, reintentos=5)

    assert not error.value.permanente
    assert len(servidor.pedidos) == 1  # sin el plazo: 6 intentos de 1,5 s


def test_un_plazo_vencido_no_llama_y_anidado_vale_el_que_vence_primero(servidor):
    servidor.responder("/rapida", cuerpo="ok")

    with http.plazo(30), http.plazo(0), pytest.raises(ErrorHttp, match="Se agotó el plazo"):
        solicitar(url=f"{servidor.url}/rapida")
    with http.plazo(30):
        assert solicitar(url=f"{servidor.url}/rapida").texto() == "ok"

    assert len(servidor.pedidos) == 1
