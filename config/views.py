"""Páginas generales y salud del sistema (adaptadores delgados)."""

import hmac

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import Resolver404, resolve
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config import metricas
from config.salud import estado_del_sistema


def inicio(request: HttpRequest) -> HttpResponse:
    """Portada: qué hace el producto y por dónde empezar."""
    return render(request, "inicio.html")


def metricas_prometheus(request: HttpRequest) -> HttpResponse:
    """/metrics: el texto de exposición de Prometheus, sumado de todos los procesos. Solo con
    `Authorization: Bearer <METRICAS_TOKEN>` o desde una IP de `METRICAS_IPS`."""
    if not _puede_ver_metricas(request):
        return HttpResponse(
            "Acceso denegado: use el token de METRICAS_TOKEN o una IP de METRICAS_IPS.\n",
            status=403,
            content_type="text/plain; charset=utf-8",
        )
    return HttpResponse(metricas.exponer(), content_type=metricas.CONTENT_TYPE_LATEST)


def _puede_ver_metricas(request: HttpRequest) -> bool:
    token = settings.METRICAS_TOKEN
    recibido = request.headers.get("Authorization", "").removeprefix("Bearer ").strip()
    if token and hmac.compare_digest(recibido.encode(), token.encode()):
        return True
    return request.META.get("REMOTE_ADDR", "") in settings.METRICAS_IPS


@csrf_exempt  # responde 404 a todo método; sin esto, un POST sin token CSRF recibía 403 en HTML
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
    """Estado de base de datos, pgvector, Redis, capa de canales, Celery y motor del asistente.

    Anónimo: solo el estado y qué falla (para un balanceador). El detalle de cada componente, con
    versiones, solo para el personal o con el encabezado `X-Salud-Token` igual a `SALUD_TOKEN`.
    """

    permission_classes = [AllowAny]

    @extend_schema(
        summary="Salud del sistema",
        description="200 si los componentes esenciales responden; 503 nombrando los que fallan. "
        "`componentes` solo para el personal o con `X-Salud-Token`.",
        parameters=[
            OpenApiParameter(
                "X-Salud-Token", str, OpenApiParameter.HEADER, required=False, description="SALUD_TOKEN."
            )
        ],
        responses={
            (codigo, "application/json"): inline_serializer(
                f"Salud{codigo}",
                {
                    "estado": serializers.CharField(),
                    "fallas": serializers.ListField(child=serializers.CharField()),
                    "componentes": serializers.DictField(required=False),
                },
            )
            for codigo in (200, 503)
        },
    )
    def get(self, request: Request) -> Response:
        detalle = _ve_detalle_de_salud(request)
        estado = estado_del_sistema(solo_esenciales=not detalle)
        codigo = status.HTTP_200_OK if not estado["fallas"] else status.HTTP_503_SERVICE_UNAVAILABLE
        if not detalle:
            return Response({"estado": estado["estado"], "fallas": estado["fallas"]}, status=codigo)
        return Response(estado, status=codigo)


def _ve_detalle_de_salud(request: Request) -> bool:
    if request.user.is_staff:
        return True
    token = settings.SALUD_TOKEN
    recibido = request.headers.get("X-Salud-Token", "")
    return bool(token) and hmac.compare_digest(recibido.encode(), token.encode())
