"""Websocket del asistente (`ws/asistente/`): adaptador sobre los mismos servicios que la API REST.

Mensajes del cliente: `mensaje` (con un `dominio` opcional para una conversación nueva y un `id_cliente`
opcional: reenviar el mismo retransmite su turno,
no crea otro), `confirmar`, `contexto` y `reanudar`. Marcos del servidor:
`{"evento", "id", "datos"}` con la misma secuencia de eventos que el SSE, más `confirmacion`,
`contexto` y `latido` (cada 25 s, para que los proxies no cierren un socket inactivo).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import uuid
from typing import Any

import structlog
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from asistente import acciones, avisos, decisiones, flujos, services
from asistente.models import Conversacion
from config.canales import FALLAS_DE_REDIS
from config.consumers import CIERRE_REINTENTAR
from config.errores import ErrorDeAplicacion, NoEncontrado, marco_de_error
from config.validacion import problema_json
from proyectos.roles import puede_consultar

registro = structlog.get_logger(__name__)

CIERRE_NO_AUTENTICADO = 4401
LATIDO_S = 25


class AsistenteConsumer(AsyncJsonWebsocketConsumer):
    async def connect(self) -> None:
        usuario = self.scope.get("user")
        if (
            usuario is None
            or not usuario.is_authenticated
            or not await database_sync_to_async(puede_consultar)(usuario)
        ):
            # Aceptar y cerrar con 4401, no rechazar el handshake: un rechazo llega al navegador como
            # 1006 (el mismo código de un corte de red) y chat.js reconectaría sin fin en vez de decir
            # que la sesión terminó.
            await self._cerrar(CIERRE_NO_AUTENTICADO)
            return
        self.usuario = usuario
        self.vista = ""
        self.proyecto_id: int | None = None
        self.tareas: set[asyncio.Task[None]] = set()
        grupo = avisos.grupo_de_avisos(usuario.pk)
        try:
            await self.channel_layer.group_add(grupo, self.channel_name)
        except FALLAS_DE_REDIS:
            # Sin Redis no hay chat: se dice con 4503 («reintente más tarde») y chat.js reconecta solo,
            # en vez de un 500 en el saludo del websocket.
            await self._cerrar(CIERRE_REINTENTAR)
            return
        self.grupo = grupo
        await self.accept()
        self._lanzar(self._latidos())

    async def _cerrar(self, codigo: int) -> None:
        """Acepta y cierra con `codigo`. Lo que el cliente alcance a enviar antes de recibir el cierre
        no se procesa: con 4503 lo reenviará por otro socket, y no debe quedar guardado dos veces."""
        self.cerrado = True
        await self.accept()
        await self.close(code=codigo)

    async def disconnect(self, code: int) -> None:
        # El turno sigue en su hilo y sus eventos quedan en Redis: se pueden reanudar.
        for tarea in getattr(self, "tareas", set()):
            tarea.cancel()
        if hasattr(self, "grupo"):
            with contextlib.suppress(*FALLAS_DE_REDIS):  # sin Redis, el grupo se perdió con él
                await self.channel_layer.group_discard(self.grupo, self.channel_name)

    async def aviso_nuevo(self, evento: dict[str, Any]) -> None:
        """Un aviso recién creado para este usuario (tarea periódica u otra pestaña): llega sin recargar."""
        await self.send_json({"evento": "aviso", "id": 0, "datos": evento["aviso"]})

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """Un marco que no es un objeto JSON aceptable recibe un marco de error y el socket sigue."""
        if getattr(self, "cerrado", False):
            return
        if text_data is None:
            await self._error("Se esperaba un marco de texto con un objeto JSON, no datos binarios.")
            return
        try:
            contenido = json.loads(text_data)
        except (json.JSONDecodeError, RecursionError):
            await self._error("El marco no es JSON válido.")
            return
        if problema := problema_json(contenido):
            await self._error(problema)
            return
        try:
            await self.receive_json(contenido)
        except asyncio.CancelledError:
            raise
        except Exception:
            registro.exception(
                "marco_fallo", tipo=str(contenido.get("tipo")) if isinstance(contenido, dict) else ""
            )
            await self._error("No pude procesar ese mensaje. Intente nuevamente.", codigo=500)

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        if not isinstance(content, dict):
            await self._error("Se esperaba un objeto JSON con «tipo».")
            return
        tipo = content.get("tipo")
        if tipo == "mensaje":
            await self._mensaje(content)
        elif tipo == "confirmar":
            await self._confirmar(content)
        elif tipo == "contexto":
            self.vista = str(content.get("vista") or "")[:200]
            self.proyecto_id = (
                content.get("proyecto_id") if isinstance(content.get("proyecto_id"), int) else None
            )
            await self.send_json(
                {
                    "evento": "contexto",
                    "id": 0,
                    "datos": {"vista": self.vista, "proyecto_id": self.proyecto_id},
                }
            )
            for aviso in await database_sync_to_async(_avisos_al_abrir)(self.usuario, self.proyecto_id):
                await self.send_json({"evento": "aviso", "id": 0, "datos": aviso})
        elif tipo == "reanudar":
            await self._reanudar(content)
        else:
            await self._error(f"Tipo de mensaje desconocido: «{tipo}».")

    async def _mensaje(self, content: dict[str, Any]) -> None:
        try:
            # Fuera del hilo único de `database_sync_to_async`: cien mensajes a la vez no esperan en
            # fila a que se guarde el anterior.
            turno_id = await database_sync_to_async(_iniciar_y_lanzar, thread_sensitive=False)(
                usuario=self.usuario,
                mensaje=content.get("mensaje"),
                conversacion_id=content.get("conversacion_id"),
                proyecto_id=content.get("proyecto_id", self.proyecto_id),
                vista=str(content.get("vista") or self.vista),
                dominio=str(content.get("dominio") or "") or None,
                id_cliente=content.get("id_cliente"),
            )
        except ErrorDeAplicacion as error:
            await self._error_de(error)
            return
        self._lanzar(self._retransmitir(turno_id, 0))

    async def _reanudar(self, content: dict[str, Any]) -> None:
        conversacion_id = str(content.get("conversacion_id") or "")
        propia = (
            await database_sync_to_async(
                Conversacion.objects.filter(pk=conversacion_id, usuario_id=self.usuario.pk).exists
            )()
            if _uuid(conversacion_id)
            else False
        )
        turno_id = await database_sync_to_async(flujos.ultimo_turno)(conversacion_id) if propia else None
        if turno_id is None:
            await self._error_de(NoEncontrado("Conversación no encontrada o sin turnos para reanudar."))
            return
        ultimo = content.get("ultimo_evento")
        self._lanzar(self._retransmitir(turno_id, ultimo if isinstance(ultimo, int) else 0))

    async def _confirmar(self, content: dict[str, Any]) -> None:
        parametros = content.get("parametros")
        try:
            accion = await database_sync_to_async(acciones.accion_decidir)(
                accion_id=str(content.get("accion_id") or ""),
                usuario=self.usuario,
                confirmada=bool(content.get("confirmada")),
                comentario=str(content.get("comentario") or ""),
                parametros=parametros if isinstance(parametros, dict) else None,
            )
        except ErrorDeAplicacion as error:
            await self._error_de(error)
            return
        continua = decisiones.decision_continua(accion)
        datos = {**acciones.accion_json(accion), "continua": continua}
        await self.send_json({"evento": "confirmacion", "id": 0, "datos": datos})
        if continua:  # el modelo sigue la conversación con el resultado; el socket no espera
            self._lanzar(self._continuar(accion))

    async def _continuar(self, accion: Any) -> None:
        try:
            mensaje = await database_sync_to_async(decisiones.decision_continuar, thread_sensitive=False)(
                accion=accion, usuario=self.usuario
            )
        except Exception:
            registro.exception("continuacion_fallo", accion=str(accion.pk))
            mensaje = None
        datos = {"mensaje": services.mensaje_json(mensaje) if mensaje else None}
        await self.send_json({"evento": "seguimiento", "id": 0, "datos": datos})

    async def _retransmitir(self, turno_id: str, despues_de: int) -> None:
        ultimo = despues_de
        try:
            async for marco in flujos.eventos_desde(turno_id, despues_de=despues_de):
                await self.send(text_data=marco.texto)  # el JSON guardado, sin volver a codificarlo
                ultimo = marco.id or ultimo
        except asyncio.CancelledError:
            raise
        except Exception:
            # Nunca en silencio: el cliente sabe hasta dónde llegó y puede reanudar desde ahí.
            registro.exception("retransmision_fallo", turno=turno_id, ultimo=ultimo)
            await self._error("Se interrumpió la transmisión; reanudando…", codigo=503, ultimo_evento=ultimo)

    async def _latidos(self) -> None:
        while True:
            await asyncio.sleep(LATIDO_S)
            await self.send_json({"evento": "latido", "id": 0, "datos": {}})

    async def _error_de(self, error: ErrorDeAplicacion) -> None:
        """Un error del dominio, con el mismo estado y mensaje que daría la API."""
        await self.send_json({"evento": "error", "id": 0, "datos": marco_de_error(error)})

    async def _error(
        self,
        mensaje: str,
        *,
        codigo: int = 400,
        reintentar_en: int | None = None,
        ultimo_evento: int | None = None,
    ) -> None:
        datos: dict[str, Any] = {"mensaje": mensaje, "codigo": codigo}
        if reintentar_en:
            datos["reintentar_en"] = reintentar_en
        if ultimo_evento is not None:
            datos["reanudable"], datos["ultimo_evento"] = True, ultimo_evento
        await self.send_json({"evento": "error", "id": 0, "datos": datos})

    def _lanzar(self, corrutina: Any) -> None:
        tarea = asyncio.ensure_future(corrutina)
        self.tareas.add(tarea)
        tarea.add_done_callback(self.tareas.discard)


def _iniciar_y_lanzar(**datos: Any) -> str:
    """Guarda el mensaje del usuario y lanza su turno; devuelve el id del turno."""
    return flujos.turno_lanzar(services.turno_iniciar(**datos))


def _avisos_al_abrir(usuario: Any, proyecto_id: int | None) -> list[dict[str, object]]:
    """Avisos nuevos del proyecto que el usuario abrió, más los pendientes aún no descartados."""
    avisos.avisos_evaluar(usuario=usuario, proyecto_id=proyecto_id)
    return [avisos.aviso_json(a, usuario=usuario) for a in avisos.avisos_pendientes(usuario=usuario)]


def _uuid(texto: str) -> bool:
    with contextlib.suppress(ValueError):
        uuid.UUID(texto)
        return True
    return False
