"""Sobrecarga del turno del asistente (p50/p95).

- Motor de reglas, pregunta de ley: desde `turno_iniciar` hasta el evento `done` (validar, limitar,
  guardar, buscar en el corpus, armar la respuesta con citas, guardar). Primera vez (incluye el
  embedding de la consulta, uno por turno) y la misma pregunta hecha luego por otro usuario (el
  vector de la consulta ya está en el proceso; la caché de herramientas es por usuario, así que las
  búsquedas se repiten).
- Motor Claude contra un servidor local que habla la API de Mensajes con una demora fija: lo que el
  turno agrega por sobre el tiempo del servidor (con una ronda de herramienta y sin ella).
Los usuarios, conversaciones y proyectos del benchmark se borran al terminar.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.test import override_settings

from asistente.services import turno_eventos, turno_iniciar
from config.recolector import precargar
from normativa.embeddings import consultas_olvidar
from normativa.evaluacion import leer_preguntas
from proyectos.roles import Rol
from proyectos.services import usuario_crear_o_actualizar

PREGUNTAS = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "eval" / "dev_normativa.jsonl"
DEMORA_SERVIDOR_S = 0.05
PREFIJO = "bench-asistente-"


def ejecutar() -> None:
    preguntas = [p["pregunta"] for p in leer_preguntas(PREGUNTAS)]
    propias = (
        Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "eval" / "propias_normativa.jsonl"
    )
    if propias.exists():
        preguntas += [p["pregunta"] for p in leer_preguntas(propias)]
    cache.clear()  # la primera pasada mide sin caché de herramientas
    consultas_olvidar()  # ni vectores de consulta recordados por otro benchmark de este proceso
    precargar()  # lo que daphne y los workers cargan al arrancar, antes de su primer turno
    usuarios = _usuarios()
    print(f"{'escenario':<52} {'n':>4} {'p50 ms':>8} {'p95 ms':>8}")
    _fila("reglas, pregunta de ley (primera vez)", _turnos(usuarios, preguntas))
    _fila("reglas, pregunta de ley (repetida por otro usuario)", _turnos(usuarios, preguntas))
    _fila("reglas, saludo", _turnos(usuarios, ["hola"] * 30))
    _claude(usuarios)
    get_user_model().objects.filter(username__startswith=PREFIJO).delete()


def _claude(usuarios: Callable[[], object]) -> None:
    from tests.utilidades import ServidorLocal, mensaje_sse

    servidor = ServidorLocal()
    texto = mensaje_sse({"type": "text", "text": "Respuesta breve del modelo con una cita [1]."})
    herramienta = mensaje_sse(
        {"type": "tool_use", "id": "toolu_1", "name": "listar_proyectos", "input": {}}, stop="tool_use"
    )
    with override_settings(
        ANTHROPIC_API_KEY="clave-bench",
        ANTHROPIC_BASE_URL=servidor.url,
        ASISTENTE_MOTOR="claude",
        ASISTENTE_ENRUTADOR=False,  # se mide el camino del modelo
    ):
        servidor.responder(
            "/v1/messages", 200, texto, {"Content-Type": "text/event-stream"}, DEMORA_SERVIDOR_S
        )
        (frio,) = _turnos(usuarios, ["primer turno"])
        sobrecarga_fria = frio - DEMORA_SERVIDOR_S * 1000
        print(f"(claude, primer turno del proceso: {sobrecarga_fria:.0f} ms de sobrecarga: SDK y conexión)")
        tiempos = _turnos(usuarios, ["resume la normativa"] * 30)
        _fila(
            "claude, sin herramientas: sobrecarga sobre el servidor",
            [t - DEMORA_SERVIDOR_S * 1000 for t in tiempos],
        )
        servidor.respuestas.clear()
        for _ in range(30):
            servidor.responder(
                "/v1/messages", 200, herramienta, {"Content-Type": "text/event-stream"}, DEMORA_SERVIDOR_S
            )
            servidor.responder(
                "/v1/messages", 200, texto, {"Content-Type": "text/event-stream"}, DEMORA_SERVIDOR_S
            )
        tiempos = _turnos(usuarios, ["lista mis proyectos"] * 30)
        _fila(
            "claude, 1 ronda de herramienta: sobrecarga", [t - 2 * DEMORA_SERVIDOR_S * 1000 for t in tiempos]
        )
    servidor.cerrar()


def _usuarios() -> Callable[[], object]:
    """Un usuario nuevo cada 9 turnos: el límite de 10 mensajes por minuto es por usuario."""
    usuarios: list[object] = []
    cuenta = [0]

    def siguiente() -> object:
        if cuenta[0] % 9 == 0:
            nombre = f"{PREFIJO}{cuenta[0]}"
            usuarios.append(usuario_crear_o_actualizar(nombre=nombre, rol=Rol.ESCRITURA).usuario)
        cuenta[0] += 1
        return usuarios[-1]

    return siguiente


def _turnos(usuarios: Callable[[], object], mensajes: list[str]) -> list[float]:
    tiempos = []
    for mensaje in mensajes:
        usuario = usuarios()
        inicio = time.perf_counter()
        turno = turno_iniciar(usuario=usuario, mensaje=mensaje)  # type: ignore[arg-type]
        eventos = list(turno_eventos(turno))
        tiempos.append((time.perf_counter() - inicio) * 1000)
        assert eventos[-1].tipo == "done", eventos[-1].datos
    return tiempos


def _fila(nombre: str, tiempos: list[float]) -> None:
    cuantiles = statistics.quantiles(tiempos, n=100)
    print(f"{nombre:<52} {len(tiempos):>4} {cuantiles[49]:>8.1f} {cuantiles[94]:>8.1f}")
