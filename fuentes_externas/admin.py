"""Admin de fuentes externas: la página de estado (última ejecución, duración, resultado, errores,
antigüedad de la caché, aciertos y fallos) con «Ejecutar ahora», los proyectos del e-SEIA y lo leído
del sitio del SEA (noticias y guías con su carga)."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from fuentes_externas import cache as cache_fuentes
from fuentes_externas.models import DocumentoSEA, EstadoFuente, NoticiaSEA, ProyectoESEIA

TAREAS = {
    "bcn": "fuentes_externas.bcn_revisar",
    "eseia": "fuentes_externas.eseia_actualizar",
    "sea": "fuentes_externas.sea_revisar",
}


@admin.register(EstadoFuente)
class EstadoFuenteAdmin(admin.ModelAdmin[EstadoFuente]):
    list_display = (
        "fuente", "ultima_ejecucion_at", "duracion", "resultado", "ultimo_exito_at", "fallos_consecutivos",
        "ultimo_error_at", "error_breve", "cache", "aciertos_fallos",
    )  # fmt: skip
    readonly_fields = [f.name for f in EstadoFuente._meta.fields]
    actions = ["ejecutar_ahora"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    @admin.display(description="duración")
    def duracion(self, estado: EstadoFuente) -> str:
        return f"{estado.duracion_ms / 1000:.1f} s" if estado.duracion_ms is not None else "—"

    @admin.display(description="último error")
    def error_breve(self, estado: EstadoFuente) -> str:
        return estado.ultimo_error[:160] or "—"

    @admin.display(description="antigüedad de la caché")
    def cache(self, estado: EstadoFuente) -> str:
        segundos = cache_fuentes.antiguedad_cache(estado.fuente)
        if segundos is None:
            return "sin datos"
        return f"{segundos / 3600:.1f} h" if segundos >= 3600 else f"{segundos / 60:.0f} min"

    @admin.display(description="caché: aciertos / fallos")
    def aciertos_fallos(self, estado: EstadoFuente) -> str:
        c = cache_fuentes.contadores(estado.fuente)
        return f"{c['aciertos']} / {c['fallos']}"

    @admin.action(description="Ejecutar ahora (en segundo plano)")
    def ejecutar_ahora(self, request: HttpRequest, estados: QuerySet[EstadoFuente]) -> None:
        from celery import current_app

        for estado in estados:
            tarea = TAREAS.get(estado.fuente)
            if tarea is None:
                self.message_user(request, f"{estado}: aún no tiene revisión programada.", messages.WARNING)
                continue
            current_app.send_task(tarea)
            self.message_user(
                request, f"{estado}: revisión encolada; el resultado aparecerá aquí al terminar."
            )


@admin.register(ProyectoESEIA)
class ProyectoESEIAAdmin(admin.ModelAdmin[ProyectoESEIA]):
    list_display = (
        "nombre",
        "tipo_ingreso",
        "region",
        "tipologia",
        "estado",
        "fecha_presentacion",
        "titular",
    )
    list_filter = ("tipo_ingreso", "region", "estado")
    search_fields = ("nombre", "titular", "expediente_id")
    readonly_fields = [f.name for f in ProyectoESEIA._meta.fields]


@admin.register(NoticiaSEA)
class NoticiaSEAAdmin(admin.ModelAdmin[NoticiaSEA]):
    list_display = ("titulo", "fecha", "vista_at")
    search_fields = ("titulo", "resumen")
    date_hierarchy = "fecha"
    readonly_fields = [f.name for f in NoticiaSEA._meta.fields]


@admin.register(DocumentoSEA)
class DocumentoSEAAdmin(admin.ModelAdmin[DocumentoSEA]):
    list_display = ("titulo", "seccion", "anio", "sigla", "estado_carga", "revisado_at", "error_breve")
    list_filter = ("seccion",)
    search_fields = ("titulo", "sigla", "url")
    readonly_fields = [f.name for f in DocumentoSEA._meta.fields]

    def get_queryset(self, request: HttpRequest) -> QuerySet[DocumentoSEA]:
        # El PDF de la carga no se lee para listar.
        return super().get_queryset(request).select_related("carga").defer("carga__contenido")

    @admin.display(description="carga")
    def estado_carga(self, documento: DocumentoSEA) -> str:
        carga = documento.carga
        if carga is None:
            return "—"
        avance = f" ({carga.hechos}/{carga.total})" if carga.en_curso and carga.total else ""
        return f"{carga.get_estado_display()}{avance}"

    @admin.display(description="error")
    def error_breve(self, documento: DocumentoSEA) -> str:
        return documento.error[:160] or "—"
