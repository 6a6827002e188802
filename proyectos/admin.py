"""Administración de proyectos: territorio (CUT), clientes, proyectos, análisis y capas geográficas.

Las capas se curan aquí: parámetros de cada categoría (distancias, severidad, protección oficial)
editables en la lista, y carga de capas nuevas (GeoJSON o shapefile .zip, cualquier CRS con .prj)
con una vista previa del número de elementos antes de confirmar.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import Count, QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import URLPattern, path, reverse

from proyectos.capas import capa_importar, regiones_que_toca
from proyectos.demo import demo_borrar
from proyectos.geo import ErrorDeCapa, leer_capa
from proyectos.models import (
    Analisis,
    CapaGeografica,
    CategoriaCapa,
    Cliente,
    Comuna,
    ElementoSensible,
    Proyecto,
    Region,
    ReglaDelMotor,
)
from proyectos.services import reglas_aceptar, reglas_revisar

TAMANO_MAXIMO_CAPA = 60 * 1024 * 1024
LETRAS = [(letra, f"Art. 11 letra {letra})") for letra in "abcdef"]


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
    exclude = ["limite"]
    inlines = [ComunaInline]


@admin.register(Comuna)
class ComunaAdmin(admin.ModelAdmin[Comuna]):
    list_display = ["codigo", "nombre", "provincia", "region"]
    list_filter = ["region"]
    search_fields = ["nombre", "provincia", "codigo"]
    exclude = ["limite"]


@admin.register(Cliente)
class ClienteAdmin(admin.ModelAdmin[Cliente]):
    list_display = ["nombre", "rut", "demo", "creado_at"]
    list_filter = ["demo"]
    search_fields = ["nombre", "rut"]
    filter_horizontal = ["usuarios"]
    actions = ["borrar_demo"]

    @admin.action(description="Borrar los datos de demostración seleccionados (con sus proyectos)")
    def borrar_demo(self, request: HttpRequest, queryset: QuerySet[Cliente]) -> None:
        cantidad = demo_borrar(queryset)
        self.message_user(request, f"Datos de demostración borrados: {cantidad} proyectos.")


@admin.register(Proyecto)
class ProyectoAdmin(admin.ModelAdmin[Proyecto]):
    list_display = ["nombre", "cliente", "region", "tipo", "estado", "actualizado_at"]
    list_filter = ["estado", "region", "cliente", "tipo", ("cliente__demo", admin.BooleanFieldListFilter)]
    search_fields = ["nombre"]
    readonly_fields = ["geometria_modificada_at", "creado_at", "actualizado_at", "creado_por"]


@admin.register(Analisis)
class AnalisisAdmin(admin.ModelAdmin[Analisis]):
    list_display = ["proyecto", "tipo", "clasificacion", "fecha", "alertas_revisadas"]
    list_filter = ["clasificacion", "tipo", "alertas_revisadas"]
    readonly_fields = ["proyecto", "tipo", "fecha", "entrada", "resultado", "clasificacion", "creado_por"]


@admin.register(ReglaDelMotor)
class ReglaDelMotorAdmin(admin.ModelAdmin[ReglaDelMotor]):
    """Las reglas del motor con el fragmento que aplican, su texto vigente y su estado. Una regla
    «revisar» se acepta aquí si el texto nuevo no cambia su umbral; si lo cambia, se corrige en el código
    (`proyectos/analisis/reglas.py`) y vuelve a quedar vigente con su hash nuevo."""

    list_display = ["literal", "fragmento", "umbrales", "texto", "estado", "fecha_texto", "revisada_at"]
    list_filter = ["estado"]
    search_fields = ["literal", "fragmento", "texto_vigente"]
    readonly_fields = [
        "literal",
        "fragmento",
        "umbrales",
        "estado",
        "texto_vigente",
        "fecha_texto",
        "hash_regla",
        "hash_vigente",
        "hash_aceptado",
        "revisada_at",
    ]
    actions = ["aceptar", "comparar"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # las reglas nacen en el código

    @admin.display(description="texto vigente")
    def texto(self, regla: ReglaDelMotor) -> str:
        texto = " ".join(regla.texto_vigente.split())
        return texto if len(texto) <= 300 else texto[:300] + " …"

    @admin.action(description="Aceptar el texto nuevo: el umbral de la regla sigue siendo el vigente")
    def aceptar(self, request: HttpRequest, queryset: QuerySet[ReglaDelMotor]) -> None:
        cantidad = reglas_aceptar(literales=list(queryset.values_list("literal", flat=True)))
        self.message_user(request, f"Reglas aceptadas: {cantidad} (solo las que estaban en «revisar»).")

    @admin.action(description="Comparar de nuevo todas las reglas con el corpus vigente")
    def comparar(self, request: HttpRequest, queryset: QuerySet[ReglaDelMotor]) -> None:
        nuevas = reglas_revisar()
        revisar = ReglaDelMotor.objects.filter(estado=ReglaDelMotor.Estado.REVISAR).count()
        self.message_user(request, f"Reglas comparadas; en «revisar»: {revisar} ({len(nuevas)} nuevas).")


@admin.register(CategoriaCapa)
class CategoriaCapaAdmin(admin.ModelAdmin[CategoriaCapa]):
    list_display = [
        "nombre", "codigo", "letras_art11", "proteccion_oficial", "interseccion_es_efecto", "severidad",
        "buffer_efecto_m", "buffer_alerta_m",
    ]  # fmt: skip
    list_editable = [
        "proteccion_oficial", "interseccion_es_efecto", "severidad", "buffer_efecto_m", "buffer_alerta_m",
    ]  # fmt: skip


class SubirCapaForm(forms.Form):
    archivo = forms.FileField(
        help_text="GeoJSON (.geojson/.json), KML o shapefile comprimido (.zip con .shp, .shx, .dbf y .prj)."
    )
    nombre = forms.CharField(max_length=200)
    codigo = forms.SlugField(
        max_length=60, help_text="Identificador único; si ya existe, la capa se reemplaza."
    )
    categoria = forms.ModelChoiceField(queryset=CategoriaCapa.objects.all())
    letras = forms.MultipleChoiceField(
        choices=LETRAS, required=False, widget=forms.CheckboxSelectMultiple,
        help_text="Letras del Art. 11 que informa (vacío: las de la categoría).",
    )  # fmt: skip
    fuente = forms.CharField(max_length=300)
    url_fuente = forms.URLField(required=False, assume_scheme="https")
    campo_nombre = forms.CharField(
        required=False, help_text="Atributo con el nombre de cada elemento (opcional)."
    )
    pendiente = forms.CharField(required=False, widget=forms.HiddenInput)

    def clean_archivo(self) -> Any:
        archivo = self.cleaned_data["archivo"]
        if archivo is not None and archivo.size > TAMANO_MAXIMO_CAPA:
            raise forms.ValidationError(f"El archivo supera {TAMANO_MAXIMO_CAPA // 1024 // 1024} MB.")
        return archivo


@admin.register(CapaGeografica)
class CapaGeograficaAdmin(admin.ModelAdmin[CapaGeografica]):
    list_display = ["nombre", "codigo", "categoria", "n_elementos", "cobertura", "activa", "actualizada_at"]
    list_filter = ["activa", "categoria"]
    list_editable = ["activa"]
    readonly_fields = ["archivo", "hash", "actualizada_at"]
    filter_horizontal = ["cobertura_regiones"]
    change_list_template = "admin/proyectos/capageografica/change_list.html"

    def get_queryset(self, request: HttpRequest) -> QuerySet[CapaGeografica]:
        return (
            super()
            .get_queryset(request)
            .annotate(total=Count("elementos"))
            .prefetch_related("cobertura_regiones")
        )

    @admin.display(description="elementos", ordering="total")
    def n_elementos(self, capa: CapaGeografica) -> int:
        return capa.total  # type: ignore[attr-defined,no-any-return]

    @admin.display(description="cobertura")
    def cobertura(self, capa: CapaGeografica) -> str:
        regiones = [r.nombre for r in capa.cobertura_regiones.all()]
        texto = (
            "Todo el país"
            if not regiones
            else ", ".join(regiones)
            if len(regiones) <= 3
            else f"{len(regiones)} regiones"
        )
        return f"{texto} ({capa.cobertura_nota})" if capa.cobertura_nota else texto

    def get_urls(self) -> list[URLPattern]:
        subir = path("subir/", self.admin_site.admin_view(self.subir), name="proyectos_capageografica_subir")
        return [subir, *super().get_urls()]

    def subir(self, request: HttpRequest) -> HttpResponse:
        """Sube una capa: primero muestra la vista previa (elementos, CRS, regiones) y luego confirma."""
        if not self.has_add_permission(request):
            raise PermissionDenied
        pendiente = request.POST.get("pendiente", "")
        formulario = SubirCapaForm(request.POST or None, request.FILES or None)
        if pendiente:
            formulario.fields["archivo"].required = False
        vista_previa = None
        if request.method == "POST" and formulario.is_valid():
            datos = formulario.cleaned_data
            try:
                contenido, nombre_archivo = _contenido(datos, pendiente)
                if "confirmar" in request.POST and pendiente:
                    resumen = capa_importar(
                        nombre=datos["nombre"],
                        codigo=datos["codigo"],
                        categoria=datos["categoria"],
                        contenido=contenido,
                        nombre_archivo=nombre_archivo,
                        fuente=datos["fuente"],
                        letras=datos["letras"],
                        campo_nombre=datos["campo_nombre"],
                        url_fuente=datos["url_fuente"] or "",
                    )
                    _directorio_pendientes().joinpath(pendiente).unlink(missing_ok=True)
                    messages.success(
                        request, f"Capa «{datos['nombre']}» cargada con {resumen.elementos} elementos."
                    )
                    capa = CapaGeografica.objects.get(codigo=datos["codigo"])
                    return HttpResponseRedirect(
                        reverse("admin:proyectos_capageografica_change", args=[capa.pk])
                    )
                vista_previa = _vista_previa(contenido, nombre_archivo, datos)
                formulario = SubirCapaForm(
                    initial={
                        **request.POST.dict(),
                        "letras": datos["letras"],
                        "pendiente": _guardar_pendiente(contenido, nombre_archivo),
                    }
                )
                formulario.fields["archivo"].required = False
            except ErrorDeCapa as error:
                formulario.add_error("archivo", str(error))
        contexto = {
            **self.admin_site.each_context(request),
            "formulario": formulario,
            "vista_previa": vista_previa,
            "title": "Subir capa geográfica",
            "opts": self.model._meta,
        }
        return render(request, "admin/proyectos/capageografica/subir.html", contexto)


@admin.register(ElementoSensible)
class ElementoSensibleAdmin(admin.ModelAdmin[ElementoSensible]):
    list_display = ["nombre", "capa", "categoria", "identificador"]
    list_filter = ["capa", "categoria"]
    search_fields = ["nombre", "identificador"]
    exclude = ["geometria"]
    readonly_fields = ["min_lon", "min_lat", "max_lon", "max_lat"]


def _directorio_pendientes() -> Path:
    directorio = Path(settings.MEDIA_ROOT) / "capas_pendientes"
    directorio.mkdir(parents=True, exist_ok=True)
    return directorio


def _guardar_pendiente(contenido: bytes, nombre_archivo: str) -> str:
    token = f"{uuid.uuid4().hex}{Path(nombre_archivo).suffix.lower()}"
    _directorio_pendientes().joinpath(token).write_bytes(contenido)
    return token


def _contenido(datos: dict[str, Any], pendiente: str) -> tuple[bytes, str]:
    if datos.get("archivo"):
        archivo = datos["archivo"]
        return archivo.read(), archivo.name
    ruta = _directorio_pendientes() / Path(pendiente).name
    if not ruta.exists():
        raise ErrorDeCapa("La vista previa expiró: vuelva a subir el archivo.")
    return ruta.read_bytes(), ruta.name


def _vista_previa(contenido: bytes, nombre_archivo: str, datos: dict[str, Any]) -> dict[str, Any]:
    leida = leer_capa(contenido=contenido, nombre_archivo=nombre_archivo)
    if not leida.elementos:
        raise ErrorDeCapa("El archivo no tiene elementos con geometría.")
    campo = datos.get("campo_nombre") or ""
    return {
        "elementos": len(leida.elementos),
        "crs": leida.crs_origen,
        "caja": [round(v, 4) for v in leida.caja or ()],
        "tipos": sorted({e.geometria.geom_type for e in leida.elementos}),
        "atributos": sorted(leida.elementos[0].atributos),
        "ejemplos": [str(e.atributos.get(campo, "")) if campo else "" for e in leida.elementos[:5]],
        "regiones": [r.nombre for r in regiones_que_toca(leida)],
        "descartados": leida.descartados[:20],
        "reemplaza": CapaGeografica.objects.filter(codigo=datos["codigo"]).exists(),
    }
