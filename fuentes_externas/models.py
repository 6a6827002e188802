"""Modelos de fuentes externas: el estado de cada fuente y los proyectos del e-SEIA."""

from __future__ import annotations

from django.db import models


class EstadoFuente(models.Model):
    """Última revisión de una fuente externa (BCN, SEA, e-SEIA): lo muestra la página de estado."""

    class Fuente(models.TextChoices):
        BCN = "bcn", "BCN LeyChile"
        SEA = "sea", "Sitio del SEA"
        ESEIA = "eseia", "e-SEIA"

    fuente = models.CharField(max_length=10, choices=Fuente.choices, unique=True)
    ultima_ejecucion_at = models.DateTimeField(null=True, blank=True)
    duracion_ms = models.PositiveIntegerField(null=True, blank=True)
    resultado = models.TextField(blank=True)
    ultimo_exito_at = models.DateTimeField(null=True, blank=True)
    ultimo_error = models.TextField(blank=True)
    ultimo_error_at = models.DateTimeField(null=True, blank=True)
    fallos_consecutivos = models.PositiveIntegerField(default=0)

    class Meta:
        verbose_name = "estado de fuente externa"
        verbose_name_plural = "estado de las fuentes externas"

    def __str__(self) -> str:
        return self.get_fuente_display()


class ProyectoESEIA(models.Model):
    """Proyecto presentado al SEIA, tal como lo lista el buscador del e-SEIA."""

    expediente_id = models.CharField(max_length=20, unique=True)
    nombre = models.CharField(max_length=500)
    tipo_ingreso = models.CharField(max_length=3, help_text="DIA o EIA.")
    region = models.CharField(max_length=120, blank=True)
    comuna = models.CharField(max_length=120, blank=True)
    tipologia = models.CharField(max_length=20, blank=True, help_text="Letra del Art. 3 (p. ej. «i1»).")
    descripcion_tipologia = models.TextField(blank=True)
    razon_ingreso = models.CharField(max_length=200, blank=True)
    titular = models.CharField(max_length=300, blank=True)
    inversion_mmusd = models.DecimalField(max_digits=14, decimal_places=4, null=True, blank=True)
    fecha_presentacion = models.DateField(null=True, blank=True)
    estado = models.CharField(max_length=120, blank=True)
    url_expediente = models.URLField(max_length=500)
    url_ficha = models.URLField(max_length=500, blank=True)
    dias_legales = models.PositiveIntegerField(
        null=True, blank=True, help_text="Días hábiles legales de evaluación que informa el listado."
    )
    # De la ficha del expediente (`eseia.detalle_actualizar`), donde el registro público los trae.
    rca_numero = models.CharField(
        max_length=60, blank=True, help_text="Resolución de Calificación Ambiental."
    )
    rca_fecha = models.DateField(null=True, blank=True)
    documentos = models.JSONField(default=list, blank=True, help_text="[{titulo, url, fecha}] de la ficha.")
    detalle_at = models.DateTimeField(null=True, blank=True, help_text="Última lectura de la ficha.")
    actualizado_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-fecha_presentacion"]
        indexes = [models.Index(fields=["region", "tipologia"])]
        verbose_name = "proyecto del e-SEIA"
        verbose_name_plural = "proyectos del e-SEIA"

    def __str__(self) -> str:
        return f"{self.nombre} ({self.tipo_ingreso})"


class NoticiaSEA(models.Model):
    """Noticia publicada en el sitio del SEA (`/noticias`), tal como la lista el sitio."""

    url = models.URLField(max_length=500, unique=True)
    titulo = models.CharField(max_length=500)
    fecha = models.DateField(null=True, blank=True)
    resumen = models.TextField(blank=True)
    vista_at = models.DateTimeField(auto_now=True, help_text="Última vez que apareció en el listado.")

    class Meta:
        ordering = ["-fecha", "-vista_at"]
        verbose_name = "noticia del SEA"
        verbose_name_plural = "noticias del SEA"

    def __str__(self) -> str:
        return self.titulo


class DocumentoSEA(models.Model):
    """Guía o criterio (PDF) publicado en el sitio del SEA y su estado de descarga e ingesta."""

    url = models.URLField(max_length=500, unique=True)
    titulo = models.CharField(max_length=500)
    seccion = models.CharField(max_length=300, blank=True, help_text="Encabezado bajo el que aparece.")
    anio = models.PositiveSmallIntegerField(null=True, blank=True)
    sigla = models.CharField(max_length=60, help_text="Norma del corpus en la que se ingiere.")
    etag = models.CharField(max_length=200, blank=True)
    modificado = models.CharField(max_length=100, blank=True, help_text="Cabecera Last-Modified.")
    sha256 = models.CharField(max_length=64, blank=True)
    carga = models.ForeignKey(
        "normativa.CargaDocumento", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    error = models.TextField(blank=True)
    revisado_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["seccion", "titulo"]
        verbose_name = "guía del sitio del SEA"
        verbose_name_plural = "guías del sitio del SEA"

    def __str__(self) -> str:
        return self.titulo
