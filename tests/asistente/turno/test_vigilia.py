"""La vigilia de un turno en Redis: quién lo corre y si sigue vivo."""

from uuid import uuid4

from asistente.turno import vigilia
from config.redis_clientes import cliente_redis


def test_un_latido_que_llega_despues_de_soltar_la_vigilia_no_la_revive():
    # el hilo de latidos copia la lista de guardias y recién después renueva cada una: si el turno
    # termina entre medio, esa renovación atrasada no debe volver a crear la vigilia (quien retransmite
    # vería «vivo» un turno ya respondido; le pasó a una prueba con la máquina cargada)
    turno_id = str(uuid4())
    conexion = cliente_redis()
    with vigilia.ejecucion(turno_id) as guardia:
        assert guardia is not None
        assert conexion.exists(vigilia.clave_vigilia(turno_id))

    vigilia.renovar(guardia, conexion)

    assert not conexion.exists(vigilia.clave_vigilia(turno_id))
    assert not guardia.perdida


def test_un_latido_renueva_la_vigilia_en_curso_y_nota_si_otra_ejecucion_la_tomo():
    turno_id = str(uuid4())
    conexion = cliente_redis()
    with vigilia.ejecucion(turno_id) as guardia:
        assert guardia is not None
        conexion.pexpire(vigilia.clave_vigilia(turno_id), 100)
        vigilia.renovar(guardia, conexion)
        assert conexion.pttl(vigilia.clave_vigilia(turno_id)) > 1000

        conexion.set(vigilia.clave_vigilia(turno_id), "otra-ejecucion")
        vigilia.renovar(guardia, conexion)
        assert guardia.perdida
