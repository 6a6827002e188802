"""Formulario de proyecto: solo recoge los datos; las reglas las aplica el motor al validarlos."""

from __future__ import annotations

from typing import Any

from django import forms

from proyectos.analisis.entrada import CIRCUNSTANCIAS
from proyectos.models import Cliente, Proyecto, Region


class ProyectoForm(forms.Form):
    nombre = forms.CharField(max_length=200)
    cliente = forms.ModelChoiceField(queryset=Cliente.objects.none(), empty_label=None)
    region = forms.ModelChoiceField(queryset=Region.objects.all(), label="Región", empty_label="Seleccione…")
    comuna = forms.CharField(
        required=False,
        help_text="Opcional; debe pertenecer a la región.",
        widget=forms.TextInput(attrs={"list": "comunas", "autocomplete": "off"}),
    )
    tipo = forms.ChoiceField(choices=Proyecto.Tipo.choices)
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

    def __init__(self, *args: Any, clientes: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["cliente"].queryset = clientes  # type: ignore[attr-defined]

    def datos_motor(self) -> dict[str, Any]:
        """Los datos limpios en el contrato del motor (la región por su código)."""
        d = self.cleaned_data
        return {
            "nombre": d["nombre"],
            "region": d["region"].codigo,
            "comuna": d["comuna"] or None,
            "tipo": d["tipo"],
            **{
                c: _numero(d[c])
                for c in ("capacidad_extraccion_t_mes", "aridos_m3_mes", "aridos_m3_total", "superficie_ha")
            },
            "plataformas": d["plataformas"],
            "circunstancias": list(d["circunstancias"]),
        }

    def agregar_errores(self, errores: list[dict[str, str]]) -> None:
        for error in errores:
            self.add_error(error["campo"] if error["campo"] in self.fields else None, error["mensaje"])


def _numero(valor: Any) -> float | None:
    return float(valor) if valor is not None else None
