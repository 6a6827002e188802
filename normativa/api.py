"""API del catálogo de permisos ambientales sectoriales (adaptadores: validan, leen el catálogo,
responden). Quién puede consultar lo decide el permiso con nombre de `PERMISO_CONSULTA` en settings
(`proyectos.roles.puede_consultar`), sin importar otra app (ver el mapa de importaciones)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.utils.module_loading import import_string
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotFound, PermissionDenied, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.api import ERROR
from config.texto import sin_tildes
from normativa.models import PermisoSectorial
from normativa.permisos import permisos_del_catalogo

# Más allá no hay artículos (ni caben en la columna): se responde 404 sin consultar.
MAYOR_ARTICULO = 32767


class ContenidoSerializer(serializers.Serializer):  # type: ignore[type-arg]
    letra = serializers.CharField(
        help_text="Letra o literal del artículo («a», «a.1»); vacía si es una oración."
    )
    texto = serializers.CharField()


class PermisoSerializer(serializers.Serializer):  # type: ignore[type-arg]
    """Una entrada del catálogo, leída del texto de su artículo del DS 40."""

    numero = serializers.IntegerField(help_text="Artículo del DS 40 que establece el permiso.")
    nombre = serializers.CharField(help_text="El epígrafe del artículo.")
    tipo = serializers.ChoiceField(choices=PermisoSectorial.Tipo.choices)
    tipo_nombre = serializers.CharField()
    norma_sectorial = serializers.CharField(help_text="Dónde está establecido el permiso sectorial.")
    requisito = serializers.CharField(help_text="El requisito para su otorgamiento, tal cual.")
    contenidos = ContenidoSerializer(many=True, help_text="Contenidos técnicos y formales.")
    organo = serializers.CharField(help_text="Quién revisa sus contenidos, donde el corpus lo dice; o vacío.")
    organo_fuente = serializers.CharField(
        help_text="De dónde sale el órgano (sección de la guía, o el personal)."
    )
    guia = serializers.CharField(help_text="Guía trámite del SEA de este permiso, si el corpus la trae.")
    guia_url = serializers.CharField()
    url = serializers.CharField(help_text="El artículo en LeyChile.")
    fragmento_id = serializers.IntegerField(allow_null=True)
    estado = serializers.ChoiceField(
        choices=PermisoSectorial.Estado.choices,
        help_text="«revisar»: llegó otro texto del artículo; lo mostrado es lo leído del anterior.",
    )
    fecha_texto = serializers.DateField(allow_null=True, help_text="Fecha de la versión del texto vigente.")


class PermisosApi(APIView):
    """El catálogo de los PAS del Título VII del DS 40."""

    @extend_schema(
        summary="Listar los permisos ambientales sectoriales",
        parameters=[
            OpenApiParameter("tipo", OpenApiTypes.STR, enum=list(PermisoSectorial.Tipo.values)),
            OpenApiParameter("q", OpenApiTypes.STR, description="Palabras del nombre o del requisito."),
        ],
        responses={200: PermisoSerializer(many=True), 400: ERROR},
    )
    def get(self, request: Request) -> Response:
        _exigir_consulta(request)
        tipo = request.query_params.get("tipo", "")
        if tipo and tipo not in PermisoSectorial.Tipo.values:
            raise ValidationError(
                {"tipo": f"Tipo desconocido «{tipo[:40]}». Use: {', '.join(PermisoSectorial.Tipo.values)}."}
            )
        palabras = sin_tildes(request.query_params.get("q", "")).split()
        permisos = [
            p
            for p in permisos_del_catalogo().values()
            if (not tipo or p["tipo"] == tipo)
            and all(w in sin_tildes(f"{p['nombre']} {p['requisito']}") for w in palabras)
        ]
        return Response(PermisoSerializer(sorted(permisos, key=lambda p: p["numero"]), many=True).data)


class PermisoApi(APIView):
    @extend_schema(
        summary="Ver un permiso ambiental sectorial", responses={200: PermisoSerializer, 404: ERROR}
    )
    def get(self, request: Request, numero: int) -> Response:
        _exigir_consulta(request)
        permiso = permisos_del_catalogo([numero]).get(numero) if numero <= MAYOR_ARTICULO else None
        if permiso is None:
            raise NotFound(f"El DS 40 no tiene un permiso ambiental sectorial en el artículo {numero}.")
        return Response(PermisoSerializer(permiso).data)


def _exigir_consulta(request: Request) -> None:
    if not _puede_consultar()(request.user):
        raise PermissionDenied("Su usuario no tiene un rol asignado.")


@functools.cache
def _puede_consultar() -> Callable[[Any], bool]:
    permiso: Callable[[Any], bool] = import_string(settings.PERMISO_CONSULTA)
    return permiso
