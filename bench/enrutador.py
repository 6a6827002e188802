"""Enrutador antes del modelo: qué parte de los mensajes no llega a Claude y cuántos tokens ahorra.

- Las preguntas de los conjuntos de evaluación (`tests/fixtures/eval/*.jsonl`): preguntas reales de
  consultores, que deben ir casi todas al modelo.
- Una sesión de uso escrita a mano (saludos, agradecimientos, «lista mis proyectos», consultas de un
  artículo y preguntas): la proporción que el enrutador responde sin modelo.
- Los tokens ahorrados: cada mensaje enrutado de la sesión se envía con el enrutador apagado al
  suplente local de la API de Mensajes, que guarda el pedido; se cuenta el tamaño del pedido (sistema,
  herramientas e historial) y se estima en tokens a 3,5 caracteres por token (no hay tokenizador de
  Claude sin conexión: es una estimación, rotulada como tal).
"""

from __future__ import annotations

import json
from pathlib import Path

from django.contrib.auth import get_user_model
from django.test import override_settings

from asistente.motores.enrutador import ruta_de
from asistente.services import turno_eventos, turno_iniciar
from proyectos.roles import Rol
from proyectos.services import usuario_crear_o_actualizar

EVALUACION = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "eval"
CARACTERES_POR_TOKEN = 3.5
SESION = [
    "hola",
    "¿qué puedes hacer?",
    "lista mis proyectos",
    "¿Qué dice el artículo 11 de la Ley 19.300?",
    "¿mi proyecto de 6.000 t/mes en Antofagasta entra por DIA o por EIA?",
    "gracias",
    "¿Qué plazo tiene el SEA para evaluar una DIA?",
    "¿y si hay un humedal a 500 metros?",
    "muéstrame mis proyectos analizados",
    "¿qué dice el art. 3 letra i.1 del DS 40?",
    "¿qué pasa si presento una DIA y el SEA considera que corresponde un EIA?",
    "perfecto, gracias",
    "buenas tardes",
    "¿cuánto demora en promedio una DIA minera?",
    "muchas gracias",
]
PREFIJO = "bench-enrutador-"


def ejecutar() -> None:
    for archivo in sorted(EVALUACION.glob("*.jsonl")):
        lineas = archivo.read_text(encoding="utf-8").splitlines()
        preguntas = [json.loads(linea)["pregunta"] for linea in lineas if linea.strip()]
        enrutadas = [p for p in preguntas if ruta_de(p)]
        print(f"{archivo.name:<28} {len(enrutadas):>3}/{len(preguntas):<3} enrutadas sin modelo")
        for pregunta in enrutadas:
            print(f"    {ruta_de(pregunta)}: {pregunta}")
    enrutados = [m for m in SESION if ruta_de(m)]
    print(
        f"sesión de uso escrita a mano: {len(enrutados)}/{len(SESION)} mensajes sin modelo "
        f"({100 * len(enrutados) / len(SESION):.0f} %)"
    )
    caracteres = _caracteres_de_pedidos(enrutados)
    tokens = caracteres / CARACTERES_POR_TOKEN
    print(
        f"lo que esos {len(enrutados)} mensajes habrían enviado a Claude: {_miles(caracteres)} caracteres, "
        f"≈ {_miles(tokens)} tokens de entrada (≈ {_miles(tokens / len(enrutados))} por mensaje; "
        f"estimación a {str(CARACTERES_POR_TOKEN).replace('.', ',')} caracteres por token)"
    )


def _miles(numero: float) -> str:
    return f"{numero:,.0f}".replace(",", ".")


def _caracteres_de_pedidos(mensajes: list[str]) -> int:
    """El tamaño de lo que cada mensaje enviaría al modelo con el enrutador apagado (sistema,
    herramientas y mensajes del pedido), medido en el suplente local."""
    from tests.utilidades import ServidorLocal, mensaje_sse

    servidor = ServidorLocal()
    usuario = usuario_crear_o_actualizar(nombre=f"{PREFIJO}1", rol=Rol.ESCRITURA).usuario
    total = 0
    try:
        with override_settings(
            ANTHROPIC_API_KEY="clave-bench",
            ANTHROPIC_BASE_URL=servidor.url,
            ASISTENTE_MOTOR="claude",
            ASISTENTE_ENRUTADOR=False,
        ):
            for mensaje in mensajes:
                servidor.pedidos.clear()
                servidor.responder(
                    "/v1/messages",
                    200,
                    mensaje_sse({"type": "text", "text": "Respuesta."}),
                    {"Content-Type": "text/event-stream"},
                )
                list(turno_eventos(turno_iniciar(usuario=usuario, mensaje=mensaje)))
                pedido = json.loads(servidor.pedidos[0][3])
                total += sum(
                    len(json.dumps(pedido.get(parte, ""), ensure_ascii=False))
                    for parte in ("system", "tools", "messages")
                )
    finally:
        servidor.cerrar()
        get_user_model().objects.filter(username__startswith=PREFIJO).delete()
    return total
