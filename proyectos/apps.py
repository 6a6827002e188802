from django.apps import AppConfig


class ProyectosConfig(AppConfig):
    """Clientes, proyectos, capas geográficas y motor de prefactibilidad."""

    name = "proyectos"
    verbose_name = "Proyectos"
