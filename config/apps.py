from django.apps import AppConfig


class ConfigConfig(AppConfig):
    """Aplicación del proyecto: salud, páginas generales y comandos de operación."""

    name = "config"
    verbose_name = "Configuración"
