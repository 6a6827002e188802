"""Curaduría del corpus en el admin: normas, versiones, fragmentos (edición que re-embebe, borrado
lógico y restauración, acción «re-embeber»), carga de documentos en segundo plano con progreso, la
página «Probar búsqueda» y el catálogo de permisos ambientales sectoriales."""

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db import models
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import URLPattern, path
from django.utils.html import format_html

from normativa.busqueda import MAXIMO_TOP_K, MODOS, ErrorDeBusqueda, buscar_normativa
from normativa.ingesta.cargas import carga_crear, carga_validar
from normativa.models import CargaDocumento, FragmentoLegal, Norma, PermisoSectorial, Tema, VersionNorma
from normativa.parsers import FORMATOS, ErrorDeParseo
from normativa.permisos import ORGANO_CURADO, permisos_aceptar, permisos_catalogar
from normativa.selectors import normas_disponibles
from normativa.services import (
    fragmento_actualizar_texto,
    fragmentos_eliminar,
    fragmentos_reembeber,
    fragmentos_restaurar,
)


@admin.register(Tema)
class TemaAdmin(admin.ModelAdmin[Tema]):
    search_fields = ["nombre"]


class VersionInline(admin.TabularInline[VersionNorma, Norma]):
    model = VersionNorma
    extra = 0
    fields = ("fecha_version", "fuente", "vigente", "advertencia", "creada_at", "hash")
    readonly_fields = ("fecha_version", "fuente", "vigente", "creada_at", "hash")
    can_delete = False


@admin.register(Norma)
class NormaAdmin(admin.ModelAdmin[Norma]):
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}
    list_display = ["sigla", "tipo", "nombre", "peso_busqueda", "id_norma_bcn", "anio"]
    list_editable = ["peso_busqueda"]
    list_filter = ["tipo", "temas"]
    search_fields = ["sigla", "nombre", "numero"]
    filter_horizontal = ["temas"]
    inlines = [VersionInline]


@admin.register(VersionNorma)
class VersionNormaAdmin(admin.ModelAdmin[VersionNorma]):
    list_display = ["norma", "fecha_version", "vigente", "fuente", "advertencia", "creada_at"]
    list_filter = ["vigente", "norma"]
    readonly_fields = ["hash", "creada_at"]


@admin.register(FragmentoLegal)
class FragmentoLegalAdmin(admin.ModelAdmin[FragmentoLegal]):
    list_display = ["breadcrumb", "tipo", "articulo", "letra", "derogado", "transitorio", "eliminado"]
    list_filter = [
        "norma",
        "tipo",
        "derogado",
        "transitorio",
        "modificatorio",
        "version__vigente",
        ("articulo", admin.EmptyFieldListFilter),
        "eliminado_at",
    ]
    search_fields = ["texto", "breadcrumb", "=articulo"]
    readonly_fields = [
        "norma",
        "version",
        "breadcrumb",
        "jerarquia",
        "contexto",
        "id_parte",
        "hash_contenido",
        "pagina",
    ]
    fields = (
        *readonly_fields,
        "articulo",
        "letra",
        "texto",
        "texto_busqueda",
        "temas",
        "derogado",
        "transitorio",
        "modificatorio",
    )
    change_list_template = "admin/normativa/fragmentolegal/change_list.html"
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
        if change and {"texto", "texto_busqueda"} & set(form.changed_data):
            fragmento_actualizar_texto(fragmento=obj, texto=obj.texto)
            self.message_user(request, "Texto guardado y embedding recalculado.")

    @admin.action(description="Re-embeber los fragmentos seleccionados")
    def reembeber(self, request: HttpRequest, queryset: QuerySet[FragmentoLegal]) -> None:
        cantidad = fragmentos_reembeber(ids=list(queryset.values_list("pk", flat=True)))
        self.message_user(request, f"{cantidad} fragmentos re-embebidos.", messages.SUCCESS)

    @admin.action(description="Eliminar (borrado lógico)")
    def eliminar(self, request: HttpRequest, queryset: QuerySet[FragmentoLegal]) -> None:
        cantidad = fragmentos_eliminar(ids=list(queryset.values_list("pk", flat=True)))
        self.message_user(request, f"{cantidad} fragmentos ocultos de la búsqueda.")

    @admin.action(description="Restaurar")
    def restaurar(self, request: HttpRequest, queryset: QuerySet[FragmentoLegal]) -> None:
        cantidad = fragmentos_restaurar(ids=list(queryset.values_list("pk", flat=True)))
        self.message_user(request, f"{cantidad} fragmentos restaurados.")

    def get_urls(self) -> list[URLPattern]:
        probar = path(
            "probar-busqueda/",
            self.admin_site.admin_view(self.probar_busqueda),
            name="normativa_probar_busqueda",
        )
        return [probar, *super().get_urls()]

    def probar_busqueda(self, request: HttpRequest) -> HttpResponse:
        """Página de curaduría: una pregunta, un modo, y los fragmentos con puntaje y confianza."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        formulario = ProbarBusquedaForm(request.GET or None)
        busqueda, error = None, ""
        if formulario.is_valid():
            try:
                busqueda = buscar_normativa(
                    consulta=formulario.cleaned_data["consulta"],
                    top_k=formulario.cleaned_data["top_k"],
                    modo=formulario.cleaned_data["modo"],
                    normas=formulario.cleaned_data["normas"] or None,
                    incluir_derogados=formulario.cleaned_data["incluir_derogados"],
                )
            except ErrorDeBusqueda as excepcion:
                error = str(excepcion)
        contexto = {
            **self.admin_site.each_context(request),
            "title": "Probar búsqueda",
            "opts": self.model._meta,
            "formulario": formulario,
            "busqueda": busqueda,
            "error": error,
        }
        return TemplateResponse(request, "admin/normativa/probar_busqueda.html", contexto)


class ProbarBusquedaForm(forms.Form):
    consulta = forms.CharField(label="Pregunta", max_length=1000, widget=forms.TextInput(attrs={"size": 90}))
    modo = forms.ChoiceField(label="Modo", choices=[(m, m) for m in MODOS], initial="hibrido")
    top_k = forms.IntegerField(label="Resultados", min_value=1, max_value=MAXIMO_TOP_K, initial=10)
    normas = forms.MultipleChoiceField(label="Normas", required=False)
    incluir_derogados = forms.BooleanField(label="Incluir derogados", required=False)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        normas = self.fields["normas"]
        assert isinstance(normas, forms.MultipleChoiceField)
        normas.choices = [(sigla, sigla) for sigla in sorted(normas_disponibles())]


class CargaDocumentoForm(forms.ModelForm[CargaDocumento]):
    archivo = forms.FileField(
        help_text="PDF (guía o LeyChile), XML de la BCN, Markdown (.md) o JSON estructurado."
    )
    formato = forms.ChoiceField(
        choices=[("", "según la extensión"), *((f, f) for f in FORMATOS)],
        required=False,
        help_text="«pdf-ley» para el PDF de una ley generado por LeyChile.",
    )
    url = forms.URLField(required=False, assume_scheme="https", help_text="Página de origen (guía del SEA).")

    class Meta:
        model = CargaDocumento
        fields = ["archivo", "formato", "sigla", "tipo", "nombre", "url", "anio"]

    def clean(self) -> dict[str, Any]:
        datos = super().clean() or {}
        archivo = datos.get("archivo")
        if archivo is None or self.errors:
            return datos
        datos["contenido"] = archivo.read()
        try:
            carga_validar(
                nombre_archivo=archivo.name,
                contenido=datos["contenido"],
                sigla=datos.get("sigla", ""),
                formato=datos.get("formato") or None,
                tipo=datos.get("tipo", ""),
                nombre=datos.get("nombre", ""),
            )
        except ErrorDeParseo as error:
            raise forms.ValidationError(str(error)) from None
        return datos


@admin.register(CargaDocumento)
class CargaDocumentoAdmin(admin.ModelAdmin[CargaDocumento]):
    """Subir una guía o norma: se valida al instante y se ingiere en un worker, con progreso visible."""

    list_display = ["nombre_archivo", "sigla", "estado", "avance", "mensaje", "creada_at", "usuario"]
    list_filter = ["estado"]
    readonly_fields = [
        "nombre_archivo",
        "formato",
        "sigla",
        "tipo",
        "nombre",
        "estado",
        "avance",
        "mensaje",
        "version",
        "usuario",
        "creada_at",
        "terminada_at",
    ]
    change_form_template = "admin/normativa/cargadocumento/change_form.html"

    def get_form(
        self, request: HttpRequest, obj: CargaDocumento | None = None, change: bool = False, **kwargs: Any
    ) -> Any:
        if obj is not None:  # una carga no se edita: todo es de solo lectura
            return super().get_form(request, obj, change=change, **{**kwargs, "fields": []})
        return super().get_form(request, obj, change=change, form=CargaDocumentoForm, **kwargs)

    def get_readonly_fields(self, request: HttpRequest, obj: CargaDocumento | None = None) -> list[str]:
        return self.readonly_fields if obj is not None else []

    def save_model(self, request: HttpRequest, obj: CargaDocumento, form: Any, change: bool) -> None:
        if change:
            return  # una carga no se edita: se sube otra
        datos = form.cleaned_data
        carga = carga_crear(
            nombre_archivo=datos["archivo"].name,
            contenido=datos["contenido"],
            sigla=datos["sigla"],
            formato=datos.get("formato") or None,
            tipo=datos.get("tipo", ""),
            nombre=datos.get("nombre", ""),
            url=datos.get("url", ""),
            anio=datos.get("anio"),
            usuario=request.user,
        )
        obj.pk = carga.pk
        obj.refresh_from_db()
        self.message_user(request, "Archivo recibido: se está ingiriendo en segundo plano.", messages.INFO)

    @admin.display(description="avance")
    def avance(self, carga: CargaDocumento) -> str:
        if not carga.total:
            return "—" if carga.en_curso else ""
        porcentaje = round(100 * carga.hechos / carga.total)
        return format_html(
            '<progress value="{}" max="{}"></progress> {}/{} ({}%)',
            carga.hechos,
            carga.total,
            carga.hechos,
            carga.total,
            porcentaje,
        )


@admin.register(PermisoSectorial)
class PermisoSectorialAdmin(admin.ModelAdmin[PermisoSectorial]):
    """El catálogo de los PAS, leído del Título VII del DS 40 (`normativa/permisos.py`). Lo leído no se
    edita: sale del texto. Una entrada «revisar» (llegó otra versión de su artículo) se acepta aquí y se
    vuelve a leer del texto nuevo. El órgano que revisa sus contenidos sí se puede escribir cuando el
    corpus no lo trae; desde entonces se respeta lo escrito."""

    list_display = ["numero", "nombre", "tipo", "guia", "organo", "estado", "fecha_texto", "revisado_at"]
    list_filter = ["estado", "tipo"]
    search_fields = ["numero", "nombre", "requisito", "organo"]
    fields = [
        "numero", "nombre", "tipo", "norma_sectorial", "requisito", "contenidos_legibles", "guia",
        "organo", "organo_fuente", "estado", "texto_vigente", "fecha_texto", "hash_texto", "hash_vigente",
        "revisado_at",
    ]  # fmt: skip
    readonly_fields = [
        "numero", "nombre", "tipo", "norma_sectorial", "requisito", "contenidos_legibles", "guia",
        "organo_fuente", "estado", "texto_vigente", "fecha_texto", "hash_texto", "hash_vigente",
        "revisado_at",
    ]  # fmt: skip
    actions = ["aceptar", "comparar"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # las entradas nacen del texto del DS 40

    @admin.display(description="contenidos técnicos y formales")
    def contenidos_legibles(self, permiso: PermisoSectorial) -> str:
        return "\n".join(
            f"{c['letra']}) {c['texto']}" if c["letra"] else c["texto"] for c in permiso.contenidos
        )

    def save_model(self, request: HttpRequest, obj: PermisoSectorial, form: Any, change: bool) -> None:
        if "organo" in form.changed_data:
            obj.organo_fuente = ORGANO_CURADO if obj.organo else ""
        super().save_model(request, obj, form, change)

    @admin.action(description="Aceptar el texto nuevo: volver a leer el permiso de su artículo vigente")
    def aceptar(self, request: HttpRequest, queryset: QuerySet[PermisoSectorial]) -> None:
        cantidad = permisos_aceptar(numeros=list(queryset.values_list("numero", flat=True)))
        self.message_user(request, f"Permisos aceptados: {cantidad} (solo los que estaban en «revisar»).")

    @admin.action(description="Comparar de nuevo todo el catálogo con el DS 40 vigente")
    def comparar(self, request: HttpRequest, queryset: QuerySet[PermisoSectorial]) -> None:
        nuevas = permisos_catalogar()
        revisar = PermisoSectorial.objects.filter(estado=PermisoSectorial.Estado.REVISAR).count()
        self.message_user(request, f"Catálogo comparado; en «revisar»: {revisar} ({len(nuevas)} nuevos).")
