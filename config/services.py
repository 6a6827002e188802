"""Operaciones de puesta en marcha: preparar la base y el usuario de demostración."""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command
from django.db import transaction

from config.servicios import directorio_var

USUARIO_DEMO = "admin"


@dataclass(frozen=True)
class CredencialesDemo:
    usuario: str
    password: str


def sistema_preparar(*, verbosidad: int = 1) -> None:
    """Migra, declara las tareas periódicas, carga corpus y capas, compara las reglas del motor con su
    texto y carga las respuestas curadas (idempotente: segundos si nada cambió)."""
    call_command("migrate", interactive=False, verbosity=verbosidad)
    call_command("setup_periodic_tasks", verbosity=verbosidad)
    call_command("cargar_corpus", verbosity=verbosidad)
    call_command("cargar_capas", verbosity=verbosidad)
    call_command("revisar_reglas", verbosity=verbosidad)
    call_command("cargar_respuestas_curadas", verbosity=verbosidad)
    if settings.DATOS_DEMO:
        call_command("demo", "--primera-vez", verbosity=verbosidad)


@transaction.atomic
def usuario_demo_asegurar(*, archivo: Path | None = None) -> CredencialesDemo:
    """Crea (una vez) el superusuario de demostración y devuelve sus credenciales.

    Solo en desarrollo: la configuración de producción lo prohíbe. La contraseña se genera al
    azar la primera vez y se guarda en `var/` (ignorado por git) para mostrarla en cada arranque.
    """
    if not settings.PERMITIR_USUARIO_DEMO:
        raise ImproperlyConfigured("El usuario de demostración no está permitido en esta configuración.")
    archivo = archivo or directorio_var() / "usuario_demo.json"
    modelo = get_user_model()
    if archivo.exists() and modelo.objects.filter(username=USUARIO_DEMO).exists():
        datos = json.loads(archivo.read_text())
        return CredencialesDemo(usuario=datos["usuario"], password=datos["password"])
    password = secrets.token_urlsafe(9)
    usuario, _ = modelo.objects.get_or_create(username=USUARIO_DEMO)
    usuario.is_staff = usuario.is_superuser = True
    usuario.set_password(password)
    usuario.save()
    archivo.parent.mkdir(parents=True, exist_ok=True)
    archivo.write_text(json.dumps({"usuario": USUARIO_DEMO, "password": password}))
    archivo.chmod(0o600)
    return CredencialesDemo(usuario=USUARIO_DEMO, password=password)
