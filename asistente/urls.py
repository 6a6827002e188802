"""Páginas del asistente."""

from django.urls import path

from asistente import views

app_name = "asistente"

urlpatterns = [path("", views.chat, name="chat"), path("memoria/", views.memoria, name="memoria")]
