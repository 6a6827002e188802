"""Páginas de proyectos: lista, ficha, formulario, mapa e informe (adaptadores delgados)."""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST
from shapely.geometry import shape

from config.errores import EntradaNoValida
from config.validacion import entero_de_parametro, problema_json
from proyectos import selectors, services
from proyectos.analisis.componentes import componentes_descritos
from proyectos.analisis.entrada import EntradaInvalida
from proyectos.analisis.espacial import indice_actual
from proyectos.analisis.motor import evaluar as evaluar_sin_guardar
from proyectos.forms import EvaluacionForm, ProyectoForm
from proyectos.models import Analisis, Cliente, Comuna, Proyecto, Region
from proyectos.roles import puede_consultar, puede_escribir

SEVERIDADES = {"critica": "Crítica", "alta": "Alta", "media": "Media"}


@login_required
def lista(request: HttpRequest) -> HttpResponse:
    """Proyectos visibles con filtros por estado, región y cliente."""
    _exigir_lectura(request)
    filtros = {k: request.GET.get(k, "") for k in ("estado", "region", "cliente")}
    proyectos = selectors.proyectos_visibles(
        usuario=request.user,
        estado=filtros["estado"],
        region=filtros["region"],
        cliente=entero_de_parametro(filtros["cliente"]),
    )
    contexto = {
        "proyectos": proyectos,
        "filtros": filtros,
        "estados": Proyecto.Estado.choices,
        "regiones": Region.objects.all(),
        "clientes": selectors.clientes_visibles(usuario=request.user),
        "puede_escribir": puede_escribir(request.user),
        "aviso_sin_cliente": aviso_sin_cliente(request.user),
    }
    return render(request, "proyectos/lista.html", contexto)


@login_required
def crear(request: HttpRequest) -> HttpResponse:
    _exigir_escritura(request)
    clientes = selectors.clientes_visibles(usuario=request.user)
    if not clientes.exists():
        messages.error(request, aviso_sin_cliente(request.user))
        return redirect("proyectos:lista")
    formulario = ProyectoForm(request.POST or None, clientes=clientes)
    if request.method == "POST" and formulario.is_valid():
        try:
            proyecto = services.proyecto_crear(
                cliente=formulario.cleaned_data["cliente"],
                datos=formulario.datos_motor(),
                usuario=request.user,
            )
        except EntradaInvalida as error:
            formulario.agregar_errores(error.errores)
        else:
            messages.success(
                request, "Proyecto creado. Dibuje o suba su polígono para evaluar las capas geográficas."
            )
            return redirect("proyectos:mapa", pk=proyecto.pk)
    return render(
        request,
        "proyectos/formulario.html",
        {"formulario": formulario, "proyecto": None, "comunas": nombres_de_comunas()},
    )


@login_required
def evaluar(request: HttpRequest) -> HttpResponse:
    """La pregunta de la portada respondida: el motor sin estado con lo que el usuario describió, y
    «Guardar como proyecto» (lo crea, lo analiza y abre su informe)."""
    _exigir_lectura(request)
    escribe = puede_escribir(request.user)
    if "guardar" in request.POST:
        _exigir_escritura(request)
    clientes = selectors.clientes_visibles(usuario=request.user) if escribe else Cliente.objects.none()
    formulario = EvaluacionForm(request.POST or None, request.FILES or None, clientes=clientes)
    resultado = None
    if request.method == "POST" and formulario.is_valid():
        try:
            if "guardar" in request.POST and formulario.listo_para_guardar():
                analisis = services.evaluacion_guardar(
                    cliente=formulario.cleaned_data["cliente"],
                    datos=formulario.datos_motor(),
                    usuario=request.user,
                )
                messages.success(request, "Proyecto guardado y analizado.")
                return redirect("proyectos:informe", pk=analisis.pk)
            resultado = evaluar_sin_guardar(formulario.datos_motor())
        except EntradaInvalida as error:
            formulario.agregar_errores(error.errores)
            resultado = None
    # El polígono leído (o dibujado) vuelve aunque otro campo tenga un error: no se pierde.
    geometria = getattr(formulario, "cleaned_data", {}).get("geometria_leida")
    geometria_json = json.dumps(geometria) if geometria else request.POST.get("geometria", "")
    contexto = {
        "formulario": formulario,
        "r": resultado,
        "severidades": SEVERIDADES,
        "puede_escribir": escribe,
        "sin_cliente": escribe and not clientes.exists(),
        "aviso_sin_cliente": aviso_sin_cliente(request.user),
        "comunas": nombres_de_comunas(),
        "config_mapa": config_mapa_de_evaluacion(geometria),
        "geometria_json": geometria_json,
    }
    return render(request, "proyectos/evaluacion.html", contexto)


def config_mapa_de_evaluacion(geometria: dict[str, Any] | None) -> dict[str, Any]:
    return {
        "geometria": geometria,
        "elementos_url": reverse("proyectos:elementos"),
        "teselas": settings.MAPA_TESELAS_URL,
        "aviso_cambios": "Polígono listo: presione «Evaluar».",
    }


@login_required
def editar(request: HttpRequest, pk: int) -> HttpResponse:
    _exigir_escritura(request)
    proyecto = _proyecto(request, pk)
    clientes = selectors.clientes_visibles(usuario=request.user)
    inicial = {
        **selectors.proyecto_como_entrada(proyecto),
        "region": proyecto.region,
        "cliente": proyecto.cliente,
    }
    formulario = ProyectoForm(request.POST or None, clientes=clientes, initial=inicial)
    if request.method == "POST" and formulario.is_valid():
        try:
            services.proyecto_actualizar(
                proyecto=proyecto,
                cambios=formulario.datos_motor(),
                cliente=formulario.cleaned_data["cliente"],
            )
        except EntradaInvalida as error:
            formulario.agregar_errores(error.errores)
        else:
            messages.success(request, "Proyecto actualizado.")
            return redirect("proyectos:detalle", pk=proyecto.pk)
    return render(
        request,
        "proyectos/formulario.html",
        {"formulario": formulario, "proyecto": proyecto, "comunas": nombres_de_comunas()},
    )


@login_required
def detalle(request: HttpRequest, pk: int) -> HttpResponse:
    _exigir_lectura(request)
    proyecto = _proyecto(request, pk)
    contexto = {
        "proyecto": proyecto,
        "analisis": proyecto.analisis.all()[:20],
        "puede_escribir": puede_escribir(request.user),
        "circunstancias": proyecto.circunstancias,
        "componentes": componentes_descritos(proyecto.componentes or {}),
    }
    return render(request, "proyectos/detalle.html", contexto)


@login_required
def mapa(request: HttpRequest, pk: int) -> HttpResponse:
    """Dibujar, editar o subir (GeoJSON/KML) el polígono del proyecto, con las capas alrededor."""
    _exigir_lectura(request)
    proyecto = _proyecto(request, pk)
    if request.method == "POST":
        _exigir_escritura(request)
        try:
            geometria = _geometria_del_formulario(request.POST.get("geometria"))
            services.proyecto_actualizar(proyecto=proyecto, cambios={"geometria": geometria})
        except GeometriaIlegible as error:
            messages.error(request, str(error))
        except EntradaInvalida as error:
            for e in error.errores:
                messages.error(request, e["mensaje"])
        else:
            messages.success(request, _mensaje_guardado(proyecto))
            return redirect("proyectos:mapa", pk=proyecto.pk)
    contexto = {
        "proyecto": proyecto,
        "puede_escribir": puede_escribir(request.user),
        "config_mapa": {
            "geometria": proyecto.geometria,
            "elementos_url": reverse("proyectos:elementos"),
            "teselas": settings.MAPA_TESELAS_URL,
            "region": proyecto.region.limite,
        },
    }
    return render(request, "proyectos/mapa.html", contexto)


@login_required
@require_GET
def elementos(request: HttpRequest) -> JsonResponse:
    """Elementos sensibles dentro de una caja «min_lon,min_lat,max_lon,max_lat» (GeoJSON)."""
    _exigir_lectura(request)
    try:
        min_lon, min_lat, max_lon, max_lat = (float(v) for v in request.GET.get("caja", "").split(","))
    except ValueError:
        return JsonResponse({"error": "Indique caja=min_lon,min_lat,max_lon,max_lat en grados."}, status=400)
    features = selectors.elementos_en_caja(min_lon=min_lon, min_lat=min_lat, max_lon=max_lon, max_lat=max_lat)
    return JsonResponse({"type": "FeatureCollection", "features": features})


@login_required
@require_POST
def analizar(request: HttpRequest, pk: int) -> HttpResponse:
    _exigir_escritura(request)
    proyecto = _proyecto(request, pk)
    tipo = request.POST.get("tipo", Analisis.Tipo.COMPLETO)
    if tipo not in Analisis.Tipo.values:
        tipo = Analisis.Tipo.COMPLETO
    try:
        analisis = services.analisis_ejecutar(proyecto=proyecto, tipo=tipo, usuario=request.user)
    except EntradaInvalida as error:
        for e in error.errores:
            messages.error(request, e["mensaje"])
        return redirect("proyectos:detalle", pk=proyecto.pk)
    return redirect("proyectos:informe", pk=analisis.pk)


@login_required
def informe(request: HttpRequest, pk: int) -> HttpResponse:
    """Informe imprimible: clasificación, efectos con evidencia y artículos citados, alertas y mapa."""
    _exigir_lectura(request)
    try:
        analisis = selectors.analisis_visible(usuario=request.user, pk=pk)
    except Analisis.DoesNotExist as error:
        raise Http404("Análisis no encontrado.") from error
    resultado = analisis.resultado
    ids = [
        item["evidencia"]["elemento_id"]
        for item in resultado.get("triggers", []) + resultado.get("alertas", [])
        if item.get("evidencia", {}).get("elemento_id")
    ]
    contexto = {
        "analisis": analisis,
        "proyecto": analisis.proyecto,
        "r": resultado,
        "severidades": SEVERIDADES,
        "puede_escribir": puede_escribir(request.user),
        "config_mapa": {
            "geometria": analisis.entrada.get("geometria"),
            "elementos": selectors.elementos_por_id(ids[:100]),
            "teselas": settings.MAPA_TESELAS_URL,
        },
    }
    return render(request, "proyectos/informe.html", contexto)


@login_required
@require_POST
def marcar_revisado(request: HttpRequest, pk: int) -> HttpResponse:
    _exigir_escritura(request)
    try:
        analisis = selectors.analisis_visible(usuario=request.user, pk=pk)
    except Analisis.DoesNotExist as error:
        raise Http404("Análisis no encontrado.") from error
    services.analisis_marcar_revisado(analisis=analisis, revisadas=request.POST.get("revisadas") == "1")
    return redirect("proyectos:informe", pk=analisis.pk)


def aviso_sin_cliente(usuario: Any) -> str:
    """Qué le falta a quien no pertenece a ningún cliente y quién puede arreglarlo."""
    return (
        "Su usuario no pertenece a ningún cliente, así que todavía no puede crear proyectos: pida a un "
        "administrador que lo asocie a uno (en el admin, «Clientes», o con "
        f"«manage.py crear_usuario {usuario.get_username()} --cliente NOMBRE»)."
    )


def nombres_de_comunas() -> list[str]:
    return sorted(set(Comuna.objects.values_list("nombre", flat=True)))


def _mensaje_guardado(proyecto: Proyecto) -> str:
    if not proyecto.geometria:
        return "Polígono eliminado."
    comuna = indice_actual().comuna_de(shape(proyecto.geometria))
    if comuna and (proyecto.comuna is None or proyecto.comuna.codigo != comuna.codigo):
        return (
            f"Polígono guardado. Según su ubicación está en la comuna de {comuna.nombre}: revise la comuna."
        )
    return "Polígono guardado."


def _proyecto(request: HttpRequest, pk: int) -> Proyecto:
    try:
        return selectors.proyecto_visible(usuario=request.user, pk=pk)
    except Proyecto.DoesNotExist as error:
        raise Http404("Proyecto no encontrado.") from error


def _exigir_lectura(request: HttpRequest) -> None:
    if not puede_consultar(request.user):
        raise PermissionDenied("Su usuario no tiene un rol asignado.")


def _exigir_escritura(request: HttpRequest) -> None:
    if not puede_escribir(request.user):
        raise PermissionDenied("Se requiere el rol de escritura para modificar proyectos.")


class GeometriaIlegible(EntradaNoValida, ValueError):
    """El campo «geometria» del formulario no es un JSON que se pueda revisar."""


def _geometria_del_formulario(texto: str | None) -> Any:
    try:
        geometria = json.loads(texto or "null")
    except (json.JSONDecodeError, RecursionError):
        raise GeometriaIlegible("La geometría enviada no es JSON válido.") from None
    if problema := problema_json(geometria):
        raise GeometriaIlegible(f"La geometría enviada no es válida: {problema}")
    return geometria
