"""manage.py crear_usuario NOMBRE --rol {lectura,escritura,administrador} [--password P] [--cliente C]"""

from argparse import ArgumentParser
from typing import Any

from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from proyectos.roles import Rol
from proyectos.services import usuario_asociar_cliente, usuario_crear_o_actualizar


class Command(BaseCommand):
    help = "Crea o actualiza un usuario con su rol e imprime su token de API."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("nombre", help="Nombre de usuario.")
        parser.add_argument("--rol", required=True, choices=[rol.value for rol in Rol])
        parser.add_argument("--password", default=None, help="Contraseña (opcional).")
        parser.add_argument(
            "--cliente",
            default=None,
            help="Cliente al que pertenece (se crea si no existe): sin uno no puede crear proyectos.",
        )

    def handle(self, *args: Any, **opciones: Any) -> None:
        try:
            UnicodeUsernameValidator()(opciones["nombre"])
        except ValidationError:
            raise CommandError(
                f"Nombre de usuario inválido: «{opciones['nombre']}». Use letras, números y @.+-_"
            ) from None
        resultado = usuario_crear_o_actualizar(
            nombre=opciones["nombre"], rol=Rol(opciones["rol"]), password=opciones["password"]
        )
        accion = "creado" if resultado.creado else "actualizado"
        self.stdout.write(f"Usuario {resultado.usuario.username} {accion} con rol {opciones['rol']}.")
        if opciones["cliente"] is not None:
            try:
                cliente, nuevo = usuario_asociar_cliente(
                    usuario=resultado.usuario, nombre_cliente=opciones["cliente"]
                )
            except ValueError as error:
                raise CommandError(str(error)) from None
            self.stdout.write(f"Pertenece al cliente «{cliente.nombre}»{' (creado)' if nuevo else ''}.")
        if resultado.password_generada:
            self.stdout.write(f"Contraseña generada: {resultado.password_generada}")
        self.stdout.write(f"Token de API: {resultado.token}")
