from django.apps import AppConfig


class NormativaConfig(AppConfig):
    """Corpus legal: normas, versiones, fragmentos citables y búsqueda híbrida."""

    name = "normativa"
    verbose_name = "Normativa"

    def ready(self) -> None:
        from normativa.busqueda.arreglos import registrar

        registrar()
