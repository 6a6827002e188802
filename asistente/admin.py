"""Administración del asistente: dominios (validados), transcripciones de solo lectura con sus
llamadas a herramientas, acciones pendientes, memorias, respuestas curadas y el panel «Métricas del
asistente»."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import reverse

from asistente.models import (
    AccionPendiente,
    Aviso,
    ConfiguracionAvisos,
    Conversacion,
    Dominio,
    FuenteCurada,
    LlamadaHerramienta,
    MemoriaUsuario,
    Mensaje,
    RespuestaCurada,
    ResumenHora,
)
from asistente.panel import RANGO_POR_DEFECTO, RANGOS, panel_leer


class DominioForm(forms.ModelForm):  # type: ignore[type-arg]
    class Meta:
        model = Dominio
        fields = [
            "codigo", "nombre", "prompt_sistema", "tono", "descargos",
            "aviso_clasificacion", "top_k", "confianza_minima", "normas", "temas",
            "rag_habilitado", "similitud_minima", "grupos", "activo",
        ]  # fmt: skip

    def clean_descargos(self) -> Any:
        descargos = self.cleaned_data["descargos"]
        if not isinstance(descargos, list) or not all(
            isinstance(d, dict)
            and isinstance(d.get("texto"), str)
            and d["texto"].strip()
            and isinstance(d.get("disparadores"), list)
            and all(isinstance(p, str) and p.strip() for p in d["disparadores"])
            for d in descargos
        ):
            raise forms.ValidationError(
                'Use una lista de {"disparadores": ["sanción", …], "texto": "…"} '
                "con texto y palabras no vacías."
            )
        return descargos

    def clean_normas(self) -> Any:
        normas = self.cleaned_data["normas"]
        if not isinstance(normas, list) or not all(isinstance(n, str) for n in normas):
            raise forms.ValidationError('Use una lista de siglas, p. ej. ["Ley 19.300", "DS 40"].')
        from normativa.models import Norma

        desconocidas = sorted(set(normas) - set(Norma.objects.values_list("sigla", flat=True)))
        if desconocidas:
            raise forms.ValidationError(f"Normas que no están en el corpus: {', '.join(desconocidas)}.")
        return normas


@admin.register(Dominio)
class DominioAdmin(admin.ModelAdmin[Dominio]):
    form = DominioForm
    list_display = ["codigo", "nombre", "activo", "top_k", "confianza_minima", "rag_habilitado"]
    list_editable = ["activo"]
    filter_horizontal = ["grupos"]


class MensajeInline(admin.StackedInline[Mensaje, Conversacion]):
    model = Mensaje
    extra = 0
    can_delete = False
    fields = readonly_fields = (
        "rol",
        "contenido",
        "motor",
        "latencia_ms",
        "tokens_entrada",
        "tokens_salida",
        "costo_usd",
        "fuentes",
        "advertencias",
        "tool_calls",
        "marcado_inyeccion",
        "feedback",
    )

    def has_add_permission(self, request: HttpRequest, obj: Conversacion | None = None) -> bool:
        return False


class LlamadaInline(admin.TabularInline[LlamadaHerramienta, Conversacion]):
    model = LlamadaHerramienta
    extra = 0
    can_delete = False
    fields = readonly_fields = ("creada_at", "herramienta", "parametros", "ms", "exito", "cache_hit", "error")

    def has_add_permission(self, request: HttpRequest, obj: Conversacion | None = None) -> bool:
        return False


@admin.register(Conversacion)
class ConversacionAdmin(admin.ModelAdmin[Conversacion]):
    list_display = ["titulo", "usuario", "dominio", "proyecto", "actualizada_at", "eliminada_at"]
    list_filter = ["dominio"]
    search_fields = ["titulo", "usuario__username"]
    readonly_fields = ["usuario", "dominio", "titulo", "proyecto", "resumen", "metadata", "eliminada_at"]
    inlines = [MensajeInline, LlamadaInline]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


@admin.register(AccionPendiente)
class AccionPendienteAdmin(admin.ModelAdmin[AccionPendiente]):
    list_display = ["tipo", "usuario", "estado", "creada_at", "expires_at", "decidida_at"]
    list_filter = ["estado", "tipo"]
    readonly_fields = [f.name for f in AccionPendiente._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


@admin.register(MemoriaUsuario)
class MemoriaUsuarioAdmin(admin.ModelAdmin[MemoriaUsuario]):
    list_display = ["usuario", "actualizada_at"]


@admin.register(LlamadaHerramienta)
class LlamadaHerramientaAdmin(admin.ModelAdmin[LlamadaHerramienta]):
    list_display = ["herramienta", "usuario", "ms", "exito", "cache_hit", "creada_at"]
    list_filter = ["herramienta", "exito", "cache_hit"]
    readonly_fields = [f.name for f in LlamadaHerramienta._meta.fields]


@admin.register(ConfiguracionAvisos)
class ConfiguracionAvisosAdmin(admin.ModelAdmin[ConfiguracionAvisos]):
    list_display = ["__str__", "activo", "maximo_por_hora", "hora_inicio", "hora_fin", "frecuencia_min"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return not ConfiguracionAvisos.objects.exists()


@admin.register(Aviso)
class AvisoAdmin(admin.ModelAdmin[Aviso]):
    list_display = ["tipo", "usuario", "objeto", "creado_at", "descartado_at"]
    list_filter = ["tipo"]
    readonly_fields = ["usuario", "tipo", "objeto", "mensaje", "enlace", "accion", "creado_at"]


class FuenteCuradaInline(admin.TabularInline[FuenteCurada, RespuestaCurada]):
    model = FuenteCurada
    extra = 1
    autocomplete_fields = ["fragmento"]
    fields = ["orden", "fragmento"]


@admin.register(RespuestaCurada)
class RespuestaCuradaAdmin(admin.ModelAdmin[RespuestaCurada]):
    """Respuestas frecuentes escritas por el personal. Las que pasan a «revisar» (la BCN cambió un
    fragmento en que descansan) salen primero y no se sirven hasta marcarlas vigentes otra vez."""

    list_display = ["pregunta", "estado", "dominio", "actualizado_at"]
    list_filter = ["estado", "dominio"]
    search_fields = ["pregunta", "variantes", "texto"]
    readonly_fields = ["motivo_revision", "actualizado_at"]
    fields = ["pregunta", "variantes", "texto", "dominio", "estado", "motivo_revision", "actualizado_at"]
    inlines = [FuenteCuradaInline]
    actions = ["marcar_vigentes"]

    @admin.action(description="Marcar como vigentes (revisadas)")
    def marcar_vigentes(self, request: HttpRequest, queryset: QuerySet[RespuestaCurada]) -> None:
        cantidad = queryset.update(estado=RespuestaCurada.Estado.VIGENTE, motivo_revision="")
        self.message_user(request, f"{cantidad} respuesta(s) marcadas como vigentes.")


@admin.register(ResumenHora)
class MetricasAdmin(admin.ModelAdmin[ResumenHora]):
    """«Métricas del asistente»: el listado de los resúmenes por hora es el panel (solo lectura). Lo ve
    el personal con permiso de ver resúmenes (el superusuario siempre)."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: ResumenHora | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: ResumenHora | None = None) -> bool:
        return False

    def changelist_view(
        self, request: HttpRequest, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        if not self.has_view_permission(request):
            raise PermissionDenied
        rango = request.GET.get("rango", RANGO_POR_DEFECTO)
        if rango not in RANGOS:
            messages.error(
                request,
                f"Rango «{rango[:20]}» desconocido: se muestran los {RANGOS[RANGO_POR_DEFECTO][0].lower()}.",
            )
            rango = RANGO_POR_DEFECTO
        datos = panel_leer(rango)
        probar = reverse("admin:normativa_probar_busqueda")
        curada = reverse("admin:asistente_respuestacurada_add")
        for fila in datos["sin_respuesta"]:
            fila["probar"] = (
                f"{probar}?{urlencode({'consulta': fila['pregunta'][:1000], 'modo': 'hibrido', 'top_k': 10})}"
            )
            candidata = {"pregunta": fila["pregunta"][:500], "texto": fila["respuesta"][:1200]}
            fila["curar"] = f"{curada}?{urlencode({k: v for k, v in candidata.items() if v})}"
        contexto = {
            **self.admin_site.each_context(request),
            "title": "Métricas del asistente",
            "opts": self.model._meta,
            "rango": rango,
            "rangos": [(clave, nombre) for clave, (nombre, _) in RANGOS.items()],
            "datos": datos,
            **(extra_context or {}),
        }
        return TemplateResponse(request, "admin/asistente/metricas.html", contexto)
