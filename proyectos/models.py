"""Modelos de proyectos: territorio (CUT), clientes, proyectos, análisis y capas geográficas."""

from __future__ import annotations

from typing import TypeVar

from django.conf import settings
from django.db import models

_M = TypeVar("_M", bound=models.Model)


class SinLimiteManager(models.Manager[_M]):
    """Difiere `limite` (GeoJSON de cientos de KB): solo el índice espacial y los mapas lo leen."""

    def get_queryset(self) -> models.QuerySet[_M]:
        return super().get_queryset().defer("limite")


class Region(models.Model):
    """Región de Chile por su código CUT («01» Tarapacá … «16» Ñuble; «13» Metropolitana)."""

    codigo = models.CharField(max_length=2, primary_key=True)
    nombre = models.CharField(max_length=100, unique=True, help_text="Nombre oficial (SUBDERE).")
    abreviatura = models.CharField(max_length=10)
    limite = models.JSONField(null=True, blank=True, help_text="Límite regional GeoJSON (BCN), WGS84.")

    objects = SinLimiteManager["Region"]()

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
        """«de Antofagasta», «del Biobío», «del Libertador General Bernardo O'Higgins», «Metropolitana de
        Santiago»."""
        if self.codigo == "13":
            return self.nombre
        con_del = ("Biobío", "Maule", "Libertador General Bernardo O'Higgins")
        return f"del {self.nombre}" if self.nombre in con_del else f"de {self.nombre}"


class Comuna(models.Model):
    """Comuna por su código CUT de cinco dígitos («02101» Antofagasta)."""

    codigo = models.CharField(max_length=5, primary_key=True)
    nombre = models.CharField(max_length=100)
    provincia = models.CharField(max_length=100)
    region = models.ForeignKey(Region, on_delete=models.PROTECT, related_name="comunas")
    limite = models.JSONField(null=True, blank=True, help_text="Límite comunal GeoJSON (BCN), WGS84.")

    objects = SinLimiteManager["Comuna"]()

    class Meta:
        ordering = ["codigo"]
        constraints = [models.UniqueConstraint(fields=["region", "nombre"], name="comuna_unica_por_region")]

    def __str__(self) -> str:
        return self.nombre


class Cliente(models.Model):
    """Empresa mandante. Un usuario ve solo los proyectos de sus clientes (salvo el personal)."""

    nombre = models.CharField(max_length=200, unique=True)
    rut = models.CharField(max_length=12, blank=True, help_text="RUT de la empresa, p. ej. 76.123.456-7.")
    usuarios = models.ManyToManyField(settings.AUTH_USER_MODEL, blank=True, related_name="clientes")
    demo = models.BooleanField(
        default=False,
        help_text="Datos de demostración (`manage.py demo --borrar` los quita con sus proyectos).",
    )
    creado_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["nombre"]

    def __str__(self) -> str:
        return self.nombre


class Proyecto(models.Model):
    """Proyecto minero a evaluar: tipo, cantidades, ubicación y circunstancias declaradas."""

    class Estado(models.TextChoices):
        BORRADOR = "borrador", "Borrador"
        EN_ANALISIS = "en_analisis", "En análisis"
        ANALIZADO = "analizado", "Analizado"
        ARCHIVADO = "archivado", "Archivado"

    class Tipo(models.TextChoices):
        EXPLOTACION = "explotacion", "Explotación minera"
        PROSPECCION = "prospeccion", "Prospección"
        PLANTA_PROCESAMIENTO = "planta_procesamiento", "Planta de procesamiento"
        DEPOSITO_RELAVES = "deposito_relaves", "Depósito de relaves"
        BOTADERO_ESTERILES = "botadero_esteriles", "Botadero de estériles"
        ARIDOS_POZO = "aridos_pozo", "Áridos en pozo o cantera"
        ARIDOS_CAUCE = "aridos_cauce", "Áridos en cauce"
        ARIDOS_PLAYA = "aridos_playa", "Arena en playa"
        HIDROCARBUROS = "hidrocarburos", "Hidrocarburos (petróleo y gas)"

    nombre = models.CharField(max_length=200)
    cliente = models.ForeignKey(Cliente, on_delete=models.PROTECT, related_name="proyectos")
    region = models.ForeignKey(Region, on_delete=models.PROTECT, related_name="proyectos")
    comuna = models.ForeignKey(
        Comuna, on_delete=models.PROTECT, null=True, blank=True, related_name="proyectos"
    )
    tipo = models.CharField(max_length=30, choices=Tipo.choices)
    estado = models.CharField(max_length=20, choices=Estado.choices, default=Estado.BORRADOR)
    capacidad_extraccion_t_mes = models.DecimalField(max_digits=14, decimal_places=2, null=True, blank=True)
    plataformas = models.PositiveIntegerField(null=True, blank=True)
    aridos_m3_mes = models.DecimalField(max_digits=14, decimal_places=2, null=True, blank=True)
    aridos_m3_total = models.DecimalField(max_digits=14, decimal_places=2, null=True, blank=True)
    superficie_ha = models.DecimalField(max_digits=14, decimal_places=2, null=True, blank=True)
    geometria = models.JSONField(
        null=True, blank=True, help_text="Polygon o MultiPolygon GeoJSON en WGS84 (lon, lat)."
    )
    geometria_modificada_at = models.DateTimeField(null=True, blank=True)
    circunstancias = models.JSONField(default=list, blank=True)
    areas_declaradas = models.JSONField(
        default=list,
        blank=True,
        help_text="Áreas en que se dice que está, sin polígono: "
        '[{"categoria": "reserva_nacional", "nombre": "…"}].',
    )
    componentes = models.JSONField(
        default=dict,
        blank=True,
        help_text="Otras partes de la faena (mineroducto, línea, polvorín…), en los campos de "
        '`componentes` del motor: {"ducto_minero_km": 30}.',
    )
    creado_por = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    creado_at = models.DateTimeField(auto_now_add=True)
    actualizado_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-actualizado_at"]
        indexes = [models.Index(fields=["cliente", "estado"])]

    def __str__(self) -> str:
        return self.nombre


class Analisis(models.Model):
    """Resultado congelado de una evaluación: la entrada tal como se evaluó y lo que dio."""

    class Tipo(models.TextChoices):
        RAPIDO = "rapido", "Rápido (sin capas geográficas)"
        COMPLETO = "completo", "Completo"

    class Clasificacion(models.TextChoices):
        NO_INGRESA = "NO_INGRESA", "No ingresa al SEIA"
        DIA = "DIA", "Declaración de Impacto Ambiental (DIA)"
        EIA = "EIA", "Estudio de Impacto Ambiental (EIA)"

    proyecto = models.ForeignKey(Proyecto, on_delete=models.CASCADE, related_name="analisis")
    tipo = models.CharField(max_length=10, choices=Tipo.choices, default=Tipo.COMPLETO)
    fecha = models.DateTimeField(auto_now_add=True)
    entrada = models.JSONField()
    resultado = models.JSONField()
    clasificacion = models.CharField(max_length=12, choices=Clasificacion.choices)
    alertas_revisadas = models.BooleanField(default=False)
    creado_por = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["-fecha"]
        verbose_name = "análisis"
        verbose_name_plural = "análisis"

    def __str__(self) -> str:
        return f"{self.proyecto} · {self.clasificacion} · {self.fecha:%Y-%m-%d %H:%M}"


class CategoriaCapa(models.Model):
    """Tipo de elemento sensible y cómo lo trata el motor (editable por el personal)."""

    class Severidad(models.TextChoices):
        CRITICA = "critica", "Crítica"
        ALTA = "alta", "Alta"
        MEDIA = "media", "Media"

    codigo = models.SlugField(max_length=40, unique=True)
    nombre = models.CharField(max_length=120)
    letras_art11 = models.JSONField(
        default=list, blank=True, help_text='Letras del Art. 11 de la Ley 19.300 que informa, p. ej. ["d"].'
    )
    proteccion_oficial = models.BooleanField(
        default=False,
        help_text="Cuenta como «área colocada bajo protección oficial» (Art. 10 letra p y Art. 11 letra d).",
    )
    interseccion_es_efecto = models.BooleanField(
        default=True, help_text="Si la intersección es un efecto del Art. 11 (si no, solo una alerta)."
    )
    severidad = models.CharField(max_length=10, choices=Severidad.choices, default=Severidad.ALTA)
    buffer_efecto_m = models.PositiveIntegerField(
        default=0,
        help_text="Distancia dentro de la cual la proximidad también es efecto (0: solo intersección).",
    )
    buffer_alerta_m = models.PositiveIntegerField(
        default=5000, help_text="Distancia dentro de la cual la proximidad genera una alerta."
    )
    descripcion = models.TextField(blank=True)

    class Meta:
        ordering = ["nombre"]
        verbose_name = "categoría de capa"
        verbose_name_plural = "categorías de capa"

    def __str__(self) -> str:
        return self.nombre


class CapaGeografica(models.Model):
    """Capa de elementos sensibles con su fuente, cobertura y letras que informa."""

    nombre = models.CharField(max_length=200)
    codigo = models.SlugField(max_length=60, unique=True)
    categoria = models.ForeignKey(
        CategoriaCapa, on_delete=models.PROTECT, related_name="capas", help_text="Categoría por defecto."
    )
    letras_art11 = models.JSONField(
        default=list, blank=True, help_text="Letras del Art. 11 que informa (vacío: las de la categoría)."
    )
    fuente = models.CharField(max_length=300, help_text="Organismo y publicación de origen.")
    url_fuente = models.URLField(max_length=500, blank=True)
    archivo = models.CharField(max_length=300, blank=True, help_text="Archivo del que se cargó.")
    hash = models.CharField(max_length=64, blank=True)
    cobertura_regiones = models.ManyToManyField(
        Region,
        blank=True,
        related_name="capas",
        help_text="Regiones que la capa cubre (vacío: todo el país).",
    )
    cobertura_nota = models.CharField(
        max_length=300, blank=True, help_text="P. ej. «parcial: 8 sitios Ramsar»."
    )
    activa = models.BooleanField(default=True)
    actualizada_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["nombre"]
        verbose_name = "capa geográfica"
        verbose_name_plural = "capas geográficas"

    def __str__(self) -> str:
        return self.nombre


class ElementoSensible(models.Model):
    """Elemento de una capa (un parque, un glaciar, un humedal) con su geometría WGS84."""

    capa = models.ForeignKey(CapaGeografica, on_delete=models.CASCADE, related_name="elementos")
    categoria = models.ForeignKey(CategoriaCapa, on_delete=models.PROTECT, related_name="elementos")
    nombre = models.CharField(max_length=300)
    fuente = models.CharField(max_length=300, blank=True)
    identificador = models.CharField(max_length=100, blank=True, help_text="Código en la fuente.")
    atributos = models.JSONField(default=dict, blank=True)
    geometria = models.JSONField(help_text="Geometría GeoJSON en WGS84.")
    # Caja envolvente para el prefiltro en SQL (el motor usa además un STRtree en memoria).
    min_lon = models.FloatField()
    min_lat = models.FloatField()
    max_lon = models.FloatField()
    max_lat = models.FloatField()

    class Meta:
        ordering = ["capa", "nombre"]
        verbose_name = "elemento sensible"
        verbose_name_plural = "elementos sensibles"
        indexes = [models.Index(fields=["min_lon", "max_lon", "min_lat", "max_lat"], name="elemento_caja")]

    def __str__(self) -> str:
        return self.nombre


class ReglaDelMotor(models.Model):
    """Estado de una regla del motor (`proyectos.analisis.reglas`) frente al texto vigente de su fragmento:
    «vigente» si el texto es el mismo con que se escribió (o uno que el personal ya revisó), «revisar» si
    llegó otra versión, «sin texto» si el corpus cargado no lo trae."""

    class Estado(models.TextChoices):
        VIGENTE = "vigente", "Vigente"
        REVISAR = "revisar", "Revisar"
        SIN_TEXTO = "sin_texto", "Sin texto en el corpus"

    literal = models.CharField(max_length=10, unique=True)
    fragmento = models.CharField(max_length=60, help_text="Norma, artículo y literal que aplica.")
    umbrales = models.CharField(max_length=300, help_text="Lo que del texto fija el umbral, citado.")
    hash_regla = models.CharField(max_length=16, help_text="Hash del texto con que se escribió la regla.")
    hash_aceptado = models.CharField(
        max_length=16, blank=True, help_text="Hash de un texto posterior que el personal revisó y aceptó."
    )
    hash_vigente = models.CharField(max_length=16, blank=True)
    texto_vigente = models.TextField(blank=True)
    fecha_texto = models.DateField(null=True, blank=True, help_text="Fecha de la versión del texto vigente.")
    estado = models.CharField(max_length=10, choices=Estado.choices, default=Estado.VIGENTE)
    revisada_at = models.DateTimeField(null=True, blank=True, help_text="Última comparación con el corpus.")

    class Meta:
        ordering = ["literal"]
        verbose_name = "regla del motor"
        verbose_name_plural = "reglas del motor"

    def __str__(self) -> str:
        return f"{self.literal} ({self.fragmento})"
