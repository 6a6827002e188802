from django.apps import AppConfig


class FuentesExternasConfig(AppConfig):
    """BCN LeyChile, SEA y e-SEIA: clientes HTTP, caché y tareas."""

    name = "fuentes_externas"
    verbose_name = "Fuentes externas"

    def ready(self) -> None:
        from fuentes_externas.eseia import similares_del_proyecto
        from proyectos.referencias import registrar_referencia

        registrar_referencia("proyectos_similares_seia", similares_del_proyecto)
