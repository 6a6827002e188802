"""El motor PostgreSQL de Django con un pool que se recupera solo de un corte de la base.

Django arma el pool de psycopg con sus valores por omisión
(https://docs.djangoproject.com/en/5.2/ref/databases/#connection-pool); con ellos, un corte de
PostgreSQL duraba dos minutos más que el corte (medido en docs/rendimiento.md):

- el pool insiste en reponer cada conexión perdida durante 5 minutos con esperas que se duplican, y
  mientras tanto la cuenta como suya: al volver PostgreSQL tras un minuto, el siguiente intento llegaba
  otro minuto después y nadie podía conectar. Aquí un intento se abandona a los `RECONEXION_S`
  segundos, el cupo se libera y el siguiente pedido conecta en el acto;
- una conexión muerta del pool se descubría de a una por pedido, con una pausa creciente entre cada
  una: aquí la primera muerta hace revisar todas las del pool de una vez;
- con la base caída, cada pedido esperaba `BD_ESPERA_CONEXION_S` antes de su 503 (y una página que
  toca la base varias veces, varias esperas): aquí, si en un segundo no hay conexión, una directa
  dice si la base responde (y se sigue esperando un cupo del pool lleno) o está caída; caída, los
  pedidos fallan en el acto y uno por segundo sondea si volvió;
- cada conexión nueva lleva `connect_timeout`: un intento colgado no retiene a los hilos del pool.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import psycopg
import structlog
from django.db.backends.base.base import NO_DB_ALIAS
from django.db.backends.postgresql import base
from psycopg_pool import ConnectionPool, PoolTimeout

registro = structlog.get_logger(__name__)

RECONEXION_S = 3.0
SONDEO_CADA_S = 1.0
ESPERA_SONDEO_S = 2
ESPERA_ANTES_DE_SONDEAR_S = 1.0
MENSAJE_CAIDA = "PostgreSQL no responde (el pool no logra conectar); se reintenta en un segundo."


class EstadoDeLaBase:
    """Si la base de un pool está caída, y cuándo toca volver a sondearla."""

    def __init__(self) -> None:
        self.caida = False
        self.proximo_sondeo = 0.0
        self.candado = threading.Lock()

    def marcar_caida(self) -> None:
        """Quien la marca caída acaba de intentar conectar: el próximo sondeo, en un segundo."""
        if not self.caida:
            registro.warning("base_de_datos_caida")
        with self.candado:
            self.proximo_sondeo = time.monotonic() + SONDEO_CADA_S
        self.caida = True

    def marcar_viva(self) -> None:
        if self.caida:
            registro.info("base_de_datos_de_vuelta")
        self.caida = False

    def toca_sondear(self) -> bool:
        """Con la base caída: si este pedido sondea (uno por segundo en el proceso) o falla ya."""
        with self.candado:
            ahora = time.monotonic()
            if ahora < self.proximo_sondeo:
                return False
            self.proximo_sondeo = ahora + SONDEO_CADA_S
            return True


class PoolQueSana(ConnectionPool[Any]):
    """El pool de psycopg que, con la base caída, falla en el acto en vez de esperar su plazo entero.

    Acepta lo mismo que `ConnectionPool`; fija `reconnect_timeout` y `reconnect_failed` (cuando el pool
    se rinde de reponer una conexión, la base está caída) y envuelve `configure` y `check` (conectar es
    la mejor prueba de que la base volvió; una conexión muerta hace revisar las demás).
    """

    def __init__(self, *args: Any, configure: Any = None, check: Any = None, **kwargs: Any) -> None:
        self.estado = EstadoDeLaBase()

        def configurar(conexion: Any) -> Any:
            self.estado.marcar_viva()
            return configure(conexion) if configure else None

        super().__init__(
            *args,
            configure=configurar,
            check=self._revisar_todas_si_una_murio if check else None,
            reconnect_timeout=RECONEXION_S,
            reconnect_failed=lambda _pool: self.estado.marcar_caida(),
            **kwargs,
        )

    def getconn(self, timeout: float | None = None) -> Any:
        total = self.timeout if timeout is None else timeout
        if self.estado.caida:
            if not self.estado.toca_sondear():
                raise psycopg.OperationalError(MENSAJE_CAIDA)
            self.sondear()
            self.estado.marcar_viva()
            self.check()  # las conexiones que sobrevivieron al corte, revisadas de una vez
        # Primero una espera corta: con el pool lleno basta casi siempre; si no alcanza, una conexión
        # directa dice si la base responde (seguir esperando un cupo) o está caída (fallar ya).
        primera = min(ESPERA_ANTES_DE_SONDEAR_S, total)
        try:
            return super().getconn(primera)
        except PoolTimeout:
            if primera >= total:
                raise
        try:
            self.sondear()
        except psycopg.OperationalError:
            self.estado.marcar_caida()
            raise
        return super().getconn(total - primera)

    def sondear(self) -> None:
        """Una conexión directa, fuera del pool, que se cierra enseguida; lanza si la base no responde."""
        # `DatabaseWrapper.pool` arma el pool con un diccionario de parámetros y sin cadena de conexión.
        kwargs = self.kwargs if isinstance(self.kwargs, dict) else {}
        parametros = {k: v for k, v in kwargs.items() if k not in ("cursor_factory", "context")}
        parametros["connect_timeout"] = ESPERA_SONDEO_S
        psycopg.connect(**parametros).close()

    def _revisar_todas_si_una_murio(self, conexion: Any) -> None:
        """Revisión de cada conexión que entrega el pool (`CONN_HEALTH_CHECKS`).

        Si está muerta, PostgreSQL se reinició o se cortó la red, y las demás del pool también lo
        están: se revisan todas ahora (una ida y vuelta cada una), en vez de encontrarlas de a una, con
        la pausa creciente que el pool intercala entre revisiones fallidas.
        """
        try:
            ConnectionPool.check_connection(conexion)
        except Exception:
            self.check()
            raise


class DatabaseWrapper(base.DatabaseWrapper):
    @property
    def pool(self) -> ConnectionPool[Any] | None:
        opciones = self.settings_dict["OPTIONS"].get("pool")
        if self.alias == NO_DB_ALIAS or not opciones:
            return None
        pools: dict[str, ConnectionPool[Any]] = self._connection_pools  # type: ignore[attr-defined]
        if self.alias not in pools:
            # Lo mismo que `base.DatabaseWrapper.pool`, con el pool que sana.
            parametros = self.get_connection_params()
            parametros["autocommit"] = True
            pool = PoolQueSana(
                kwargs=parametros,
                open=False,
                configure=self._configure_connection,  # type: ignore[attr-defined]
                check=self.settings_dict["CONN_HEALTH_CHECKS"],
                **({} if opciones is True else opciones),
            )
            pools.setdefault(self.alias, pool)
        return pools[self.alias]

    def get_connection_params(self) -> dict[str, Any]:
        parametros: dict[str, Any] = super().get_connection_params()
        parametros.setdefault("connect_timeout", ESPERA_SONDEO_S)
        return parametros
