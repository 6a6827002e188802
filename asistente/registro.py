"""Registro de herramientas del asistente: funciones tipadas cuyo docstring es su descripción.

Cada herramienta declara su entrada como modelo pydantic (de ahí sale el JSON Schema que ve el
modelo), el permiso que exige, si escribe (entonces nunca se ejecuta desde el modelo: se propone
como `AccionPendiente`), el TTL de su caché y si su servicio está disponible. `ejecutar` valida,
aplica el tiempo límite, usa la caché, registra la llamada y devuelve siempre
`{herramienta, parametros, resultado, error, ms, cache_hit}`: los errores esperables vuelven como
datos, no como excepciones.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import inspect
import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, NotRequired, TypedDict, TypeVar

import structlog
from django.db import connection, transaction
from pydantic import BaseModel, ValidationError

from asistente.models import Conversacion, Dominio, LlamadaHerramienta
from asistente.politicas import politica_rag
from config import cache, metricas
from config.errores import EntradaNoValida
from config.http import plazo
from proyectos.roles import Usuario, rol_memorizado

TIEMPO_LIMITE_S = 10
registro = structlog.get_logger(__name__)
MAXIMO_RESULTADOS = 100


class ErrorDeHerramienta(EntradaNoValida):
    """Falla esperable (dato inexistente, permiso): vuelve al modelo como texto; al confirmar una
    acción, al usuario como un 400."""


class Fuente(TypedDict):
    """Un fragmento citable que una herramienta trajo al turno (se numera [n] en la respuesta)."""

    fragmento_id: int | None
    norma: str
    articulo: str
    letra: str
    cita: str  # «Ley 19.300, Art. 11 letra d»
    url: str
    extracto: str
    advertencia: str  # aviso de vigencia de su norma («texto de 2014 …»): se muestra junto a la cita
    vigencia: NotRequired[str]  # «texto del 06-10-2014»: la fecha de la versión citada
    epigrafe: NotRequired[str]  # el del artículo, si lo tiene: «Consulta de pertinencia de ingreso»
    marcador: NotRequired[str]  # «[2]»: cómo se lo cita ante el modelo


_CACHE_ACTIVA: ContextVar[bool] = ContextVar("cache_de_herramientas_activa", default=True)


@contextmanager
def sin_cache() -> Iterator[None]:
    """Dentro del bloque, las herramientas se ejecutan siempre (evaluaciones que miden el camino real)."""
    marca = _CACHE_ACTIVA.set(False)
    try:
        yield
    finally:
        _CACHE_ACTIVA.reset(marca)


@dataclass
class Contexto:
    usuario: Usuario
    conversacion: Conversacion | None = None
    proyecto_activo_id: int | None = None
    fuentes: list[Fuente] = field(default_factory=list)


@dataclass(frozen=True)
class Herramienta:
    nombre: str
    funcion: Callable[[Any, Contexto], dict[str, Any]]
    entrada: type[BaseModel]
    permiso: Callable[[Usuario], bool]
    escritura: bool = False
    ttl_s: int = 0
    disponible: Callable[[], bool] = lambda: True
    describir: Callable[[Any, Contexto], str] | None = None
    grupo_cache: Callable[[Any, Contexto], str] | None = None
    actividad: str = ""
    # Escritura: revisa la entrada al proponerla (con la visibilidad del usuario) y la completa; lo
    # que falte o sea ambiguo vuelve como `ErrorDeHerramienta` con la pregunta para el usuario.
    preparar: Callable[[Any, Contexto], BaseModel] | None = None
    # Su resultado trae texto de un sitio externo: al modelo le llega delimitado como datos.
    externa: bool = False
    # Lectura: ajusta la entrada a las políticas del dominio de la conversación antes de ejecutarla
    # (y antes de la clave de caché), pida lo que pida el motor.
    acotar: Callable[[Any, Contexto], BaseModel] | None = None
    # Recupera normativa (RAG): no se ofrece ni se ejecuta si la política del turno la apaga.
    recupera: bool = False

    @property
    def descripcion(self) -> str:
        return inspect.cleandoc(self.funcion.__doc__ or "")

    @property
    def texto_actividad(self) -> str:
        """Lo que el chat muestra mientras corre («Buscando en la normativa…»)."""
        return self.actividad or f"Consultando {self.nombre.replace('_', ' ')}…"

    def etiquetas(self) -> dict[str, str]:
        """Nombre legible de cada parámetro (su `title`; si no tiene, el nombre sin guiones bajos)."""
        return {
            nombre: campo.title or nombre.replace("_", " ")
            for nombre, campo in self.entrada.model_fields.items()
        }

    def opciones(self) -> dict[str, dict[str, str]]:
        """Valores posibles de cada parámetro de opciones fijas (`enum` del esquema), con su nombre
        legible si la entrada los declara en `OPCIONES`."""
        nombres: dict[str, dict[str, str]] = getattr(self.entrada, "OPCIONES", {})
        propiedades = _esquema(self.nombre, self.entrada, self.descripcion)["input_schema"].get(
            "properties", {}
        )
        return {
            campo: {valor: nombres.get(campo, {}).get(valor, valor) for valor in propiedad["enum"]}
            for campo, propiedad in propiedades.items()
            if "enum" in propiedad
        }

    def esquema(self) -> dict[str, Any]:
        """Definición para la API de Mensajes: nombre, descripción y JSON Schema de la entrada."""
        return copy.deepcopy(_esquema(self.nombre, self.entrada, self.descripcion))


@functools.cache
def _esquema(nombre: str, entrada: type[BaseModel], descripcion: str) -> dict[str, Any]:
    # Generarlo cuesta ~1,5 ms por herramienta y no cambia: se calcula una vez por proceso.
    esquema = entrada.model_json_schema()
    esquema.pop("title", None)
    return {"name": nombre, "description": descripcion, "input_schema": esquema}


REGISTRO: dict[str, Herramienta] = {}


def herramienta(
    *,
    permiso: Callable[[Usuario], bool],
    escritura: bool = False,
    ttl_s: int = 0,
    disponible: Callable[[], bool] | None = None,
    describir: Callable[[Any, Contexto], str] | None = None,
    grupo_cache: Callable[[Any, Contexto], str] | None = None,
    actividad: str = "",
    preparar: Callable[[Any, Contexto], BaseModel] | None = None,
    externa: bool = False,
    acotar: Callable[[Any, Contexto], BaseModel] | None = None,
    recupera: bool = False,
) -> Callable[[Callable[[Any, Contexto], dict[str, Any]]], Callable[[Any, Contexto], dict[str, Any]]]:
    """Registra la función; su primer parámetro anotado con un modelo pydantic es la entrada."""

    def registrar(
        funcion: Callable[[Any, Contexto], dict[str, Any]],
    ) -> Callable[[Any, Contexto], dict[str, Any]]:
        entrada = next(iter(inspect.get_annotations(funcion, eval_str=True).values()))
        REGISTRO[funcion.__name__] = Herramienta(
            nombre=funcion.__name__,
            funcion=funcion,
            entrada=entrada,
            permiso=permiso,
            escritura=escritura,
            ttl_s=ttl_s,
            disponible=disponible or (lambda: True),
            describir=describir,
            grupo_cache=grupo_cache,
            actividad=actividad,
            preparar=preparar,
            externa=externa,
            acotar=acotar,
            recupera=recupera,
        )
        return funcion

    return registrar


T = TypeVar("T")
_OFERTA: ContextVar[dict[Callable[[], Any], Any] | None] = ContextVar("oferta_de_herramientas", default=None)


def por_oferta(funcion: Callable[[], T]) -> Callable[[], T]:
    """Una consulta que varias verificaciones de disponibilidad comparten: dentro de una oferta
    (`herramientas_para`) se hace una vez; fuera, en cada llamada. Nada queda guardado entre ofertas."""

    @functools.wraps(funcion)
    def compartida() -> T:
        memoria = _OFERTA.get()
        if memoria is None:
            return funcion()
        if funcion not in memoria:
            memoria[funcion] = funcion()
        return memoria[funcion]  # type: ignore[no-any-return]

    return compartida


@contextmanager
def _oferta() -> Iterator[None]:
    marca = _OFERTA.set({})
    try:
        yield
    finally:
        _OFERTA.reset(marca)


def herramientas_para(usuario: Usuario, dominio: Dominio | None = None) -> list[Herramienta]:
    """Herramientas que el usuario puede usar y cuyo servicio está disponible ahora; sin las que
    recuperan normativa si la política RAG del dominio (o del servidor) está apagada."""
    recupera = politica_rag(dominio).habilitado
    # Una consulta del rol, no una por herramienta; cada verificación de disponibilidad (varias
    # herramientas comparten la suya), una vez por oferta.
    with rol_memorizado(), _oferta():
        return [
            h
            for h in REGISTRO.values()
            if (recupera or not h.recupera) and h.permiso(usuario) and por_oferta(h.disponible)()
        ]


def _dominio_de(contexto: Contexto) -> Dominio | None:
    return contexto.conversacion.dominio if contexto.conversacion is not None else None


def validar_parametros(herramienta: Herramienta, parametros: Any) -> BaseModel:
    """Entrada validada o `ErrorDeHerramienta` con los problemas en castellano."""
    try:
        return herramienta.entrada.model_validate(parametros or {})
    except ValidationError as error:
        problemas = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'entrada'}: {_en_castellano(e)}" for e in error.errors()
        )
        raise ErrorDeHerramienta(f"Parámetros inválidos para {herramienta.nombre}: {problemas}") from error


def ejecutar(
    nombre: str, parametros: Any, *, contexto: Contexto, forzar_escritura: bool = False
) -> dict[str, Any]:
    """Ejecuta una herramienta de lectura (o una de escritura ya confirmada) y registra la llamada."""
    inicio = time.perf_counter()
    herramienta = REGISTRO.get(nombre)
    resultado: dict[str, Any] | None = None
    error = ""
    cache_hit = False
    clave = ""
    try:
        if herramienta is None or not herramienta.disponible():
            raise ErrorDeHerramienta(f"La herramienta «{nombre}» no está disponible.")
        if herramienta.recupera and not (politica := politica_rag(_dominio_de(contexto))).habilitado:
            raise ErrorDeHerramienta(politica.motivo)
        if not herramienta.permiso(contexto.usuario):
            raise ErrorDeHerramienta(f"Su rol no permite usar «{nombre}».")
        if herramienta.escritura and not forzar_escritura:
            raise ErrorDeHerramienta(f"«{nombre}» modifica datos: solo se ejecuta al confirmarla.")
        entrada = validar_parametros(herramienta, parametros)
        if herramienta.acotar is not None:
            entrada = herramienta.acotar(entrada, contexto)
        clave = (
            _clave_cache(herramienta, entrada, contexto) if herramienta.ttl_s and _CACHE_ACTIVA.get() else ""
        )
        if clave and (guardado := cache.leer(clave)) is not None:
            resultado, cache_hit = guardado, True
        else:
            resultado = _con_tiempo_limite(herramienta, entrada, contexto)
            if clave:
                cache.guardar(clave, resultado, herramienta.ttl_s)
    except ErrorDeHerramienta as e:
        error = str(e)
    ms = round((time.perf_counter() - inicio) * 1000)
    _medir(nombre, ms=ms, error=bool(error), cache_hit=cache_hit if clave else None)
    LlamadaHerramienta.objects.create(
        conversacion=contexto.conversacion,
        usuario_id=contexto.usuario.pk if contexto.usuario.is_authenticated else None,
        herramienta=nombre,
        parametros=parametros if isinstance(parametros, dict) else {"valor": str(parametros)},
        ms=ms,
        exito=not error,
        error=error,
        cache_hit=cache_hit,
    )
    if resultado and "fuentes" in resultado:
        contexto.fuentes.extend(f for f in resultado["fuentes"] if f not in contexto.fuentes)
    return {
        "herramienta": nombre,
        "parametros": parametros,
        "resultado": resultado,
        "error": error or None,
        "ms": ms,
    }


def _medir(nombre: str, *, ms: int, error: bool, cache_hit: bool | None) -> None:
    """Métricas de la llamada; `cache_hit` es None si la herramienta no usa caché en esta llamada.
    La etiqueta es el nombre solo si la herramienta existe: un nombre inventado no crea series."""
    etiqueta = nombre if nombre in REGISTRO else "desconocida"
    metricas.herramienta_segundos.labels(herramienta=etiqueta).observe(ms / 1000)
    if error:
        metricas.herramienta_errores_total.labels(herramienta=etiqueta).inc()
    if cache_hit is not None:
        metricas.contar_cache("herramientas", acierto=cache_hit)


def _en_castellano(error: Any) -> str:
    """Mensaje de validación de pydantic en castellano (los tipos comunes; el resto, tal cual)."""
    contexto = error.get("ctx") or {}
    mensajes = {
        "missing": "falta este dato",
        "int_parsing": "debe ser un número entero",
        "int_from_float": "debe ser un número entero",
        "float_parsing": "debe ser un número",
        "bool_parsing": "debe ser sí o no",
        "string_type": "debe ser texto",
        "string_too_short": f"debe tener al menos {contexto.get('min_length')} caracteres",
        "string_too_long": f"debe tener a lo más {contexto.get('max_length')} caracteres",
        "greater_than_equal": f"debe ser mayor o igual a {contexto.get('ge')}",
        "less_than_equal": f"debe ser menor o igual a {contexto.get('le')}",
        "literal_error": f"debe ser uno de: {contexto.get('expected')}",
        "extra_forbidden": "campo desconocido",
        "dict_type": "debe ser un objeto",
        "list_type": "debe ser una lista",
    }
    return mensajes.get(error.get("type"), str(error.get("msg")))


def invalidar_grupo(grupo: str) -> None:
    """Invalida las entradas de caché de un grupo (p. ej. «proyecto:12» cuando el proyecto cambia)."""
    cache.contar(f"asistente:grupo:{grupo}")


def _clave_cache(herramienta: Herramienta, entrada: BaseModel, contexto: Contexto) -> str:
    # Los resultados dependen de lo que el usuario puede ver y, sin proyecto indicado, del proyecto
    # activo de la conversación: la clave incluye a ambos (y, si recupera normativa, la política RAG).
    datos = json.dumps(entrada.model_dump(mode="json"), sort_keys=True)
    version = ""
    if herramienta.grupo_cache:
        grupo = herramienta.grupo_cache(entrada, contexto)
        version = f"{grupo}:{cache.leer(f'asistente:grupo:{grupo}', 0)}"
    if herramienta.recupera:  # lo que entra al contexto depende de la política RAG vigente y del dominio
        dominio = _dominio_de(contexto)
        # y de la confianza mínima del dominio, que decide si la base es suficiente: editarla en el admin
        # rige desde la búsqueda siguiente
        del_dominio = f"{dominio.pk}:{dominio.confianza_minima}" if dominio else ""
        version += f"|{del_dominio}|{politica_rag(dominio)}"
    origen = f"{contexto.usuario.pk}|{contexto.proyecto_activo_id}|{datos}|{version}"
    resumen = hashlib.sha256(origen.encode()).hexdigest()[:32]
    return f"asistente:herramienta:{herramienta.nombre}:{resumen}"


def _con_tiempo_limite(herramienta: Herramienta, entrada: BaseModel, contexto: Contexto) -> dict[str, Any]:
    """Ejecuta con un solo plazo de `TIEMPO_LIMITE_S`: `statement_timeout` de PostgreSQL y el plazo
    compartido del envoltorio HTTP (reintentos y páginas incluidos). Una fuente externa que no termina
    a tiempo responde desde su caché vencida con una advertencia, o con un error si no hay copia."""
    try:
        with plazo(TIEMPO_LIMITE_S), transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute(f"SET LOCAL statement_timeout = {TIEMPO_LIMITE_S * 1000}")
            return herramienta.funcion(entrada, contexto)
    except ErrorDeHerramienta:
        raise
    except Exception as error:
        if "statement timeout" in str(error):
            raise ErrorDeHerramienta(f"«{herramienta.nombre}» superó {TIEMPO_LIMITE_S} s.") from error
        # Un fallo inesperado no tumba el turno: se registra y vuelve como error de la herramienta.
        registro.exception("herramienta_fallo", herramienta=herramienta.nombre)
        raise ErrorDeHerramienta(f"«{herramienta.nombre}» falló por un error interno.") from error
