"""Operaciones de escritura de proyectos, análisis y usuarios."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from typing import Any, TypedDict

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractUser, Group
from django.db import transaction
from django.utils import timezone
from django.utils.module_loading import import_string
from rest_framework.authtoken.models import Token

from config.texto import hash_de_texto
from proyectos.analisis import reglas
from proyectos.analisis.entrada import Entrada, validar_entrada
from proyectos.analisis.fundamentos import Referencia
from proyectos.analisis.motor import evaluar_entrada
from proyectos.models import Analisis, Cliente, Proyecto, ReglaDelMotor
from proyectos.referencias import referencias_para
from proyectos.roles import GRUPOS, Rol, Usuario
from proyectos.selectors import proyecto_como_entrada


class TextoVigente(TypedDict):
    """Lo que devuelve `TEXTOS_VIGENTES` por fragmento (la app normativa, sin importarla)."""

    texto: str
    fecha_version: str | None


@dataclass(frozen=True)
class UsuarioConToken:
    usuario: AbstractUser
    token: str
    creado: bool
    password_generada: str | None


@transaction.atomic
def usuario_crear_o_actualizar(*, nombre: str, rol: Rol, password: str | None = None) -> UsuarioConToken:
    """Crea o actualiza el usuario con exactamente el rol indicado y devuelve su token de API.

    Sin contraseña, un usuario nuevo recibe una generada (que se devuelve para mostrarla una
    vez) y uno existente conserva la suya.
    """
    modelo = get_user_model()
    usuario, creado = modelo.objects.get_or_create(username=nombre)
    password_generada = None
    if password:
        usuario.set_password(password)
    elif creado:
        password_generada = secrets.token_urlsafe(12)
        usuario.set_password(password_generada)
    usuario.is_staff = rol is Rol.ADMINISTRADOR or usuario.is_superuser
    usuario.save()
    usuario.groups.remove(*Group.objects.filter(name__in=GRUPOS))
    usuario.groups.add(Group.objects.get(name=rol.grupo))
    token, _ = Token.objects.get_or_create(user=usuario)
    return UsuarioConToken(
        usuario=usuario, token=token.key, creado=creado, password_generada=password_generada
    )


def usuario_asociar_cliente(*, usuario: AbstractUser, nombre_cliente: str) -> tuple[Cliente, bool]:
    """Asocia el usuario al cliente de ese nombre (sin distinguir mayúsculas), creándolo si no existe;
    devuelve el cliente y si se creó."""
    nombre = nombre_cliente.strip()
    if not nombre:
        raise ValueError("El nombre del cliente no puede estar vacío.")
    cliente = Cliente.objects.filter(nombre__iexact=nombre).first()
    creado = cliente is None
    if cliente is None:
        cliente = Cliente.objects.create(nombre=nombre)
    cliente.usuarios.add(usuario.pk)
    return cliente, creado


@transaction.atomic
def proyecto_crear(*, cliente: Cliente, datos: dict[str, Any], usuario: Usuario | None = None) -> Proyecto:
    """Valida los datos con las reglas del motor y crea el proyecto (nada se guarda si son inválidos).

    Puede faltar la cantidad que el tipo necesita: el análisis la pedirá."""
    entrada = validar_entrada(datos, exigir_cantidades=False)
    proyecto = Proyecto(cliente=cliente, creado_por=_autor(usuario))
    _aplicar(proyecto, entrada)
    proyecto.geometria_modificada_at = timezone.now() if entrada.geometria_geojson else None
    proyecto.save()
    return proyecto


@transaction.atomic
def proyecto_actualizar(
    *, proyecto: Proyecto, cambios: dict[str, Any], cliente: Cliente | None = None, estado: str | None = None
) -> Proyecto:
    """Aplica cambios parciales, revalidando el proyecto completo; marca si cambió la geometría."""
    datos = {**proyecto_como_entrada(proyecto), **cambios}
    entrada = validar_entrada(datos, exigir_cantidades=False)
    geometria_anterior = proyecto.geometria
    _aplicar(proyecto, entrada)
    if entrada.geometria_geojson != geometria_anterior:
        proyecto.geometria_modificada_at = timezone.now()
    if cliente is not None:
        proyecto.cliente = cliente
    if estado is not None:
        proyecto.estado = estado
    proyecto.save()
    return proyecto


@transaction.atomic
def analisis_ejecutar(
    *, proyecto: Proyecto, tipo: str = Analisis.Tipo.COMPLETO, usuario: Usuario | None = None
) -> Analisis:
    """Evalúa el proyecto tal como está, congela entrada y resultado, y lo marca analizado."""
    entrada = validar_entrada(proyecto_como_entrada(proyecto))
    resultado = evaluar_entrada(entrada, espacial=tipo == Analisis.Tipo.COMPLETO)
    # Contexto de otras apps, no fundamento (`proyectos_similares_seia` del e-SEIA).
    referencias = referencias_para(proyecto) if tipo == Analisis.Tipo.COMPLETO else {}
    analisis = Analisis.objects.create(
        proyecto=proyecto,
        tipo=tipo,
        entrada=entrada.como_json(),
        resultado={**resultado, **referencias},
        clasificacion=resultado["clasificacion"],
        creado_por=_autor(usuario),
    )
    if proyecto.estado != Proyecto.Estado.ARCHIVADO:
        proyecto.estado = Proyecto.Estado.ANALIZADO
        proyecto.save(update_fields=["estado", "actualizado_at"])
    return analisis


@transaction.atomic
def evaluacion_guardar(
    *, cliente: Cliente, datos: dict[str, Any], usuario: Usuario | None = None
) -> Analisis:
    """«Guardar como proyecto» de una evaluación rápida: crea el proyecto y su análisis completo, o
    nada si los datos no alcanzan para analizar (lanza `EntradaInvalida` con las mismas palabras)."""
    validar_entrada(datos)  # con las cantidades que el tipo exige, como el análisis
    proyecto = proyecto_crear(cliente=cliente, datos=datos, usuario=usuario)
    return analisis_ejecutar(proyecto=proyecto, usuario=usuario)


def analisis_marcar_revisado(*, analisis: Analisis, revisadas: bool = True) -> Analisis:
    """Registra que alguien revisó las alertas del análisis."""
    analisis.alertas_revisadas = revisadas
    analisis.save(update_fields=["alertas_revisadas"])
    return analisis


def _autor(usuario: Usuario | None) -> Any:
    """El usuario que firma el registro (ninguno si es anónimo)."""
    return usuario if usuario is not None and usuario.is_authenticated else None


def _aplicar(proyecto: Proyecto, entrada: Entrada) -> None:
    c = entrada.cantidades
    proyecto.nombre = entrada.nombre
    proyecto.region = entrada.region
    proyecto.comuna = entrada.comuna
    proyecto.tipo = entrada.tipo
    proyecto.capacidad_extraccion_t_mes = c.capacidad_extraccion_t_mes
    proyecto.plataformas = c.plataformas
    proyecto.aridos_m3_mes = c.aridos_m3_mes
    proyecto.aridos_m3_total = c.aridos_m3_total
    proyecto.superficie_ha = c.superficie_ha
    proyecto.geometria = entrada.geometria_geojson
    proyecto.circunstancias = list(entrada.circunstancias)
    proyecto.componentes = entrada.componentes.como_json()
    proyecto.areas_declaradas = [
        {"categoria": a.categoria, "nombre": a.nombre} for a in entrada.areas_declaradas
    ]


def reglas_revisar() -> list[ReglaDelMotor]:
    """Compara cada regla del motor con el texto vigente de su fragmento y guarda su estado; devuelve
    las que acaban de pasar a «revisar» (para avisar al personal una sola vez)."""
    textos: Callable[[list[Referencia]], list[TextoVigente | None]] = import_string(settings.TEXTOS_VIGENTES)
    vigentes = textos([r.referencia for r in reglas.REGLAS])
    existentes = {r.literal: r for r in ReglaDelMotor.objects.all()}
    ahora = timezone.now()
    nuevas_revisar: list[ReglaDelMotor] = []
    for regla, vigente in zip(reglas.REGLAS, vigentes, strict=True):
        fila = existentes.get(regla.literal) or ReglaDelMotor(literal=regla.literal)
        anterior = fila.estado if fila.pk else None
        fila.fragmento = regla.fragmento
        fila.umbrales = " · ".join(regla.citas)
        if fila.hash_regla != regla.hash_texto:
            # Una regla reescrita en el código parte de su texto nuevo: lo aceptado antes ya no vale.
            fila.hash_regla, fila.hash_aceptado = regla.hash_texto, ""
        fila.texto_vigente = vigente["texto"] if vigente else ""
        fila.hash_vigente = hash_de_texto(vigente["texto"]) if vigente else ""
        fecha = vigente["fecha_version"] if vigente else None
        fila.fecha_texto = date.fromisoformat(fecha) if fecha else None
        if vigente is None:
            fila.estado = ReglaDelMotor.Estado.SIN_TEXTO
        elif fila.hash_vigente in (fila.hash_regla, fila.hash_aceptado):
            fila.estado = ReglaDelMotor.Estado.VIGENTE
        else:
            fila.estado = ReglaDelMotor.Estado.REVISAR
        fila.revisada_at = ahora
        fila.save()
        if fila.estado == ReglaDelMotor.Estado.REVISAR and anterior != ReglaDelMotor.Estado.REVISAR:
            nuevas_revisar.append(fila)
    return nuevas_revisar


def reglas_aceptar(*, literales: list[str]) -> int:
    """El personal revisó el texto nuevo y la regla sigue valiendo: se acepta ese texto. Devuelve cuántas."""
    aceptadas = 0
    for fila in ReglaDelMotor.objects.filter(literal__in=literales, estado=ReglaDelMotor.Estado.REVISAR):
        fila.hash_aceptado, fila.estado = fila.hash_vigente, ReglaDelMotor.Estado.VIGENTE
        fila.save(update_fields=["hash_aceptado", "estado"])
        aceptadas += 1
    return aceptadas
