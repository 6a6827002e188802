"""Motor Claude: API de Mensajes de Anthropic (SDK oficial) en streaming, con herramientas.

- Rondas acotadas (`ASISTENTE_MAX_RONDAS`); las herramientas de lectura se ejecutan y su resultado
  vuelve al modelo; un error vuelve como `is_error` para que reflexione (hasta 3 errores por turno).
- Una herramienta de escritura nunca se ejecuta: se crea la `AccionPendiente` y el turno termina.
- Caché de prompts: el prompt del dominio y las definiciones de herramientas llevan `cache_control`.
- Reintentos con espera en 429/5xx/sobrecarga los hace el SDK (`ANTHROPIC_MAX_RETRIES`).
- Si la API falla a mitad del turno, responde el motor de reglas y el usuario ve una advertencia.
"""

from __future__ import annotations

import functools
import json
from typing import Any

import anthropic
import structlog
from django.conf import settings

from asistente.registro import REGISTRO, ErrorDeHerramienta, ejecutar, herramientas_para
from asistente.services import Respuesta, Turno, accion_proponer
from proyectos.roles import rol_de

registro = structlog.get_logger(__name__)

NOMBRE = "claude"
MAXIMO_ERRORES = 3
FALLAS_REPETIDAS = (
    "No pude completar la consulta: las herramientas fallaron repetidamente. Intente reformularla."
)
AVISO_RESPALDO = (
    "El modelo de lenguaje no respondió; esta respuesta la armó el motor de reglas sin conexión, a partir "
    "de las mismas herramientas."
)


class MotorClaude:
    nombre = NOMBRE

    def __init__(self, *, respaldo: Any) -> None:
        self.respaldo = respaldo

    def responder(self, turno: Turno) -> Respuesta:
        try:
            return self._responder(turno)
        except anthropic.APIError as error:
            registro.warning("claude_fallo", error=type(error).__name__, detalle=str(error)[:300])
            turno.contexto.fuentes.clear()
            respuesta: Respuesta = self.respaldo.responder(turno)
            respuesta.advertencias.insert(0, AVISO_RESPALDO)
            respuesta.motor = f"{self.respaldo.nombre} (respaldo)"
            return respuesta

    def _responder(self, turno: Turno) -> Respuesta:
        cliente = cliente_anthropic(
            settings.ANTHROPIC_API_KEY or "sin-clave",
            settings.ANTHROPIC_BASE_URL or None,
            settings.ANTHROPIC_MAX_RETRIES,
            settings.ANTHROPIC_TIMEOUT_S,
        )
        herramientas = [h.esquema() for h in herramientas_para(turno.usuario)]
        if herramientas:
            herramientas[-1] = {**herramientas[-1], "cache_control": {"type": "ephemeral"}}
        sistema = [
            {"type": "text", "text": turno.dominio.prompt_sistema, "cache_control": {"type": "ephemeral"}},
            {"type": "text", "text": contexto_del_turno(turno)},
        ]
        mensajes: list[dict[str, Any]] = [
            {"role": m.rol, "content": m.contenido} for m in turno.historial() if m.contenido.strip()
        ]
        mensajes.append({"role": "user", "content": turno.texto})
        respuesta = Respuesta("", motor=NOMBRE)
        errores = 0
        for _ in range(settings.ASISTENTE_MAX_RONDAS):
            with cliente.messages.stream(
                model=settings.ANTHROPIC_MODEL,
                max_tokens=settings.ANTHROPIC_MAX_TOKENS,
                system=sistema,  # type: ignore[arg-type]
                tools=herramientas,  # type: ignore[arg-type]
                messages=mensajes,  # type: ignore[arg-type]
            ) as flujo:
                final = flujo.get_final_message()
            _sumar_uso(respuesta, final.usage)
            texto = "".join(b.text for b in final.content if b.type == "text")
            usos = [b for b in final.content if b.type == "tool_use"]
            if not usos:
                respuesta.texto = texto
                return respuesta
            mensajes.append(
                {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in final.content]}
            )
            resultados = []
            for uso in usos:
                definicion = REGISTRO.get(uso.name)
                if definicion is not None and definicion.escritura:
                    try:
                        accion = accion_proponer(
                            turno=turno, herramienta=uso.name, parametros=dict(uso.input)
                        )
                    except ErrorDeHerramienta as error:
                        errores += 1
                        resultados.append(_resultado(uso.id, {"error": str(error)}, error=True))
                        continue
                    respuesta.accion = accion
                    respuesta.texto = (texto + "\n\n" if texto else "") + (
                        f"Propongo lo siguiente: {accion.descripcion} Confírmelo para ejecutarlo "
                        "(la propuesta vence en 5 minutos)."
                    )
                    return respuesta
                llamada = ejecutar(uso.name, dict(uso.input), contexto=turno.contexto)
                respuesta.llamadas.append(llamada)
                errores += bool(llamada["error"])
                contenido = (
                    {"error": llamada["error"]}
                    if llamada["error"]
                    else _con_marcadores(llamada["resultado"], turno)
                )
                resultados.append(_resultado(uso.id, contenido, error=bool(llamada["error"])))
            if errores > MAXIMO_ERRORES:
                respuesta.texto = FALLAS_REPETIDAS
                return respuesta
            mensajes.append({"role": "user", "content": resultados})
        respuesta.texto = (
            "Alcancé el máximo de pasos para esta pregunta sin una respuesta final; intente acotarla."
        )
        return respuesta


@functools.lru_cache(maxsize=4)
def cliente_anthropic(clave: str, url: str | None, reintentos: int, timeout_s: int) -> anthropic.Anthropic:
    """Un cliente por configuración: reutiliza conexiones (crear uno cuesta decenas de ms)."""
    return anthropic.Anthropic(api_key=clave, base_url=url, max_retries=reintentos, timeout=timeout_s)


def contexto_del_turno(turno: Turno) -> str:
    """Contexto variable (no se cachea): usuario y rol, proyecto activo, vista, resumen y memoria."""
    partes = [f"Usuario: {turno.usuario.get_username()} (rol {rol_de(turno.usuario) or 'sin rol'})."]
    if turno.dominio.tono:
        partes.append(f"Tono: {turno.dominio.tono}.")
    proyecto = turno.conversacion.proyecto
    if proyecto is not None:
        ultimo = proyecto.analisis.first()
        partes.append(
            f"Proyecto activo: #{proyecto.pk} «{proyecto.nombre}» ({proyecto.get_tipo_display()}, Región "
            f"{proyecto.region.nombre}, {proyecto.get_estado_display()})"
            + (f"; último análisis: {ultimo.clasificacion}." if ultimo else "; sin análisis.")
        )
    if turno.vista:
        partes.append(f"Vista actual: {turno.vista}.")
    if turno.conversacion.resumen:
        partes.append(f"Resumen de lo conversado: {turno.conversacion.resumen}")
    memoria = getattr(turno.usuario, "memoria", None)
    if memoria is not None and memoria.preferencias:
        partes.append(f"Preferencias del usuario: {json.dumps(memoria.preferencias, ensure_ascii=False)}")
    return "\n".join(partes)


def _con_marcadores(resultado: dict[str, Any] | None, turno: Turno) -> dict[str, Any]:
    """Numera cada fuente como el marcador [n] que el modelo debe usar (orden del turno)."""
    if not resultado or "fuentes" not in resultado:
        return resultado or {}
    posiciones = {f["fragmento_id"]: n for n, f in enumerate(turno.contexto.fuentes, start=1)}
    fuentes = [{**f, "marcador": f"[{posiciones.get(f['fragmento_id'], '?')}]"} for f in resultado["fuentes"]]
    return {**resultado, "fuentes": fuentes}


def _resultado(uso_id: str, contenido: dict[str, Any], *, error: bool) -> dict[str, Any]:
    return {
        "type": "tool_result",
        "tool_use_id": uso_id,
        "content": json.dumps(contenido, ensure_ascii=False, default=str),
        "is_error": error,
    }


def _sumar_uso(respuesta: Respuesta, uso: Any) -> None:
    entrada = uso.input_tokens or 0
    escritura = getattr(uso, "cache_creation_input_tokens", 0) or 0
    lectura = getattr(uso, "cache_read_input_tokens", 0) or 0
    respuesta.tokens_entrada += entrada + escritura + lectura
    respuesta.tokens_salida += uso.output_tokens or 0
    precio_entrada = settings.ANTHROPIC_PRECIO_ENTRADA_USD_MTOK / 1_000_000
    respuesta.costo_usd += (
        entrada * precio_entrada
        + escritura * precio_entrada * 1.25
        + lectura * precio_entrada * 0.1
        + (uso.output_tokens or 0) * settings.ANTHROPIC_PRECIO_SALIDA_USD_MTOK / 1_000_000
    )
