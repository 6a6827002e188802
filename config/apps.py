from django.apps import AppConfig
from django.core.signals import got_request_exception

from config.middleware import anotar_excepcion


class ConfigConfig(AppConfig):
    """Aplicación del proyecto: salud, páginas generales y comandos de operación."""

    name = "config"
    verbose_name = "Configuración"

    def ready(self) -> None:
        # Un 500 causado por la base caída, en cualquier capa, se responde como 503; un error de la API,
        # siempre en JSON (`config/middleware.py`).
        got_request_exception.connect(anotar_excepcion, dispatch_uid="config.anotar_excepcion")
