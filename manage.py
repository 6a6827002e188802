#!/usr/bin/env python
"""Utilidad de línea de comandos de Django."""

import os
import sys


def main() -> None:
    """Ejecuta un comando de administración con la configuración local por defecto."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
