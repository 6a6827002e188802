from django.apps import AppConfig


class FuentesExternasConfig(AppConfig):
    """BCN LeyChile, SEA y e-SEIA: clientes HTTP, caché y tareas."""

    name = "fuentes_externas"
    verbose_name = "Fuentes externas"
