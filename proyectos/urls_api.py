"""Rutas de la API de proyectos y del motor."""

from django.urls import path

from proyectos import api

urlpatterns = [
    path("yo/", api.UsuarioActualApi.as_view(), name="usuario-actual"),
    path("clientes/", api.ClientesApi.as_view(), name="api-clientes"),
    path("clientes/<int:pk>/", api.ClienteApi.as_view(), name="api-cliente"),
    path("proyectos/", api.ProyectosApi.as_view(), name="api-proyectos"),
    path("proyectos/<int:pk>/", api.ProyectoApi.as_view(), name="api-proyecto"),
    path("proyectos/<int:pk>/analisis/", api.AnalisisProyectoApi.as_view(), name="api-proyecto-analisis"),
    path("analisis/evaluar/", api.EvaluarApi.as_view(), name="api-evaluar"),
    path("analisis/<int:pk>/", api.AnalisisApi.as_view(), name="api-analisis"),
]
