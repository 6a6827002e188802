"""Usuarios con cliente y proyecto para conversar con el asistente."""

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib.auth.models import AbstractUser
from django.test import override_settings

from asistente.services import turno_eventos, turno_iniciar
from asistente.turno.tipos import Turno
from proyectos.models import Cliente, Proyecto
from proyectos.roles import Rol
from proyectos.services import proyecto_crear, usuario_crear_o_actualizar
from tests.utilidades import ServidorLocal

RUTA = "/v1/messages"  # la de la API de Mensajes en el servidor local que hace de Claude


@dataclass
class Charla:
    """Resultado de un turno: los eventos y el último («done» o «error»)."""

    turno: Turno
    eventos: list[Any]

    @property
    def final(self) -> dict[str, Any]:
        return dict(self.eventos[-1].datos)

    @property
    def texto(self) -> str:
        return str(self.final["mensaje"]["contenido"])

    @property
    def fuentes(self) -> list[dict[str, Any]]:
        return list(self.final["mensaje"]["fuentes"])

    @property
    def accion(self) -> dict[str, Any] | None:
        return self.final["accion_pendiente"]  # type: ignore[no-any-return]

    @property
    def tipos(self) -> list[str]:
        return [e.tipo for e in self.eventos]


@pytest.fixture
def usuaria(db: None) -> Callable[..., AbstractUser]:
    def crear(nombre: str = "consultora", rol: Rol = Rol.ESCRITURA) -> AbstractUser:
        usuario = usuario_crear_o_actualizar(nombre=nombre, rol=rol, password="clave-123!").usuario
        cliente, _ = Cliente.objects.get_or_create(nombre=f"Cliente de {nombre}")
        cliente.usuarios.add(usuario.pk)
        return usuario

    return crear


@pytest.fixture
def conversar() -> Callable[..., Charla]:
    def enviar(usuario: AbstractUser, mensaje: str, **opciones: Any) -> Charla:
        turno = turno_iniciar(usuario=usuario, mensaje=mensaje, **opciones)
        return Charla(turno, list(turno_eventos(turno)))

    return enviar


@pytest.fixture
def proyecto_eia(motor: None, usuaria: Callable[..., AbstractUser]) -> Proyecto:
    """Proyecto de Mejillones (sitio prioritario) ya analizado: EIA por la letra d."""
    from proyectos.services import analisis_ejecutar

    dueña = usuaria("duena")
    cliente = Cliente.objects.get(nombre="Cliente de duena")
    proyecto = proyecto_crear(
        cliente=cliente,
        datos={
            "nombre": "Mina Mejillones",
            "region": "Antofagasta",
            "tipo": "explotacion",
            "capacidad_extraccion_t_mes": 15000,
            "geometria": {
                "type": "Polygon",
                "coordinates": [
                    [
                        [-70.555, -23.286],
                        [-70.545, -23.286],
                        [-70.545, -23.277],
                        [-70.555, -23.277],
                        [-70.555, -23.286],
                    ]
                ],
            },
        },
        usuario=dueña,
    )
    analisis_ejecutar(proyecto=proyecto, usuario=dueña)
    return proyecto


@pytest.fixture
def servidor() -> Iterator[ServidorLocal]:
    """Un servidor local que habla la API de Mensajes, y el motor Claude apuntado a él."""
    local = ServidorLocal()
    with override_settings(
        ANTHROPIC_API_KEY="clave-de-prueba",
        ANTHROPIC_BASE_URL=local.url,
        ASISTENTE_MOTOR="claude",
        ASISTENTE_ENRUTADOR=False,  # estas pruebas recorren el camino del modelo; el enrutador, aparte
        ANTHROPIC_MAX_RETRIES=1,
    ):
        yield local
    local.cerrar()


def uso_de_herramienta(nombre: str, entrada: dict[str, Any], ident: str = "toolu_1") -> dict[str, Any]:
    return {"type": "tool_use", "id": ident, "name": nombre, "input": entrada}


def responder_sse(servidor: ServidorLocal, cuerpo: str, estado: int = 200) -> None:
    servidor.responder(RUTA, estado, cuerpo, {"Content-Type": "text/event-stream"})
