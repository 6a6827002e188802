"""Un sustituto UTF-16 suelto («\\ud800») o un carácter de control en cualquier texto que recibe la
aplicación es un 400 en castellano que nombra el campo, nunca un 500 ni algo guardado: en cada campo de
texto de cada operación de la API que recibe un cuerpo (tomadas de su esquema OpenAPI, para no olvidar
ninguna), en los parámetros de la URL, en los formularios de las páginas y en el admin. Los marcos del
websocket lo prueban `tests/asistente/test_consumers.py`.

Antes, «a\\ud800b» en `nombre`, `comuna` o `region` de un proyecto, o en el `tipo` de un análisis,
respondía 500 (la base no puede codificarlo), y el nombre de un cliente admitía caracteres de control.
"""

import json
import re
import uuid
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import quote_from_bytes, urlencode

import pytest
from django.contrib.auth.models import AbstractUser
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from asistente.models import Conversacion, Dominio, Mensaje
from proyectos.models import Cliente, Proyecto
from proyectos.roles import Rol
from proyectos.services import proyecto_crear

MALOS = {"sustituto_suelto": "a\ud800b", "control": "a\x07b", "escape_de_terminal": "a\x1b[2Jb"}


def _cuerpos_con_texto() -> list[tuple[str, str, str]]:
    """(método, ruta, campo) de cada campo de texto del cuerpo JSON de cada operación de la API."""
    esquema = SchemaGenerator().get_schema(request=None, public=True)  # type: ignore[no-untyped-call]
    componentes = esquema["components"]["schemas"]
    casos = []
    for ruta, operaciones in esquema["paths"].items():
        for metodo, operacion in operaciones.items():
            contenido = operacion.get("requestBody", {}).get("content", {}).get("application/json")
            if not contenido:
                continue
            for campo in _campos_de_texto(contenido["schema"], componentes):
                casos.append((metodo.upper(), ruta, campo))
    return casos


def _campos_de_texto(esquema: dict[str, Any], componentes: dict[str, Any]) -> list[str]:
    if "$ref" in esquema:
        esquema = componentes[esquema["$ref"].rsplit("/", 1)[1]]
    campos = []
    for nombre, propiedad in esquema.get("properties", {}).items():
        for referencia in [propiedad, *propiedad.get("allOf", [])]:
            if "$ref" in referencia:
                propiedad = {**propiedad, **componentes[referencia["$ref"].rsplit("/", 1)[1]]}
        if propiedad.get("type") == "string" or "enum" in propiedad:
            campos.append(nombre)
    return campos


CASOS = _cuerpos_con_texto()


@pytest.fixture
def api(
    motor: None, crear_usuario: Callable[..., AbstractUser]
) -> Iterator[tuple[APIClient, dict[str, str]]]:
    """Una escritora con cliente, proyecto, conversación y mensaje: los ids de las rutas existen."""
    usuaria: Any = crear_usuario("texto-escritora", Rol.ESCRITURA)
    usuaria.is_staff = True  # también puede crear clientes
    usuaria.save()
    cliente = Cliente.objects.create(nombre="Minera Texto")
    cliente.usuarios.add(usuaria.pk)
    proyecto = proyecto_crear(
        cliente=cliente, datos={"nombre": "Mina Texto", "region": "Antofagasta", "tipo": "explotacion"}
    )
    conversacion = Conversacion.objects.create(usuario=usuaria, dominio=Dominio.objects.get(codigo="mineria"))
    mensaje = Mensaje.objects.create(conversacion=conversacion, rol=Mensaje.Rol.ASISTENTE, contenido="hola")
    cliente_api = APIClient()
    cliente_api.force_authenticate(usuaria)
    ids = {"proyecto": str(proyecto.pk), "cliente": str(cliente.pk), "conversacion": str(conversacion.pk)}
    ids["mensaje"] = str(mensaje.pk)
    yield cliente_api, ids


def test_el_esquema_trae_los_campos_de_texto_que_antes_daban_500() -> None:
    """Que la prueba recorra de verdad la API: si el esquema dejara de listarlos, fallaría aquí."""
    assert ("POST", "/api/proyectos/", "nombre") in CASOS
    assert ("PATCH", "/api/proyectos/{id}/", "comuna") in CASOS
    assert ("POST", "/api/proyectos/{id}/analisis/", "tipo") in CASOS
    assert ("POST", "/api/asistente/chat", "mensaje") in CASOS
    assert len({(m, r) for m, r, _ in CASOS}) >= 8


@pytest.mark.parametrize("malo", MALOS.values(), ids=MALOS.keys())
@pytest.mark.parametrize(("metodo", "ruta", "campo"), CASOS, ids=[f"{m} {r} {c}" for m, r, c in CASOS])
def test_un_texto_no_permitido_en_un_campo_de_la_api_recibe_un_400_que_nombra_el_campo(
    api: tuple[APIClient, dict[str, str]], metodo: str, ruta: str, campo: str, malo: str
) -> None:
    cliente_api, ids = api
    direccion = _con_ids(ruta, ids)
    proyectos_antes = Proyecto.objects.count()

    respuesta = cliente_api.generic(
        metodo, direccion, json.dumps({campo: malo}), content_type="application/json"
    )

    assert respuesta.status_code == 400, respuesta.content[:300]
    assert respuesta["Content-Type"] == "application/json"
    assert f"«{campo}»" in respuesta.json()["error"]
    assert Proyecto.objects.count() == proyectos_antes
    assert not Proyecto.objects.filter(nombre__contains="a").exclude(nombre="Mina Texto").exists()


@pytest.mark.parametrize(("metodo", "ruta", "campo"), CASOS, ids=[f"{m} {r} {c}" for m, r, c in CASOS])
def test_un_caracter_de_control_en_un_campo_de_formulario_de_la_api_recibe_un_400_en_json(
    api: tuple[APIClient, dict[str, str]], metodo: str, ruta: str, campo: str
) -> None:
    """Cada operación acepta también `multipart/form-data` (y `x-www-form-urlencoded`)."""
    cliente_api, ids = api

    respuesta = cliente_api.generic(
        metodo,
        _con_ids(ruta, ids),
        urlencode({campo: "a\x07b"}),
        content_type="application/x-www-form-urlencoded",
    )

    assert respuesta.status_code == 400, respuesta.content[:300]
    assert respuesta["Content-Type"] == "application/json"
    assert f"«{campo}»" in respuesta.json()["error"]


@pytest.mark.parametrize(
    "ruta",
    [
        "/api/proyectos/?region=a%07b",
        "/api/proyectos/?estado=%1b%5b2J",
        "/api/asistente/conversaciones/?q=%7f",
        "/proyectos/?region=a%01b",
    ],
)
def test_un_caracter_de_control_en_un_parametro_de_la_url_recibe_un_400(
    api: tuple[APIClient, dict[str, str]], ruta: str
) -> None:
    respuesta = api[0].get(ruta)

    assert respuesta.status_code == 400
    if ruta.startswith("/api/"):
        assert respuesta["Content-Type"] == "application/json" and respuesta.json()["error"]


def test_un_formulario_de_pagina_con_un_caracter_de_control_no_guarda_nada(
    motor: None, crear_usuario: Callable[..., AbstractUser], client: Any
) -> None:
    usuaria = crear_usuario("texto-pagina", Rol.ESCRITURA)
    Cliente.objects.create(nombre="Minera Página").usuarios.add(usuaria.pk)
    client.force_login(usuaria)

    respuesta = client.post(
        "/proyectos/nuevo/", {"nombre": "Mina\x07Norte", "region": "02", "tipo": "explotacion"}
    )

    assert respuesta.status_code == 400
    assert "«nombre»" in respuesta.content.decode()
    assert not Proyecto.objects.filter(nombre__startswith="Mina").exists()


@pytest.mark.parametrize("tipo", ["urlencoded", "multipart", "direccion"])
def test_bytes_que_no_son_utf8_en_un_formulario_o_la_direccion_se_rechazan_en_vez_de_guardarse_como_reemplazo(
    motor: None, crear_usuario: Callable[..., AbstractUser], client: Any, tipo: str
) -> None:
    usuaria = crear_usuario("utf8-pagina", Rol.ESCRITURA)
    Cliente.objects.create(nombre="Minera UTF-8").usuarios.add(usuaria.pk)
    client.force_login(usuaria)
    latin1 = "Mina Ñandú".encode("latin-1")  # «Ñ» y «ú» en latin-1: bytes que no son UTF-8

    if tipo == "urlencoded":
        cuerpo = b"nombre=" + quote_from_bytes(latin1).encode() + b"&region=02&tipo=explotacion"
        respuesta = client.post("/proyectos/nuevo/", cuerpo, content_type="application/x-www-form-urlencoded")
    elif tipo == "multipart":
        frontera = "frontera-de-prueba"
        partes = [
            f'--{frontera}\r\nContent-Disposition: form-data; name="{nombre}"\r\n\r\n'.encode()
            + valor
            + b"\r\n"
            for nombre, valor in (("nombre", latin1), ("region", b"02"), ("tipo", b"explotacion"))
        ]
        cuerpo = b"".join(partes) + f"--{frontera}--\r\n".encode()
        respuesta = client.post(
            "/proyectos/nuevo/", cuerpo, content_type=f"multipart/form-data; boundary={frontera}"
        )
    else:
        respuesta = client.get("/proyectos/?q=" + quote_from_bytes(latin1))

    assert respuesta.status_code == 400
    assert "UTF-8" in respuesta.content.decode()
    assert not Proyecto.objects.filter(nombre__startswith="Mina").exists()


def test_el_admin_no_guarda_un_cliente_con_caracteres_de_control(
    db: None, crear_usuario: Callable[..., AbstractUser], client: Any
) -> None:
    personal = crear_usuario("texto-admin", Rol.ADMINISTRADOR)
    personal.is_staff = personal.is_superuser = True
    personal.save()
    client.force_login(personal)

    respuesta = client.post("/admin/proyectos/cliente/add/", {"nombre": "Minera\x00\x07 Sucia", "rut": ""})

    assert respuesta.status_code == 400
    assert not Cliente.objects.filter(nombre__contains="Sucia").exists()


def _con_ids(ruta: str, ids: dict[str, str]) -> str:
    if ruta.startswith("/api/clientes/{id}"):
        return ruta.replace("{id}", ids["cliente"])
    if ruta.startswith("/api/proyectos/{id}"):
        return ruta.replace("{id}", ids["proyecto"])
    if ruta.startswith("/api/asistente/conversaciones/{id}"):
        return ruta.replace("{id}", ids["conversacion"])
    if ruta.startswith("/api/asistente/mensajes/{id}"):
        return ruta.replace("{id}", ids["mensaje"])
    # Un id que no existe: la ruta igual debe rechazar el cuerpo antes de buscarlo, o responder 404.
    return re.sub(r"\{[^}]+\}", lambda _: str(uuid.uuid4()) if "asistente" in ruta else "999999", ruta)
