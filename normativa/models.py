"""Modelos del corpus normativo: normas, versiones, fragmentos citables, temas y caché de embeddings."""

from __future__ import annotations

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVectorField
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils import timezone
from pgvector.django import HnswIndex, VectorField

DIMENSIONES = 384


class Tema(models.Model):
    nombre = models.CharField(max_length=120, unique=True)

    class Meta:
        ordering = ["nombre"]

    def __str__(self) -> str:
        return self.nombre


class Norma(models.Model):
    class Tipo(models.TextChoices):
        LEY = "ley", "Ley"
        DECRETO = "decreto", "Decreto supremo"
        GUIA = "guia", "Guía del SEA"
        DOCUMENTACION = "documentacion", "Documentación del sistema"

    tipo = models.CharField(max_length=20, choices=Tipo.choices)
    numero = models.CharField(max_length=40, blank=True, help_text="Como se cita: «19.300», «40».")
    nombre = models.CharField(max_length=400)
    sigla = models.CharField(max_length=60, unique=True, help_text="Cita corta: «Ley 19.300», «DS 40».")
    organismo = models.CharField(max_length=200, blank=True)
    id_norma_bcn = models.PositiveIntegerField(null=True, blank=True, unique=True)
    url = models.URLField(max_length=500, blank=True)
    anio = models.PositiveSmallIntegerField(null=True, blank=True)
    metadatos = models.JSONField(default=dict, blank=True)
    peso_busqueda = models.FloatField(
        default=1.0,
        validators=[MinValueValidator(0.0), MaxValueValidator(1.0)],
        help_text=(
            "Multiplica el puntaje de sus fragmentos en la búsqueda híbrida (0–1). La base legal pesa "
            "más que lo que la desarrolla: Ley 19.300 1,0; DS 40 0,9; otras leyes 0,8; guías 0,5."
        ),
    )
    temas = models.ManyToManyField(Tema, blank=True, related_name="normas")
    creada_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["tipo", "sigla"]

    def __str__(self) -> str:
        return self.sigla


class VersionNorma(models.Model):
    norma = models.ForeignKey(Norma, on_delete=models.CASCADE, related_name="versiones")
    fecha_version = models.DateField(null=True, blank=True)
    fuente = models.CharField(max_length=500, help_text="Archivo o URL de origen.")
    hash = models.CharField(
        max_length=64, help_text="SHA-256 de la versión de los parsers y del archivo de origen."
    )
    vigente = models.BooleanField(default=True)
    advertencia = models.TextField(
        blank=True,
        help_text="Aviso que acompaña toda cita de esta versión (p. ej. texto anterior al DS 17/2025). Una "
        "versión nueva traída de la BCN empieza sin aviso.",
    )
    cambios = models.JSONField(
        default=dict,
        blank=True,
        help_text="Diferencias con la versión anterior por artículo: modificados, agregados, eliminados, "
        "derogados (lo llena la revisión de BCN).",
    )
    creada_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["norma", "-creada_at"]
        constraints = [
            models.UniqueConstraint(fields=["norma", "hash"], name="version_unica_por_contenido"),
            models.UniqueConstraint(
                fields=["norma"], condition=models.Q(vigente=True), name="una_version_vigente_por_norma"
            ),
        ]
        verbose_name = "versión de norma"
        verbose_name_plural = "versiones de normas"

    def __str__(self) -> str:
        return f"{self.norma.sigla} ({self.fecha_version or 's/f'})"


class FragmentoVigenteManager(models.Manager["FragmentoLegal"]):
    """Excluye los fragmentos eliminados (borrado lógico)."""

    def get_queryset(self) -> models.QuerySet[FragmentoLegal]:
        return super().get_queryset().filter(eliminado_at__isnull=True)


class FragmentoLegal(models.Model):
    class Tipo(models.TextChoices):
        ARTICULO = "articulo", "Artículo"
        LETRA = "letra", "Letra"
        NUMERAL = "numeral", "Numeral"
        SECCION = "seccion", "Sección de guía o documento"

    norma = models.ForeignKey(Norma, on_delete=models.CASCADE, related_name="fragmentos")
    version = models.ForeignKey(VersionNorma, on_delete=models.CASCADE, related_name="fragmentos")
    tipo = models.CharField(max_length=12, choices=Tipo.choices)
    orden = models.PositiveIntegerField()
    jerarquia = models.JSONField(default=list, help_text="Título › Párrafo › … de mayor a menor.")
    breadcrumb = models.CharField(max_length=1000)
    articulo = models.CharField(max_length=40, blank=True, db_index=True)
    letra = models.CharField(max_length=20, blank=True)
    id_parte = models.CharField(max_length=20, blank=True, help_text="idParte de BCN, si se conoce.")
    pagina = models.PositiveIntegerField(null=True, blank=True)
    texto = models.TextField()
    contexto = models.TextField(
        blank=True, help_text="Encabezado del artículo (y de la letra) que da sentido a una letra o numeral."
    )
    texto_busqueda = models.TextField(
        blank=True,
        help_text=(
            "Lo que representa al fragmento en la búsqueda si difiere del texto citado: en un artículo "
            "con letras, su encabezado y el comienzo de cada letra."
        ),
    )
    termino_definido = models.CharField(
        max_length=100,
        blank=True,
        db_index=True,
        help_text="Término que define (letras de artículos de definiciones).",
    )
    derogado = models.BooleanField(default=False)
    transitorio = models.BooleanField(default=False)
    modificatorio = models.BooleanField(
        default=False,
        help_text="Modifica otra norma: su contenido ya está en el texto refundido de esa norma.",
    )
    temas = models.ManyToManyField(Tema, blank=True, related_name="fragmentos")
    hash_contenido = models.CharField(max_length=64)
    embedding = VectorField(dimensions=DIMENSIONES, null=True, blank=True)
    busqueda = SearchVectorField(null=True, editable=False)
    # Las oraciones del texto y las raíces de cada una (separadas por espacios), como las lee el
    # reordenador; las calcula la ingesta (`normativa.oraciones`) con la versión del análisis.
    oraciones = ArrayField(models.TextField(), default=list, blank=True, editable=False)
    raices = ArrayField(models.TextField(), default=list, blank=True, editable=False)
    analisis = models.CharField(max_length=16, blank=True, editable=False)
    eliminado_at = models.DateTimeField(null=True, blank=True)

    objects = FragmentoVigenteManager()
    todos = models.Manager()  # noqa: DJ012 (el gestor por defecto es `objects`, sin eliminados)

    class Meta:
        ordering = ["norma", "version", "orden"]
        base_manager_name = "todos"
        indexes = [
            HnswIndex(
                name="fragmento_embedding_hnsw",
                fields=["embedding"],
                m=16,
                ef_construction=64,
                opclasses=["vector_cosine_ops"],
            ),
            GinIndex(name="fragmento_busqueda_gin", fields=["busqueda"]),
            models.Index(name="fragmento_norma_articulo", fields=["norma", "articulo", "letra"]),
        ]
        verbose_name = "fragmento legal"
        verbose_name_plural = "fragmentos legales"

    def __str__(self) -> str:
        return self.breadcrumb

    def eliminar(self) -> None:
        """Borrado lógico: el fragmento deja de buscarse pero se conserva."""
        self.eliminado_at = timezone.now()
        self.save(update_fields=["eliminado_at"])

    def restaurar(self) -> None:
        self.eliminado_at = None
        self.save(update_fields=["eliminado_at"])


class Documentacion(FragmentoLegal):
    """Fragmentos de la documentación propia del sistema (README, docs/, CONTRIBUTING)."""

    class Meta:
        proxy = True
        verbose_name = "fragmento de documentación"
        verbose_name_plural = "documentación del sistema"


class CargaDocumento(models.Model):
    """Archivo subido en el admin para ingerir en segundo plano (tarea de Celery con progreso).

    El contenido se guarda en la base y no en disco: web y worker pueden estar en máquinas
    distintas y solo comparten PostgreSQL y Redis.
    """

    class Estado(models.TextChoices):
        PENDIENTE = "pendiente", "Pendiente"
        PROCESANDO = "procesando", "Procesando"
        COMPLETADA = "completada", "Completada"
        SIN_CAMBIOS = "sin_cambios", "Sin cambios"
        FALLIDA = "fallida", "Fallida"

    nombre_archivo = models.CharField(max_length=255)
    contenido = models.BinaryField()
    formato = models.CharField(max_length=10)
    sigla = models.CharField(max_length=60, help_text="Norma a la que pertenece: «Guía SEA …», «Ley 21.600».")
    tipo = models.CharField(max_length=20, choices=Norma.Tipo.choices, blank=True)
    nombre = models.CharField(max_length=400, blank=True)
    url = models.URLField(max_length=500, blank=True)
    anio = models.PositiveSmallIntegerField(null=True, blank=True)
    organismo = models.CharField(max_length=200, blank=True)
    temas = models.JSONField(default=list, blank=True, help_text="Temas que se agregan a la norma.")
    metadatos = models.JSONField(
        default=dict, blank=True, help_text="Se agregan a los de la norma (p. ej. sección del sitio del SEA)."
    )
    estado = models.CharField(max_length=12, choices=Estado.choices, default=Estado.PENDIENTE)
    hechos = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(default=0)
    mensaje = models.TextField(blank=True)
    version = models.ForeignKey(VersionNorma, null=True, blank=True, on_delete=models.SET_NULL)
    usuario = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    creada_at = models.DateTimeField(auto_now_add=True)
    terminada_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-creada_at"]
        verbose_name = "carga de documento"
        verbose_name_plural = "cargas de documentos"

    def __str__(self) -> str:
        return f"{self.nombre_archivo} → {self.sigla}"

    @property
    def en_curso(self) -> bool:
        return self.estado in (self.Estado.PENDIENTE, self.Estado.PROCESANDO)


class EmbeddingCache(models.Model):
    """Vector por hash de contenido: un texto sin cambios nunca se vuelve a embeber."""

    hash = models.CharField(max_length=64, primary_key=True)
    modelo = models.CharField(max_length=100)
    vector = VectorField(dimensions=DIMENSIONES)
    creado_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = "embedding en caché"
        verbose_name_plural = "embeddings en caché"

    def __str__(self) -> str:
        return f"{self.hash[:12]}… ({self.modelo})"


class PermisoSectorial(models.Model):
    """Un permiso ambiental sectorial (PAS) del Título VII del DS 40, leído del texto de su artículo
    (`normativa.permisos`): nombre, clase, norma que lo establece, requisito para su otorgamiento y
    contenidos técnicos y formales; la guía trámite del SEA y el órgano que revisa sus contenidos, donde el
    corpus los trae. Queda atado al hash del texto del que se leyó: si llega otra versión del artículo, pasa
    a «revisar» y sigue mostrando lo leído hasta que el personal acepte el texto nuevo."""

    class Tipo(models.TextChoices):
        AMBIENTAL = "ambiental", "De contenidos únicamente ambientales"
        MIXTO = "mixto", "Mixto (contenidos ambientales y no ambientales)"

    class Estado(models.TextChoices):
        VIGENTE = "vigente", "Vigente"
        REVISAR = "revisar", "Revisar"
        SIN_TEXTO = "sin_texto", "Sin texto en el corpus"

    numero = models.PositiveSmallIntegerField(unique=True, help_text="Artículo del DS 40 que lo establece.")
    nombre = models.TextField(help_text="El epígrafe del artículo («Permiso para …»).")
    tipo = models.CharField(max_length=10, choices=Tipo.choices)
    norma_sectorial = models.TextField(blank=True, help_text="Dónde está establecido el permiso sectorial.")
    requisito = models.TextField(help_text="«El requisito para su otorgamiento consiste en …», tal cual.")
    contenidos = models.JSONField(
        default=list, blank=True, help_text="Contenidos técnicos y formales: [{«letra», «texto»}]."
    )
    organo = models.TextField(blank=True, help_text="Quién revisa sus contenidos, donde el corpus lo dice.")
    organo_fuente = models.CharField(max_length=300, blank=True, help_text="De dónde sale el órgano.")
    guia = models.ForeignKey(
        Norma, null=True, blank=True, on_delete=models.SET_NULL, related_name="permisos_guiados"
    )
    fragmento = models.ForeignKey(
        FragmentoLegal, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    hash_texto = models.CharField(max_length=16, help_text="Hash del texto del que se leyó la entrada.")
    hash_vigente = models.CharField(max_length=16, blank=True)
    texto_vigente = models.TextField(blank=True)
    fecha_texto = models.DateField(null=True, blank=True, help_text="Fecha de la versión del texto vigente.")
    estado = models.CharField(max_length=10, choices=Estado.choices, default=Estado.VIGENTE)
    revisado_at = models.DateTimeField(null=True, blank=True, help_text="Última comparación con el corpus.")

    class Meta:
        ordering = ["numero"]
        verbose_name = "permiso ambiental sectorial"
        verbose_name_plural = "permisos ambientales sectoriales"

    def __str__(self) -> str:
        return f"PAS {self.numero}: {self.nombre}"
