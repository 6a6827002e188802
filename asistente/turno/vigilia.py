"""Quién corre cada turno, y si sigue vivo: un turno cuyo proceso murió se retoma en vez de perderse.

Quien ejecuta un turno toma su «vigilia» en Redis (`SET NX` con vencimiento corto, con el pid y una
ficha propia) y un hilo por proceso la renueva cada `LATIDO_S`. Si el proceso muere (un worker de
«turnos» matado, un web reiniciado), la vigilia vence en a lo más `VIDA_S` y quien retransmite el turno
lo nota (`estado`). Tomarla es también la llave de idempotencia: dos entregas del mismo turno (el
relanzamiento y el mensaje original aún en la cola) no corren a la vez, y la que llega tarde encuentra
la respuesta ya guardada y no hace nada (`flujos.publicar`).

Sin Redis no hay vigilia: el turno corre igual (la respuesta se guarda en PostgreSQL), solo que nadie
podría retomarlo si además su proceso muriera.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Literal
from uuid import uuid4

import redis
import structlog

from config.redis_clientes import cliente_redis

registro = structlog.get_logger(__name__)

VIDA_S = 3.0
LATIDO_S = 0.75
# Un turno enviado a la cola que ningún worker empezó en este tiempo se relanza (el mensaje pudo perderse
# con el worker que lo había recibido; si solo esperaba, la copia que llegue tarde no hará nada). Holgado:
# con cien turnos a la vez la espera en la cola llega a ~10 s, y un relanzamiento de más solo debe
# ocurrir cuando de verdad nadie lo tomó.
ARRANQUE_S = 60.0
MARCAS_S = 3600  # lo que viven la marca de lanzado y la de empezado (lo mismo que el stream)

Estado = Literal["vivo", "esperando", "perdido"]

# Renueva la vigilia si sigue siendo de esta ficha; si venció sin que nadie la tomara (el latido se
# atrasó), la retoma. 0: otra ejecución la tomó.
_RENOVAR = """
local actual = redis.call('GET', KEYS[1])
if actual == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
elseif not actual then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0
"""


def clave_vigilia(turno_id: str) -> str:
    return f"asistente:turno:vigilia:{turno_id}"


def clave_lanzado(turno_id: str) -> str:
    return f"asistente:turno:lanzado:{turno_id}"


def clave_empezado(turno_id: str) -> str:
    return f"asistente:turno:empezado:{turno_id}"


def clave_relanzado(turno_id: str) -> str:
    return f"asistente:turno:relanzado:{turno_id}"


def clave_intentos(turno_id: str) -> str:
    return f"asistente:turno:intentos:{turno_id}"


@dataclass(eq=False)
class Guardia:
    """La vigilia que tiene una ejecución del turno; `perdida` si otra ejecución la tomó, `soltada` si
    terminó. `candado` ordena soltarla y renovarla: un latido que ya copió la lista de guardias no debe
    renovarla después de que se soltó (la renovación la vuelve a crear si no existe)."""

    turno_id: str
    ficha: str
    perdida: bool = False
    soltada: bool = False
    candado: threading.Lock = field(default_factory=threading.Lock)


def anotar_lanzado(turno_id: str, vista: str) -> None:
    """Marca el momento en que el turno se envió a ejecutar (y con qué vista, para relanzarlo)."""
    try:
        cliente_redis().set(clave_lanzado(turno_id), f"{time.time()}|{vista}", ex=MARCAS_S)
    except redis.exceptions.RedisError as error:
        registro.warning("vigilia_sin_redis", turno=turno_id, error=str(error)[:200])


def anotar_no_empezo(turno_id: str, vista: str) -> None:
    """El turno lanzado no pudo empezar: deja de contar como «esperando» en la cola (quien lo
    retransmite lo relanza en el acto), con la misma vista."""
    try:
        cliente_redis().set(clave_lanzado(turno_id), f"0|{vista}", ex=MARCAS_S)
    except redis.exceptions.RedisError as error:
        registro.warning("vigilia_sin_redis", turno=turno_id, error=str(error)[:200])


@contextmanager
def ejecucion(
    turno_id: str, *, al_terminar: Callable[[Callable[[], None]], None] | None = None
) -> Iterator[Guardia | None]:
    """La vigilia del turno mientras se ejecuta, o None si otra ejecución la tiene.

    Con `al_terminar`, la vigilia no se suelta al salir: se entrega la función que la suelta a quien
    escribe los eventos del turno, que la llama cuando ya están en Redis. Si se soltara antes, quien
    retransmite vería el turno sin nadie que lo corra y con su respuesta guardada, y mandaría el `done`
    desde la base sin el texto que aún venía en camino.
    """
    guardia = Guardia(turno_id, f"{os.getpid()}:{uuid4().hex}")
    conexion = cliente_redis()
    try:
        tomada = conexion.set(clave_vigilia(turno_id), guardia.ficha, nx=True, px=int(VIDA_S * 1000))
        if tomada:
            conexion.set(clave_empezado(turno_id), 1, ex=MARCAS_S)
    except redis.exceptions.RedisError as error:
        registro.warning("vigilia_sin_redis", turno=turno_id, error=str(error)[:200])
        tomada = True  # sin Redis el turno corre igual
    if not tomada:
        yield None
        return
    _LATIDOS.agregar(guardia)

    def soltar() -> None:
        _LATIDOS.quitar(guardia)
        with guardia.candado:
            guardia.soltada = True
        try:
            # Solo si sigue siendo suya (no borra la de una ejecución que la tomó después).
            if conexion.get(clave_vigilia(turno_id)) == guardia.ficha.encode():
                conexion.delete(clave_vigilia(turno_id))
        except redis.exceptions.RedisError:
            pass  # vence sola

    try:
        yield guardia
    finally:
        if al_terminar is None:
            soltar()
        else:
            al_terminar(soltar)


async def estado(conexion: Any, turno_id: str) -> Estado:
    """Para quien retransmite: el turno corre (`vivo`), aún no empieza dentro de lo esperable
    (`esperando`), o nadie lo corre (`perdido`: su proceso murió, o nunca empezó)."""
    tuberia = conexion.pipeline(transaction=False)
    tuberia.exists(clave_vigilia(turno_id))
    tuberia.exists(clave_empezado(turno_id))
    tuberia.get(clave_lanzado(turno_id))
    viva, empezado, lanzado = await tuberia.execute()
    if viva:
        return "vivo"
    if not empezado and lanzado and time.time() - float(lanzado.split(b"|")[0]) < ARRANQUE_S:
        return "esperando"
    return "perdido"


def vista_lanzada(turno_id: str) -> str:
    try:
        lanzado = cliente_redis().get(clave_lanzado(turno_id))
    except redis.exceptions.RedisError:
        return ""
    texto = lanzado.decode() if isinstance(lanzado, bytes) else str(lanzado or "")
    return texto.partition("|")[2]


def tomar_relanzamiento(turno_id: str, *, maximo: int) -> int | None:
    """El número de este relanzamiento si toca a quien llama (uno a la vez entre todos los que
    retransmiten el turno), o None si otro acaba de relanzarlo. Pasado `maximo`, devuelve maximo + 1."""
    conexion = cliente_redis()
    if not conexion.set(clave_relanzado(turno_id), 1, nx=True, ex=int(ARRANQUE_S)):
        return None
    tuberia = conexion.pipeline(transaction=False)
    tuberia.incr(clave_intentos(turno_id))
    tuberia.expire(clave_intentos(turno_id), MARCAS_S)
    tuberia.delete(clave_empezado(turno_id))  # el relanzado cuenta como no empezado hasta que empiece
    intento, *_ = tuberia.execute()
    return min(int(intento), maximo + 1)


@dataclass
class _Latidos:
    """Un hilo por proceso renueva las vigilias de todos sus turnos en curso."""

    guardias: set[Guardia] = field(default_factory=set)
    candado: threading.Lock = field(default_factory=threading.Lock)
    hilo: threading.Thread | None = None
    pid: int = 0

    def agregar(self, guardia: Guardia) -> None:
        with self.candado:
            self.guardias.add(guardia)
            if self.hilo is None or self.pid != os.getpid():  # un hijo (fork) no hereda el hilo
                self.hilo = threading.Thread(target=self._latir, name="turnos-vigilia", daemon=True)
                self.hilo.start()
                self.pid = os.getpid()

    def quitar(self, guardia: Guardia) -> None:
        with self.candado:
            self.guardias.discard(guardia)

    def _latir(self) -> None:
        conexion = cliente_redis()
        while True:
            time.sleep(LATIDO_S)
            with self.candado:
                guardias = list(self.guardias)
            try:
                for guardia in guardias:
                    renovar(guardia, conexion)
            except redis.exceptions.RedisError:
                pass  # Redis caído: se reintenta en el próximo latido


def renovar(guardia: Guardia, conexion: Any) -> None:
    """Un latido para una vigilia: la renueva mientras no se haya soltado, y la marca `perdida` si otra
    ejecución la tomó. Una ya soltada no se toca: renovarla la volvería a crear."""
    with guardia.candado:
        if guardia.soltada:  # terminó después de que el latido copió la lista
            return
        if not conexion.register_script(_RENOVAR)(
            keys=[clave_vigilia(guardia.turno_id)], args=[guardia.ficha, int(VIDA_S * 1000)]
        ):
            guardia.perdida = True


_LATIDOS = _Latidos()
