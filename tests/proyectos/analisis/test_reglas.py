"""Las reglas del motor atadas al texto que las funda: cada umbral está, con su número y su unidad, en el
texto vigente de su fragmento; y cuando la BCN trae otro texto, la regla queda «revisar», el resultado lo
advierte, el personal recibe un aviso y el admin la lista."""

from collections.abc import Callable, Iterator
from dataclasses import fields
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import AbstractUser
from django.core.cache import cache
from django.test import Client

from asistente.models import Aviso
from config import http
from config.texto import hash_de_texto, texto_comparable
from fuentes_externas import bcn
from normativa.citas import textos_vigentes
from normativa.models import Norma
from proyectos.analisis import componentes, ingreso
from proyectos.analisis.componentes import Componentes, comparaciones_de_componentes
from proyectos.analisis.ingreso import Cantidades, comparaciones, numero_corto
from proyectos.analisis.motor import evaluar
from proyectos.analisis.reglas import AVISO_REVISAR, POR_LITERAL, REGLAS
from proyectos.models import ReglaDelMotor
from proyectos.services import reglas_aceptar, reglas_revisar
from tests.utilidades import ServidorLocal

pytestmark = pytest.mark.usefixtures("motor")

CAMBIADO = (
    Path(__file__).resolve().parents[2] / "fixtures" / "bcn" / "obtxml_ds40_art3_umbral_i1_cambiado.xml"
)


def test_cada_umbral_esta_con_su_numero_y_su_unidad_en_el_texto_vigente_de_su_fragmento() -> None:
    textos = textos_vigentes([r.referencia for r in REGLAS])

    for regla, vigente in zip(REGLAS, textos, strict=True):
        assert vigente is not None, f"{regla.fragmento} no está en el corpus"
        texto = texto_comparable(vigente["texto"])
        for cita in regla.citas:
            assert cita in texto, f"{regla.literal}: «{cita}» no está en {regla.fragmento}"
        for umbral in regla.umbrales:
            assert any(numero_corto(umbral) in cita for cita in regla.citas), f"{regla.literal}: {umbral}"
        assert hash_de_texto(vigente["texto"]) == regla.hash_texto, f"{regla.literal}: el texto cambió"


def test_cada_literal_que_el_motor_puede_concluir_tiene_su_regla() -> None:
    todo = Componentes(
        **{  # type: ignore[arg-type]
            f.name: True if f.type == "bool" else Decimal(10**9)
            for f in fields(Componentes)
            if f.name != "sustancias_meses"
        }
    )
    literales = {c.literal for c in comparaciones_de_componentes(todo, codigo_region="02")}
    literales |= {c.literal for c in comparaciones_de_componentes(todo, codigo_region="13")}
    grande = Cantidades(Decimal(10**9), 10**6, Decimal(10**9), Decimal(10**9), Decimal(10**9))
    for tipo in ingreso.TIPOS:
        literales |= {c.literal for c in comparaciones(tipo=tipo, codigo_region="02", cantidades=grande)}

    assert literales | {"p"} <= set(POR_LITERAL)
    assert set(componentes.LITERAL_DE_CAMPO) | set(componentes.SOLO_PERMISO) == set(componentes.ETIQUETAS)


@pytest.fixture
def bcn_local(settings: object, monkeypatch: pytest.MonkeyPatch) -> Iterator[ServidorLocal]:
    local = ServidorLocal()
    settings.HTTP_HOSTS_PERMITIDOS = [local.host]  # type: ignore[attr-defined]
    settings.HTTP_INTERVALO_POR_HOST_MS = 0  # type: ignore[attr-defined]
    settings.LEYCHILE_URL = local.url  # type: ignore[attr-defined]
    monkeypatch.setattr(http, "ESPERA_BASE_S", 0.01)
    cache.delete("fuentes:bcn:candado")
    local.responder("/Consulta/obtxml", 200, CAMBIADO.read_bytes(), {"Content-Type": "text/xml"})
    yield local
    local.cerrar()


def explotacion(t_mes: int) -> dict[str, object]:
    return {"nombre": "Mina", "region": "Atacama", "tipo": "explotacion", "capacidad_extraccion_t_mes": t_mes}


def test_cuando_la_bcn_cambia_el_umbral_de_i1_la_regla_queda_revisar_se_advierte_y_se_avisa_al_personal(
    bcn_local: ServidorLocal, crear_usuario: Callable[..., AbstractUser], client: Client
) -> None:
    reglas_revisar()
    personal: Any = crear_usuario("curadora")
    personal.is_staff = personal.is_superuser = True
    personal.save()
    antes = evaluar(explotacion(6000), espacial=False)

    revision = bcn.norma_revisar(norma=Norma.objects.get(sigla="DS 40"))

    assert revision.cambio and "3" in revision.cambios["modificados"]
    estados = dict(ReglaDelMotor.objects.values_list("literal", "estado"))
    assert estados["i.1"] == "revisar"
    assert estados["a"] == estados["i.2"] == estados["c"] == estados["j"] == "vigente"  # su texto no cambió
    (aviso,) = Aviso.objects.filter(usuario=personal, tipo="regla_revisar")
    assert "DS 40 Art. 3 i.1" in aviso.mensaje and "(5.000 t/mes)" in aviso.mensaje
    assert "regladelmotor" in aviso.enlace

    despues = evaluar(explotacion(6000), espacial=False)
    assert "aviso_regla" not in antes["detalle_tipologias"][0]
    (detalle,) = despues["detalle_tipologias"]
    assert AVISO_REVISAR in detalle["aviso_regla"] and "01-11-2026" in detalle["aviso_regla"]
    assert any(AVISO_REVISAR in a for a in despues["advertencias"])
    (cita_nueva,) = [f for f in detalle["fundamento"] if f["letra"] == "i.1"]
    assert cita_nueva["fecha_version"] == "2026-11-01" and "8.000 t/mes" in cita_nueva["cita"]

    client.force_login(personal)
    lista = client.get("/admin/proyectos/regladelmotor/?estado__exact=revisar").content.decode()
    assert "i.1" in lista and "DS 40 Art. 3 i.1" in lista and "Revisar" in lista
    assert "ocho mil toneladas mensuales" in lista, "la lista muestra el texto vigente"

    assert reglas_aceptar(literales=["i.1"]) == 1
    assert "aviso_regla" not in evaluar(explotacion(6000), espacial=False)["detalle_tipologias"][0]
    assert reglas_revisar() == []  # aceptado: el mismo texto no vuelve a avisar
