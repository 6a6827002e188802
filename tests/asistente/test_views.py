"""Página del chat: solo conversaciones propias y el texto guardado se muestra saneado."""

from collections.abc import Callable

import pytest
from django.contrib.auth.models import AbstractUser
from django.test import Client

from asistente.models import Conversacion, Dominio, Mensaje


def navegador(usuario: AbstractUser) -> Client:
    cliente = Client()
    cliente.force_login(usuario)  # type: ignore[arg-type]
    return cliente


@pytest.mark.django_db
def test_la_pagina_del_chat_muestra_los_mensajes_guardados_saneados(
    usuaria: Callable[..., AbstractUser],
) -> None:
    consultora = usuaria()
    conversacion = Conversacion.objects.create(
        usuario_id=consultora.pk, dominio=Dominio.objects.get(codigo="mineria"), titulo="Prueba"
    )
    Mensaje.objects.create(
        conversacion=conversacion, rol="user", contenido="<script>alert(1)</script> **hola**"
    )

    pagina = navegador(consultora).get(f"/asistente/?c={conversacion.pk}").content.decode()

    assert "<script>alert(1)</script>" not in pagina and "<strong>hola</strong>" in pagina
    assert 'id="config-chat"' in pagina and "/ws/asistente/" in pagina


@pytest.mark.django_db
def test_la_pagina_de_la_conversacion_de_otro_usuario_no_existe(usuaria: Callable[..., AbstractUser]) -> None:
    duena = usuaria("duena")
    conversacion = Conversacion.objects.create(
        usuario_id=duena.pk, dominio=Dominio.objects.get(codigo="mineria")
    )

    assert navegador(usuaria("otra")).get(f"/asistente/?c={conversacion.pk}").status_code == 404


@pytest.mark.django_db
def test_mi_memoria_muestra_lo_recordado_y_borra_cada_elemento_con_su_boton(
    usuaria: Callable[..., AbstractUser],
) -> None:
    from asistente.models import MemoriaUsuario

    consultora = usuaria()
    MemoriaUsuario.objects.create(
        usuario_id=consultora.pk,
        preferencias={
            "region": {"valor": "Atacama", "descripcion": "Región de Atacama", "dicho": "trabajo en Atacama"}
        },
    )
    cliente = navegador(consultora)

    pagina = cliente.get("/asistente/memoria/").content.decode()
    borrado = cliente.post("/asistente/memoria/", {"tipo": "preferencia", "clave": "region"}, follow=True)
    otra_vez = cliente.post("/asistente/memoria/", {"tipo": "preferencia", "clave": "region"}, follow=True)

    assert "Región de Atacama" in pagina and "«trabajo en Atacama»" in pagina
    assert "Listo: lo olvidé." in borrado.content.decode()
    assert MemoriaUsuario.objects.get(usuario_id=consultora.pk).preferencias == {}
    assert "No se borró: Esa preferencia no está en su memoria." in otra_vez.content.decode()


@pytest.mark.django_db
def test_mi_memoria_pide_sesion() -> None:
    assert Client().get("/asistente/memoria/").status_code == 302
