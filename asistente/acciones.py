"""Acciones por confirmar: proponerlas (validadas, con la visibilidad del usuario), decidirlas una
sola vez, vencerlas, y contar en la conversación qué pasó con cada una."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from asistente.limites import limites_consumir
from asistente.models import AccionPendiente, Mensaje
from asistente.registro import REGISTRO, Contexto, ErrorDeHerramienta, ejecutar, validar_parametros
from asistente.turno.tipos import (
    MINUTOS_DE_VIGENCIA,
    AccionEnConflicto,
    AccionExpirada,
    AccionNoEncontrada,
    Turno,
)
from proyectos.roles import Usuario, id_de


def texto_de_propuesta(accion: AccionPendiente) -> str:
    """Lo que el asistente dice al proponer una acción (ambos motores)."""
    return (
        f"Propongo lo siguiente: {accion.descripcion} Confírmelo para ejecutarlo "
        f"(la propuesta vence en {MINUTOS_DE_VIGENCIA} minutos)."
    )


def accion_proponer(*, turno: Turno, herramienta: str, parametros: dict[str, Any]) -> AccionPendiente:
    """Crea la acción pendiente de una herramienta de escritura (valida parámetros y permiso)."""
    definicion = REGISTRO[herramienta]
    if not definicion.permiso(turno.usuario):
        raise ErrorDeHerramienta(
            f"Su rol no permite «{herramienta}»: pídaselo a alguien con rol de escritura."
        )
    entrada = validar_parametros(definicion, parametros)
    if definicion.preparar is not None:
        entrada = definicion.preparar(entrada, turno.contexto)
    limites_consumir(usuario=turno.usuario, limites=("acciones_hora",))
    descripcion = definicion.describir(entrada, turno.contexto) if definicion.describir else herramienta
    return AccionPendiente.objects.create(
        conversacion=turno.conversacion,
        usuario=turno.usuario,  # type: ignore[misc]
        tipo=herramienta,
        parametros=entrada.model_dump(mode="json"),
        descripcion=descripcion,
    )


def accion_decidir(
    *,
    accion_id: UUID | str,
    usuario: Usuario,
    confirmada: bool,
    comentario: str = "",
    parametros: dict[str, Any] | None = None,
) -> AccionPendiente:
    """Confirma o cancela una acción de su dueño, una sola vez.

    La decisión se toma con un UPDATE condicional (estado pendiente y vigente): con confirmaciones
    simultáneas, solo una gana y ejecuta el servicio. Repetir la misma decisión devuelve el mismo
    resultado; una decisión contraria da conflicto; una acción vencida queda «expirada».
    """
    try:
        accion = AccionPendiente.objects.get(pk=accion_id, usuario_id=id_de(usuario))
    except (AccionPendiente.DoesNotExist, ValueError, ValidationError) as error:
        raise AccionNoEncontrada from error
    if parametros is not None and accion.estado == AccionPendiente.Estado.PENDIENTE:
        definicion = REGISTRO[accion.tipo]
        parametros = validar_parametros(definicion, {**accion.parametros, **parametros}).model_dump(
            mode="json"
        )
    ahora = timezone.now()
    nuevo = AccionPendiente.Estado.CONFIRMADA if confirmada else AccionPendiente.Estado.CANCELADA
    cambios: dict[str, Any] = {"estado": nuevo, "decidida_at": ahora, "comentario": comentario}
    if parametros is not None:
        cambios["parametros"] = parametros
    # Decisión y ejecución en una transacción: un UPDATE concurrente espera el bloqueo de la fila y,
    # al liberarse, ya no la encuentra pendiente; relee entonces el estado final con su resultado.
    with transaction.atomic():
        gano = AccionPendiente.objects.filter(
            pk=accion.pk, estado=AccionPendiente.Estado.PENDIENTE, expires_at__gt=ahora
        ).update(**cambios)
        if gano:
            accion.refresh_from_db()
            if confirmada:
                _ejecutar_accion(accion, usuario)
            _mensaje_de_seguimiento(accion)
            return accion
    accion.refresh_from_db()
    return _decision_repetida(accion, confirmada)


def acciones_expirar() -> int:
    """Marca como expiradas las acciones pendientes vencidas y lo informa en su conversación."""
    vencidas = list(
        AccionPendiente.objects.filter(
            estado=AccionPendiente.Estado.PENDIENTE, expires_at__lte=timezone.now()
        )
    )
    for accion in vencidas:
        if _expirar(accion):
            accion.refresh_from_db()
            _mensaje_de_seguimiento(accion)
    return len(vencidas)


def accion_json(accion: AccionPendiente) -> dict[str, Any]:
    herramienta = REGISTRO.get(accion.tipo)
    return {
        "id": str(accion.pk),
        "tipo": accion.tipo,
        "parametros": accion.parametros,
        "etiquetas": herramienta.etiquetas() if herramienta else {},
        "opciones": herramienta.opciones() if herramienta else {},
        "descripcion": accion.descripcion,
        "estado": accion.estado,
        "expires_at": accion.expires_at.isoformat(),
        "resultado": accion.resultado,
        "error": accion.error or None,
    }


def _decision_repetida(accion: AccionPendiente, confirmada: bool) -> AccionPendiente:
    if accion.estado == AccionPendiente.Estado.PENDIENTE:  # vencida sin que nadie la marcara
        _expirar(accion)
        accion.refresh_from_db()
    if accion.estado == AccionPendiente.Estado.EXPIRADA:
        raise AccionExpirada
    misma = accion.estado in (
        (AccionPendiente.Estado.CONFIRMADA, AccionPendiente.Estado.FALLIDA)
        if confirmada
        else (AccionPendiente.Estado.CANCELADA,)
    )
    if not misma:
        raise AccionEnConflicto
    return accion


def _expirar(accion: AccionPendiente) -> bool:
    return bool(
        AccionPendiente.objects.filter(pk=accion.pk, estado=AccionPendiente.Estado.PENDIENTE).update(
            estado=AccionPendiente.Estado.EXPIRADA, decidida_at=timezone.now()
        )
    )


def _ejecutar_accion(accion: AccionPendiente, usuario: Usuario) -> None:
    # `ejecutar` corre el servicio en un punto de guardado: si falla, nada queda a medias y la
    # llamada fallida igual queda registrada.
    contexto = Contexto(usuario=usuario, conversacion=accion.conversacion)
    llamada = ejecutar(accion.tipo, accion.parametros, contexto=contexto, forzar_escritura=True)
    if llamada["error"]:
        accion.estado, accion.error = AccionPendiente.Estado.FALLIDA, llamada["error"]
        accion.save(update_fields=["estado", "error"])
        return
    accion.resultado = llamada["resultado"]
    accion.save(update_fields=["resultado"])


def _mensaje_de_seguimiento(accion: AccionPendiente) -> Mensaje:
    """El asistente cuenta qué pasó con la acción (creado, falló, cancelada, venció)."""
    texto = _texto_de_seguimiento(accion)
    return Mensaje.objects.create(
        conversacion=accion.conversacion, rol=Mensaje.Rol.ASISTENTE, contenido=texto, motor="acciones"
    )


def _texto_de_seguimiento(accion: AccionPendiente) -> str:
    estado = accion.estado
    if estado == AccionPendiente.Estado.FALLIDA:
        return f"No se pudo ejecutar: {accion.descripcion} Motivo: {accion.error} No se modificó nada."
    if estado == AccionPendiente.Estado.CANCELADA:
        return (
            f"Cancelé la acción: {accion.descripcion} Puede pedírmela de nuevo con otros datos (por ejemplo, "
            "otra región, tipo o cantidad), o puedo mostrarle sus proyectos existentes."
        )
    if estado == AccionPendiente.Estado.EXPIRADA:
        return (
            f"La acción venció sin confirmarse ({MINUTOS_DE_VIGENCIA} minutos): {accion.descripcion} "
            "Pídamela de nuevo si aún la necesita."
        )
    resultado = accion.resultado or {}
    if accion.tipo == "crear_proyecto":
        p = resultado["proyecto"]
        return (
            f"Proyecto creado: #{p['id']} «{p['nombre']}» (Región {p['region']}, {p['estado']}). "
            "¿Quiere que lo analice?"
        )
    if accion.tipo == "ejecutar_analisis":
        a = resultado["analisis"]
        proyecto_id = resultado["proyecto_id"]
        return f"Análisis #{a['id']} del proyecto #{proyecto_id}: {a['clasificacion']}. {a['resumen']}"
    if accion.tipo == "actualizar_proyecto":
        p = resultado["proyecto"]
        return f"Proyecto #{p['id']} «{p['nombre']}» actualizado."
    return f"Listo: {accion.descripcion}"
