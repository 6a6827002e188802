"""API REST de proyectos y del motor (adaptadores: validan, llaman a servicios o selectores, responden).

Un usuario ve y modifica solo los proyectos de sus clientes (el personal, todos); un proyecto ajeno
responde 404, igual que uno inexistente, para no revelar que existe.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, PermissionDenied, ValidationError
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.api import ERROR, ERROR_ENTRADA
from config.validacion import entero_de_parametro
from proyectos import selectors, services
from proyectos.analisis import componentes as partes
from proyectos.analisis.entrada import AREAS_DECLARABLES, CIRCUNSTANCIAS
from proyectos.analisis.motor import evaluar
from proyectos.models import Analisis, Cliente, Proyecto
from proyectos.roles import puede_consultar, puede_escribir, rol_de


def _campo_de_componente(campo: str) -> serializers.Field:  # type: ignore[type-arg]
    ayuda = f"{partes.rotulo(campo)}: {partes.a_que_se_refiere(campo)}."
    if campo in partes.CAMPOS_SI_NO:
        return serializers.BooleanField(required=False, help_text=ayuda)
    return serializers.FloatField(required=False, help_text=ayuda)


# Otras partes de la faena que la hacen ingresar por su propia letra (DS 40 Art. 3; Ley 19.300 Art. 10 s):
# un campo por componente del motor, con su literal.
ComponentesSerializer = type(
    "ComponentesSerializer",
    (serializers.Serializer,),
    {
        "__doc__": "Otras partes de la faena: las que la hacen ingresar por su propia letra (DS 40 Art. 3) y "
        "las que traen un permiso ambiental sectorial (DS 40, Título VII).",
        **{campo: _campo_de_componente(campo) for campo in partes.ETIQUETAS},
    },
)


class EntradaMotorSerializer(serializers.Serializer):  # type: ignore[type-arg]
    """Contrato de entrada del motor (la validación completa la hace el motor, en castellano)."""

    nombre = serializers.CharField()
    region = serializers.CharField(help_text="Nombre (con o sin tildes o «Región de») o número 1–16.")
    comuna = serializers.CharField(required=False, allow_null=True)
    tipo = serializers.ChoiceField(choices=Proyecto.Tipo.choices)
    capacidad_extraccion_t_mes = serializers.FloatField(required=False, allow_null=True)
    plataformas = serializers.IntegerField(required=False, allow_null=True)
    aridos_m3_mes = serializers.FloatField(required=False, allow_null=True)
    aridos_m3_total = serializers.FloatField(required=False, allow_null=True)
    superficie_ha = serializers.FloatField(required=False, allow_null=True)
    geometria = serializers.JSONField(
        required=False, allow_null=True, help_text="Polygon/MultiPolygon GeoJSON WGS84."
    )
    circunstancias = serializers.ListField(
        child=serializers.ChoiceField(choices=list(CIRCUNSTANCIAS)), required=False
    )
    componentes = ComponentesSerializer(required=False)
    areas_declaradas = serializers.ListField(
        child=serializers.DictField(),
        required=False,
        help_text="Áreas en que se dice que está el proyecto cuando no hay polígono: "
        '[{"categoria": "reserva_nacional", "nombre": "Reserva Nacional Los Flamencos"}]; categorías: '
        + ", ".join(AREAS_DECLARABLES)
        + ". Aplican la letra p del Art. 10 (si el área está bajo protección oficial) y la d del Art. 11.",
    )


RESULTADO = inline_serializer(
    "ResultadoMotor",
    {
        "ingresa_seia": serializers.BooleanField(),
        "tipologias": serializers.ListField(child=serializers.CharField()),
        "clasificacion": serializers.ChoiceField(choices=Analisis.Clasificacion.choices),
        "triggers": serializers.ListField(child=serializers.DictField()),
        "alertas": serializers.ListField(child=serializers.DictField()),
        "advertencias": serializers.ListField(child=serializers.CharField()),
        "version_motor": serializers.CharField(),
        "detalle_tipologias": serializers.ListField(child=serializers.DictField()),
        "fundamento_clasificacion": serializers.ListField(child=serializers.DictField()),
        "resumen": serializers.CharField(),
        "territorio": serializers.DictField(),
        "umbrales": serializers.ListField(
            child=serializers.DictField(),
            required=False,
            help_text="Cada cantidad frente al umbral de su literal del Art. 3 del DS 40, cumpla o no.",
        ),
        "permisos": serializers.ListField(
            child=serializers.DictField(),
            required=False,
            help_text="Los permisos ambientales sectoriales (DS 40, Título VII) que traen las partes del "
            "proyecto: articulo, nombre, tipo, partes (cada parte que lo trae y por qué), requisito, organo, "
            "guia, guia_url, condicion y fundamento (la cita de su artículo).",
        ),
        "umbrales_permisos": serializers.ListField(
            child=serializers.DictField(),
            required=False,
            help_text="Cada obra hidráulica frente al umbral del Art. 294 del Código de Aguas (PAS 155).",
        ),
    },
)


class ClienteSerializer(serializers.ModelSerializer):  # type: ignore[type-arg]
    class Meta:
        model = Cliente
        fields = ["id", "nombre", "rut", "creado_at"]
        read_only_fields = ["id", "creado_at"]


class ProyectoSalidaSerializer(serializers.ModelSerializer):  # type: ignore[type-arg]
    region = serializers.CharField(source="region.nombre")
    codigo_region = serializers.CharField(source="region.codigo")
    comuna = serializers.CharField(source="comuna.nombre", allow_null=True, default=None)
    cliente_nombre = serializers.CharField(source="cliente.nombre")
    ultima_clasificacion = serializers.CharField(allow_null=True, default=None)

    class Meta:
        model = Proyecto
        fields = [
            "id",
            "nombre",
            "cliente",
            "cliente_nombre",
            "region",
            "codigo_region",
            "comuna",
            "tipo",
            "estado",
            "capacidad_extraccion_t_mes",
            "plataformas",
            "aridos_m3_mes",
            "aridos_m3_total",
            "superficie_ha",
            "geometria",
            "geometria_modificada_at",
            "circunstancias",
            "componentes",
            "areas_declaradas",
            "ultima_clasificacion",
            "creado_at",
            "actualizado_at",
        ]


class ProyectoEntradaSerializer(EntradaMotorSerializer):
    cliente = serializers.IntegerField()
    estado = serializers.ChoiceField(choices=Proyecto.Estado.choices, required=False)


class AnalisisSerializer(serializers.ModelSerializer):  # type: ignore[type-arg]
    class Meta:
        model = Analisis
        fields = [
            "id",
            "proyecto",
            "tipo",
            "fecha",
            "clasificacion",
            "alertas_revisadas",
            "entrada",
            "resultado",
        ]


class PaginaDeProyectos(LimitOffsetPagination):
    default_limit = 50
    max_limit = 200


class ClientesApi(APIView):
    """Clientes visibles para el usuario; crearlos es del personal."""

    @extend_schema(summary="Listar clientes", responses=ClienteSerializer(many=True))
    def get(self, request: Request) -> Response:
        return Response(ClienteSerializer(selectors.clientes_visibles(usuario=request.user), many=True).data)

    @extend_schema(
        summary="Crear cliente (personal)", request=ClienteSerializer, responses={201: ClienteSerializer}
    )
    def post(self, request: Request) -> Response:
        if not request.user.is_staff:
            raise PermissionDenied("Solo el personal crea clientes.")
        entrada = ClienteSerializer(data=request.data)
        entrada.is_valid(raise_exception=True)
        cliente = entrada.save()
        return Response(ClienteSerializer(cliente).data, status=status.HTTP_201_CREATED)


class ClienteApi(APIView):
    @extend_schema(summary="Ver cliente", responses=ClienteSerializer)
    def get(self, request: Request, pk: int) -> Response:
        return Response(ClienteSerializer(_cliente(request, pk)).data)

    @extend_schema(
        summary="Modificar cliente (personal)", request=ClienteSerializer, responses=ClienteSerializer
    )
    def patch(self, request: Request, pk: int) -> Response:
        cliente = _cliente(request, pk)
        if not request.user.is_staff:
            raise PermissionDenied("Solo el personal modifica clientes.")
        entrada = ClienteSerializer(cliente, data=request.data, partial=True)
        entrada.is_valid(raise_exception=True)
        return Response(ClienteSerializer(entrada.save()).data)

    @extend_schema(summary="Eliminar cliente sin proyectos (personal)", responses={204: None})
    def delete(self, request: Request, pk: int) -> Response:
        cliente = _cliente(request, pk)
        if not request.user.is_staff:
            raise PermissionDenied("Solo el personal elimina clientes.")
        if cliente.proyectos.exists():
            raise ValidationError({"error": "El cliente tiene proyectos; archívelos o reasígnelos primero."})
        cliente.delete()
        return Response(status=status.HTTP_204_NO_CONTENT)


class ProyectosApi(APIView):
    """Proyectos de los clientes del usuario, con filtros; crear exige rol de escritura."""

    @extend_schema(
        operation_id="proyectos_list",
        summary="Listar proyectos (paginado)",
        description="Página de proyectos (`limit`, por omisión 50 y a lo más 200; `offset`). La "
        "geometría va en el detalle de cada proyecto, o aquí con `geometria=1`.",
        parameters=[
            OpenApiParameter("estado", OpenApiTypes.STR, enum=Proyecto.Estado.values),
            OpenApiParameter("region", OpenApiTypes.STR, description="Código CUT de la región, p. ej. 02."),
            OpenApiParameter("cliente", OpenApiTypes.INT),
            OpenApiParameter("geometria", OpenApiTypes.BOOL, description="Incluir el polígono de cada uno."),
            OpenApiParameter("limit", OpenApiTypes.INT, description="Proyectos por página (1–200)."),
            OpenApiParameter("offset", OpenApiTypes.INT, description="Desde cuál (0 el primero)."),
        ],
        responses={
            200: inline_serializer(
                "PaginaDeProyectos",
                {
                    "count": serializers.IntegerField(),
                    "next": serializers.URLField(allow_null=True),
                    "previous": serializers.URLField(allow_null=True),
                    "results": ProyectoSalidaSerializer(many=True),
                },
            ),
            400: ERROR,
        },
    )
    def get(self, request: Request) -> Response:
        proyectos = selectors.proyectos_visibles(
            usuario=request.user,
            estado=request.query_params.get("estado", ""),
            region=request.query_params.get("region", ""),
            cliente=entero_de_parametro(request.query_params.get("cliente") or ""),
        )
        paginador = PaginaDeProyectos()
        pagina = paginador.paginate_queryset(proyectos, request, view=self)
        con_geometria = request.query_params.get("geometria", "").lower() in ("1", "true", "si", "sí")
        datos: list[dict[str, Any]] = [
            {k: v for k, v in p.items() if con_geometria or k != "geometria"}
            for p in ProyectoSalidaSerializer(pagina, many=True).data
        ]
        return paginador.get_paginated_response(datos)

    @extend_schema(
        summary="Crear proyecto",
        request=ProyectoEntradaSerializer,
        responses={201: ProyectoSalidaSerializer, 400: ERROR_ENTRADA},
    )
    def post(self, request: Request) -> Response:
        _exigir_escritura(request)
        datos = _objeto(request.data)
        cliente = _cliente_del_proyecto(request, datos.pop("cliente", None))
        estado = datos.pop("estado", None)
        proyecto = services.proyecto_crear(cliente=cliente, datos=datos, usuario=request.user)
        if estado:
            proyecto = services.proyecto_actualizar(proyecto=proyecto, cambios={}, estado=_estado(estado))
        return Response(_salida(request, proyecto), status=status.HTTP_201_CREATED)


class ProyectoApi(APIView):
    @extend_schema(summary="Ver proyecto", responses=ProyectoSalidaSerializer)
    def get(self, request: Request, pk: int) -> Response:
        return Response(_salida(request, _proyecto(request, pk)))

    @extend_schema(
        summary="Modificar proyecto (parcial; se revalida completo)",
        request=ProyectoEntradaSerializer(partial=True),
        responses={200: ProyectoSalidaSerializer, 400: ERROR_ENTRADA},
    )
    def patch(self, request: Request, pk: int) -> Response:
        _exigir_escritura(request)
        proyecto = _proyecto(request, pk)
        datos = _objeto(request.data)
        cliente = _cliente_del_proyecto(request, datos.pop("cliente")) if "cliente" in datos else None
        estado = _estado(datos.pop("estado")) if "estado" in datos else None
        proyecto = services.proyecto_actualizar(
            proyecto=proyecto, cambios=datos, cliente=cliente, estado=estado
        )
        return Response(_salida(request, proyecto))

    @extend_schema(summary="Archivar proyecto", responses={204: None})
    def delete(self, request: Request, pk: int) -> Response:
        _exigir_escritura(request)
        services.proyecto_actualizar(
            proyecto=_proyecto(request, pk), cambios={}, estado=Proyecto.Estado.ARCHIVADO
        )
        return Response(status=status.HTTP_204_NO_CONTENT)


class AnalisisProyectoApi(APIView):
    """Análisis de un proyecto: historial y nueva ejecución (se guarda congelada)."""

    @extend_schema(summary="Historial de análisis del proyecto", responses=AnalisisSerializer(many=True))
    def get(self, request: Request, pk: int) -> Response:
        proyecto = _proyecto(request, pk)
        return Response(AnalisisSerializer(proyecto.analisis.all(), many=True).data)

    @extend_schema(
        summary="Analizar proyecto",
        request=inline_serializer(
            "PedidoAnalisis",
            {"tipo": serializers.ChoiceField(choices=Analisis.Tipo.choices, default=Analisis.Tipo.COMPLETO)},
        ),
        responses={201: AnalisisSerializer, 400: ERROR_ENTRADA},
    )
    def post(self, request: Request, pk: int) -> Response:
        _exigir_escritura(request)
        proyecto = _proyecto(request, pk)
        tipo = _objeto(request.data).get("tipo") or Analisis.Tipo.COMPLETO
        if tipo not in Analisis.Tipo.values:
            raise ValidationError({"tipo": f"Tipo de análisis desconocido «{tipo}»: use rapido o completo."})
        analisis = services.analisis_ejecutar(proyecto=proyecto, tipo=tipo, usuario=request.user)
        return Response(AnalisisSerializer(analisis).data, status=status.HTTP_201_CREATED)


class AnalisisApi(APIView):
    @extend_schema(summary="Ver análisis", responses=AnalisisSerializer)
    def get(self, request: Request, pk: int) -> Response:
        try:
            analisis = selectors.analisis_visible(usuario=request.user, pk=pk)
        except Analisis.DoesNotExist as error:
            raise NotFound("Análisis no encontrado.") from error
        return Response(AnalisisSerializer(analisis).data)


class EvaluarApi(APIView):
    """Evaluación sin estado: mismo contrato que `analizar_proyecto --json`; no guarda nada."""

    @extend_schema(
        summary="Evaluar un proyecto sin guardarlo",
        request=EntradaMotorSerializer,
        responses={200: RESULTADO, 400: ERROR_ENTRADA},
    )
    def post(self, request: Request) -> Response:
        if not puede_consultar(request.user):
            raise PermissionDenied("Su usuario no tiene un rol asignado.")
        return Response(evaluar(request.data))  # `EntradaInvalida` → 400 en `config.api`


def _exigir_escritura(request: Request) -> None:
    if not puede_escribir(request.user):
        raise PermissionDenied("Se requiere el rol de escritura para modificar proyectos.")


def _objeto(datos: Any) -> dict[str, Any]:
    if not isinstance(datos, dict):
        raise ValidationError({"error": "Se esperaba un objeto JSON."})
    return dict(datos)


def _cliente(request: Request, pk: Any) -> Cliente:
    """El cliente de la ruta: uno inexistente o ajeno responde 404."""
    try:
        return selectors.clientes_visibles(usuario=request.user).get(pk=int(pk))
    except (Cliente.DoesNotExist, TypeError, ValueError, OverflowError) as error:
        raise NotFound("Cliente no encontrado.") from error


def _cliente_del_proyecto(request: Request, valor: Any) -> Cliente:
    """El cliente que indica el cuerpo: si falta, no es un id o no es de los suyos, 400 en el campo."""
    if valor in (None, ""):
        raise ValidationError({"cliente": "Indique el cliente del proyecto."})
    pk = valor if isinstance(valor, int) and not isinstance(valor, bool) else entero_de_parametro(str(valor))
    cliente = selectors.clientes_visibles(usuario=request.user).filter(pk=pk).first() if pk else None
    if cliente is None:
        raise ValidationError({"cliente": f"No tiene acceso a un cliente «{str(valor)[:40]}»."})
    return cliente


def _proyecto(request: Request, pk: int) -> Proyecto:
    try:
        return selectors.proyecto_visible(usuario=request.user, pk=pk)
    except Proyecto.DoesNotExist as error:
        raise NotFound("Proyecto no encontrado.") from error


def _estado(valor: Any) -> str:
    if valor not in Proyecto.Estado.values:
        raise ValidationError(
            {"estado": f"Estado desconocido «{valor}»: use {', '.join(Proyecto.Estado.values)}."}
        )
    return str(valor)


def _salida(request: Request, proyecto: Proyecto) -> dict[str, Any]:
    datos: dict[str, Any] = ProyectoSalidaSerializer(
        selectors.proyecto_visible(usuario=request.user, pk=proyecto.pk)
    ).data
    return datos


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
