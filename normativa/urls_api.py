"""Rutas de la API del corpus normativo: el catálogo de permisos ambientales sectoriales."""

from django.urls import path

from normativa import api

urlpatterns = [
    path("permisos/", api.PermisosApi.as_view(), name="api-permisos"),
    path("permisos/<int:numero>/", api.PermisoApi.as_view(), name="api-permiso"),
]
