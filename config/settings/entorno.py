"""Lectura validada de variables de entorno (django-environ) con errores en español.

Un valor inválido detiene el arranque con `ImproperlyConfigured` nombrando la variable,
en vez de dejar que el proceso arranque con una configuración que fallará más tarde.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import environ
from django.core.exceptions import ImproperlyConfigured

env = environ.Env()

_VERDADEROS = {"1", "true", "t", "si", "sí", "yes", "on"}
_FALSOS = {"0", "false", "f", "no", "off", ""}


def texto(nombre: str, *, defecto: str | None = None, opciones: tuple[str, ...] = ()) -> str:
    """Devuelve la variable como texto; exige que exista si no hay valor por defecto."""
    valor: str | None = env.str(nombre, default=None)
    if valor is None:
        if defecto is None:
            raise ImproperlyConfigured(f"Falta la variable de entorno {nombre}.")
        return defecto
    if opciones and valor not in opciones:
        raise ImproperlyConfigured(
            f"Variable de entorno {nombre} inválida: «{valor}». Valores posibles: {', '.join(opciones)}."
        )
    return valor


def booleano(nombre: str, *, defecto: bool) -> bool:
    """Devuelve la variable como booleano; rechaza valores ambiguos como «quizás»."""
    valor = env.str(nombre, default=None)
    if valor is None:
        return defecto
    normalizado = valor.strip().lower()
    if normalizado in _VERDADEROS:
        return True
    if normalizado in _FALSOS:
        return False
    raise ImproperlyConfigured(
        f"Variable de entorno {nombre} inválida: «{valor}». Use true/false, 1/0 o sí/no."
    )


def entero(nombre: str, *, defecto: int, minimo: int = 0) -> int:
    """Devuelve la variable como entero mayor o igual que `minimo`."""
    valor = env.str(nombre, default=None)
    if valor is None:
        return defecto
    try:
        numero = int(valor)
    except ValueError:
        raise ImproperlyConfigured(
            f"Variable de entorno {nombre} inválida: «{valor}» no es un número entero."
        ) from None
    if numero < minimo:
        raise ImproperlyConfigured(f"Variable de entorno {nombre} inválida: debe ser ≥ {minimo}.")
    return numero


def fraccion(nombre: str, *, defecto: float) -> float:
    """Devuelve la variable como número entre 0 y 1 (acepta coma o punto decimal)."""
    valor = env.str(nombre, default=None)
    if valor is None:
        return defecto
    try:
        numero = float(valor.replace(",", "."))
    except ValueError:
        raise ImproperlyConfigured(
            f"Variable de entorno {nombre} inválida: «{valor}» no es un número."
        ) from None
    if not 0 <= numero <= 1:
        raise ImproperlyConfigured(f"Variable de entorno {nombre} inválida: debe estar entre 0 y 1.")
    return numero


def lista(nombre: str, *, defecto: list[str]) -> list[str]:
    """Devuelve la variable separada por comas, sin elementos vacíos."""
    valor = env.str(nombre, default=None)
    if valor is None:
        return defecto
    return [parte.strip() for parte in valor.split(",") if parte.strip()]


def hosts_de(urls: list[str], *, fijos: list[str]) -> list[str]:
    """Hosts (con puerto si lo tienen) de las URLs configuradas, más los fijos; valida cada URL."""
    hosts = list(fijos)
    for url in urls:
        if not url:
            continue
        partes = urlsplit(url)
        if partes.scheme not in {"http", "https"} or not partes.netloc:
            raise ImproperlyConfigured(
                f"URL inválida en la configuración: «{url}» (se espera http(s)://host/…)."
            )
        hosts.append(partes.netloc.lower())
    return list(dict.fromkeys(hosts))


def base_de_datos(nombre: str = "DATABASE_URL") -> dict[str, Any]:
    """Devuelve la configuración de Django para la URL de PostgreSQL de la variable."""
    url = texto(nombre)
    if urlsplit(url).scheme not in {"postgres", "postgresql", "pgsql"}:
        raise ImproperlyConfigured(f"Variable de entorno {nombre} inválida: se espera una URL postgresql://…")
    try:
        config: dict[str, Any] = env.db_url_config(url)
    except Exception as error:  # django-environ lanza varios tipos ante URLs mal formadas
        raise ImproperlyConfigured(f"Variable de entorno {nombre} inválida: {error}") from None
    if not config.get("NAME"):
        raise ImproperlyConfigured(f"Variable de entorno {nombre} inválida: falta el nombre de la base.")
    return config


def url_redis(nombre: str = "REDIS_URL") -> str:
    """Devuelve la URL de Redis de la variable, validando su esquema."""
    url = texto(nombre)
    partes = urlsplit(url)
    if partes.scheme not in {"redis", "rediss"} or not partes.hostname:
        raise ImproperlyConfigured(
            f"Variable de entorno {nombre} inválida: se espera una URL redis://host:puerto/db"
        )
    return url
