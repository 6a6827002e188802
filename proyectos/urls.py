"""Páginas de proyectos (servidas por el servidor, en castellano)."""

from django.urls import path

from proyectos import views

app_name = "proyectos"

urlpatterns = [
    path("", views.lista, name="lista"),
    path("nuevo/", views.crear, name="crear"),
    path("evaluar/", views.evaluar, name="evaluar"),
    path("<int:pk>/", views.detalle, name="detalle"),
    path("<int:pk>/editar/", views.editar, name="editar"),
    path("<int:pk>/mapa/", views.mapa, name="mapa"),
    path("<int:pk>/analizar/", views.analizar, name="analizar"),
    path("elementos/", views.elementos, name="elementos"),
    path("analisis/<int:pk>/", views.informe, name="informe"),
    path("analisis/<int:pk>/revisado/", views.marcar_revisado, name="revisado"),
]
