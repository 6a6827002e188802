"""Modelos del asistente: dominios curados, conversaciones, mensajes, acciones por confirmar,
memoria de usuario y registro de llamadas a herramientas."""

from __future__ import annotations

import uuid
from datetime import timedelta

from django.conf import settings
from django.contrib.auth.models import Group
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils import timezone

VIGENCIA_ACCION = timedelta(minutes=5)


class Dominio(models.Model):
    """Configuración que el personal cura en el admin: prompt, tono, políticas y alcance."""

    class Confianza(models.TextChoices):
        ALTA = "HIGH", "Alta"
        MEDIA = "MEDIUM", "Media"
        BAJA = "LOW", "Baja"

    codigo = models.SlugField(max_length=40, unique=True)
    nombre = models.CharField(max_length=120)
    prompt_sistema = models.TextField(help_text="Instrucciones de sistema para el modelo.")
    tono = models.CharField(
        max_length=200, blank=True, help_text="P. ej. «formal, preciso, en español de Chile»."
    )
    descargos = models.JSONField(
        default=list,
        blank=True,
        help_text='Lista de {"disparadores": ["sanción", …], "texto": "…"}: se agrega el texto si la '
        "pregunta contiene un disparador.",
    )
    aviso_clasificacion = models.TextField(
        blank=True, help_text="Aviso que acompaña toda clasificación (DIA/EIA/NO_INGRESA)."
    )
    top_k = models.PositiveSmallIntegerField(
        default=5, help_text="Cuántos fragmentos entrega a lo más la búsqueda normativa, con cualquier motor."
    )
    confianza_minima = models.CharField(
        max_length=6,
        choices=Confianza.choices,
        default=Confianza.MEDIA,
        help_text="Bajo esta confianza de la búsqueda, la respuesta advierte que la base es débil.",
    )
    normas = models.JSONField(
        default=list, blank=True, help_text="Siglas en alcance (vacío: todas); acota la búsqueda normativa."
    )
    temas = models.JSONField(
        default=list, blank=True, help_text="Temas en alcance (vacío: todos); acota la búsqueda normativa."
    )
    rag_habilitado = models.BooleanField(
        default=True,
        help_text="Si las respuestas se basan en la búsqueda normativa (con RAG_ENABLED=false no lo hacen en "
        "ningún dominio).",
    )
    similitud_minima = models.FloatField(
        default=0.0,
        validators=[MinValueValidator(0.0), MaxValueValidator(1.0)],
        help_text="Similitud coseno mínima de un fragmento para entrar al contexto; vale la mayor entre "
        "esta y RAG_MIN_CONFIDENCE.",
    )
    grupos = models.ManyToManyField(
        Group,
        blank=True,
        related_name="dominios",
        help_text="Quiénes pueden usarlo; vacío: todos los usuarios con rol.",
    )
    activo = models.BooleanField(default=True)

    class Meta:
        ordering = ["codigo"]

    def __str__(self) -> str:
        return self.nombre


class Conversacion(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    usuario = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="conversaciones"
    )
    dominio = models.ForeignKey(Dominio, on_delete=models.PROTECT, related_name="conversaciones")
    titulo = models.CharField(max_length=200, blank=True)
    proyecto = models.ForeignKey(
        "proyectos.Proyecto", on_delete=models.SET_NULL, null=True, blank=True, related_name="conversaciones"
    )
    resumen = models.TextField(
        blank=True, help_text="Resumen acumulado de lo conversado fuera de la ventana."
    )
    metadata = models.JSONField(default=dict, blank=True)
    creada_at = models.DateTimeField(auto_now_add=True)
    actualizada_at = models.DateTimeField(auto_now=True)
    eliminada_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-actualizada_at"]
        verbose_name = "conversación"
        verbose_name_plural = "conversaciones"
        indexes = [models.Index(fields=["creada_at"], name="conversacion_creada")]  # panel de métricas

    def __str__(self) -> str:
        return self.titulo or str(self.id)


class Mensaje(models.Model):
    class Rol(models.TextChoices):
        USUARIO = "user", "Usuario"
        ASISTENTE = "assistant", "Asistente"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    conversacion = models.ForeignKey(Conversacion, on_delete=models.CASCADE, related_name="mensajes")
    rol = models.CharField(max_length=10, choices=Rol.choices)
    pregunta = models.ForeignKey(
        "self",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="respuestas",
        help_text="En una respuesta del asistente, el mensaje del usuario que responde.",
    )
    contenido = models.TextField(help_text="Texto tal como llegó (se escapa al mostrarlo).")
    id_cliente = models.UUIDField(
        null=True,
        blank=True,
        unique=True,
        help_text="El identificador que el cliente dio al mensaje del usuario: si lo reenvía (se cortó "
        "la conexión), se reconoce y se responde el turno guardado, no otro.",
    )
    tool_calls = models.JSONField(default=list, blank=True)
    fuentes = models.JSONField(default=list, blank=True)
    advertencias = models.JSONField(default=list, blank=True)
    sugerencias = models.JSONField(default=list, blank=True)
    marcado_inyeccion = models.BooleanField(default=False)
    recuerdos = models.JSONField(
        default=list, blank=True, help_text="Preguntas anteriores parecidas del mismo usuario (su memoria)."
    )
    olvidado = models.BooleanField(
        default=False,
        help_text="No vuelve como pregunta recordada: el usuario la olvidó, o solo fijaba preferencias.",
    )
    # El mensaje del asistente es el registro de su turno (ver `asistente.turno.medicion`).
    tokens_entrada = models.PositiveIntegerField(default=0, help_text="Todos, con los de caché.")
    tokens_salida = models.PositiveIntegerField(default=0)
    tokens_cache_lectura = models.PositiveIntegerField(default=0)
    tokens_cache_escritura = models.PositiveIntegerField(default=0)
    latencia_ms = models.PositiveIntegerField(null=True, blank=True)
    primer_token_ms = models.PositiveIntegerField(null=True, blank=True)
    costo_usd = models.DecimalField(max_digits=10, decimal_places=6, default=0)
    motor = models.CharField(max_length=20, blank=True)
    modelo = models.CharField(max_length=80, blank=True)
    confianza = models.CharField(max_length=6, blank=True, help_text="De la última búsqueda normativa.")
    similitud = models.FloatField(
        null=True,
        blank=True,
        help_text="Similitud coseno del mejor fragmento de la última búsqueda normativa.",
    )
    accion_tipo = models.CharField(
        max_length=40, blank=True, help_text="Tipo de la acción que el turno propuso, si propuso una."
    )
    familia = models.CharField(max_length=40, blank=True, help_text="De la pregunta, si se reconoció.")
    abstuvo = models.BooleanField(default=False, help_text="Respondió que no hay base suficiente.")
    respaldo = models.CharField(
        max_length=80, blank=True, help_text="Por qué respondió el motor de respaldo (tipo de falla)."
    )
    error = models.CharField(max_length=80, blank=True, help_text="Tipo de error si el turno falló.")
    limitado = models.BooleanField(default=False, help_text="El modelo respondió 429 durante el turno.")
    feedback = models.SmallIntegerField(null=True, blank=True)
    feedback_comentario = models.TextField(blank=True)
    creado_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["creado_at"]
        indexes = [
            # El panel de métricas cuenta conversaciones por día sin leer las filas.
            models.Index(fields=["rol", "creado_at"], include=["conversacion"], name="mensaje_rol_creado"),
            # Y encuentra las respuestas sin base suficiente (pocas) sin recorrer las demás.
            models.Index(
                fields=["creado_at"],
                condition=models.Q(rol="assistant")
                & (models.Q(abstuvo=True) | models.Q(confianza__in=["LOW", "NONE"])),
                name="mensaje_sin_respuesta",
            ),
            # Y las valoraciones (pocas) del rango.
            models.Index(
                fields=["creado_at"], condition=models.Q(feedback__isnull=False), name="mensaje_valorado"
            ),
        ]
        constraints = [
            # Un mensaje del usuario tiene una sola respuesta, aunque su turno se haya ejecutado dos
            # veces (se retomó tras morir su proceso, y el primero no estaba tan muerto).
            models.UniqueConstraint(
                fields=["pregunta"], condition=models.Q(rol="assistant"), name="mensaje_una_respuesta"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.rol}: {self.contenido[:60]}"

    @property
    def curada(self) -> bool:
        return self.motor == "curada"


def _vencimiento() -> object:
    return timezone.now() + VIGENCIA_ACCION


class AccionPendiente(models.Model):
    """Acción de escritura propuesta por el asistente: solo se ejecuta si su dueño la confirma."""

    class Estado(models.TextChoices):
        PENDIENTE = "pendiente", "Pendiente"
        CONFIRMADA = "confirmada", "Confirmada"
        CANCELADA = "cancelada", "Cancelada"
        EXPIRADA = "expirada", "Expirada"
        FALLIDA = "fallida", "Fallida"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    conversacion = models.ForeignKey(Conversacion, on_delete=models.CASCADE, related_name="acciones")
    usuario = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="acciones")
    tipo = models.CharField(max_length=60, help_text="Herramienta de escritura que la ejecuta.")
    parametros = models.JSONField(default=dict)
    descripcion = models.TextField()
    estado = models.CharField(max_length=12, choices=Estado.choices, default=Estado.PENDIENTE)
    resultado = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)
    comentario = models.TextField(blank=True)
    creada_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(default=_vencimiento)
    decidida_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-creada_at"]
        verbose_name = "acción pendiente"
        verbose_name_plural = "acciones pendientes"
        indexes = [models.Index(fields=["estado", "expires_at"]), models.Index(fields=["creada_at"])]

    def __str__(self) -> str:
        return f"{self.tipo} ({self.estado})"


class MemoriaUsuario(models.Model):
    usuario = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memoria")
    preferencias = models.JSONField(default=dict, blank=True)
    proyectos_frecuentes = models.JSONField(default=list, blank=True)
    feedback = models.JSONField(default=list, blank=True)
    actualizada_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "memoria de usuario"
        verbose_name_plural = "memorias de usuario"

    def __str__(self) -> str:
        return f"Memoria de {self.usuario}"


class LlamadaHerramienta(models.Model):
    conversacion = models.ForeignKey(
        Conversacion, on_delete=models.CASCADE, null=True, blank=True, related_name="llamadas"
    )
    mensaje = models.ForeignKey(
        Mensaje, on_delete=models.SET_NULL, null=True, blank=True, related_name="llamadas"
    )
    usuario = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True)
    herramienta = models.CharField(max_length=60)
    parametros = models.JSONField(default=dict)
    ms = models.PositiveIntegerField()
    exito = models.BooleanField()
    error = models.TextField(blank=True)
    cache_hit = models.BooleanField(default=False)
    creada_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-creada_at"]
        verbose_name = "llamada a herramienta"
        verbose_name_plural = "llamadas a herramientas"
        indexes = [models.Index(fields=["creada_at"])]  # el panel de métricas lee por rango de fechas

    def __str__(self) -> str:
        return f"{self.herramienta} ({self.ms} ms)"


class ConfiguracionAvisos(models.Model):
    """Avisos proactivos: qué disparadores están activos, cuántos y a qué hora (una sola fila)."""

    DISPARADORES = (
        "proyecto_sin_geometria",
        "analisis_desactualizado",
        "alertas_criticas_sin_revisar",
        "normativa_actualizada",
    )

    activo = models.BooleanField(default=True)
    disparadores = models.JSONField(default=list, blank=True, help_text="Activos (vacío: todos).")
    frecuencia_min = models.PositiveSmallIntegerField(
        default=5, help_text="Cada cuánto revisa la tarea periódica."
    )
    maximo_por_hora = models.PositiveSmallIntegerField(default=3)
    hora_inicio = models.PositiveSmallIntegerField(
        default=8, help_text="Hora de Santiago desde la que se avisa."
    )
    hora_fin = models.PositiveSmallIntegerField(
        default=20, help_text="Hora de Santiago hasta la que se avisa."
    )

    class Meta:
        verbose_name = "configuración de avisos"
        verbose_name_plural = "configuración de avisos"

    def __str__(self) -> str:
        return "Configuración de avisos"

    @classmethod
    def vigente(cls) -> ConfiguracionAvisos:
        configuracion, _ = cls.objects.get_or_create(pk=1)
        return configuracion

    def activos(self) -> tuple[str, ...]:
        return tuple(d for d in self.DISPARADORES if not self.disparadores or d in self.disparadores)


class Aviso(models.Model):
    """Aviso proactivo para un usuario sobre uno de sus proyectos (persistente hasta descartarlo)."""

    usuario = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="avisos")
    tipo = models.CharField(max_length=40)
    objeto = models.CharField(max_length=60, help_text="Sobre qué: «proyecto:12», «norma:Ley 19.300».")
    mensaje = models.TextField()
    enlace = models.CharField(max_length=300, blank=True)
    accion = models.ForeignKey(
        AccionPendiente, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    creado_at = models.DateTimeField(auto_now_add=True)
    descartado_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-creado_at"]
        indexes = [models.Index(fields=["usuario", "tipo", "objeto", "creado_at"])]

    def __str__(self) -> str:
        return f"{self.tipo} · {self.objeto}"


class RespuestaCurada(models.Model):
    """Una respuesta escrita y revisada por el personal para una pregunta frecuente, con las
    fuentes del corpus en que descansa (la caché de respuestas frecuentes de la semilla 000 §10.1).

    Se sirve tal cual, con cualquier motor, cuando la pregunta coincide con ella o con una variante.
    Si la BCN publica una versión nueva de una norma y cambia un fragmento en que descansa, pasa a
    «revisar» y deja de servirse hasta que alguien la revise.
    """

    class Estado(models.TextChoices):
        VIGENTE = "vigente", "Vigente"
        REVISAR = "revisar", "Revisar"

    dominio = models.ForeignKey(
        Dominio,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="respuestas_curadas",
        help_text="Vacío: se sirve en todos los dominios.",
    )
    pregunta = models.CharField(max_length=500, unique=True)
    variantes = models.TextField(blank=True, help_text="Otras formas de preguntar lo mismo, una por línea.")
    texto = models.TextField(
        help_text="La respuesta, con marcadores [n] que remiten a las fuentes en su orden."
    )
    estado = models.CharField(max_length=10, choices=Estado.choices, default=Estado.VIGENTE)
    motivo_revision = models.TextField(
        blank=True, help_text="Por qué pasó a «revisar» (lo escribe el sistema)."
    )
    actualizado_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["estado", "pregunta"]
        verbose_name = "respuesta curada"
        verbose_name_plural = "respuestas curadas"

    def __str__(self) -> str:
        return self.pregunta

    def formulaciones(self) -> list[str]:
        """La pregunta y sus variantes."""
        return [self.pregunta, *(v.strip() for v in self.variantes.splitlines() if v.strip())]


class FuenteCurada(models.Model):
    """El fragmento del corpus al que remite el marcador [orden] de una respuesta curada."""

    respuesta = models.ForeignKey(RespuestaCurada, on_delete=models.CASCADE, related_name="fuentes")
    fragmento = models.ForeignKey("normativa.FragmentoLegal", on_delete=models.PROTECT, related_name="+")
    orden = models.PositiveSmallIntegerField(default=1, help_text="El n de su marcador [n].")

    class Meta:
        ordering = ["orden"]
        constraints = [
            models.UniqueConstraint(fields=["respuesta", "orden"], name="fuente_curada_orden_unico")
        ]
        verbose_name = "fuente"
        verbose_name_plural = "fuentes"

    def __str__(self) -> str:
        return f"[{self.orden}] {self.fragmento_id}"


class ResumenHora(models.Model):
    """Los turnos de una hora de un motor, agregados desde sus mensajes (`asistente.metricas`): lo que
    lee el panel de métricas para rangos largos, sin recorrer cada mensaje. Se recalcula entero (es
    idempotente), así un turno que termina tarde no se pierde."""

    hora = models.DateTimeField(help_text="Comienzo de la hora (UTC).")
    motor = models.CharField(max_length=20)
    turnos = models.PositiveIntegerField(default=0)
    errores = models.PositiveIntegerField(default=0)
    respaldos = models.PositiveIntegerField(default=0)
    abstenciones = models.PositiveIntegerField(default=0)
    curadas = models.PositiveIntegerField(default=0)
    limitados = models.PositiveIntegerField(default=0)
    tokens_entrada = models.BigIntegerField(default=0)
    tokens_salida = models.BigIntegerField(default=0)
    tokens_cache_lectura = models.BigIntegerField(default=0)
    tokens_cache_escritura = models.BigIntegerField(default=0)
    costo_usd = models.DecimalField(max_digits=14, decimal_places=6, default=0)
    latencias = models.JSONField(default=list, help_text="Turnos por cubeta de latencia (ver metricas).")
    primeros_tokens = models.JSONField(default=list, help_text="Turnos por cubeta de tiempo al primer token.")
    confianzas = models.JSONField(default=dict, help_text="Turnos por confianza de la búsqueda.")

    class Meta:
        ordering = ["-hora", "motor"]
        constraints = [models.UniqueConstraint(fields=["hora", "motor"], name="resumen_hora_motor_unico")]
        verbose_name = "resumen por hora"
        verbose_name_plural = "métricas del asistente"  # su listado en el admin es el panel

    def __str__(self) -> str:
        return f"{self.hora:%Y-%m-%d %H}h · {self.motor}"
