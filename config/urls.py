"""Rutas HTTP del proyecto."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from config import views

urlpatterns = [
    path("", views.inicio, name="inicio"),
    path("ingresar/", auth_views.LoginView.as_view(), name="login"),
    path("salir/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
    path("api/health/", views.SaludApi.as_view(), name="salud"),
    path("metrics", views.metricas_prometheus, name="metricas"),
    path("api/", include("proyectos.urls_api")),
    path("api/", include("normativa.urls_api")),
    path("api/asistente/", include("asistente.urls_api")),
    path("proyectos/", include("proyectos.urls")),
    path("asistente/", include("asistente.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="api-docs"),
    re_path(r"^api/", views.api_inexistente),
]
