"""La secuencia de eventos de un turno: numera cada evento y emite fuentes, advertencias e inicio una
sola vez y en orden (lo que el servicio del turno hacía con cuatro cierres y un diccionario)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from uuid import UUID

from asistente.registro import Fuente
from asistente.turno.tipos import Evento, TipoEvento, Turno


class SecuenciaDeEventos:
    """Los eventos de un turno con ids crecientes; recuerda qué fuentes y advertencias ya envió."""

    def __init__(self, turno: Turno, *, mensaje_id: UUID) -> None:
        self.turno = turno
        self.mensaje_id = mensaje_id
        self.siguiente = turno.primer_evento
        self.llamadas = 0  # herramientas ya anunciadas
        self.advertencias = 0  # advertencias ya anunciadas
        self.iniciado = False  # si ya se envió `start` (el texto empezó a llegar)
        self.fuentes: list[Fuente] | None = None  # las últimas fuentes enviadas

    def evento(self, tipo: TipoEvento, datos: dict[str, Any]) -> Evento:
        evento = Evento(self.siguiente, tipo, datos)
        self.siguiente += 1
        return evento

    def fuentes_nuevas(self) -> Iterator[Evento]:
        if self.turno.contexto.fuentes != self.fuentes:
            self.fuentes = list(self.turno.contexto.fuentes)
            yield self.evento("sources", {"fuentes": self.fuentes})

    def advertencias_nuevas(self, advertencias: list[str]) -> Iterator[Evento]:
        if len(advertencias) > self.advertencias:
            self.advertencias = len(advertencias)
            yield self.evento("warnings", {"advertencias": advertencias})

    def inicio(self, advertencias: list[str]) -> Iterator[Evento]:
        """Antes del primer trozo de texto: fuentes, advertencias y `start`, una sola vez."""
        if not self.iniciado:
            self.iniciado = True
            yield from self.fuentes_nuevas()
            yield from self.advertencias_nuevas(advertencias)
            yield self.evento("start", {"mensaje_id": str(self.mensaje_id)})

    def herramienta(self, llamada: dict[str, Any]) -> Iterator[Evento]:
        """Una herramienta ejecutada y, si trajo fuentes citables, las fuentes del turno hasta aquí."""
        self.llamadas += 1
        yield self.evento("tool", llamada)
        if self.fuentes is not None or self.turno.contexto.fuentes:
            yield from self.fuentes_nuevas()
