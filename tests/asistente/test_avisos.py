"""Avisos proactivos: los cuatro disparadores, sin repetir en el día, máximo por hora y horario."""

import threading
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from typing import Any

import pytest
from django.contrib.auth.models import AbstractUser
from django.db import connection, transaction
from django.db.models import Max
from django.utils import timezone
from rest_framework.test import APIClient

from asistente.avisos import ZONA, avisos_evaluar, avisos_evaluar_activos
from asistente.models import AccionPendiente, Aviso, ConfiguracionAvisos
from normativa.models import VersionNorma
from proyectos.models import Analisis, Cliente, Proyecto
from proyectos.roles import Rol
from proyectos.services import proyecto_crear, usuario_crear_o_actualizar
from tests.proyectos.conftest import TALTAL

MEDIODIA = timezone.now().astimezone(ZONA).replace(hour=12, minute=0)


def borrador_antiguo(usuario: AbstractUser, nombre: str = "Mina Olvidada", **datos: object) -> Proyecto:
    cliente = Cliente.objects.get(usuarios__pk=usuario.pk)
    proyecto = proyecto_crear(
        cliente=cliente, datos={"nombre": nombre, "region": "Antofagasta", "tipo": "explotacion", **datos}
    )
    Proyecto.objects.filter(pk=proyecto.pk).update(creado_at=MEDIODIA - timedelta(days=2))
    return Proyecto.objects.get(pk=proyecto.pk)


def analizar(proyecto: Proyecto, resultado: dict[str, object], fecha: datetime) -> Analisis:
    analisis = Analisis.objects.create(
        proyecto=proyecto, entrada={}, resultado=resultado, clasificacion="DIA"
    )
    Analisis.objects.filter(pk=analisis.pk).update(fecha=fecha)
    return Analisis.objects.get(pk=analisis.pk)


@pytest.mark.django_db
def test_un_borrador_sin_geometria_recibe_un_aviso_al_dia_con_enlace_al_mapa(
    usuaria: Callable[..., AbstractUser],
) -> None:
    consultora = usuaria()
    proyecto = borrador_antiguo(consultora)

    (aviso,) = avisos_evaluar(usuario=consultora, ahora=MEDIODIA)
    repetido = avisos_evaluar(usuario=consultora, ahora=MEDIODIA + timedelta(hours=2))

    assert aviso.tipo == "proyecto_sin_geometria" and aviso.enlace == f"/proyectos/{proyecto.pk}/mapa/"
    assert (
        aviso.mensaje
        == "El proyecto Mina Olvidada no tiene geometría definida. ¿Desea ir al mapa para dibujarla?"
    )
    assert repetido == []


@pytest.mark.django_db
def test_sin_avisos_fuera_del_horario_activo_ni_sobre_el_limite_por_hora(
    usuaria: Callable[..., AbstractUser],
) -> None:
    consultora = usuaria()
    for n in range(5):
        borrador_antiguo(consultora, nombre=f"Mina {n}")

    de_noche = avisos_evaluar(usuario=consultora, ahora=MEDIODIA.replace(hour=22))
    de_dia = avisos_evaluar(usuario=consultora, ahora=MEDIODIA)

    assert de_noche == [] and len(de_dia) == ConfiguracionAvisos.vigente().maximo_por_hora == 3


@pytest.mark.django_db
def test_un_poligono_cambiado_tras_el_analisis_ofrece_repetirlo_solo_si_se_pide_y_confirma(
    usuaria: Callable[..., AbstractUser],
) -> None:
    consultora = usuaria()
    proyecto = borrador_antiguo(consultora, geometria=TALTAL, capacidad_extraccion_t_mes=3000)
    analizar(proyecto, {"alertas": []}, MEDIODIA - timedelta(days=1))
    Proyecto.objects.filter(pk=proyecto.pk).update(geometria_modificada_at=MEDIODIA - timedelta(hours=1))
    cliente, lectora = APIClient(), APIClient()
    cliente.force_authenticate(consultora)
    lectora.force_authenticate(usuaria("lectora", rol=Rol.LECTURA))

    (aviso,) = [
        a for a in avisos_evaluar(usuario=consultora, ahora=MEDIODIA) if a.tipo == "analisis_desactualizado"
    ]
    ofrecido = cliente.get("/api/asistente/avisos/").json()
    sin_accion_aun = AccionPendiente.objects.count()
    propuesta = cliente.post(f"/api/asistente/avisos/{aviso.pk}/accion")
    otra_vez = cliente.post(f"/api/asistente/avisos/{aviso.pk}/accion")

    assert [(a["ofrece_accion"], a["texto_enlace"]) for a in ofrecido if a["id"] == aviso.pk] == [
        (True, "Ver el proyecto")
    ]
    assert sin_accion_aun == 0 and propuesta.status_code == 201
    accion = propuesta.json()
    assert accion["tipo"] == "ejecutar_analisis" and accion["estado"] == "pendiente"
    assert accion["parametros"]["proyecto_id"] == proyecto.pk and otra_vez.json()["id"] == accion["id"]
    assert lectora.post(f"/api/asistente/avisos/{aviso.pk}/accion").status_code == 403
    assert Analisis.objects.filter(proyecto=proyecto).count() == 1  # nada corre sin confirmar
    confirmada = cliente.post(
        "/api/asistente/confirm", {"accion_id": accion["id"], "confirmada": True}, format="json"
    )
    assert confirmada.json()["estado"] == "confirmada" and confirmada.json()["resultado"]["analisis"]
    assert Analisis.objects.filter(proyecto=proyecto).count() == 2


@pytest.mark.django_db
def test_alertas_criticas_sin_revisar_llevan_al_informe(usuaria: Callable[..., AbstractUser]) -> None:
    consultora = usuaria()
    proyecto = borrador_antiguo(consultora, geometria=TALTAL)
    analisis = analizar(proyecto, {"alertas": [{"severidad": "critica", "mensaje": "PN a 2 km"}]}, MEDIODIA)

    avisos = avisos_evaluar(usuario=consultora, ahora=MEDIODIA)

    assert [a.enlace for a in avisos if a.tipo == "alertas_criticas_sin_revisar"] == [
        f"/proyectos/analisis/{analisis.pk}/"
    ]


@pytest.mark.usefixtures("corpus")
@pytest.mark.django_db
def test_una_version_nueva_de_una_norma_citada_se_anuncia_con_los_articulos_citados(
    usuaria: Callable[..., AbstractUser],
) -> None:
    consultora = usuaria()
    proyecto = borrador_antiguo(consultora, geometria=TALTAL)
    fundamento = [
        {"norma": "Ley 19.300", "articulo": "11", "letra": "d"},
        {"norma": "DS 40", "articulo": "8"},
    ]
    # El análisis es posterior a la carga del corpus: solo la versión creada después es «nueva».
    ultima_carga = VersionNorma.objects.aggregate(ultima=Max("creada_at"))["ultima"]
    analizar(
        proyecto,
        {"alertas": [], "triggers": [{"fundamento": fundamento}]},
        ultima_carga + timedelta(seconds=1),
    )
    VersionNorma.objects.filter(norma__sigla="Ley 19.300", vigente=True).update(vigente=False)
    anterior = VersionNorma.objects.filter(norma__sigla="Ley 19.300").first()
    assert anterior is not None
    VersionNorma.objects.create(norma=anterior.norma, fuente="prueba", hash="nueva-version", vigente=True)

    avisos = avisos_evaluar(usuario=consultora, ahora=timezone.now().astimezone(ZONA).replace(hour=12))

    (aviso,) = [a for a in avisos if a.tipo == "normativa_actualizada"]
    assert "Ley 19.300 tiene una versión nueva" in aviso.mensaje and "artículos 11" in aviso.mensaje


@pytest.mark.django_db
def test_los_avisos_se_listan_hasta_descartarlos_y_solo_a_su_dueno(
    usuaria: Callable[..., AbstractUser],
) -> None:
    consultora = usuaria()
    borrador_antiguo(consultora)
    (aviso,) = avisos_evaluar(usuario=consultora, ahora=MEDIODIA)
    propia, ajena = APIClient(), APIClient()
    propia.force_authenticate(consultora)
    ajena.force_authenticate(usuaria("otra"))

    assert [a["id"] for a in propia.get("/api/asistente/avisos/").json()] == [aviso.pk]
    assert ajena.post(f"/api/asistente/avisos/{aviso.pk}/descartar").status_code == 404
    assert propia.post(f"/api/asistente/avisos/{aviso.pk}/descartar").status_code == 204
    assert propia.get("/api/asistente/avisos/").json() == [] and Aviso.objects.get().descartado_at


@pytest.mark.django_db
def test_la_revision_periodica_corre_con_la_frecuencia_configurada_y_nunca_dos_veces_a_la_vez(
    usuaria: Callable[..., AbstractUser],
) -> None:
    import redis
    from django.conf import settings
    from django.core.cache import cache

    from asistente.avisos import MARCA_REVISION

    cache.delete(MARCA_REVISION)
    ConfiguracionAvisos.objects.update_or_create(pk=1, defaults={"frecuencia_min": 15})
    consultora = usuaria()
    consultora.last_login = timezone.now()
    consultora.save()

    primera = avisos_evaluar_activos()
    segunda = avisos_evaluar_activos()
    vigencia = redis.Redis.from_url(settings.REDIS_URL).ttl(cache.make_key(MARCA_REVISION))
    cache.delete(MARCA_REVISION)

    assert primera is not None and segunda is None
    assert 14 * 60 < vigencia <= 15 * 60


@pytest.fixture
def con_borrador_confirmado(django_db_blocker: Any) -> Iterator[AbstractUser]:
    """Una usuaria con un borrador antiguo, confirmados en la base (los hilos usan sus propias
    conexiones y no ven la transacción de una prueba); se borran al terminar. Sin `transactional_db`,
    que vaciaría el corpus y los datos de las migraciones para las pruebas siguientes."""
    with django_db_blocker.unblock():
        # ya guardada: crearla a la vez también haría esperar a la segunda
        _, configuracion_nueva = ConfiguracionAvisos.objects.get_or_create(pk=1)
        consultora = usuario_crear_o_actualizar(
            nombre="avisos-a-la-vez", rol=Rol.ESCRITURA, password="clave-123!"
        ).usuario
        cliente = Cliente.objects.create(nombre="Cliente avisos-a-la-vez")
        cliente.usuarios.add(consultora.pk)
        borrador_antiguo(consultora)
        try:
            yield consultora
        finally:
            Aviso.objects.filter(usuario_id=consultora.pk).delete()
            Proyecto.objects.filter(cliente=cliente).delete()
            cliente.delete()
            consultora.delete()
            if configuracion_nueva:
                ConfiguracionAvisos.objects.filter(pk=1).delete()


def test_dos_evaluaciones_a_la_vez_crean_el_aviso_una_sola_vez(
    con_borrador_confirmado: AbstractUser, django_db_blocker: Any
) -> None:
    """La del socket que se abre y la de la tarea periódica: la segunda espera a que la primera confirme."""
    consultora = con_borrador_confirmado
    primera_evaluo, confirmar = threading.Event(), threading.Event()
    creados: list[list[Aviso]] = []

    def primera() -> None:
        try:
            with transaction.atomic():
                creados.append(avisos_evaluar(usuario=consultora, ahora=MEDIODIA))
                primera_evaluo.set()
                confirmar.wait(timeout=30)
        finally:
            connection.close()

    def segunda() -> None:
        try:
            creados.append(avisos_evaluar(usuario=consultora, ahora=MEDIODIA))
        finally:
            connection.close()

    with django_db_blocker.unblock():
        hilos = [threading.Thread(target=primera), threading.Thread(target=segunda)]
        hilos[0].start()
        assert primera_evaluo.wait(timeout=30)
        hilos[1].start()
        hilos[1].join(timeout=0.5)  # sin el candado, la segunda ya habría creado el suyo
        confirmar.set()
        for hilo in hilos:
            hilo.join(timeout=30)
        guardados = Aviso.objects.filter(usuario_id=consultora.pk).count()

    assert sorted(len(avisos) for avisos in creados) == [0, 1]
    assert guardados == 1
