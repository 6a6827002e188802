"""API del asistente (adaptadores): chat, chat en SSE (y su reanudación), confirmación de acciones,
conversaciones, calificación, herramientas visibles, memoria y salud. Cada usuario ve solo lo suyo."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from django.http import StreamingHttpResponse
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, PermissionDenied
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from asistente import acciones, avisos, decisiones, flujos, limites, memoria, services
from asistente.models import AccionPendiente, Conversacion, MemoriaUsuario, Mensaje
from asistente.motores import motor_llm_configurado
from asistente.politicas import dominios_disponibles
from asistente.registro import herramientas_para
from asistente.selectors import dominio_json
from asistente.turno import vigilia
from asistente.turno.tipos import Turno
from config.api import ERROR
from config.errores import EnConflicto
from config.validacion import entero_de_parametro
from proyectos.roles import id_de, puede_consultar, puede_escribir


class ChatEntrada(serializers.Serializer):  # type: ignore[type-arg]
    mensaje = serializers.CharField(trim_whitespace=False, allow_blank=True)
    conversacion_id = serializers.UUIDField(required=False, allow_null=True)
    proyecto_id = serializers.IntegerField(required=False, allow_null=True)
    vista = serializers.CharField(required=False, allow_blank=True, default="")
    dominio = serializers.SlugField(required=False, allow_null=True)
    id_cliente = serializers.UUIDField(
        required=False,
        allow_null=True,
        help_text="Identificador que el cliente da a su mensaje: si lo reenvía porque no supo si llegó, "
        "recibe el mismo turno (no se guarda ni se responde dos veces).",
    )


FUENTE = inline_serializer(
    "Fuente",
    {
        "norma": serializers.CharField(),
        "articulo": serializers.CharField(),
        "letra": serializers.CharField(),
        "cita": serializers.CharField(help_text="Cómo se cita: «Ley 19.300, Art. 11 letra d»."),
        "url": serializers.CharField(help_text="Enlace al texto (LeyChile o el PDF de la guía)."),
        "extracto": serializers.CharField(help_text="La oración que responde, o el comienzo del fragmento."),
        "fragmento_id": serializers.IntegerField(allow_null=True),
        "advertencia": serializers.CharField(
            required=False,
            allow_blank=True,
            help_text="Aviso de vigencia de la versión citada («texto de 2014 …»).",
        ),
        "vigencia": serializers.CharField(
            required=False, allow_blank=True, help_text="Fecha de la versión citada: «texto del 06-10-2014»."
        ),
        "epigrafe": serializers.CharField(
            required=False, help_text="El epígrafe del artículo, si lo tiene («Consulta de pertinencia…»)."
        ),
        "marcador": serializers.CharField(
            required=False, help_text="Con Claude: cómo se citó ante el modelo («[2]»)."
        ),
    },
)
HERRAMIENTA_USADA = inline_serializer(
    "HerramientaUsada",
    {
        "herramienta": serializers.CharField(),
        "ms": serializers.IntegerField(allow_null=True),
        "error": serializers.CharField(allow_null=True),
    },
)
TIEMPOS = inline_serializer(
    "Tiempos",
    {
        "total_ms": serializers.IntegerField(
            allow_null=True, help_text="Del mensaje recibido a la respuesta."
        ),
        "primer_token_ms": serializers.IntegerField(
            allow_null=True, help_text="Hasta el primer trozo de texto."
        ),
    },
)


def _campos_accion() -> dict[str, serializers.Field[Any, Any, Any, Any]]:
    return {
        "id": serializers.UUIDField(),
        "tipo": serializers.CharField(),
        "parametros": serializers.DictField(),
        "etiquetas": serializers.DictField(
            child=serializers.CharField(), help_text="Nombre legible de cada parámetro, para mostrarlo."
        ),
        "opciones": serializers.DictField(
            child=serializers.DictField(child=serializers.CharField()),
            help_text="Parámetros de opciones fijas: cada valor posible con su nombre legible.",
        ),
        "descripcion": serializers.CharField(),
        "estado": serializers.CharField(),
        "expires_at": serializers.DateTimeField(),
        "resultado": serializers.DictField(allow_null=True),
        "error": serializers.CharField(allow_null=True),
    }


ACCION = inline_serializer("AccionPendiente", _campos_accion(), allow_null=True)
DECISION = inline_serializer(
    "Decision",
    {
        **_campos_accion(),
        "seguimiento": serializers.DictField(
            allow_null=True,
            help_text="Con Claude, el mensaje con que el modelo continúa la conversación tras la decisión.",
        ),
    },
)
CHAT_SALIDA = inline_serializer(
    "ChatSalida",
    {
        "conversacion_id": serializers.UUIDField(),
        "mensaje": inline_serializer(
            "MensajeAsistente",
            {
                "id": serializers.UUIDField(),
                "rol": serializers.CharField(),
                "contenido": serializers.CharField(),
                "fuentes": serializers.ListField(child=FUENTE),
                "advertencias": serializers.ListField(child=serializers.CharField()),
                "recuerdos": serializers.ListField(child=serializers.DictField()),
                "creado_at": serializers.DateTimeField(),
                "motor": serializers.CharField(help_text="claude, reglas, enrutador, curada o bloqueo."),
                "herramientas": serializers.ListField(child=HERRAMIENTA_USADA),
                "tiempos": TIEMPOS,
            },
        ),
        "accion_pendiente": ACCION,
        "sugerencias": serializers.ListField(child=serializers.CharField()),
    },
)


class ConversacionSerializer(serializers.ModelSerializer):  # type: ignore[type-arg]
    dominio = serializers.CharField(source="dominio.codigo")

    class Meta:
        model = Conversacion
        fields = ["id", "titulo", "dominio", "proyecto", "creada_at", "actualizada_at"]


class MensajeSerializer(serializers.ModelSerializer):  # type: ignore[type-arg]
    class Meta:
        model = Mensaje
        fields = [
            "id",
            "rol",
            "contenido",
            "fuentes",
            "advertencias",
            "sugerencias",
            "tool_calls",
            "motor",
            "creado_at",
            "feedback",
        ]


class ChatApi(APIView):
    @extend_schema(
        summary="Enviar un mensaje al asistente",
        request=ChatEntrada,
        responses={200: CHAT_SALIDA, 400: ERROR, 403: ERROR, 404: ERROR, 409: ERROR, 429: ERROR, 503: ERROR},
    )
    def post(self, request: Request) -> Response:
        turno = _iniciar(request)
        turno_id = str(turno.mensaje.pk)
        # El turno corre aquí mismo, con su vigilia: un reenvío (mismo `id_cliente`) recibe la respuesta
        # guardada, o lo retoma si la ejecución anterior murió sin guardarla.
        with vigilia.ejecucion(turno_id) as guardia:
            guardado = services.turno_final_guardado(turno_id) if turno.repetido else None
            if guardado is None and guardia is None:
                raise EnConflicto(
                    "Ese mensaje ya llegó y se está respondiendo; su respuesta queda en la conversación."
                )
            if guardado is None:
                eventos = [
                    (e.tipo, e.datos) for e in services.turno_eventos(turno) if e.tipo in ("done", "error")
                ]
                guardado = eventos[-1] if eventos else ("error", {"mensaje": services.FALLA_DEL_TURNO})
        evento, final = guardado
        if evento == "error":
            return Response(
                {"error": final["mensaje"]},
                status=status.HTTP_503_SERVICE_UNAVAILABLE,
                headers={"Retry-After": str(limites.REINTENTAR_SIN_REDIS_S)},
            )
        return Response({"conversacion_id": str(turno.conversacion.pk), **final})


class ChatStreamApi(APIView):
    @extend_schema(
        summary="Enviar un mensaje y recibir la respuesta como eventos (text/event-stream)",
        description="Eventos: meta, sources, warnings (si hay), start, token*, tool_start (una herramienta "
        "empieza: `herramienta` y `actividad`, el texto para mostrar), tool (terminó, con su resultado), "
        "action, y done o error; cada uno con `id:` creciente. `reinicio`: el proceso que preparaba la "
        "respuesta se detuvo y el turno se retoma desde el inicio (descarte el texto recibido; los ids "
        "siguen). Con `id_cliente`, reenviar el mismo mensaje retransmite su turno.",
        request=ChatEntrada,
        responses={
            (200, "text/event-stream"): OpenApiResponse(description="Flujo SSE"),
            400: ERROR,
            403: ERROR,
            404: ERROR,
            409: ERROR,
            429: ERROR,
            503: ERROR,
        },
    )
    def post(self, request: Request) -> Response | StreamingHttpResponse:
        turno = _iniciar(request)

        # El turno corre aparte, como el del websocket: si el cliente se desconecta, la respuesta se
        # guarda igual y el resto se pide con `GET conversaciones/{id}/eventos` y `Last-Event-ID`.
        turno_id = flujos.turno_lanzar(turno)
        return _respuesta_sse(turno_id, despues_de=0)


class EventosApi(APIView):
    @extend_schema(
        summary="Reanudar el flujo SSE del último turno de una conversación",
        description="Los eventos del turno más reciente con id mayor que el del encabezado "
        "`Last-Event-ID` (o el parámetro `ultimo_evento`; 0 por omisión), y los que falten hasta `done` "
        "o `error`, con la misma forma que `chat/stream`. Si los eventos ya no están (pasó una hora, o "
        "Redis se reinició) y la respuesta está guardada, llega solo su `done`.",
        parameters=[
            OpenApiParameter("ultimo_evento", int, description="Último id recibido."),
            OpenApiParameter(
                "Last-Event-ID", int, OpenApiParameter.HEADER, description="Último id recibido."
            ),
        ],
        responses={
            (200, "text/event-stream"): OpenApiResponse(description="Flujo SSE"),
            400: ERROR,
            404: ERROR,
        },
    )
    def get(self, request: Request, pk: str) -> Response | StreamingHttpResponse:
        conversacion = _conversacion(request, pk)
        ultimo = entero_de_parametro(
            request.headers.get("Last-Event-ID") or request.query_params.get("ultimo_evento") or "0"
        )
        if ultimo is None:
            return Response(
                {"error": "El último evento debe ser un número entero ≥ 0."},
                status=status.HTTP_400_BAD_REQUEST,
            )
        turno_id = flujos.ultimo_turno(str(conversacion.pk))
        if turno_id is None:
            raise NotFound("La conversación no tiene turnos que reanudar.")
        return _respuesta_sse(turno_id, despues_de=ultimo)


class ConfirmarEntrada(serializers.Serializer):  # type: ignore[type-arg]
    accion_id = serializers.UUIDField()
    confirmada = serializers.BooleanField()
    comentario = serializers.CharField(required=False, allow_blank=True, default="")
    parametros = serializers.DictField(required=False, allow_null=True, default=None)


class ConfirmarApi(APIView):
    @extend_schema(
        summary="Confirmar o cancelar una acción propuesta",
        request=ConfirmarEntrada,
        responses={200: DECISION, 400: ERROR, 404: ERROR, 409: ERROR, 410: ERROR},
    )
    def post(self, request: Request) -> Response:
        entrada = ConfirmarEntrada(data=request.data)
        entrada.is_valid(raise_exception=True)
        d = entrada.validated_data
        # Los errores del dominio (no encontrada, vencida, en conflicto, inválida) los traduce
        # `config.api.manejar_excepcion`.
        accion = acciones.accion_decidir(
            accion_id=d["accion_id"], usuario=request.user, confirmada=d["confirmada"],
            comentario=d["comentario"], parametros=d["parametros"],
        )  # fmt: skip
        # Con Claude, el modelo continúa la conversación con el resultado (o la cancelación y su
        # comentario) antes de responder; sin modelo, `seguimiento` es nulo.
        continuacion = decisiones.decision_continuar(accion=accion, usuario=request.user)
        return Response(
            {
                **acciones.accion_json(accion),
                "seguimiento": services.mensaje_json(continuacion) if continuacion else None,
            }
        )


class ConversacionesApi(APIView):
    @extend_schema(summary="Mis conversaciones", responses=ConversacionSerializer(many=True))
    def get(self, request: Request) -> Response:
        conversaciones = Conversacion.objects.filter(
            usuario_id=id_de(request.user), eliminada_at__isnull=True
        ).select_related("dominio")
        return Response(ConversacionSerializer(conversaciones[:100], many=True).data)


class ConversacionApi(APIView):
    @extend_schema(summary="Eliminar (ocultar) una conversación", responses={204: None, 404: ERROR})
    def delete(self, request: Request, pk: str) -> Response:
        services.conversacion_eliminar(conversacion=_conversacion(request, pk))
        return Response(status=status.HTTP_204_NO_CONTENT)


class MensajesApi(APIView):
    @extend_schema(summary="Mensajes de una conversación", responses=MensajeSerializer(many=True))
    def get(self, request: Request, pk: str) -> Response:
        conversacion = _conversacion(request, pk)
        return Response(MensajeSerializer(conversacion.mensajes.all(), many=True).data)


class FeedbackEntrada(serializers.Serializer):  # type: ignore[type-arg]
    valor = serializers.ChoiceField(choices=[1, -1])
    comentario = serializers.CharField(required=False, allow_blank=True, default="")


class FeedbackApi(APIView):
    @extend_schema(
        summary="Calificar una respuesta", request=FeedbackEntrada, responses={204: None, 404: ERROR}
    )
    def post(self, request: Request, pk: str) -> Response:
        entrada = FeedbackEntrada(data=request.data)
        entrada.is_valid(raise_exception=True)
        try:
            mensaje = Mensaje.objects.get(
                pk=pk, conversacion__usuario_id=id_de(request.user), rol=Mensaje.Rol.ASISTENTE
            )
        except (Mensaje.DoesNotExist, ValueError) as error:
            raise NotFound("Mensaje no encontrado.") from error
        services.mensaje_calificar(
            mensaje=mensaje,
            valor=int(entrada.validated_data["valor"]),
            comentario=entrada.validated_data["comentario"],
        )
        return Response(status=status.HTTP_204_NO_CONTENT)


class HerramientasApi(APIView):
    @extend_schema(
        summary="Herramientas que el asistente puede usar para mí",
        responses=inline_serializer(
            "Herramienta",
            {
                "name": serializers.CharField(),
                "description": serializers.CharField(),
                "input_schema": serializers.DictField(),
                "escritura": serializers.BooleanField(),
            },
            many=True,
        ),
    )
    def get(self, request: Request) -> Response:
        return Response([{**h.esquema(), "escritura": h.escritura} for h in herramientas_para(request.user)])


POLITICAS_DOMINIO = inline_serializer(
    "PoliticasDominio",
    {
        "top_k": serializers.IntegerField(),
        "confianza_minima": serializers.ChoiceField(choices=["HIGH", "MEDIUM", "LOW"]),
        "normas": serializers.ListField(child=serializers.CharField()),
        "temas": serializers.ListField(child=serializers.CharField()),
        "aviso_clasificacion": serializers.CharField(),
        "descargos": serializers.ListField(
            child=serializers.ListField(child=serializers.CharField()),
            help_text="Los disparadores de cada descargo del dominio.",
        ),
        "rag": inline_serializer(
            "PoliticaRag",
            {
                "habilitado": serializers.BooleanField(),
                "similitud_minima": serializers.FloatField(),
                "maximo_documentos": serializers.IntegerField(),
            },
        ),
    },
)


class DominiosApi(APIView):
    @extend_schema(
        summary="Dominios que puedo usar y sus políticas",
        description="Los dominios activos abiertos a todos y los de los grupos del usuario. Las políticas "
        "de recuperación (`rag`) ya combinan las del servidor (RAG_*) con las del dominio.",
        responses=inline_serializer(
            "Dominio",
            {
                "codigo": serializers.SlugField(),
                "nombre": serializers.CharField(),
                "tono": serializers.CharField(),
                "predeterminado": serializers.BooleanField(),
                "politicas": POLITICAS_DOMINIO,
            },
            many=True,
        ),
    )
    def get(self, request: Request) -> Response:
        return Response([dominio_json(d) for d in dominios_disponibles(usuario=request.user)])


class MemoriaApi(APIView):
    @extend_schema(
        summary="Mi memoria de largo plazo",
        responses=inline_serializer(
            "Memoria",
            {
                "preferencias": serializers.DictField(),
                "proyectos_frecuentes": serializers.ListField(),
                "feedback": serializers.ListField(),
            },
        ),
    )
    def get(self, request: Request) -> Response:
        guardada = MemoriaUsuario.objects.filter(usuario_id=id_de(request.user)).first()
        if guardada is None:
            return Response({"preferencias": {}, "proyectos_frecuentes": [], "feedback": []})
        return Response(
            {
                "preferencias": guardada.preferencias,
                "proyectos_frecuentes": guardada.proyectos_frecuentes,
                "feedback": guardada.feedback,
            }
        )

    @extend_schema(
        summary="Borrar mi memoria",
        description="Todo: preferencias, proyectos, calificaciones, resúmenes y preguntas recordadas.",
        responses={204: None},
    )
    def delete(self, request: Request) -> Response:
        memoria.memoria_borrar(usuario=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class MemoriaElementoApi(APIView):
    @extend_schema(
        operation_id="asistente_memoria_elemento_destroy",
        summary="Olvidar un elemento de mi memoria",
        description=(
            "`tipo`: preferencia (clave largo, cliente o region), proyecto (su id), resumen (id de la "
            "conversación), pregunta (id del mensaje) o calificacion (id del mensaje calificado)."
        ),
        responses={204: None, 404: ERROR},
    )
    def delete(self, request: Request, tipo: str, clave: str) -> Response:
        memoria.memoria_olvidar(usuario=request.user, tipo=tipo, clave=clave)
        return Response(status=status.HTTP_204_NO_CONTENT)


class AvisosApi(APIView):
    @extend_schema(
        summary="Mis avisos proactivos sin descartar",
        responses=inline_serializer(
            "Aviso",
            {
                "id": serializers.IntegerField(),
                "tipo": serializers.CharField(),
                "mensaje": serializers.CharField(),
                "enlace": serializers.CharField(),
                "texto_enlace": serializers.CharField(),
                "ofrece_accion": serializers.BooleanField(),
                "creado_at": serializers.DateTimeField(),
            },
            many=True,
        ),
    )
    def get(self, request: Request) -> Response:
        return Response(
            [
                avisos.aviso_json(a, usuario=request.user)
                for a in avisos.avisos_pendientes(usuario=request.user)
            ]
        )


class AvisoDescartarApi(APIView):
    @extend_schema(summary="Descartar un aviso", request=None, responses={204: None, 404: ERROR})
    def post(self, request: Request, pk: int) -> Response:
        if not avisos.aviso_descartar(usuario=request.user, aviso_id=pk):
            raise NotFound("Aviso no encontrado.")
        return Response(status=status.HTTP_204_NO_CONTENT)


class AvisoAccionApi(APIView):
    @extend_schema(
        summary="Proponer la acción que ofrece un aviso (volver a analizar); se confirma aparte",
        request=None,
        responses={201: ACCION, 403: ERROR, 404: ERROR},
    )
    def post(self, request: Request, pk: int) -> Response:
        if not puede_escribir(request.user):
            raise PermissionDenied("Su rol no permite ejecutar análisis.")
        accion = avisos.aviso_proponer_accion(usuario=request.user, aviso_id=pk)
        if accion is None:
            raise NotFound("Aviso no encontrado o sin acción que ofrecer.")
        return Response(acciones.accion_json(accion), status=status.HTTP_201_CREATED)


class SaludAsistenteApi(APIView):
    @extend_schema(
        summary="Salud del asistente",
        responses=inline_serializer(
            "SaludAsistente",
            {
                "motor": serializers.CharField(),
                "herramientas": serializers.ListField(child=serializers.CharField()),
                "acciones_pendientes": serializers.IntegerField(),
            },
        ),
    )
    def get(self, request: Request) -> Response:
        return Response(
            {
                "motor": motor_llm_configurado(),
                "herramientas": [h.nombre for h in herramientas_para(request.user)],
                "acciones_pendientes": AccionPendiente.objects.filter(
                    usuario_id=id_de(request.user), estado="pendiente"
                ).count(),
            }
        )


def _respuesta_sse(turno_id: str, *, despues_de: int) -> StreamingHttpResponse:
    """Los eventos del turno desde su stream, a medida que llegan. Un iterador asíncrono: daphne
    consumiría uno síncrono entero antes de enviar el primer byte."""

    async def eventos() -> AsyncIterator[str]:
        async for marco in flujos.eventos_desde(turno_id, despues_de=despues_de):
            yield marco.sse()

    respuesta = StreamingHttpResponse(eventos(), content_type="text/event-stream; charset=utf-8")
    respuesta["Cache-Control"] = "no-cache"
    respuesta["X-Accel-Buffering"] = "no"
    return respuesta


def _iniciar(request: Request) -> Turno:
    """Valida la entrada y guarda el mensaje; los errores del dominio los traduce `config.api`."""
    if not puede_consultar(request.user):
        raise PermissionDenied("Su usuario no tiene un rol asignado.")
    entrada = ChatEntrada(data=request.data)
    entrada.is_valid(raise_exception=True)
    d = entrada.validated_data
    return services.turno_iniciar(
        usuario=request.user, mensaje=d["mensaje"], conversacion_id=d.get("conversacion_id"),
        proyecto_id=d.get("proyecto_id"), vista=d.get("vista", ""), dominio=d.get("dominio"),
        id_cliente=d.get("id_cliente"),
    )  # fmt: skip


def _conversacion(request: Request, pk: str) -> Conversacion:
    try:
        return Conversacion.objects.get(pk=pk, usuario_id=id_de(request.user), eliminada_at__isnull=True)
    except (Conversacion.DoesNotExist, ValueError) as error:
        raise NotFound("Conversación no encontrada.") from error
