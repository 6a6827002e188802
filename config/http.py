"""El único envoltorio HTTP del proyecto (sobre httpx): todo llamado saliente pasa por aquí.

- API de argumentos con nombre; tiempo límite en cada llamado; User-Agent descriptivo.
- Solo hosts de `HTTP_HOSTS_PERMITIDOS` (también en cada redirección): sin SSRF.
- Reintentos con espera exponencial ante fallas transitorias (red, tiempo agotado, 429, 5xx),
  respetando `Retry-After`; un 4xx distinto de 429 no se reintenta.
- Cortesía por host: una pausa mínima entre llamadas al mismo host, coordinada entre procesos con
  Redis (si Redis no responde, al menos dentro del proceso).
- Límite de tamaño de la respuesta (se corta la lectura) y verificación del tipo de contenido.
- Un solo tipo de error, `ErrorHttp`, con `permanente`: si reintentar más tarde puede servir.
- Un plazo compartido (`plazo(s)`): los llamados dentro de él, con sus reintentos y esperas, terminan
  antes de que venza (una herramienta del asistente tiene 10 s en total, no 20 s por intento).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urlsplit

import httpx
import redis
import structlog
from django.conf import settings

from config.redis_clientes import cliente_redis

log = structlog.get_logger(__name__)

USER_AGENT = "PrefactibilidadAmbientalMinera/0.1 (+consultas al SEIA; contacto: soporte del sistema)"
TRANSITORIOS = {429, 500, 502, 503, 504}
NO_MODIFICADO = 304
ESPERA_BASE_S = 0.5
ESPERA_MAXIMA_S = 30.0


class ErrorHttp(Exception):
    """Falla de un llamado externo; `permanente` dice si reintentar más tarde no va a servir."""

    def __init__(self, mensaje: str, *, permanente: bool, estado: int | None = None, url: str = "") -> None:
        super().__init__(mensaje)
        self.permanente = permanente
        self.estado = estado
        self.url = url


@dataclass(frozen=True)
class Respuesta:
    url: str
    estado: int
    cabeceras: Mapping[str, str]
    contenido: bytes
    tipo: str
    codificacion: str | None

    def texto(self, *, codificacion: str | None = None) -> str:
        """El cuerpo como texto: la codificación indicada, la del servidor o UTF-8."""
        return self.contenido.decode(codificacion or self.codificacion or "utf-8", errors="replace")

    def json(self, *, codificacion: str | None = None) -> Any:
        try:
            return json.loads(self.texto(codificacion=codificacion))
        except json.JSONDecodeError as error:
            raise ErrorHttp(f"Respuesta JSON inválida de {self.url}: {error}.", permanente=False) from None


_PLAZO: ContextVar[float | None] = ContextVar("plazo_http", default=None)


@contextmanager
def plazo(segundos: float) -> Iterator[None]:
    """Los llamados dentro del bloque (con sus reintentos, esperas y pausas de cortesía) comparten un
    plazo de `segundos`; anidado, vale el que vence primero. Vencido, `ErrorHttp` transitorio."""
    anterior = _PLAZO.get()
    fin = time.monotonic() + segundos
    marca = _PLAZO.set(fin if anterior is None else min(anterior, fin))
    try:
        yield
    finally:
        _PLAZO.reset(marca)


def _restante_s() -> float | None:
    fin = _PLAZO.get()
    return None if fin is None else fin - time.monotonic()


def solicitar(
    *,
    url: str,
    metodo: str = "GET",
    parametros: Mapping[str, str | int] | None = None,
    formulario: Mapping[str, str | list[str]] | None = None,
    json_cuerpo: Any = None,
    cabeceras: Mapping[str, str] | None = None,
    tipos_aceptados: tuple[str, ...] = (),
    timeout_s: float | None = None,
    maximo_bytes: int | None = None,
    reintentos: int = 3,
) -> Respuesta:
    """Hace el llamado con todas las salvaguardas del módulo y devuelve la respuesta completa."""
    _verificar_host(url)
    maximo = maximo_bytes or settings.HTTP_MAXIMO_BYTES
    intento = 0
    while True:
        intento += 1
        _esperar_turno(urlsplit(url).netloc.lower())
        restante = _restante_s()
        if restante is not None and restante <= 0:
            raise ErrorHttp(f"Se agotó el plazo de la consulta a {url}.", permanente=False, url=url)
        limite_s = timeout_s or settings.HTTP_TIMEOUT_S
        try:
            return _un_llamado(
                url=url,
                metodo=metodo,
                parametros=parametros,
                formulario=formulario,
                json_cuerpo=json_cuerpo,
                cabeceras=cabeceras,
                tipos_aceptados=tipos_aceptados,
                timeout_s=limite_s if restante is None else max(0.05, min(limite_s, restante)),
                maximo_bytes=maximo,
            )
        except _Transitoria as transitoria:
            espera = transitoria.retry_after or ESPERA_BASE_S * 2 ** (intento - 1)
            restante = _restante_s()
            sin_plazo = restante is not None and espera >= restante
            if intento > reintentos or espera > ESPERA_MAXIMA_S or sin_plazo:
                if intento > reintentos:
                    motivo = f"tras {intento} intentos"
                elif sin_plazo:
                    motivo = f"tras {intento} intentos: se agotó el plazo de la consulta"
                else:
                    motivo = f"el servidor pide esperar {espera:.0f} s"
                raise ErrorHttp(
                    f"{transitoria.mensaje} ({motivo})", permanente=False, estado=transitoria.estado, url=url
                ) from None
            log.warning(
                "http.reintento", url=url, intento=intento, espera_s=espera, motivo=transitoria.mensaje
            )
            time.sleep(espera)


# --- internos ---------------------------------------------------------------------------------


class _Transitoria(Exception):
    def __init__(self, mensaje: str, *, estado: int | None = None, retry_after: float | None = None) -> None:
        self.mensaje, self.estado, self.retry_after = mensaje, estado, retry_after


def _un_llamado(
    *,
    url: str,
    metodo: str,
    parametros: Mapping[str, str | int] | None,
    formulario: Mapping[str, str | list[str]] | None,
    json_cuerpo: Any,
    cabeceras: Mapping[str, str] | None,
    tipos_aceptados: tuple[str, ...],
    timeout_s: float,
    maximo_bytes: int,
) -> Respuesta:
    try:
        with _cliente().stream(
            metodo,
            url,
            params=parametros,
            data=formulario,
            json=json_cuerpo,
            headers=cabeceras,
            timeout=timeout_s,
        ) as respuesta:
            if respuesta.status_code in TRANSITORIOS:
                raise _Transitoria(
                    f"{url} respondió {respuesta.status_code}",
                    estado=respuesta.status_code,
                    retry_after=_retry_after(respuesta.headers.get("retry-after")),
                )
            if respuesta.status_code >= 400:
                raise ErrorHttp(
                    f"{url} respondió {respuesta.status_code}",
                    permanente=True,
                    estado=respuesta.status_code,
                    url=url,
                )
            tipo = respuesta.headers.get("content-type", "").split(";")[0].strip().lower()
            if respuesta.status_code == NO_MODIFICADO:  # pedido condicional: lo guardado sigue vigente
                return Respuesta(str(respuesta.url), NO_MODIFICADO, dict(respuesta.headers), b"", tipo, None)
            if tipos_aceptados and tipo not in tipos_aceptados:
                raise ErrorHttp(
                    f"{url} devolvió «{tipo or 'sin tipo'}», se esperaba {', '.join(tipos_aceptados)}",
                    permanente=False,
                    estado=respuesta.status_code,
                    url=url,
                )
            declarado = int(respuesta.headers.get("content-length") or 0)
            if declarado > maximo_bytes:
                raise _demasiado_grande(url, maximo_bytes)
            partes, leidos = [], 0
            for trozo in respuesta.iter_bytes():
                leidos += len(trozo)
                if leidos > maximo_bytes:
                    raise _demasiado_grande(url, maximo_bytes)
                partes.append(trozo)
            return Respuesta(
                url=str(respuesta.url),
                estado=respuesta.status_code,
                cabeceras=dict(respuesta.headers),
                contenido=b"".join(partes),
                tipo=tipo,
                codificacion=respuesta.charset_encoding,
            )
    except httpx.TimeoutException:
        raise _Transitoria(f"{url} no respondió en {timeout_s:.0f} s") from None
    except httpx.TransportError as error:
        raise _Transitoria(f"No se pudo conectar con {url}: {error}") from None


def _demasiado_grande(url: str, maximo: int) -> ErrorHttp:
    return ErrorHttp(f"La respuesta de {url} supera el máximo de {maximo} bytes", permanente=True, url=url)


def _retry_after(valor: str | None) -> float | None:
    """`Retry-After` en segundos o como fecha HTTP."""
    if not valor:
        return None
    try:
        return max(0.0, float(valor))
    except ValueError:
        pass
    try:
        return max(0.0, parsedate_to_datetime(valor).timestamp() - time.time())
    except (TypeError, ValueError):
        return None


def _verificar_host(url: str) -> None:
    partes = urlsplit(url)
    host = partes.netloc.lower()
    if partes.scheme not in ("http", "https") or host not in settings.HTTP_HOSTS_PERMITIDOS:
        raise ErrorHttp(f"Host no permitido: «{host or url}».", permanente=True, url=url)


def _verificar_redireccion(peticion: httpx.Request) -> None:
    _verificar_host(str(peticion.url))


_local = threading.local()


def _cliente() -> httpx.Client:
    """Un cliente por hilo (conexiones reutilizadas); cada redirección vuelve a pasar la lista de hosts."""
    cliente: httpx.Client | None = getattr(_local, "cliente", None)
    if cliente is None:
        cliente = httpx.Client(
            headers={"User-Agent": USER_AGENT},
            follow_redirects=True,
            max_redirects=5,
            event_hooks={"request": [_verificar_redireccion]},
        )
        _local.cliente = cliente
    return cliente


# --- cortesía por host ------------------------------------------------------------------------

_ultimo_llamado: dict[str, float] = {}
_candado = threading.Lock()


def _esperar_turno(host: str) -> None:
    """Espera hasta que pase la pausa mínima desde el último llamado a `host` (de cualquier proceso)."""
    intervalo_ms = settings.HTTP_INTERVALO_POR_HOST_MS
    if intervalo_ms <= 0 or host in settings.HTTP_SIN_PAUSA:
        return
    restante = _restante_s()
    limite = time.monotonic() + (ESPERA_MAXIMA_S if restante is None else min(ESPERA_MAXIMA_S, restante))
    while time.monotonic() < limite:
        try:
            if _redis().set(f"http:cortesia:{host}", "1", nx=True, px=intervalo_ms):
                return
            restante_ms = _redis().pttl(f"http:cortesia:{host}")
            time.sleep(max(restante_ms, 10) / 1000)
        except redis.RedisError:
            _esperar_en_proceso(host, intervalo_ms / 1000)
            return


def _esperar_en_proceso(host: str, intervalo_s: float) -> None:
    with _candado:
        espera = _ultimo_llamado.get(host, 0.0) + intervalo_s - time.monotonic()
        if espera > 0:
            time.sleep(espera)
        _ultimo_llamado[host] = time.monotonic()


def _redis() -> redis.Redis:
    return cliente_redis(espera_s=2)
