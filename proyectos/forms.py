"""Formulario de proyecto: solo recoge los datos; las reglas las aplica el motor al validarlos."""

from __future__ import annotations

from typing import Any

from django import forms

from proyectos.analisis import componentes as partes
from proyectos.analisis.entrada import CIRCUNSTANCIAS
from proyectos.geo import TAMANO_MAXIMO_ARCHIVO, ErrorDeCapa, geometria_de_archivo, geometria_de_texto
from proyectos.models import Cliente, Proyecto, Region


class DatosDelMotorForm(forms.Form):
    """Lo que el motor necesita para clasificar: tipo, región, cantidades y circunstancias."""

    tipo = forms.ChoiceField(choices=Proyecto.Tipo.choices)
    region = forms.ModelChoiceField(queryset=Region.objects.all(), label="Región", empty_label="Seleccione…")
    comuna = forms.CharField(
        required=False,
        help_text="Opcional; debe pertenecer a la región.",
        widget=forms.TextInput(attrs={"list": "comunas", "autocomplete": "off"}),
    )
    capacidad_extraccion_t_mes = forms.DecimalField(
        required=False,
        label="Capacidad de extracción (t/mes)",
        help_text="Explotación, plantas, relaves, botaderos.",
    )
    plataformas = forms.IntegerField(required=False, label="Plataformas de prospección")
    aridos_m3_mes = forms.DecimalField(required=False, label="Áridos (m³/mes)")
    aridos_m3_total = forms.DecimalField(required=False, label="Áridos totales (m³)")
    superficie_ha = forms.DecimalField(required=False, label="Superficie (ha)")
    circunstancias = forms.MultipleChoiceField(
        required=False,
        widget=forms.CheckboxSelectMultiple,
        choices=[(clave, f"{texto} (letra {letra})") for clave, (letra, texto) in CIRCUNSTANCIAS.items()],
        label="Circunstancias declaradas (Art. 11)",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # Los componentes guardados llegan como {"ducto_minero_km": 30}: cada uno a su campo.
        kwargs["initial"] = dict(kwargs.get("initial") or {})
        kwargs["initial"].update(kwargs["initial"].pop("componentes", None) or {})
        super().__init__(*args, **kwargs)
        for campo in partes.ETIQUETAS:
            ayuda = partes.a_que_se_refiere(campo).capitalize() + "."
            texto = partes.rotulo(campo)
            self.fields[campo] = (
                forms.BooleanField(required=False, label=texto, help_text=ayuda)
                if campo in partes.CAMPOS_SI_NO
                else forms.DecimalField(required=False, min_value=0, label=texto, help_text=ayuda)
            )

    def campos_principales(self) -> list[forms.BoundField]:
        return [c for c in self if c.name not in partes.ETIQUETAS]

    def campos_de_componentes(self) -> list[forms.BoundField]:
        """Las partes que pueden hacerla ingresar por su propia letra del Art. 3."""
        return [c for c in self if c.name in partes.ETIQUETAS and c.name not in partes.SOLO_PERMISO]

    def campos_de_permisos(self) -> list[forms.BoundField]:
        """Las partes que solo traen un permiso ambiental sectorial."""
        return [c for c in self if c.name in partes.SOLO_PERMISO]

    def componentes_abiertos(self) -> bool:
        return _con_algo(self.campos_de_componentes())

    def permisos_abiertos(self) -> bool:
        return _con_algo(self.campos_de_permisos())

    def datos_motor(self) -> dict[str, Any]:
        """Los datos limpios en el contrato del motor (la región por su código)."""
        d = self.cleaned_data
        componentes = {
            campo: (True if campo in partes.CAMPOS_SI_NO else _numero(d[campo]))
            for campo in partes.ETIQUETAS
            if d.get(campo) not in (None, False)
        }
        return {
            "region": d["region"].codigo,
            "comuna": d["comuna"] or None,
            "tipo": d["tipo"],
            **{
                c: _numero(d[c])
                for c in ("capacidad_extraccion_t_mes", "aridos_m3_mes", "aridos_m3_total", "superficie_ha")
            },
            "plataformas": d["plataformas"],
            "circunstancias": list(d["circunstancias"]),
            "componentes": componentes,
        }

    def agregar_errores(self, errores: list[dict[str, str]]) -> None:
        for error in errores:
            campo = error["campo"].removeprefix("componentes.")
            self.add_error(campo if campo in self.fields else None, error["mensaje"])


class ProyectoForm(DatosDelMotorForm):
    nombre = forms.CharField(max_length=200)
    cliente = forms.ModelChoiceField(queryset=Cliente.objects.none(), empty_label=None)
    field_order = ["nombre", "cliente"]

    def __init__(self, *args: Any, clientes: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["cliente"].queryset = clientes  # type: ignore[attr-defined]

    def datos_motor(self) -> dict[str, Any]:
        return {"nombre": self.cleaned_data["nombre"], **super().datos_motor()}


class EvaluacionForm(DatosDelMotorForm):
    """La pregunta de la portada: los datos del motor y, si se quiere, el polígono (un archivo, o lo
    dibujado en el mapa, que llega en `geometria`). `geometria` también trae de vuelta el polígono ya
    leído al corregir un campo o al guardar. `nombre` y `cliente` solo hacen falta para guardar."""

    archivo = forms.FileField(
        required=False,
        label="Polígono (opcional)",
        widget=forms.ClearableFileInput(attrs={"id": "archivo", "accept": ".geojson,.json,.zip,.kml"}),
        help_text="GeoJSON, KML o shapefile comprimido (.zip), en cualquier sistema de coordenadas; o "
        "dibujado en el mapa.",
    )
    geometria = forms.CharField(required=False, widget=forms.HiddenInput)
    nombre = forms.CharField(max_length=200, required=False, label="Nombre del proyecto")
    cliente = forms.ModelChoiceField(queryset=Cliente.objects.none(), required=False, empty_label=None)

    def __init__(self, *args: Any, clientes: Any = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if clientes is not None:
            self.fields["cliente"].queryset = clientes  # type: ignore[attr-defined]

    def clean(self) -> dict[str, Any]:
        datos = super().clean() or {}
        archivo = datos.get("archivo")
        datos["geometria_leida"] = None
        try:
            if archivo is not None:  # un archivo recién subido manda sobre el polígono anterior
                datos["geometria_leida"] = geometria_de_archivo(
                    contenido=archivo.read(TAMANO_MAXIMO_ARCHIVO + 1), nombre=archivo.name
                )
            elif datos.get("geometria") and datos["geometria"] != "null":
                datos["geometria_leida"] = geometria_de_texto(datos["geometria"])
        except ErrorDeCapa as error:
            self.add_error("archivo", str(error))
        return datos

    def listo_para_guardar(self) -> bool:
        """Para guardar hacen falta nombre y cliente: si faltan, lo dice en sus campos."""
        if not self.cleaned_data.get("nombre"):
            self.add_error("nombre", "Indique un nombre para guardar el proyecto.")
        if not self.cleaned_data.get("cliente"):
            self.add_error("cliente", "Elija el cliente del proyecto.")
        return not self.errors

    def datos_motor(self) -> dict[str, Any]:
        return {
            "nombre": self.cleaned_data.get("nombre") or "Evaluación rápida",
            **super().datos_motor(),
            "geometria": self.cleaned_data.get("geometria_leida"),
        }


def _con_algo(campos: list[forms.BoundField]) -> bool:
    """Un grupo se muestra abierto si tiene algo dicho o un error."""
    return any(c.errors or c.value() not in (None, "", False) for c in campos)


def _numero(valor: Any) -> float | None:
    return float(valor) if valor is not None else None
