"""python manage.py ejecutar: prepara todo y sirve web (daphne) + worker + beat con logs prefijados.

Ctrl-C detiene los tres procesos y después los servicios embebidos (PostgreSQL y Redis de
`var/`), de modo que no queda ningún proceso huérfano.
"""

import os
import sys
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand
from honcho.manager import Manager

from config.metricas import vaciar_directorio
from config.services import sistema_preparar, usuario_demo_asegurar
from config.servicios import detener_servicios, redis_es_embebido

# El worker de los turnos del chat: su propia cola, para que el proceso web solo retransmita; con el
# pool gevent, porque cada turno espera casi todo el tiempo al modelo (medido en docs/rendimiento.md).
# Se lanzan `ASISTENTE_PROCESOS_TURNOS` procesos: una herramienta que calcula mucho (embeddings)
# detiene solo los turnos de su proceso.
ARGUMENTOS_WORKER_TURNOS = ("-Q", "turnos", "-P", "gevent", "-c", "64", "-l", "WARNING")


class Command(BaseCommand):
    help = "Sirve la aplicación con worker y beat de Celery (lo que ejecuta `make run`)."

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
        python = sys.executable
        # Las métricas de una ejecución anterior no se suman a las de esta (`config.metricas`).
        vaciar_directorio(settings.METRICAS_DIR)
        # Los turnos del chat corren en su propio worker (salvo ASISTENTE_TURNOS_EN=hilos): el proceso
        # web solo retransmite y los turnos usan el otro núcleo. Los hijos heredan la variable.
        os.environ["ASISTENTE_TURNOS_EN"] = os.environ.get("ASISTENTE_TURNOS_EN") or "worker"
        gestor = Manager()
        gestor.add_process(
            "web",
            f"exec {python} -m daphne -b {opciones['host']} -p {opciones['puerto']} config.asgi:application",
        )
        gestor.add_process(
            "worker",
            f"exec {python} -m celery -A config worker -Q celery -l INFO --concurrency 2 -n worker@%h",
        )
        gestor.add_process("beat", f"exec {python} -m celery -A config beat -l INFO")
        if redis_es_embebido(settings.REDIS_URL):
            # El Redis embebido: si cae, se reinicia en el mismo puerto y todo se reconecta solo.
            gestor.add_process("vigia", f"exec {python} -m config.servicios vigilar")
        if os.environ["ASISTENTE_TURNOS_EN"] == "worker":
            argumentos = " ".join(ARGUMENTOS_WORKER_TURNOS)
            for n in range(1, settings.ASISTENTE_PROCESOS_TURNOS + 1):
                gestor.add_process(
                    f"turnos{n}", f"exec {python} -m celery -A config worker {argumentos} -n turnos{n}@%h"
                )
        try:
            gestor.loop()
        finally:
            detenidos = detener_servicios()
            if detenidos:
                self.stdout.write(f"Servicios embebidos detenidos: {', '.join(detenidos)}.")
        sys.exit(gestor.returncode or 0)
