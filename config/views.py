"""Páginas generales y salud del sistema (adaptadores delgados)."""

from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import Resolver404, resolve
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.salud import estado_del_sistema
from proyectos.roles import rol_de


def inicio(request: HttpRequest) -> HttpResponse:
    """Portada: qué hace el producto y por dónde empezar."""
    return render(request, "inicio.html")


def api_inexistente(request: HttpRequest) -> JsonResponse:
    """Una ruta bajo /api/ que no existe: 404 en JSON con la forma de error de la API (no la página
    HTML de Django), y la ruta con barra final si esa sí existe."""
    mensaje = f"No existe la ruta {request.path} en la API; vea /api/docs/."
    if not request.path.endswith("/"):
        try:
            existe = resolve(request.path + "/").func is not api_inexistente
        except Resolver404:
            existe = False
        if existe:
            mensaje = f"No existe la ruta {request.path} en la API: ¿quiso decir {request.path}/?"
    return JsonResponse({"error": mensaje}, status=404)


class SaludApi(APIView):
    """Estado de base de datos, pgvector, Redis, capa de canales, Celery y motor del asistente."""

    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]

    @extend_schema(
        summary="Salud del sistema",
        description="200 si los componentes esenciales responden; 503 nombrando los que fallan.",
        responses={
            200: inline_serializer(
                "Salud",
                {
                    "estado": serializers.CharField(),
                    "fallas": serializers.ListField(child=serializers.CharField()),
                    "componentes": serializers.DictField(),
                },
            ),
            503: None,
        },
    )
    def get(self, request: Request) -> Response:
        estado = estado_del_sistema()
        codigo = status.HTTP_200_OK if not estado["fallas"] else status.HTTP_503_SERVICE_UNAVAILABLE
        return Response(estado, status=codigo)


class UsuarioActualApi(APIView):
    """Usuario autenticado (sesión o token) y su rol."""

    @extend_schema(
        summary="Usuario actual",
        responses=inline_serializer(
            "UsuarioActual",
            {"usuario": serializers.CharField(), "rol": serializers.CharField(allow_null=True)},
        ),
    )
    def get(self, request: Request) -> Response:
        rol = rol_de(request.user)
        return Response({"usuario": request.user.get_username(), "rol": rol.value if rol else None})
