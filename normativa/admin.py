"""Curaduría del corpus en el admin: normas, versiones, fragmentos (edición que re-embebe, borrado
lógico y restauración, acción «re-embeber»)."""

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from normativa.models import FragmentoLegal, Norma, Tema, VersionNorma
from normativa.services import fragmento_actualizar_texto, fragmentos_reembeber


@admin.register(Tema)
class TemaAdmin(admin.ModelAdmin[Tema]):
    search_fields = ["nombre"]


class VersionInline(admin.TabularInline[VersionNorma, Norma]):
    model = VersionNorma
    extra = 0
    fields = ("fecha_version", "fuente", "vigente", "creada_at", "hash")
    readonly_fields = fields
    can_delete = False


@admin.register(Norma)
class NormaAdmin(admin.ModelAdmin[Norma]):
    list_display = ["sigla", "tipo", "nombre", "id_norma_bcn", "anio"]
    list_filter = ["tipo", "temas"]
    search_fields = ["sigla", "nombre", "numero"]
    filter_horizontal = ["temas"]
    inlines = [VersionInline]


@admin.register(VersionNorma)
class VersionNormaAdmin(admin.ModelAdmin[VersionNorma]):
    list_display = ["norma", "fecha_version", "vigente", "fuente", "creada_at"]
    list_filter = ["vigente", "norma"]
    readonly_fields = ["hash", "creada_at"]


@admin.register(FragmentoLegal)
class FragmentoLegalAdmin(admin.ModelAdmin[FragmentoLegal]):
    list_display = ["breadcrumb", "tipo", "articulo", "letra", "derogado", "transitorio", "eliminado"]
    list_filter = ["norma", "tipo", "derogado", "transitorio", "version__vigente", "eliminado_at"]
    search_fields = ["texto", "breadcrumb", "articulo"]
    readonly_fields = ["norma", "version", "breadcrumb", "jerarquia", "id_parte", "hash_contenido", "pagina"]
    fields = (*readonly_fields, "articulo", "letra", "texto", "temas", "derogado", "transitorio")
    filter_horizontal = ["temas"]
    actions = ["reembeber", "eliminar", "restaurar"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[FragmentoLegal]:
        # El admin ve también los eliminados, para poder restaurarlos.
        return FragmentoLegal.todos.select_related("norma", "version")

    @admin.display(boolean=True, description="eliminado")
    def eliminado(self, fragmento: FragmentoLegal) -> bool:
        return fragmento.eliminado_at is not None

    def save_model(self, request: HttpRequest, obj: FragmentoLegal, form: Any, change: bool) -> None:
        super().save_model(request, obj, form, change)
        if change and "texto" in form.changed_data:
            fragmento_actualizar_texto(fragmento=obj, texto=obj.texto)
            self.message_user(request, "Texto guardado y embedding recalculado.")

    @admin.action(description="Re-embeber los fragmentos seleccionados")
    def reembeber(self, request: HttpRequest, queryset: QuerySet[FragmentoLegal]) -> None:
        cantidad = fragmentos_reembeber(ids=list(queryset.values_list("pk", flat=True)))
        self.message_user(request, f"{cantidad} fragmentos re-embebidos.", messages.SUCCESS)

    @admin.action(description="Eliminar (borrado lógico)")
    def eliminar(self, request: HttpRequest, queryset: QuerySet[FragmentoLegal]) -> None:
        for fragmento in queryset:
            fragmento.eliminar()
        self.message_user(request, f"{queryset.count()} fragmentos ocultos de la búsqueda.")

    @admin.action(description="Restaurar")
    def restaurar(self, request: HttpRequest, queryset: QuerySet[FragmentoLegal]) -> None:
        for fragmento in queryset:
            fragmento.restaurar()
        self.message_user(request, f"{queryset.count()} fragmentos restaurados.")
