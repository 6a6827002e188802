from django.apps import AppConfig


class AsistenteConfig(AppConfig):
    """Conversaciones, acciones pendientes, memoria y agente con herramientas."""

    name = "asistente"
    verbose_name = "Asistente"
