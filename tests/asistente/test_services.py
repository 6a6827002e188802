"""Acciones por confirmar: dueño, vencimiento, idempotencia, conflicto, edición y concurrencia."""

import threading
from collections.abc import Callable, Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractUser
from django.db import connection
from django.utils import timezone

from asistente.acciones import accion_decidir, acciones_expirar
from asistente.models import AccionPendiente, Conversacion, Dominio, Mensaje
from asistente.registro import ErrorDeHerramienta
from asistente.services import turno_iniciar
from asistente.turno.tipos import AccionEnConflicto, AccionExpirada, AccionNoEncontrada
from config.errores import EnConflicto, EntradaNoValida, LimiteExcedido, NoDisponible
from proyectos.models import Cliente, Proyecto
from proyectos.roles import Rol
from proyectos.services import usuario_crear_o_actualizar
from tests.asistente.conftest import Charla

ID_CLIENTE = "5f0c3b8e-2d4a-4c1e-9b7a-1e2f3a4b5c6d"

pytestmark = pytest.mark.usefixtures("capas")


def proponer(
    conversar: Callable[..., Charla], usuario: AbstractUser, nombre: str = "Mina Norte"
) -> dict[str, Any]:
    charla = conversar(usuario, f"crea un proyecto llamado {nombre} en Atacama")
    assert charla.accion is not None
    return charla.accion


def test_solo_el_dueno_puede_decidir(
    usuaria: Callable[..., AbstractUser], conversar: Callable[..., Charla]
) -> None:
    accion = proponer(conversar, usuaria())

    with pytest.raises(AccionNoEncontrada):
        accion_decidir(accion_id=accion["id"], usuario=usuaria("intrusa"), confirmada=True)
    assert not Proyecto.objects.exists()


def test_una_accion_vencida_ya_no_esta_y_queda_marcada_expirada(
    usuaria: Callable[..., AbstractUser], conversar: Callable[..., Charla]
) -> None:
    consultora = usuaria()
    accion = proponer(conversar, consultora)
    AccionPendiente.objects.filter(pk=accion["id"]).update(expires_at=timezone.now() - timedelta(seconds=1))

    with pytest.raises(AccionExpirada):
        accion_decidir(accion_id=accion["id"], usuario=consultora, confirmada=True)

    assert AccionPendiente.objects.get(pk=accion["id"]).estado == "expirada"
    assert not Proyecto.objects.exists()


def test_la_tarea_de_beat_vence_las_acciones_viejas_y_lo_dice(
    usuaria: Callable[..., AbstractUser], conversar: Callable[..., Charla]
) -> None:
    accion = proponer(conversar, usuaria())
    AccionPendiente.objects.filter(pk=accion["id"]).update(expires_at=timezone.now() - timedelta(minutes=1))

    assert acciones_expirar() == 1

    assert AccionPendiente.objects.get(pk=accion["id"]).estado == "expirada"
    assert Mensaje.objects.filter(contenido__startswith="La acción venció").count() == 1


def test_una_segunda_decision_contraria_da_conflicto(
    usuaria: Callable[..., AbstractUser], conversar: Callable[..., Charla]
) -> None:
    consultora = usuaria()
    accion = proponer(conversar, consultora)
    accion_decidir(accion_id=accion["id"], usuario=consultora, confirmada=False)

    with pytest.raises(AccionEnConflicto):
        accion_decidir(accion_id=accion["id"], usuario=consultora, confirmada=True)
    assert not Proyecto.objects.exists()


def test_cancelar_se_informa_con_alternativas(
    usuaria: Callable[..., AbstractUser], conversar: Callable[..., Charla]
) -> None:
    consultora = usuaria()
    accion = proponer(conversar, consultora)

    accion_decidir(
        accion_id=accion["id"], usuario=consultora, confirmada=False, comentario="mejor otra región"
    )

    ultimo = Mensaje.objects.filter(rol="assistant").latest("creado_at")
    assert ultimo.contenido.startswith("Cancelé la acción") and "otra región" in ultimo.contenido


def test_los_parametros_editados_se_validan_de_nuevo(
    usuaria: Callable[..., AbstractUser], conversar: Callable[..., Charla]
) -> None:
    consultora = usuaria()
    accion = proponer(conversar, consultora)

    with pytest.raises(ErrorDeHerramienta):
        accion_decidir(
            accion_id=accion["id"],
            usuario=consultora,
            confirmada=True,
            parametros={"capacidad_extraccion_t_mes": -5},
        )
    confirmada = accion_decidir(
        accion_id=accion["id"], usuario=consultora, confirmada=True, parametros={"nombre": "Mina Norte II"}
    )

    assert confirmada.estado == "confirmada" and Proyecto.objects.get().nombre == "Mina Norte II"


def test_un_error_del_servicio_deja_la_accion_fallida_y_nada_a_medias(
    usuaria: Callable[..., AbstractUser], conversar: Callable[..., Charla]
) -> None:
    consultora = usuaria()
    accion = proponer(conversar, consultora)
    AccionPendiente.objects.filter(pk=accion["id"]).update(
        parametros={**accion["parametros"], "comuna": "Rancagua"}
    )

    resultado = accion_decidir(accion_id=accion["id"], usuario=consultora, confirmada=True)

    assert resultado.estado == "fallida" and "Rancagua" in resultado.error
    assert not Proyecto.objects.exists()
    assert Mensaje.objects.filter(contenido__startswith="No se pudo ejecutar").exists()


def test_los_mensajes_largos_se_rechazan_en_castellano(usuaria: Callable[..., AbstractUser]) -> None:
    with pytest.raises(EntradaNoValida, match="supera 4000 caracteres"):
        turno_iniciar(usuario=usuaria(), mensaje="a" * 4001)
    assert not Mensaje.objects.exists()


def test_el_undecimo_mensaje_en_un_minuto_se_limita(usuaria: Callable[..., AbstractUser]) -> None:
    consultora = usuaria()
    for _ in range(10):
        turno_iniciar(usuario=consultora, mensaje="hola")

    with pytest.raises(LimiteExcedido) as error:
        turno_iniciar(usuario=consultora, mensaje="hola")

    assert error.value.reintentar_en


def test_los_usos_de_cada_limite_vencen_con_su_ventana(usuaria: Callable[..., AbstractUser]) -> None:
    from config.redis_clientes import cliente_redis

    consultora = usuaria()
    turno_iniciar(usuario=consultora, mensaje="hola")

    vencimientos = {
        clave.decode().split(":")[2]: cliente_redis().ttl(clave)
        for clave in cliente_redis().scan_iter(f"asistente:limite:*:{consultora.pk}")
    }
    assert set(vencimientos) == {"mensajes_minuto", "mensajes_hora"}
    assert 0 < vencimientos["mensajes_minuto"] <= 60 and 60 < vencimientos["mensajes_hora"] <= 3600


def test_la_ventana_es_deslizante_y_no_deja_pasar_el_doble_en_el_cambio_de_minuto(
    usuaria: Callable[..., AbstractUser], monkeypatch: pytest.MonkeyPatch
) -> None:
    import time as reloj

    consultora = usuaria()
    minuto = (int(reloj.time()) // 60 + 1) * 60
    monkeypatch.setattr(reloj, "time", lambda: minuto - 2.0)  # 10 mensajes al final de un minuto
    for _ in range(10):
        turno_iniciar(usuario=consultora, mensaje="hola")
    monkeypatch.setattr(reloj, "time", lambda: minuto + 2.0)  # y 4 s después, ya en el siguiente

    with pytest.raises(LimiteExcedido) as error:
        turno_iniciar(usuario=consultora, mensaje="hola")

    assert 50 <= (error.value.reintentar_en or 0) <= 60
    monkeypatch.setattr(reloj, "time", lambda: minuto + 60.0)  # el primer uso ya salió de la ventana
    turno_iniciar(usuario=consultora, mensaje="hola")


def test_sin_redis_el_mensaje_se_rechaza_con_503_y_no_se_guarda(
    usuaria: Callable[..., AbstractUser], monkeypatch: pytest.MonkeyPatch
) -> None:
    import redis

    from asistente import limites

    consultora = usuaria()

    def caido(**_: object) -> None:
        raise redis.exceptions.ConnectionError("Connection refused")

    monkeypatch.setattr(limites, "_script_limites", lambda: caido)

    with pytest.raises(NoDisponible) as error:
        turno_iniciar(usuario=consultora, mensaje="hola")

    assert error.value.reintentar_en
    assert "no se guardó" in str(error.value)
    assert not Mensaje.objects.exists()


def test_el_mensaje_del_usuario_se_guarda_antes_de_que_corra_el_motor(
    usuaria: Callable[..., AbstractUser],
) -> None:
    turno = turno_iniciar(usuario=usuaria(), mensaje="<script>alert(1)</script> hola")

    assert Mensaje.objects.get(pk=turno.mensaje.pk).contenido == "<script>alert(1)</script> hola"


def test_un_mensaje_reenviado_con_su_id_cliente_devuelve_el_mismo_turno_sin_guardarlo_ni_contarlo_otra_vez(
    usuaria: Callable[..., AbstractUser],
) -> None:
    consultora = usuaria()
    primero = turno_iniciar(usuario=consultora, mensaje="¿Qué es una DIA?", id_cliente=ID_CLIENTE)
    for _ in range(12):  # más que el límite por minuto: los reenvíos no cuentan
        reenviado = turno_iniciar(usuario=consultora, mensaje="¿Qué es una DIA?", id_cliente=ID_CLIENTE)

    assert reenviado.repetido and not primero.repetido
    assert reenviado.mensaje.pk == primero.mensaje.pk
    assert reenviado.conversacion == primero.conversacion
    assert Mensaje.objects.filter(rol=Mensaje.Rol.USUARIO).count() == 1
    assert Conversacion.objects.count() == 1


def test_el_id_cliente_de_otro_usuario_da_conflicto_y_uno_mal_formado_se_rechaza_en_castellano(
    usuaria: Callable[..., AbstractUser],
) -> None:
    turno_iniciar(usuario=usuaria("una"), mensaje="hola", id_cliente=ID_CLIENTE)

    with pytest.raises(EnConflicto, match="otro mensaje"):
        turno_iniciar(usuario=usuaria("otra"), mensaje="hola", id_cliente=ID_CLIENTE)
    with pytest.raises(EntradaNoValida, match="UUID"):
        turno_iniciar(usuario=usuaria("otra"), mensaje="hola", id_cliente="no-es-un-uuid")
    assert Mensaje.objects.count() == 1


def test_un_segundo_dominio_agregado_por_el_personal_funciona_sin_codigo(
    usuaria: Callable[..., AbstractUser], conversar: Callable[..., Charla]
) -> None:
    Dominio.objects.create(
        codigo="aguas",
        nombre="Derechos de agua",
        prompt_sistema="Responde sobre aguas.",
        descargos=[{"disparadores": ["caudal"], "texto": "Consulte a la DGA."}],
    )

    charla = conversar(usuaria(), "hola, ¿qué pasa con el caudal?", dominio="aguas")

    assert Conversacion.objects.get(pk=charla.turno.conversacion.pk).dominio.codigo == "aguas"
    assert "Consulte a la DGA." in charla.final["mensaje"]["advertencias"]


@pytest.fixture
def accion_confirmable(corpus: Any, capas: Any, django_db_blocker: Any) -> Iterator[tuple[AbstractUser, str]]:
    """Acción confirmada por hilos: los datos deben estar confirmados en la base (y se borran)."""
    from asistente.services import turno_eventos

    with django_db_blocker.unblock():
        usuario = usuario_crear_o_actualizar(
            nombre="concurrente", rol=Rol.ESCRITURA, password="x-123456"
        ).usuario
        cliente = Cliente.objects.create(nombre="Cliente concurrente")
        cliente.usuarios.add(usuario.pk)
        turno = turno_iniciar(usuario=usuario, mensaje="crea un proyecto llamado Mina Paralela en Atacama")
        final = list(turno_eventos(turno))[-1].datos
        yield usuario, final["accion_pendiente"]["id"]
        Proyecto.objects.filter(cliente=cliente).delete()
        Conversacion.objects.filter(usuario_id=usuario.pk).delete()
        cliente.delete()
        get_user_model().objects.filter(pk=usuario.pk).delete()


def test_veinte_confirmaciones_simultaneas_ejecutan_el_servicio_una_vez(
    accion_confirmable: tuple[AbstractUser, str], django_db_blocker: Any
) -> None:
    usuario, accion_id = accion_confirmable
    resultados: list[str] = []
    barrera = threading.Barrier(20)

    def confirmar() -> None:
        try:
            barrera.wait()
            resultados.append(accion_decidir(accion_id=accion_id, usuario=usuario, confirmada=True).estado)
        finally:
            connection.close()

    with django_db_blocker.unblock():
        hilos = [threading.Thread(target=confirmar) for _ in range(20)]
        for hilo in hilos:
            hilo.start()
        for hilo in hilos:
            hilo.join()
        creados = Proyecto.objects.filter(nombre="Mina Paralela").count()
        seguimientos = (
            Mensaje.objects.filter(contenido__startswith="Proyecto creado")
            .filter(conversacion__usuario_id=usuario.pk)
            .count()
        )

    assert resultados == ["confirmada"] * 20
    assert creados == 1 and seguimientos == 1


def test_los_proyectos_consultados_se_recuerdan_como_frecuentes(
    proyecto_eia: Proyecto, conversar: Callable[..., Charla]
) -> None:
    from asistente.models import MemoriaUsuario

    dueña = proyecto_eia.creado_por
    conversar(dueña, f"muéstrame el proyecto #{proyecto_eia.pk}")
    conversar(dueña, f"¿por qué el proyecto #{proyecto_eia.pk} es EIA?")

    assert MemoriaUsuario.objects.get(usuario=dueña).proyectos_frecuentes == [
        {"id": proyecto_eia.pk, "veces": 2}
    ]
