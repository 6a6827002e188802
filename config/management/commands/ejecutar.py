"""python manage.py ejecutar: prepara todo y sirve web (daphne) + worker + beat, supervisados.

supervisord (`config/supervision.py`) reinicia el proceso que muere y registra el motivo, sin derribar
a los demás; la consola muestra la salida de cada uno con su nombre delante. Ctrl-C detiene los
procesos y después los servicios embebidos (PostgreSQL y Redis de `var/`): no queda ningún huérfano.
"""

import os
import signal
import subprocess
import sys
import threading
from types import FrameType
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand

from config.metricas import vaciar_directorio
from config.services import sistema_preparar, usuario_demo_asegurar
from config.servicios import detener_servicios, directorio_var, redis_es_embebido
from config.supervision import (
    NOMBRE_SUPERVISOR,
    Programa,
    Rutas,
    Seguidor,
    comando_supervisord,
    configuracion_escribir,
)

# El worker de los turnos del chat: su propia cola, para que el proceso web solo retransmita; con el
# pool gevent, porque cada turno espera casi todo el tiempo al modelo (medido en docs/rendimiento.md).
# Se lanzan `ASISTENTE_PROCESOS_TURNOS` procesos: una herramienta que calcula mucho (embeddings)
# detiene solo los turnos de su proceso.
ARGUMENTOS_WORKER_TURNOS = ("-Q", "turnos", "-P", "gevent", "-c", "64", "-l", "WARNING")
ESPERA_AL_DETENER_S = 60


class Command(BaseCommand):
    help = "Sirve la aplicación con worker y beat de Celery, supervisados (lo que ejecuta `make run`)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--puerto", type=int, default=8000)

    def handle(self, *args: Any, **opciones: Any) -> None:
        sistema_preparar(verbosidad=0)
        self.stdout.write("Base de datos migrada y tareas periódicas declaradas.")
        if settings.PERMITIR_USUARIO_DEMO:
            demo = usuario_demo_asegurar()
            self.stdout.write(f"Superusuario de demostración: {demo.usuario} / {demo.password}")
        self.stdout.write(f"Sirviendo en http://{opciones['host']}:{opciones['puerto']}/ (Ctrl-C para salir)")
        self.stdout.flush()
        # Las métricas de una ejecución anterior no se suman a las de esta (`config.metricas`).
        vaciar_directorio(settings.METRICAS_DIR)
        # Los turnos del chat corren en su propio worker (salvo ASISTENTE_TURNOS_EN=hilos): el proceso
        # web solo retransmite y los turnos usan el otro núcleo. Los hijos heredan la variable.
        os.environ["ASISTENTE_TURNOS_EN"] = os.environ.get("ASISTENTE_TURNOS_EN") or "worker"
        rutas = Rutas.en(directorio_var())
        programas = _programas(opciones["host"], opciones["puerto"])
        configuracion = configuracion_escribir(programas, rutas=rutas, directorio_trabajo=settings.BASE_DIR)
        seguidor = Seguidor(
            {p.nombre: rutas.log_de(p.nombre) for p in [Programa(NOMBRE_SUPERVISOR, ()), *programas]},
            sys.stdout,
        )
        supervisor = subprocess.Popen(comando_supervisord(configuracion), cwd=settings.BASE_DIR)
        hilo = threading.Thread(target=seguidor.seguir, args=(lambda: supervisor.poll() is not None,))
        hilo.start()

        def detener(_senal: int, _marco: FrameType | None) -> None:
            # supervisord detiene cada proceso en orden (SIGTERM, y SIGKILL a quien no termina).
            if supervisor.poll() is None:
                supervisor.send_signal(signal.SIGTERM)

        signal.signal(signal.SIGINT, detener)
        signal.signal(signal.SIGTERM, detener)
        try:
            codigo = supervisor.wait()
        finally:
            if supervisor.poll() is None:
                supervisor.kill()
            hilo.join(ESPERA_AL_DETENER_S)
            detenidos = detener_servicios()
            if detenidos:
                self.stdout.write(f"Servicios embebidos detenidos: {', '.join(detenidos)}.")
        sys.exit(codigo if codigo > 0 else 0)


def _programas(host: str, puerto: int) -> list[Programa]:
    python = sys.executable
    celery = [python, "-m", "celery", "-A", "config"]
    programas = [
        Programa("web", [python, "-m", "daphne", "-b", host, "-p", str(puerto), "config.asgi:application"]),
        Programa(
            "worker",
            [*celery, "worker", "-Q", "celery", "-l", "INFO", "--concurrency", "2", "-n", "worker@%h"],
            espera_al_detener_s=ESPERA_AL_DETENER_S,
        ),
        Programa("beat", [*celery, "beat", "-l", "INFO"]),
    ]
    if redis_es_embebido(settings.REDIS_URL):
        # El Redis embebido: si cae, se reinicia en el mismo puerto y todo se reconecta solo.
        programas.append(Programa("vigia", [python, "-m", "config.servicios", "vigilar"]))
    if os.environ["ASISTENTE_TURNOS_EN"] == "worker":
        for n in range(1, settings.ASISTENTE_PROCESOS_TURNOS + 1):
            programas.append(
                Programa(
                    f"turnos{n}",
                    [*celery, "worker", *ARGUMENTOS_WORKER_TURNOS, "-n", f"turnos{n}@%h"],
                    espera_al_detener_s=ESPERA_AL_DETENER_S,
                )
            )
    return programas
