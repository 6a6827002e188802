"""BCN LeyChile contra un servidor local que sirve la respuesta real de `obtxml` (idNorma 243302) y
variantes: un artículo cambiado, uno derogado, una página HTML en vez del XML y la fuente caída."""

import re
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from django.contrib.auth.models import AbstractUser
from django.core.cache import cache
from django.utils import timezone

from asistente.models import Aviso, ConfiguracionAvisos
from config import http
from config.http import ErrorHttp
from fuentes_externas import bcn
from fuentes_externas import cache as cache_fuentes
from fuentes_externas.models import EstadoFuente
from normativa.models import FragmentoLegal, Norma, VersionNorma
from proyectos.models import Analisis, Cliente
from proyectos.roles import Rol
from proyectos.services import proyecto_crear
from tests.utilidades import ServidorLocal

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "bcn" / "obtxml_opt7_idNorma243302.xml"
RUTA = "/Consulta/obtxml"
SIGLA = "Res. Ex. 3240"
SEGUNDA_PARTE = (
    '<EstructuraFuncional transitorio="no transitorio" tipoParte="Art&#237;culo" '
    'fechaVersion="2005-10-28" derogado="no derogado" idParte="6545486">'
    "<Texto>Art&#237;culo 2.- Los colectores se retirar&#225;n al t&#233;rmino del per&#237;odo "
    "autorizado.</Texto></EstructuraFuncional></EstructurasFuncionales>"
)


def variante(*, cambio: bool = False, derogado: bool = False) -> str:
    """La respuesta real con una segunda parte (para ver que solo se re-embebe lo que cambió)."""
    texto = REAL.read_text(encoding="utf-8").replace("</EstructurasFuncionales>", SEGUNDA_PARTE, 1)
    if cambio:
        texto = texto.replace("el per&#237;odo de seis meses", "el per&#237;odo de doce meses")
        texto = texto.replace('fechaVersion="2005-10-28"', 'fechaVersion="2026-11-01"')
    if derogado:
        texto = re.sub(
            r'derogado="no derogado" idParte="6545486"', 'derogado="derogado" idParte="6545486"', texto
        )
    return texto


@pytest.fixture
def servidor(settings: object) -> Iterator[ServidorLocal]:
    local = ServidorLocal()
    settings.HTTP_HOSTS_PERMITIDOS = [local.host]  # type: ignore[attr-defined]
    settings.HTTP_INTERVALO_POR_HOST_MS = 0  # type: ignore[attr-defined]
    settings.HTTP_TIMEOUT_S = 2  # type: ignore[attr-defined]
    settings.LEYCHILE_URL = local.url  # type: ignore[attr-defined]
    yield local
    local.cerrar()


@pytest.fixture(autouse=True)
def _sin_esperas_largas(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(http, "ESPERA_BASE_S", 0.01)
    cache.delete("fuentes:bcn:candado")


def servir(servidor: ServidorLocal, cuerpo: str, estado: int = 200, tipo: str = "text/xml") -> None:
    servidor.respuestas.pop(RUTA, None)
    servidor.responder(RUTA, estado, cuerpo, {"Content-Type": tipo})


@pytest.fixture
def norma(db: None) -> Norma:
    return Norma.objects.create(
        sigla=SIGLA,
        tipo=Norma.Tipo.DECRETO,
        numero="3240",
        nombre="Resolución exenta 3240",
        id_norma_bcn=243302,
    )


def test_un_articulo_cambiado_crea_version_reembebe_solo_ese_y_avisa_a_quienes_lo_citan(
    servidor: ServidorLocal, norma: Norma, crear_usuario: Callable[..., AbstractUser]
) -> None:
    servir(servidor, variante())
    primera = bcn.norma_revisar(norma=norma)
    consultora = crear_usuario("consultora-bcn", rol=Rol.ESCRITURA)
    cliente = Cliente.objects.create(nombre="Minera Colectora")
    cliente.usuarios.add(consultora.pk)
    proyecto = proyecto_crear(
        cliente=cliente,
        datos={"nombre": "Mina Colectora", "region": "Los Lagos", "tipo": "explotacion"},
    )
    cita = {"norma": SIGLA, "articulo": "s/n"}
    Analisis.objects.create(
        proyecto=proyecto, entrada={}, clasificacion="DIA", resultado={"triggers": [{"fundamento": [cita]}]}
    )
    ConfiguracionAvisos.objects.update_or_create(pk=1, defaults={"hora_inicio": 0, "hora_fin": 24})

    servir(servidor, variante(cambio=True))
    segunda = bcn.norma_revisar(norma=norma)
    repetida = bcn.norma_revisar(norma=norma)

    assert primera.cambio and primera.embebidos == 2
    assert segunda.cambio and segunda.embebidos == 1  # solo la parte que cambió
    assert segunda.cambios == {"modificados": ["s/n"], "agregados": [], "eliminados": [], "derogados": []}
    assert segunda.version_id is not None
    nueva = VersionNorma.objects.get(pk=segunda.version_id)
    assert nueva.vigente and str(nueva.fecha_version) == "2026-11-01" and nueva.cambios == segunda.cambios
    assert "doce meses" in FragmentoLegal.objects.get(version=nueva, articulo="s/n").texto
    assert not repetida.cambio and VersionNorma.objects.filter(norma=norma).count() == 2
    (aviso,) = Aviso.objects.filter(usuario_id=consultora.pk, tipo="normativa_actualizada")
    assert "cambiaron sus artículos s/n" in aviso.mensaje and "versión del 01-11-2026" in aviso.mensaje


def test_un_articulo_derogado_se_marca(servidor: ServidorLocal, norma: Norma) -> None:
    servir(servidor, variante())
    bcn.norma_revisar(norma=norma)
    servir(servidor, variante(derogado=True))

    revision = bcn.norma_revisar(norma=norma)

    assert revision.cambios["derogados"] == ["2"]
    assert FragmentoLegal.objects.get(version_id=revision.version_id, articulo="2").derogado


def test_un_aviso_html_en_vez_del_xml_es_una_falla_de_la_fuente_y_no_cambia_nada(
    servidor: ServidorLocal, norma: Norma
) -> None:
    servir(servidor, "<html><body>Servicio en mantención</body></html>", tipo="text/html")

    with pytest.raises(ErrorHttp, match="no entregó el XML"):
        bcn.normas_revisar()

    estado = EstadoFuente.objects.get(fuente="bcn")
    assert estado.resultado == "falló" and "no entregó el XML" in estado.ultimo_error
    assert not VersionNorma.objects.filter(norma=norma).exists()


def test_con_la_bcn_caida_el_articulo_sale_de_la_cache_vencida_con_un_aviso(
    servidor: ServidorLocal, norma: Norma
) -> None:
    cache.delete(cache_fuentes._llave("bcn", "obtxml:243302"))
    servir(servidor, variante())
    fresca = bcn.articulo_consultar(tipo_norma="decreto", numero="3.240", articulo="2")
    guardado = cache.get(cache_fuentes._llave("bcn", "obtxml:243302"))
    guardado["t"] -= 25 * 3600  # la copia ya venció
    cache.set(cache_fuentes._llave("bcn", "obtxml:243302"), guardado)
    servir(servidor, "caída", estado=503)

    vencida = bcn.articulo_consultar(tipo_norma="decreto", numero="3240", articulo="2")

    assert fresca["origen"] == "BCN LeyChile" and fresca["advertencia"] == ""
    assert fresca["partes"][0]["url"] == "https://www.bcn.cl/leychile/navegar?idNorma=243302&idParte=6545486"
    ayer = (timezone.now() - timedelta(hours=25)).astimezone(cache_fuentes.ZONA)
    assert vencida["advertencia"] == f"datos de caché del {ayer:%d-%m-%Y}; la fuente no respondió"
    assert vencida["partes"] == fresca["partes"] and vencida["fecha_version"] == "2005-10-28"
    assert "503" in EstadoFuente.objects.get(fuente="bcn").ultimo_error


def test_una_norma_revisada_hace_poco_se_responde_del_corpus_sin_llamar_a_la_bcn(
    servidor: ServidorLocal, norma: Norma
) -> None:
    servir(servidor, variante())
    bcn.norma_revisar(norma=norma)
    llamadas = len(servidor.pedidos)

    respuesta = bcn.articulo_consultar(tipo_norma="decreto", numero="3240", articulo="2")

    assert len(servidor.pedidos) == llamadas and respuesta["origen"] == "corpus (revisado en la BCN)"
    assert respuesta["partes"][0]["texto"].startswith("Artículo 2.- Los colectores")


INDICE = REAL.parent / "indice_normas_busqueda_simple_sintetica.xml"


@pytest.mark.django_db
def test_una_norma_fuera_del_corpus_se_busca_por_tipo_y_numero_en_el_indice_y_se_lee_su_xml_oficial(
    servidor: ServidorLocal,
) -> None:
    cache.clear()
    servidor.responder(bcn.RUTA_BUSQUEDA, cuerpo=INDICE.read_bytes(), cabeceras={"Content-Type": "text/xml"})
    servidor.responder(RUTA, cuerpo=REAL.read_bytes(), cabeceras={"Content-Type": "text/xml"})

    respuesta = bcn.articulo_consultar(tipo_norma="resolucion", numero="3.240")

    busqueda = servidor.pedidos[0][1]
    assert busqueda.startswith(bcn.RUTA_BUSQUEDA) and "busqueda=resolucion+3240" in busqueda
    assert "idNorma=243302" in servidor.pedidos[1][1]
    assert respuesta["en_corpus"] is False and respuesta["norma"] == "Resolución 3240 EXENTA"
    assert respuesta["titulo"] == "AUTORIZA INSTALACIÓN DE COLECTORES DE SEMILLAS"
    assert (
        respuesta["fecha_version"] == "2005-10-28"
        and "Germán Raúl Valenzuela" in respuesta["partes"][0]["texto"]
    )
    assert respuesta["url"] == "https://www.bcn.cl/leychile/navegar?idNorma=243302"


@pytest.mark.django_db
def test_si_el_indice_no_trae_esa_norma_se_dice_con_el_enlace_a_la_busqueda(servidor: ServidorLocal) -> None:
    cache.clear()
    servidor.responder(bcn.RUTA_BUSQUEDA, cuerpo=b"<Normas/>", cabeceras={"Content-Type": "text/xml"})

    respuesta = bcn.articulo_consultar(tipo_norma="dfl", numero="725")

    assert respuesta["encontrada"] is False and respuesta["mensaje"] == "LeyChile no tiene una dfl 725."
    assert respuesta["url"].endswith("cadena=dfl+725")


def test_el_indice_filtra_por_numero_y_tipo_y_un_cuerpo_que_no_es_xml_es_falla_de_la_fuente() -> None:
    normas = bcn.normas_de_busqueda(INDICE.read_bytes(), tipo_norma="resolucion", numero="3240")

    assert [n["id_norma"] for n in normas] == [243302]
    with pytest.raises(ErrorHttp):
        bcn.normas_de_busqueda(b"<html><p>Aviso</html>", tipo_norma="ley", numero="1")


def test_el_aviso_de_una_version_antigua_no_pasa_a_la_version_nueva_que_trae_la_bcn(
    servidor: ServidorLocal, norma: Norma
) -> None:
    from normativa.busqueda import buscar_normativa
    from normativa.citas import resolver_citas

    servir(servidor, variante())
    bcn.norma_revisar(norma=norma)
    antigua = VersionNorma.objects.get(norma=norma, vigente=True)
    antigua.advertencia = "Texto de 2005: verifique la versión vigente en LeyChile."
    antigua.save(update_fields=["advertencia"])

    class Pedido:
        norma, articulo, letra, clave = SIGLA, "s/n", "", ""

    (con_aviso,) = resolver_citas([Pedido()])
    servir(servidor, variante(cambio=True))
    bcn.norma_revisar(norma=norma)
    nueva = VersionNorma.objects.get(norma=norma, vigente=True)
    (sin_aviso,) = resolver_citas([Pedido()])
    encontrados = buscar_normativa(consulta="colectores período doce meses", top_k=3, normas=[SIGLA])

    assert con_aviso["advertencia_vigencia"] == "Texto de 2005: verifique la versión vigente en LeyChile."
    assert nueva.vigente and nueva.advertencia == "" and sin_aviso["advertencia_vigencia"] == ""
    assert encontrados.resultados and all(r.advertencia == "" for r in encontrados.resultados)
    antigua.refresh_from_db()
    assert antigua.advertencia.startswith("Texto de 2005")
