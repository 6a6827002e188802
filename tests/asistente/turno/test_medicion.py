"""El registro de cada turno (el mensaje del asistente), sus métricas y el evento `asistente_respuesta`."""

import json
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.models import AbstractUser
from prometheus_client.parser import text_string_to_metric_families
from structlog.testing import capture_logs

from asistente import services
from asistente.models import LlamadaHerramienta, Mensaje
from asistente.motores.claude import precios_del_modelo
from asistente.turno import medicion
from asistente.turno.tipos import Respuesta, Turno
from config import metricas
from tests.asistente.conftest import RUTA, Charla, responder_sse, uso_de_herramienta
from tests.utilidades import ServidorLocal
from tests.utilidades import mensaje_sse as sse


def valor(nombre: str, **etiquetas: str) -> float:
    """El valor de una serie tal como la expone /metrics (suma de todos los procesos)."""
    for familia in text_string_to_metric_families(metricas.exponer().decode()):
        for muestra in familia.samples:
            if muestra.name == nombre and all(muestra.labels.get(k) == v for k, v in etiquetas.items()):
                return float(muestra.value)
    return 0.0


def registro_de(charla: Charla) -> Mensaje:
    return Mensaje.objects.get(pk=charla.final["mensaje"]["id"])


@pytest.mark.usefixtures("corpus")
def test_un_turno_sin_conexion_queda_registrado_con_latencia_confianza_y_familia_y_se_anuncia_en_el_log(
    usuaria: Callable[..., AbstractUser], conversar: Callable[..., Charla]
) -> None:
    turnos_antes = valor("asistente_turnos_total", motor="reglas", resultado="respondida")

    with capture_logs() as eventos:
        charla = conversar(
            usuaria(), "¿Cuántos días tiene el SEA para evaluar una Declaración de Impacto Ambiental?"
        )

    mensaje = registro_de(charla)
    assert mensaje.pregunta is not None and mensaje.pregunta.contenido.startswith(
        "¿Cuántos días tiene el SEA"
    )
    assert mensaje.motor == "reglas" and not mensaje.abstuvo and not mensaje.error
    assert mensaje.confianza in {"HIGH", "MEDIUM", "LOW"} and mensaje.familia == "plazo"
    assert mensaje.latencia_ms is not None and mensaje.latencia_ms > 0
    assert mensaje.primer_token_ms is not None and mensaje.primer_token_ms <= mensaje.latencia_ms
    assert mensaje.llamadas.filter(herramienta="buscar_normativa").exists()
    (evento,) = [e for e in eventos if e["event"] == "asistente_respuesta"]
    assert evento["mensaje_id"] == str(mensaje.pk) and evento["familia"] == "plazo"
    assert (
        evento["herramientas"][0]["herramienta"] == "buscar_normativa" and evento["resultado"] == "respondida"
    )
    assert valor("asistente_turnos_total", motor="reglas", resultado="respondida") == turnos_antes + 1
    assert valor("normativa_busqueda_seconds_count", modo="hibrido") > 0


@pytest.mark.usefixtures("corpus")
def test_una_pregunta_fuera_del_corpus_queda_registrada_como_abstencion(
    usuaria: Callable[..., AbstractUser], conversar: Callable[..., Charla]
) -> None:
    antes = valor("asistente_abstenciones_total")

    charla = conversar(
        usuaria(), "¿Cuánto IVA pago al importar un camión y lo puedo usar como crédito fiscal?"
    )

    mensaje = registro_de(charla)
    assert mensaje.abstuvo and mensaje.confianza == "NONE" and not mensaje.fuentes
    assert valor("asistente_abstenciones_total") == antes + 1


@pytest.mark.usefixtures("corpus")
def test_con_claude_el_turno_guarda_modelo_tokens_de_cache_costo_y_la_herramienta_que_llamo(
    servidor: ServidorLocal, usuaria: Callable[..., AbstractUser], conversar: Callable[..., Charla]
) -> None:
    responder_sse(
        servidor, sse(uso_de_herramienta("buscar_normativa", {"consulta": "plazo DIA"}), stop="tool_use")
    )
    responder_sse(
        servidor, sse({"type": "text", "text": "El SEA tiene sesenta días [1]."}, entrada=150, salida=40)
    )
    lectura_antes = valor("asistente_tokens_total", tipo="cache_lectura")
    herramienta_antes = valor("asistente_herramienta_seconds_count", herramienta="buscar_normativa")

    charla = conversar(usuaria(), "¿Qué plazo tiene el SEA para evaluar una DIA?")

    mensaje = registro_de(charla)
    assert mensaje.motor == "claude" and mensaje.modelo == settings.ANTHROPIC_MODEL
    # Dos rondas: 120 + 150 de entrada, 100 + 100 leídos de la caché de prompts; 30 + 40 de salida.
    assert (mensaje.tokens_entrada, mensaje.tokens_cache_lectura, mensaje.tokens_salida) == (470, 200, 70)
    precios = precios_del_modelo(settings.ANTHROPIC_MODEL)
    esperado = (270 * precios["entrada"] + 200 * precios["cache_lectura"] + 70 * precios["salida"]) / 1e6
    assert float(mensaje.costo_usd) == pytest.approx(esperado, abs=1e-6)
    assert mensaje.primer_token_ms is not None and mensaje.primer_token_ms <= (mensaje.latencia_ms or 0)
    assert mensaje.confianza and not mensaje.limitado and not mensaje.respaldo
    (llamada,) = LlamadaHerramienta.objects.filter(mensaje=mensaje)
    assert llamada.herramienta == "buscar_normativa" and llamada.exito
    assert valor("asistente_tokens_total", tipo="cache_lectura") == lectura_antes + 200
    assert (
        valor("asistente_herramienta_seconds_count", herramienta="buscar_normativa") == herramienta_antes + 1
    )


def test_si_el_modelo_falla_el_turno_registra_el_respaldo_y_su_motivo(
    servidor: ServidorLocal, usuaria: Callable[..., AbstractUser], conversar: Callable[..., Charla]
) -> None:
    cuerpo = json.dumps({"type": "error", "error": {"type": "api_error", "message": "Internal"}})
    servidor.responder(RUTA, 500, cuerpo, {"Content-Type": "application/json", "retry-after": "0"})
    antes = valor("asistente_respaldos_total", motivo="InternalServerError")

    mensaje = registro_de(conversar(usuaria(), "hola"))

    assert mensaje.motor == "reglas (respaldo)" and mensaje.respaldo == "InternalServerError"
    assert not mensaje.limitado
    assert valor("asistente_respaldos_total", motivo="InternalServerError") == antes + 1
    assert valor("asistente_turnos_total", motor="reglas (respaldo)", resultado="respaldo") >= 1


def test_un_429_del_modelo_que_el_reintento_supera_queda_marcado_en_el_turno(
    servidor: ServidorLocal, usuaria: Callable[..., AbstractUser], conversar: Callable[..., Charla]
) -> None:
    cuerpo = json.dumps({"type": "error", "error": {"type": "rate_limit_error", "message": "Slow down"}})
    servidor.responder(RUTA, 429, cuerpo, {"Content-Type": "application/json", "retry-after": "0"})
    responder_sse(servidor, sse({"type": "text", "text": "Hola, ¿en qué le ayudo?"}))
    antes = valor("asistente_limitados_total", origen="modelo")

    mensaje = registro_de(conversar(usuaria(), "hola"))

    assert mensaje.motor == "claude" and mensaje.limitado and not mensaje.respaldo
    assert valor("asistente_limitados_total", origen="modelo") == antes + 1


def test_un_429_que_no_cede_cae_al_respaldo_marcado_como_limitado(
    servidor: ServidorLocal, usuaria: Callable[..., AbstractUser], conversar: Callable[..., Charla]
) -> None:
    cuerpo = json.dumps({"type": "error", "error": {"type": "rate_limit_error", "message": "Slow down"}})
    servidor.responder(RUTA, 429, cuerpo, {"Content-Type": "application/json", "retry-after": "0"})

    mensaje = registro_de(conversar(usuaria(), "hola"))

    assert mensaje.respaldo == "RateLimitError" and mensaje.limitado


class MotorQueFalla:
    nombre = "roto"

    def responder(self, turno: Turno) -> Respuesta:
        raise RuntimeError("se cayó")


def test_un_turno_que_falla_queda_registrado_con_el_aviso_que_vio_el_usuario_y_el_tipo_de_error(
    usuaria: Callable[..., AbstractUser], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(services, "motor_para", lambda turno: MotorQueFalla())
    antes = valor("asistente_turnos_total", motor="ninguno", resultado="error")
    turno = services.turno_iniciar(usuario=usuaria(), mensaje="¿qué plazo tiene una DIA?")

    eventos: list[Any] = list(services.turno_eventos(turno))

    assert eventos[-1].tipo == "error"
    mensaje = Mensaje.objects.get(conversacion=turno.conversacion, rol=Mensaje.Rol.ASISTENTE)
    assert mensaje.error == "RuntimeError" and mensaje.contenido == services.FALLA_DEL_TURNO
    assert mensaje.pregunta == turno.mensaje
    assert mensaje.latencia_ms is not None
    assert valor("asistente_turnos_total", motor="ninguno", resultado="error") == antes + 1


@pytest.mark.usefixtures("corpus")
def test_el_registro_de_cada_respuesta_trae_usuario_largo_del_mensaje_similitud_y_la_accion_propuesta(
    usuaria: Callable[..., AbstractUser], conversar: Callable[..., Charla]
) -> None:
    consultora = usuaria()
    pregunta = "¿Qué plazo tiene el SEA para evaluar una Declaración de Impacto Ambiental?"

    with capture_logs() as eventos:
        de_ley = conversar(consultora, pregunta)
        propuesta = conversar(consultora, "crea un proyecto llamado Mina Norte en Atacama de 8.000 t/mes")

    ley, accion = [e for e in eventos if e["event"] == "asistente_respuesta"]
    assert ley["usuario_id"] == accion["usuario_id"] == consultora.pk
    assert ley["largo_mensaje"] == len(pregunta)
    assert ley["propuso_accion"] is False and ley["accion_tipo"] == ""
    assert 0.5 < ley["similitud"] <= 1 and registro_de(de_ley).similitud == ley["similitud"]
    assert accion["propuso_accion"] is True and accion["accion_tipo"] == "crear_proyecto"
    assert registro_de(propuesta).accion_tipo == "crear_proyecto"


def test_sin_transmision_en_vivo_el_primer_texto_llega_con_el_final_y_nunca_despues(monkeypatch):
    # antes se leían dos relojes uno tras otro: con la máquina cargada el primer texto quedaba 1 ms
    # después del final
    instantes = iter([10.1744, 10.1751])
    monkeypatch.setattr(
        "asistente.turno.medicion.time", SimpleNamespace(perf_counter=lambda: next(instantes))
    )
    reloj = medicion.Reloj(inicio=10.0)

    latencia, primer_texto = reloj.tiempos_ms()

    assert primer_texto == latencia == 174
