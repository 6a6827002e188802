"""El catálogo de permisos ambientales sectoriales: cada PAS del Título VII del DS 40 leído de su artículo
(nombre, clase, requisito, contenidos, guía y órgano), atado al hash de su texto: cuando la BCN trae otro
texto queda «revisar», se avisa al personal, el admin lo lista y aceptarlo lo vuelve a leer."""

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import AbstractUser
from django.core.cache import cache
from django.test import Client

from asistente.models import Aviso
from config import http
from config.texto import texto_comparable
from fuentes_externas import bcn
from normativa.models import FragmentoLegal, Norma, PermisoSectorial
from normativa.permisos import (
    ORGANO_CURADO,
    leer_articulo,
    permisos_aceptar,
    permisos_catalogar,
    permisos_del_catalogo,
)
from tests.utilidades import ServidorLocal

pytestmark = pytest.mark.usefixtures("motor")

CAMBIADO = (
    Path(__file__).resolve().parents[1] / "fixtures" / "bcn" / "obtxml_ds40_pas135_requisito_cambiado.xml"
)
PARRAFO_2 = range(111, 131)  # «De los permisos ambientales sectoriales de contenidos únicamente ambientales»
PARRAFO_3 = range(131, 161)  # «De los permisos ambientales sectoriales mixtos»


def texto_del_articulo(numero: int) -> str:
    fragmento = FragmentoLegal.objects.get(
        norma__sigla="DS 40", version__vigente=True, articulo=str(numero), letra=""
    )
    return texto_comparable(fragmento.texto)


def test_el_catalogo_trae_cada_permiso_del_titulo_vii_y_ningun_articulo_que_no_lo_sea() -> None:
    assert sorted(permisos_del_catalogo()) == [*PARRAFO_2, *PARRAFO_3]


def test_nombre_requisito_y_contenidos_de_cada_permiso_estan_en_el_texto_vigente_de_su_articulo() -> None:
    for numero, permiso in permisos_del_catalogo().items():
        texto = texto_del_articulo(numero)
        assert permiso["nombre"] and permiso["nombre"] in texto, numero
        assert permiso["requisito"].startswith(("El requisito", "Los requisitos")), numero
        assert "para su otorgamiento" in permiso["requisito"] and permiso["requisito"] in texto, numero
        assert permiso["contenidos"], f"{numero} sin contenidos técnicos y formales"
        for contenido in permiso["contenidos"]:
            assert texto_comparable(contenido["texto"]) in texto, (numero, contenido)
        assert permiso["estado"] == "vigente"


def test_la_clase_de_cada_permiso_es_la_que_declara_el_parrafo_en_que_esta() -> None:
    catalogo = permisos_del_catalogo()

    assert {catalogo[n]["tipo"] for n in PARRAFO_2} == {"ambiental"}
    assert {catalogo[n]["tipo"] for n in PARRAFO_3} == {"mixto"}
    assert catalogo[135]["tipo_nombre"].startswith("Mixto")


def test_los_permisos_con_guia_tramite_en_el_corpus_la_enlazan_y_nombran_al_organo_de_su_otorgamiento() -> (
    None
):
    catalogo = permisos_del_catalogo()

    for numero in (135, 136, 137):
        assert f"PAS del artículo {numero}" in catalogo[numero]["guia"]
        assert catalogo[numero]["guia_url"].startswith("https://sea.gob.cl/")
        assert "Sernageomin" in catalogo[numero]["organo"] or "SERNAGEOMIN" in catalogo[numero]["organo"]
        assert "Otorgamiento del PAS" in catalogo[numero]["organo_fuente"]
    assert catalogo[142]["guia"] == "" and catalogo[142]["organo"] == "", (
        "sin guía en el corpus, nada inventado"
    )


def test_la_norma_sectorial_que_establece_el_permiso_se_lee_de_su_articulo() -> None:
    catalogo = permisos_del_catalogo()

    assert catalogo[155]["norma_sectorial"].startswith(
        "el artículo 294 del Decreto con Fuerza de Ley Nº 1.122"
    )
    assert "Ley 20.551" in catalogo[137]["norma_sectorial"]
    assert "artículo 55" in catalogo[160]["norma_sectorial"], "«corresponderá a …» también la dice"


def test_un_permiso_sin_letras_trae_sus_contenidos_en_la_oracion_que_los_dice() -> None:
    (contenido,) = permisos_del_catalogo([114])[114]["contenidos"]

    assert contenido["letra"] == "" and "estudio de seguridad" in contenido["texto"]


def test_una_letra_con_literales_aporta_su_encabezado_y_cada_literal_va_aparte() -> None:
    contenidos = {c["letra"]: c["texto"] for c in permisos_del_catalogo([160])[160]["contenidos"]}

    assert contenidos["a"] == "De tratarse de subdivisiones y urbanizaciones:"
    assert contenidos["a.2"] == "Plano de ubicación del predio."
    assert contenidos["b.1"] == "Destino de la edificación."


def test_un_articulo_fuera_del_titulo_vii_o_sin_requisito_no_es_un_permiso() -> None:
    requisito = "El requisito para su otorgamiento consiste en no contaminar."

    assert leer_articulo(numero=3, texto=f"Artículo 3.-\nTipos.\n{requisito}", jerarquia=["Título I"]) is None
    assert (
        leer_articulo(
            numero=161, texto="Artículo 161.-\nCalificación.", jerarquia=["Título VII", "Párrafo 4º"]
        )
        is None
    )
    lectura = leer_articulo(
        numero=999,
        texto=f"Artículo 999.- \nPermiso para algo.\n{requisito}",
        jerarquia=["Título VII", "Párrafo 3º"],
    )
    assert lectura is not None and lectura.nombre == "Permiso para algo" and lectura.tipo == "mixto"


def test_catalogar_de_nuevo_sin_cambios_no_pone_nada_en_revisar() -> None:
    assert permisos_catalogar() == []
    assert not PermisoSectorial.objects.exclude(estado="vigente").exists()


def test_el_organo_que_escribe_el_personal_no_lo_sobrescribe_la_lectura_siguiente() -> None:
    PermisoSectorial.objects.filter(numero=142).update(
        organo="Secretaría Regional Ministerial de Salud", organo_fuente=ORGANO_CURADO
    )

    permisos_catalogar()

    assert permisos_del_catalogo([142])[142]["organo"] == "Secretaría Regional Ministerial de Salud"


@pytest.fixture
def bcn_local(settings: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[ServidorLocal]:
    local = ServidorLocal()
    settings.HTTP_HOSTS_PERMITIDOS = [local.host]
    settings.HTTP_INTERVALO_POR_HOST_MS = 0
    settings.LEYCHILE_URL = local.url
    monkeypatch.setattr(http, "ESPERA_BASE_S", 0.01)
    cache.delete("fuentes:bcn:candado")
    local.responder("/Consulta/obtxml", 200, CAMBIADO.read_bytes(), {"Content-Type": "text/xml"})
    yield local
    local.cerrar()


def test_cuando_la_bcn_cambia_el_requisito_del_135_queda_revisar_se_avisa_al_personal_y_el_admin_lo_lista(
    bcn_local: ServidorLocal, crear_usuario: Callable[..., AbstractUser], client: Client
) -> None:
    personal: Any = crear_usuario("curadora")
    personal.is_staff = personal.is_superuser = True
    personal.save()
    antes = permisos_del_catalogo([135])[135]

    revision = bcn.norma_revisar(norma=Norma.objects.get(sigla="DS 40"))

    assert revision.cambio and "135" in revision.cambios["modificados"]
    estados = dict(PermisoSectorial.objects.values_list("numero", "estado"))
    assert estados[135] == "revisar"
    assert estados[136] == "vigente", "su texto no cambió"
    assert estados[142] == "sin_texto", "la versión nueva de la prueba solo trae el 135 y el 136"
    ahora = permisos_del_catalogo([135])[135]
    assert ahora["requisito"] == antes["requisito"], "en «revisar» se muestra lo leído hasta que se acepte"
    assert ahora["fecha_texto"] == "2026-11-01"
    (aviso,) = Aviso.objects.filter(usuario=personal, tipo="permiso_revisar")
    assert "Art. 135 del DS 40" in aviso.mensaje and "permisosectorial" in aviso.enlace

    client.force_login(personal)
    lista = client.get("/admin/normativa/permisosectorial/?estado__exact=revisar").content.decode()
    assert "135" in lista and "Revisar" in lista and "depósitos de relaves" in lista
    detalle = client.get(
        f"/admin/normativa/permisosectorial/{PermisoSectorial.objects.get(numero=135).pk}/change/"
    )
    assert "de sus obras anexas" in detalle.content.decode(), "el detalle muestra el texto vigente"

    assert permisos_aceptar(numeros=[135, 136]) == 1
    aceptado = permisos_del_catalogo([135])[135]
    assert aceptado["estado"] == "vigente" and "de sus obras anexas" in aceptado["requisito"]
    assert permisos_catalogar() == [], "el texto aceptado no vuelve a avisar"
