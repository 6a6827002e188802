"""Que un pedido lento no detenga a los demás (`config/concurrencia.py` y el middleware que lo alimenta).

- Un cálculo pesado espera su cupo sin retener conexión y, si el cliente ya se fue, no se hace.
- Los pedidos abandonados devuelven su conexión al pool: antes, cada uno dejaba una fuera para siempre
  y doce abandonos dejaban el proceso respondiendo 503 a todos (con un pool de dos, dos abandonos).
"""

import asyncio
import copy
import json
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.http import HttpRequest

from config.concurrencia import (
    PedidoAbandonado,
    abandono_del_pedido,
    cupo_de_calculo,
    pedido_abandonado,
)
from config.errores import NoDisponible
from config.middleware import marcar_abandono
from proyectos.roles import Rol
from proyectos.services import usuario_crear_o_actualizar
from tests.utilidades import poligono_en_el_salar


@pytest.fixture
def ocupado() -> Iterator[threading.BoundedSemaphore]:
    """Un semáforo de un cupo, ya tomado por otro cálculo."""
    semaforo = threading.BoundedSemaphore(1)
    semaforo.acquire()
    yield semaforo
    semaforo.release()


def test_un_calculo_cuyo_cliente_se_fue_mientras_esperaba_cupo_no_se_hace(
    ocupado: threading.BoundedSemaphore,
) -> None:
    evento = threading.Event()
    marca = abandono_del_pedido.set(evento)
    hecho = []
    try:
        threading.Timer(0.2, evento.set).start()
        with pytest.raises(PedidoAbandonado), cupo_de_calculo(semaforo=ocupado, espera_maxima_s=10):
            hecho.append(True)
    finally:
        abandono_del_pedido.reset(marca)

    assert hecho == []


def test_sin_cupo_en_su_plazo_responde_no_disponible_con_cuando_reintentar(
    ocupado: threading.BoundedSemaphore,
) -> None:
    inicio = time.monotonic()
    with pytest.raises(NoDisponible) as error, cupo_de_calculo(semaforo=ocupado, espera_maxima_s=0.3):
        pass

    assert 0.3 <= time.monotonic() - inicio < 2
    assert error.value.reintentar_en and "reintente" in error.value.mensaje


def test_un_calculo_dentro_de_otro_usa_el_mismo_cupo_sin_trabarse() -> None:
    semaforo = threading.BoundedSemaphore(1)

    with cupo_de_calculo(semaforo=semaforo), cupo_de_calculo(semaforo=semaforo, espera_maxima_s=0.5):
        adentro = True

    assert adentro and semaforo.acquire(blocking=False)
    semaforo.release()


def test_mientras_espera_cupo_el_pedido_devuelve_su_conexion_al_pool(
    db: None, ocupado: threading.BoundedSemaphore
) -> None:
    # En otro hilo: su conexión no está dentro de la transacción de la prueba.
    conexiones: list[object] = []

    def esperar() -> None:
        connection.ensure_connection()
        conexiones.append(connection.connection)
        threading.Timer(0.3, ocupado.release).start()
        with cupo_de_calculo(semaforo=ocupado, espera_maxima_s=5):
            conexiones.append(connection.connection)
        ocupado.acquire()
        connection.close()

    hilo = threading.Thread(target=esperar)
    hilo.start()
    hilo.join(10)

    assert conexiones[0] is not None and conexiones[1] is None


async def test_el_middleware_marca_abandonado_el_pedido_que_django_cancela() -> None:
    """Django cancela la petición cuando el cliente se desconecta; el hilo de la vista sigue y ve la
    marca por el contexto que heredó."""
    eventos: list[threading.Event | None] = []
    empezo = asyncio.Event()

    async def vista(request: Any) -> Any:
        eventos.append(abandono_del_pedido.get())
        empezo.set()
        await asyncio.sleep(10)

    tarea = asyncio.ensure_future(marcar_abandono(vista)(HttpRequest()))
    await empezo.wait()
    assert eventos[0] is not None and not eventos[0].is_set()
    tarea.cancel()
    with pytest.raises(asyncio.CancelledError):
        await tarea

    assert eventos[0].is_set()
    assert not pedido_abandonado()  # fuera del pedido, nada queda marcado


@pytest.mark.lento
def test_pedidos_abandonados_no_agotan_el_pool_y_los_demas_siguen_respondiendo(
    daphne: Callable[..., str], django_db_blocker: Any, settings: Any, capas: Any
) -> None:
    with django_db_blocker.unblock():
        token = usuario_crear_o_actualizar(nombre="abandona", rol=Rol.ESCRITURA).token
    bases = copy.deepcopy(settings.DATABASES)
    bases["default"]["OPTIONS"]["pool"].update(max_size=2, timeout=2)  # dos abandonos bastaban
    url = daphne(DATABASES=bases, CALCULOS_SIMULTANEOS=1)
    cabeceras = {"Authorization": f"Token {token}", "Content-Type": "application/json"}
    lento = json.dumps(poligono_en_el_salar(vertices=30_000))
    try:
        for _ in range(6):
            with pytest.raises(httpx.TimeoutException):
                httpx.post(f"{url}/api/analisis/evaluar/", content=lento, headers=cabeceras, timeout=0.3)
        time.sleep(4)  # lo abandonado que alcanzó a empezar termina
        respuestas = [httpx.get(f"{url}/api/yo/", headers=cabeceras, timeout=30) for _ in range(4)]
    finally:
        with django_db_blocker.unblock():
            get_user_model().objects.filter(username="abandona").delete()

    assert [r.status_code for r in respuestas] == [200] * 4
    assert all(r.elapsed.total_seconds() < 2 for r in respuestas)  # el plazo del pool es 2 s
