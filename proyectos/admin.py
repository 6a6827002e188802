"""Administración de proyectos: catálogo territorial (CUT) de consulta."""

from django.contrib import admin
from django.http import HttpRequest

from proyectos.models import Comuna, Region


class ComunaInline(admin.TabularInline[Comuna, Region]):
    model = Comuna
    extra = 0
    fields = ("codigo", "nombre", "provincia")
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Region | None = None) -> bool:
        return False


@admin.register(Region)
class RegionAdmin(admin.ModelAdmin[Region]):
    list_display = ["codigo", "nombre", "abreviatura"]
    search_fields = ["nombre"]
    inlines = [ComunaInline]


@admin.register(Comuna)
class ComunaAdmin(admin.ModelAdmin[Comuna]):
    list_display = ["codigo", "nombre", "provincia", "region"]
    list_filter = ["region"]
    search_fields = ["nombre", "provincia", "codigo"]
