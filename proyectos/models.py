"""Modelos de proyectos: división político-administrativa (códigos únicos territoriales, CUT)."""

from __future__ import annotations

from django.db import models


class Region(models.Model):
    """Región de Chile por su código CUT («01» Tarapacá … «16» Ñuble; «13» Metropolitana)."""

    codigo = models.CharField(max_length=2, primary_key=True)
    nombre = models.CharField(max_length=100, unique=True, help_text="Nombre oficial (SUBDERE).")
    abreviatura = models.CharField(max_length=10)

    class Meta:
        ordering = ["codigo"]
        verbose_name = "región"
        verbose_name_plural = "regiones"

    def __str__(self) -> str:
        return f"Región {self.nombre_con_preposicion}"

    @property
    def numero(self) -> int:
        return int(self.codigo)

    @property
    def nombre_con_preposicion(self) -> str:
        """«de Antofagasta», «del Biobío», «Metropolitana de Santiago»."""
        if self.codigo == "13":
            return self.nombre
        return f"del {self.nombre}" if self.nombre in ("Biobío", "Maule") else f"de {self.nombre}"


class Comuna(models.Model):
    """Comuna por su código CUT de cinco dígitos («02101» Antofagasta)."""

    codigo = models.CharField(max_length=5, primary_key=True)
    nombre = models.CharField(max_length=100)
    provincia = models.CharField(max_length=100)
    region = models.ForeignKey(Region, on_delete=models.PROTECT, related_name="comunas")

    class Meta:
        ordering = ["codigo"]
        constraints = [models.UniqueConstraint(fields=["region", "nombre"], name="comuna_unica_por_region")]

    def __str__(self) -> str:
        return self.nombre
