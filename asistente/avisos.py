"""Avisos proactivos: lo que en los proyectos del usuario necesita atención.

Se evalúan al abrir un proyecto (evento `contexto` del websocket) y con una tarea periódica para los
usuarios con actividad reciente. Límites (editables en el admin): disparadores activos, máximo por
hora, horario de Santiago y un mismo aviso sobre el mismo objeto a lo más una vez al día. Cada aviso
creado se envía en el acto a los websockets abiertos de su usuario (grupo `grupo_de_avisos`): aparece
en el chat sin recargar; si no hay ninguno abierto, queda guardado y se muestra al volver.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import structlog
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import connection, transaction
from django.db.models import Q, TextField
from django.db.models.functions import Cast
from django.urls import reverse
from django.utils import timezone

from asistente.models import AccionPendiente, Aviso, ConfiguracionAvisos, Conversacion, Dominio, Mensaje
from config.validacion import entero_de_parametro
from normativa.models import Norma, VersionNorma
from normativa.permisos import permisos_catalogar
from proyectos import selectors as proyectos
from proyectos.analisis.reglas import NORMAS_DE_REGLAS
from proyectos.models import Analisis, Proyecto
from proyectos.roles import Usuario, id_de, puede_escribir
from proyectos.services import reglas_revisar

registro = structlog.get_logger(__name__)

ZONA = ZoneInfo("America/Santiago")
MARCA_REVISION = "asistente:avisos:revision"
# Espacio de los candados consultivos de PostgreSQL que toman los avisos (el otro número es el usuario).
CANDADO_AVISOS = 4901


def avisos_evaluar(
    *, usuario: Usuario, proyecto_id: int | None = None, ahora: datetime | None = None
) -> list[Aviso]:
    """Crea (y devuelve) los avisos que correspondan ahora, respetando la configuración."""
    ahora = ahora or timezone.now()
    configuracion = ConfiguracionAvisos.vigente()
    local = ahora.astimezone(ZONA)
    if not configuracion.activo or not configuracion.hora_inicio <= local.hour < configuracion.hora_fin:
        return []
    with transaction.atomic():
        _serializar_por_usuario(id_de(usuario))
        recientes = Aviso.objects.filter(
            usuario_id=usuario.pk, creado_at__gte=ahora - timedelta(hours=1)
        ).count()
        cupo = configuracion.maximo_por_hora - recientes
        if cupo <= 0:
            return []
        visibles = proyectos.proyectos_visibles(usuario=usuario)
        if proyecto_id is not None:
            visibles = visibles.filter(pk=proyecto_id)
        creados: list[Aviso] = []
        for tipo, objeto, mensaje, enlace, _proyecto in _candidatos(
            list(visibles), configuracion.activos(), ahora
        ):
            if len(creados) >= cupo:
                break
            ya_avisado = Aviso.objects.filter(
                usuario_id=usuario.pk, tipo=tipo, objeto=objeto, creado_at__gte=ahora - timedelta(days=1)
            ).exists()
            if ya_avisado:
                continue
            creados.append(
                Aviso.objects.create(
                    usuario_id=id_de(usuario), tipo=tipo, objeto=objeto, mensaje=mensaje, enlace=enlace
                )
            )
    avisos_anunciar(creados, usuario)
    return creados


def _serializar_por_usuario(usuario_id: int) -> None:
    """Una evaluación de avisos a la vez por usuario, hasta el fin de la transacción que la llama.

    Se evalúa al abrir un socket y en la tarea periódica: sin esto, las dos comprueban «¿ya avisé?» antes
    de que alguna guarde, y el mismo aviso se crea dos veces. Con el candado, la segunda espera a que la
    primera confirme y ve su aviso (en READ COMMITTED cada consulta lee lo ya confirmado).
    """
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [CANDADO_AVISOS, usuario_id])


def grupo_de_avisos(usuario_id: int) -> str:
    """El grupo de la capa de canales con los websockets abiertos de un usuario."""
    return f"avisos.usuario.{usuario_id}"


def avisos_anunciar(creados: list[Aviso], usuario: Usuario) -> None:
    """Envía cada aviso nuevo a los websockets abiertos del usuario. Si la capa de canales falla, el
    aviso ya está guardado: se verá al recargar."""
    capa = get_channel_layer()
    if capa is None or not creados:
        return
    for aviso in creados:
        try:
            async_to_sync(capa.group_send)(
                grupo_de_avisos(id_de(usuario)),
                {"type": "aviso.nuevo", "aviso": aviso_json(aviso, usuario=usuario)},
            )
        except Exception:
            registro.warning("aviso_sin_envio_en_vivo", aviso=aviso.pk, exc_info=True)


def aviso_proponer_accion(*, usuario: Usuario, aviso_id: int) -> AccionPendiente | None:
    """La acción que ofrece un aviso (volver a analizar), creada al pedirla: una acción vence a los 5
    minutos y el aviso puede leerse horas después. Reutiliza la del aviso si sigue pendiente."""
    aviso = Aviso.objects.filter(
        pk=aviso_id, usuario_id=usuario.pk, descartado_at__isnull=True, tipo="analisis_desactualizado"
    ).first()
    if aviso is None:
        return None
    vigente = aviso.accion
    if vigente is not None and vigente.estado == "pendiente" and vigente.expires_at > timezone.now():
        return vigente
    proyecto_id = _proyecto_id(aviso.objeto)
    proyecto = (
        proyectos.proyectos_visibles(usuario=usuario).filter(pk=proyecto_id).first()
        if proyecto_id is not None
        else None
    )
    if proyecto is None:
        return None
    aviso.accion = _accion_reanalizar(usuario, proyecto)
    aviso.save(update_fields=["accion"])
    return aviso.accion


def avisos_pendientes(*, usuario: Usuario) -> list[Aviso]:
    """Avisos sin descartar (se muestran al volver aunque el usuario estuviera desconectado)."""
    return list(Aviso.objects.filter(usuario_id=usuario.pk, descartado_at__isnull=True)[:50])


def aviso_descartar(*, usuario: Usuario, aviso_id: int) -> bool:
    return bool(
        Aviso.objects.filter(pk=aviso_id, usuario_id=usuario.pk, descartado_at__isnull=True).update(
            descartado_at=timezone.now()
        )
    )


def avisos_evaluar_activos(*, horas: int = 24) -> int | None:
    """Tarea periódica: evalúa a los usuarios que conversaron o iniciaron sesión hace poco.

    La tarea se programa cada minuto y corre según la frecuencia del admin (5 minutos por defecto): la
    marca en Redis dura esa frecuencia y, tomada con `add`, además impide dos revisiones a la vez.
    Devuelve None si no tocaba revisar.
    """
    configuracion = ConfiguracionAvisos.vigente()
    if not cache.add(MARCA_REVISION, 1, timeout=max(configuracion.frecuencia_min * 60 - 5, 1)):
        return None
    desde = timezone.now() - timedelta(hours=horas)
    modelo = get_user_model()
    activos = modelo.objects.filter(
        Q(last_login__gte=desde)
        | Q(pk__in=Mensaje.objects.filter(creado_at__gte=desde).values("conversacion__usuario_id"))
    ).distinct()
    return sum(len(avisos_evaluar(usuario=u)) for u in activos)


# El texto del enlace de cada tipo de aviso («Ir al mapa» dice más que «Ir»).
TEXTO_ENLACE = {
    "proyecto_sin_geometria": "Ir al mapa",
    "analisis_desactualizado": "Ver el proyecto",
    "alertas_criticas_sin_revisar": "Ver el informe",
    "normativa_actualizada": "Ver el proyecto",
    "regla_revisar": "Revisar la regla",
    "permiso_revisar": "Revisar el permiso",
    "alerta_operacion": "Ver el panel",
}


def aviso_json(aviso: Aviso, *, usuario: Usuario | None = None) -> dict[str, object]:
    return {
        "id": aviso.pk,
        "tipo": aviso.tipo,
        "mensaje": aviso.mensaje,
        "enlace": aviso.enlace,
        "texto_enlace": TEXTO_ENLACE.get(aviso.tipo, "Ir"),
        "ofrece_accion": aviso.tipo == "analisis_desactualizado"
        and (usuario is None or puede_escribir(usuario)),
        "creado_at": aviso.creado_at.isoformat(),
    }


def _proyecto_id(objeto: str) -> int | None:
    tipo, _, pk = objeto.partition(":")
    return entero_de_parametro(pk) if tipo == "proyecto" else None


def _candidatos(
    lista: list[Proyecto], activos: tuple[str, ...], ahora: datetime
) -> list[tuple[str, str, str, str, Proyecto]]:
    candidatos = []
    for p in lista:
        objeto = f"proyecto:{p.pk}"
        analisis = p.analisis.first()
        ultima = analisis.fecha if analisis else None
        if (
            "proyecto_sin_geometria" in activos
            and p.estado == Proyecto.Estado.BORRADOR
            and not p.geometria
            and p.creado_at < ahora - timedelta(days=1)
        ):
            candidatos.append(
                (
                    "proyecto_sin_geometria",
                    objeto,
                    f"El proyecto {p.nombre} no tiene geometría definida. ¿Desea ir al mapa para dibujarla?",
                    reverse("proyectos:mapa", args=[p.pk]),
                    p,
                )
            )
        if (
            "analisis_desactualizado" in activos
            and ultima
            and p.geometria_modificada_at
            and p.geometria_modificada_at > ultima
        ):
            candidatos.append(
                (
                    "analisis_desactualizado",
                    objeto,
                    f"La geometría de {p.nombre} cambió después de su último análisis. "
                    "¿Lo vuelvo a analizar?",
                    reverse("proyectos:detalle", args=[p.pk]),
                    p,
                )
            )
        if (
            "alertas_criticas_sin_revisar" in activos
            and analisis
            and not analisis.alertas_revisadas
            and any(a.get("severidad") == "critica" for a in analisis.resultado.get("alertas", []))
        ):
            candidatos.append(
                (
                    "alertas_criticas_sin_revisar",
                    f"analisis:{analisis.pk}",
                    f"El análisis de {p.nombre} tiene alertas críticas sin revisar.",
                    reverse("proyectos:informe", args=[analisis.pk]),
                    p,
                )
            )
        if "normativa_actualizada" in activos and analisis:
            candidatos += _normas_actualizadas(p, analisis.fecha, analisis.resultado)
    return candidatos


def _normas_actualizadas(
    proyecto: Proyecto, fecha: datetime, resultado: dict[str, object]
) -> list[tuple[str, str, str, str, Proyecto]]:
    citas = [
        f
        for item in list(resultado.get("triggers", [])) + list(resultado.get("detalle_tipologias", []))  # type: ignore[call-overload]
        for f in item.get("fundamento", [])
    ]
    normas = sorted({str(f["norma"]) for f in citas})
    nuevas = VersionNorma.objects.filter(
        norma__sigla__in=normas, creada_at__gt=fecha, vigente=True
    ).select_related("norma")
    avisos = []
    for version in nuevas:
        articulos = sorted({str(f["articulo"]) for f in citas if f["norma"] == version.norma.sigla})
        cambiados = [
            *version.cambios.get("modificados", []),
            *version.cambios.get("agregados", []),
            *version.cambios.get("eliminados", []),
        ]
        derogados = version.cambios.get("derogados", [])
        detalle = (f"; cambiaron sus artículos {', '.join(cambiados)}" if cambiados else "") + (
            f"; se derogaron sus artículos {', '.join(derogados)}" if derogados else ""
        )
        fecha_version = f" (versión del {version.fecha_version:%d-%m-%Y})" if version.fecha_version else ""
        avisos.append(
            (
                "normativa_actualizada",
                f"norma:{version.norma.sigla}:{version.pk}:proyecto:{proyecto.pk}",
                f"{version.norma.sigla} tiene una versión nueva{fecha_version} posterior al análisis de "
                f"{proyecto.nombre}{detalle}; el análisis cita sus artículos {', '.join(articulos)}. "
                "Conviene revisarlo.",
                reverse("proyectos:detalle", args=[proyecto.pk]),
                proyecto,
            )
        )
    return avisos


def _accion_reanalizar(usuario: Usuario, proyecto: Proyecto) -> AccionPendiente | None:
    """Propone volver a analizar (siempre con confirmación); solo a quien puede escribir."""
    if not puede_escribir(usuario):
        return None
    dominio = Dominio.objects.filter(activo=True).order_by("pk").first()
    if dominio is None:
        return None
    conversacion, _ = Conversacion.objects.get_or_create(
        usuario_id=usuario.pk,
        titulo="Avisos del asistente",
        eliminada_at__isnull=True,
        defaults={"dominio": dominio},
    )
    return AccionPendiente.objects.create(
        conversacion=conversacion,
        usuario_id=id_de(usuario),
        tipo="ejecutar_analisis",
        parametros={"proyecto_id": proyecto.pk, "tipo": "completo"},
        descripcion=f"Ejecutar un análisis completo del proyecto #{proyecto.pk} «{proyecto.nombre}».",
    )


def al_actualizarse_normativa(sender: object, *, norma: Norma, **_: object) -> int:
    """Señal `normativa_actualizada`: evalúa ya (sin esperar la tarea periódica) los avisos de quienes
    tienen proyectos cuyo último análisis cita la norma. Devuelve cuántos avisos creó."""
    cita = f'"norma": "{norma.sigla}"'
    analisis = (
        Analisis.objects.annotate(texto=Cast("resultado", TextField()))
        .filter(texto__contains=cita)
        .values_list("proyecto_id", flat=True)
        .distinct()
    )
    creados = 0
    for proyecto in Proyecto.objects.filter(pk__in=analisis).prefetch_related("cliente__usuarios"):
        for usuario in proyecto.cliente.usuarios.all():
            creados += len(avisos_evaluar(usuario=usuario, proyecto_id=proyecto.pk))
    return creados


def al_ingerirse_version(sender: object, *, norma: Norma, **_: object) -> int:
    """Señal `version_ingerida`: si la norma funda reglas del motor, las compara con su texto nuevo; y pone
    al día el catálogo de permisos (el DS 40 trae sus artículos y las guías del SEA, sus guías trámite).
    Avisa al personal de cada regla y cada permiso que quedó «revisar» (el umbral o el requisito que se
    muestra puede no ser el vigente). Devuelve cuántos avisos creó."""
    mensajes: list[tuple[str, str, str]] = []  # (objeto, mensaje, enlace)
    if norma.sigla in NORMAS_DE_REGLAS:
        enlace = reverse("admin:proyectos_regladelmotor_changelist") + "?estado__exact=revisar"
        mensajes += [
            (
                f"regla:{regla.literal}",
                f"Cambió el texto de {regla.fragmento}: la regla del motor para el literal {regla.literal} "
                f"({regla.umbrales}) quedó en «revisar». Verifique el umbral y acéptela o corríjala.",
                enlace,
            )
            for regla in reglas_revisar()
        ]
    enlace = reverse("admin:normativa_permisosectorial_changelist") + "?estado__exact=revisar"
    mensajes += [
        (
            f"permiso:{permiso.numero}",
            f"Cambió el texto del Art. {permiso.numero} del DS 40: el catálogo de permisos muestra aún lo "
            f"leído antes («{permiso.nombre}») y quedó en «revisar». Revise el requisito y los contenidos y "
            "acepte el texto nuevo.",
            enlace,
        )
        for permiso in permisos_catalogar()
    ]
    creados = 0
    for usuario in get_user_model().objects.filter(is_staff=True, is_active=True):
        avisos = [
            Aviso.objects.create(
                usuario=usuario,
                tipo="regla_revisar" if objeto.startswith("regla:") else "permiso_revisar",
                objeto=objeto,
                mensaje=mensaje,
                enlace=enlace,
            )
            for objeto, mensaje, enlace in mensajes
        ]
        avisos_anunciar(avisos, usuario)
        creados += len(avisos)
    return creados
