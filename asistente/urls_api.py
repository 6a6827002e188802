"""Rutas de la API del asistente."""

from django.urls import path

from asistente import api

urlpatterns = [
    path("chat", api.ChatApi.as_view(), name="asistente-chat"),
    path("chat/stream", api.ChatStreamApi.as_view(), name="asistente-chat-stream"),
    path("confirm", api.ConfirmarApi.as_view(), name="asistente-confirmar"),
    path("conversaciones/", api.ConversacionesApi.as_view(), name="asistente-conversaciones"),
    path("conversaciones/<uuid:pk>/", api.ConversacionApi.as_view(), name="asistente-conversacion"),
    path("conversaciones/<uuid:pk>/mensajes/", api.MensajesApi.as_view(), name="asistente-mensajes"),
    path("conversaciones/<uuid:pk>/eventos", api.EventosApi.as_view(), name="asistente-eventos"),
    path("mensajes/<uuid:pk>/feedback", api.FeedbackApi.as_view(), name="asistente-feedback"),
    path("herramientas/", api.HerramientasApi.as_view(), name="asistente-herramientas"),
    path("dominios/", api.DominiosApi.as_view(), name="asistente-dominios"),
    path("memoria/", api.MemoriaApi.as_view(), name="asistente-memoria"),
    path(
        "memoria/<str:tipo>/<str:clave>", api.MemoriaElementoApi.as_view(), name="asistente-memoria-elemento"
    ),
    path("avisos/", api.AvisosApi.as_view(), name="asistente-avisos"),
    path("avisos/<int:pk>/descartar", api.AvisoDescartarApi.as_view(), name="asistente-aviso-descartar"),
    path("avisos/<int:pk>/accion", api.AvisoAccionApi.as_view(), name="asistente-aviso-accion"),
    path("health/", api.SaludAsistenteApi.as_view(), name="asistente-salud"),
]
