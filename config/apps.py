from django.apps import AppConfig
from django.core.signals import got_request_exception

from config.middleware import marcar_falla_de_base


class ConfigConfig(AppConfig):
    """Aplicación del proyecto: salud, páginas generales y comandos de operación."""

    name = "config"
    verbose_name = "Configuración"

    def ready(self) -> None:
        # Un 500 causado por la base caída, en cualquier capa, se responde como 503.
        got_request_exception.connect(marcar_falla_de_base, dispatch_uid="config.marcar_falla_de_base")
