from django.apps import AppConfig


class AsistenteConfig(AppConfig):
    """Conversaciones, acciones pendientes, memoria y agente con herramientas."""

    name = "asistente"
    verbose_name = "Asistente"

    def ready(self) -> None:
        from django.db.models.signals import post_delete, post_save

        from asistente import herramientas
        from asistente.registro import invalidar_grupo
        from proyectos.models import Analisis, Proyecto

        def invalidar(**_: object) -> None:
            invalidar_grupo(herramientas.GRUPO_PROYECTOS)

        from asistente.avisos import al_actualizarse_normativa, al_ingerirse_version
        from asistente.curadas import al_actualizarse_normativa as curadas_revisar
        from asistente.motores import motor_llm_configurado
        from config.salud import registrar_revision
        from normativa.signals import normativa_actualizada, version_ingerida

        registrar_revision("motor_llm", motor_llm_configurado)

        normativa_actualizada.connect(al_actualizarse_normativa, dispatch_uid="asistente-avisos-normativa")
        normativa_actualizada.connect(curadas_revisar, dispatch_uid="asistente-curadas-normativa")
        version_ingerida.connect(al_ingerirse_version, dispatch_uid="asistente-reglas-del-motor")

        for modelo in (Proyecto, Analisis):
            post_save.connect(invalidar, sender=modelo, dispatch_uid=f"asistente-cache-{modelo.__name__}")
            post_delete.connect(invalidar, sender=modelo, dispatch_uid=f"asistente-cache-{modelo.__name__}-b")
