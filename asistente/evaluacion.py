"""Evaluación de la respuesta completa del asistente (texto, fuentes y clasificación del motor).

Formato y puntaje: `tests/fixtures/eval/README_respuestas.md`. Cada pregunta pasa por el mismo
camino que `POST /api/asistente/chat` (`turno_iniciar` → `turno_eventos`) con el motor sin conexión,
un usuario nuevo de rol lectura y sin la caché de herramientas; todo lo escrito se deshace al terminar.
Con `solo_busqueda`, se puntúan las primeras tres fuentes de `buscar_normativa` solas, para separar
la recuperación de la redacción.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import transaction
from django.test import override_settings

from asistente import services
from asistente.motores.reglas import consulta_de
from asistente.registro import Contexto, ejecutar, sin_cache
from asistente.turno.medicion import es_abstencion
from config.texto import sin_tildes
from normativa import busqueda as corpus
from normativa.busqueda import (
    COBERTURA_MINIMA,
    PUNTOS_PARA_ABSTENERSE,
    SIMILITUD_MINIMA,
    SenalesDeAbstencion,
)
from proyectos.roles import Rol, Usuario

TIPOS = ("normativa", "proyecto", "fuera_de_corpus")
CLASIFICACIONES = ("NO_INGRESA", "DIA", "EIA")
CITAS_PUNTUADAS = 3
INICIO = 400  # caracteres en que debe estar el hecho preguntado
NIVELES = ("bastante", "medianamente", "poco")
_SEGURIDAD = re.compile(r"Qué tan seguro estoy: (bastante|medianamente|poco)")
RECALL_BUSQUEDA = 5
# Cifras que una abstención no debe dar: porcentajes, montos, tasas («19 %», «$ 1.000», «3 UTM»).
_CIFRA = re.compile(r"\d[\d.,]*\s*(%|por ?ciento|utm|uf\b|pesos)|\$\s*\d", re.IGNORECASE)
_CLASIFICACION_DECLARADA = re.compile(r"\b(EIA|DIA|no ingresa|no requiere ingresar|no debe ingresar)\b")


class ConjuntoInvalido(ValueError):
    """El archivo no sigue el formato; el mensaje dice la línea y el campo."""


@dataclass(frozen=True)
class Item:
    id: str
    pregunta: str
    tipo: Literal["normativa", "proyecto", "fuera_de_corpus"]
    citas: list[dict[str, str]]
    hechos: list[str]
    clasificacion: str | None = None


@dataclass(frozen=True)
class Observada:
    """Lo que el asistente entregó: el texto, sus fuentes y, si se invocó el motor, su clasificación."""

    texto: str
    fuentes: list[dict[str, Any]]
    clasificacion_motor: str | None = None


@dataclass
class Puntaje:
    id: str
    tipo: str
    correcto: bool
    cita1: bool | None = None
    cita3: bool | None = None
    hechos: bool | None = None
    clasificacion: bool | None = None
    abstencion: bool | None = None
    abstuvo: bool = False  # respondió «sin base» (en una pregunta del corpus, es un error)
    # Si alguna cita esperada está entre los primeros `RECALL_BUSQUEDA` resultados de la búsqueda de
    # `buscar_normativa` (solo preguntas del corpus): la calidad de lo que Claude alcanza a leer.
    busqueda: bool | None = None
    clasificacion_obtenida: str | None = None
    fuentes: list[str] = field(default_factory=list)
    texto: str = ""
    # Las señales con que la búsqueda decide abstenerse (preguntas que no son de proyecto).
    senales: SenalesDeAbstencion | None = None
    # «bastante», «medianamente» o «poco», según la línea «Qué tan seguro estoy: …» (None si no la trae).
    seguridad: str | None = None
    palabras: int = 0
    # Si todos los hechos esperados están en los primeros `INICIO` caracteres (preguntas con hechos).
    hechos_al_inicio: bool | None = None


def leer_items(ruta: Path) -> list[Item]:
    """Lee el JSONL; una línea inválida es un error que dice cuál y por qué."""
    items = []
    for numero, linea in enumerate(ruta.read_text(encoding="utf-8").splitlines(), start=1):
        if not linea.strip():
            continue
        try:
            datos = json.loads(linea)
            item = Item(
                id=str(datos["id"]),
                pregunta=str(datos["pregunta"]),
                tipo=datos["tipo"],
                citas=list(datos.get("citas") or []),
                hechos=list(datos.get("hechos") or []),
                clasificacion=datos.get("clasificacion"),
            )
        except (json.JSONDecodeError, KeyError, TypeError) as error:
            raise ConjuntoInvalido(f"Línea {numero}: no es un ítem válido ({error}).") from None
        if item.tipo not in TIPOS:
            raise ConjuntoInvalido(
                f"Línea {numero}: tipo «{item.tipo}» desconocido (use {', '.join(TIPOS)})."
            )
        if item.tipo == "proyecto" and item.clasificacion not in CLASIFICACIONES:
            raise ConjuntoInvalido(f"Línea {numero}: un ítem «proyecto» necesita su clasificación esperada.")
        for patron in item.hechos:
            try:
                re.compile(patron)
            except re.error as error:
                raise ConjuntoInvalido(f"Línea {numero}: expresión inválida «{patron}» ({error}).") from None
        items.append(item)
    return items


# --- puntaje ----------------------------------------------------------------------------------


def puntuar(item: Item, observada: Observada) -> Puntaje:
    """Aplica los criterios del README al ítem; es correcto si pasan todos los que le aplican."""
    fuentes = observada.fuentes
    p = Puntaje(
        id=item.id,
        tipo=item.tipo,
        correcto=False,
        fuentes=[_cita_corta(f) for f in fuentes[:CITAS_PUNTUADAS]],
        texto=observada.texto,
    )
    criterios: list[bool] = []
    p.abstuvo = es_abstencion(observada.texto, fuentes)
    p.palabras = len(observada.texto.split())
    if m := _SEGURIDAD.search(observada.texto):
        p.seguridad = m.group(1)
    if item.tipo == "fuera_de_corpus":
        p.abstencion = p.abstuvo and not _CIFRA.search(observada.texto)
        criterios.append(p.abstencion)
    else:
        p.cita1 = any(cita_coincide(f, c) for f in fuentes[:1] for c in item.citas)
        p.cita3 = any(cita_coincide(f, c) for f in fuentes[:CITAS_PUNTUADAS] for c in item.citas)
        p.hechos = hechos_presentes(item.hechos, observada.texto)
        if item.hechos:
            p.hechos_al_inicio = hechos_presentes(item.hechos, observada.texto[:INICIO])
        criterios += [p.cita3, p.hechos]
    if item.tipo == "proyecto":
        p.clasificacion_obtenida = observada.clasificacion_motor or clasificacion_declarada(observada.texto)
        p.clasificacion = p.clasificacion_obtenida == item.clasificacion
        criterios.append(p.clasificacion)
    p.correcto = all(criterios)
    return p


def cita_coincide(fuente: dict[str, Any], esperada: dict[str, str]) -> bool:
    """Misma norma y artículo (normalizados) y, si la cita trae letra, la misma, una que sea prefijo
    de la otra en un punto (`i` ↔ `i.1`) o ninguna (el artículo completo)."""
    if _norma(fuente.get("norma", "")) != _norma(esperada["norma"]):
        return False
    if _norma(fuente.get("articulo", "")) != _norma(esperada["articulo"]):
        return False
    esperada_letra = (esperada.get("letra") or "").lower()
    letra = (fuente.get("letra") or "").lower()
    if not esperada_letra or not letra:
        return True
    return (
        letra == esperada_letra
        or letra.startswith(esperada_letra + ".")
        or esperada_letra.startswith(letra + ".")
    )


def hechos_presentes(patrones: list[str], texto: str) -> bool:
    """Todas las expresiones calzan, en el texto tal cual o sin tildes."""
    plano = sin_tildes(texto)
    return all(re.search(p, texto, re.IGNORECASE) or re.search(p, plano, re.IGNORECASE) for p in patrones)


def clasificacion_declarada(texto: str) -> str | None:
    """La primera clasificación que declara el texto («… se evalúa mediante una DIA»)."""
    if m := _CLASIFICACION_DECLARADA.search(texto):
        palabra = m.group(1)
        return palabra if palabra in ("EIA", "DIA") else "NO_INGRESA"
    return None


def _norma(texto: str) -> str:
    return " ".join(texto.lower().replace(".", "").split()).replace("ds ", "ds")


def _cita_corta(fuente: dict[str, Any]) -> str:
    letra = f" {fuente['letra']}" if fuente.get("letra") else ""
    return f"{fuente.get('norma', '')} {fuente.get('articulo', '')}{letra}".strip()


# --- ejecución --------------------------------------------------------------------------------


def evaluar(items: list[Item], *, solo_busqueda: bool = False) -> list[Puntaje]:
    """Puntúa cada ítem; nada de lo que escriben los turnos queda guardado."""
    with _sin_rastro(), override_settings(ASISTENTE_MOTOR="reglas"), sin_cache():
        puntajes = []
        for item in items:
            puntaje = puntuar(item, _observar(item, solo_busqueda=solo_busqueda))
            busqueda = corpus.buscar_normativa(consulta=consulta_de(item.pregunta), top_k=RECALL_BUSQUEDA)
            if item.tipo != "proyecto":
                puntaje.senales = busqueda.senales
            if item.tipo != "fuera_de_corpus":
                primeros = [
                    {"norma": r.norma, "articulo": r.articulo, "letra": r.letra} for r in busqueda.resultados
                ]
                puntaje.busqueda = any(cita_coincide(f, c) for f in primeros for c in item.citas)
            puntajes.append(puntaje)
        return puntajes


def _observar(item: Item, *, solo_busqueda: bool) -> Observada:
    if solo_busqueda:
        return Observada(texto="", fuentes=_buscar(item.pregunta, CITAS_PUNTUADAS))
    return turno_observado(usuario=_usuario_nuevo(), pregunta=item.pregunta)


def _buscar(pregunta: str, top_k: int) -> list[dict[str, Any]]:
    """Las fuentes que entrega la herramienta `buscar_normativa` (la misma que usan los motores)."""
    llamada = ejecutar(
        "buscar_normativa", {"consulta": pregunta, "top_k": top_k}, contexto=Contexto(_usuario_nuevo())
    )
    return [] if llamada["error"] else list(llamada["resultado"]["fuentes"])


def turno_observado(*, usuario: Usuario, pregunta: str) -> Observada:
    """Un turno completo por el camino del chat: el texto final, sus fuentes y la clasificación del
    motor de prefactibilidad si el turno lo invocó."""
    turno = services.turno_iniciar(usuario=usuario, mensaje=pregunta)
    final: dict[str, Any] = {}
    for evento in services.turno_eventos(turno):
        if evento.tipo == "done":
            final = evento.datos["mensaje"]
        elif evento.tipo == "error":
            return Observada(texto=evento.datos["mensaje"], fuentes=[])
    llamadas = turno.conversacion.mensajes.filter(pk=final["id"]).values_list("tool_calls", flat=True).first()
    return Observada(
        texto=final["contenido"],
        fuentes=final["fuentes"],
        clasificacion_motor=_clasificacion_del_motor(llamadas),
    )


def _clasificacion_del_motor(llamadas: list[dict[str, Any]] | None) -> str | None:
    for llamada in llamadas or []:
        resultado = llamada.get("resultado") or {}
        if llamada.get("herramienta") == "evaluar_proyecto" and resultado.get("clasificacion"):
            return str(resultado["clasificacion"])
    return None


def _usuario_nuevo() -> Usuario:
    usuario = get_user_model().objects.create_user(username=f"evaluacion-{uuid.uuid4().hex[:12]}")
    usuario.groups.add(Group.objects.get_or_create(name=Rol.LECTURA.grupo)[0])
    return usuario


class _Deshacer(Exception):
    pass


@contextmanager
def _sin_rastro() -> Iterator[None]:
    """Todo lo que se escribe adentro se deshace al salir (usuarios, conversaciones, llamadas)."""
    try:
        with transaction.atomic():
            yield
            raise _Deshacer
    except _Deshacer:
        pass


def _confianza_y_forma(puntajes: list[Puntaje]) -> dict[str, Any]:
    """Por nivel de «Qué tan seguro estoy»: cuántas respuestas lo llevan y cuántas de ellas son
    correctas; qué parte de las correctas lleva «bastante»; la mediana de palabras de las respuestas a
    preguntas del corpus; y en qué parte de las correctas el hecho preguntado está al inicio."""
    niveles = {}
    for nivel in (*NIVELES, None):
        grupo = [p for p in puntajes if p.seguridad == nivel and not (nivel is None and p.abstuvo)]
        correctos = sum(p.correcto for p in grupo)
        niveles[nivel or "sin_nivel"] = {
            "correctos": correctos,
            "total": len(grupo),
            "precision": round(correctos / len(grupo), 3) if grupo else None,
        }
    correctas = [p for p in puntajes if p.correcto and p.tipo != "fuera_de_corpus"]
    palabras = sorted(p.palabras for p in puntajes if p.tipo != "fuera_de_corpus")
    al_inicio = [p.hechos_al_inicio for p in correctas if p.hechos_al_inicio is not None]
    return {
        "por_seguridad": niveles,
        "correctas_con_bastante": round(sum(p.seguridad == "bastante" for p in correctas) / len(correctas), 3)
        if correctas
        else None,
        "mediana_palabras": palabras[len(palabras) // 2] if palabras else None,
        "hechos_al_inicio": round(sum(al_inicio) / len(al_inicio), 3) if al_inicio else None,
    }


def _precision_y_recall_de_abstencion(puntajes: list[Puntaje]) -> dict[str, float | None]:
    """Precisión: de las abstenciones, cuántas eran fuera de corpus; recall: de las preguntas fuera de
    corpus, cuántas se abstuvieron."""
    abstenciones = [p for p in puntajes if p.abstuvo]
    fuera = [p for p in puntajes if p.tipo == "fuera_de_corpus"]
    aciertos = sum(p.tipo == "fuera_de_corpus" for p in abstenciones)
    return {
        "abstencion_precision": round(aciertos / len(abstenciones), 3) if abstenciones else None,
        "abstencion_recall": round(aciertos / len(fuera), 3) if fuera else None,
    }


# Puntos de operación de la curva de abstención: puntos para abstenerse × cobertura mínima ×
# similitud mínima (0: sin la señal de similitud).
PUNTOS_DE_OPERACION = [
    (minimo, cobertura, similitud)
    for minimo in (1, 2, 3)
    for cobertura in (0.15, 0.21, 0.3)
    for similitud in (0.0, 0.835, 0.86, 0.87, 0.88)
]


def curva_de_abstencion(puntajes: list[Puntaje]) -> list[dict[str, Any]]:
    """Para cada punto de operación del clasificador de abstención (`SenalesDeAbstencion`): cuántas
    preguntas del corpus se abstendrían sin deber (falsas) y cuántas fuera de corpus no (omitidas).
    El punto en uso es el que marca `en_uso`."""
    medidos = [(p.tipo == "fuera_de_corpus", p.senales) for p in puntajes if p.senales is not None]
    en_uso = (PUNTOS_PARA_ABSTENERSE, COBERTURA_MINIMA, SIMILITUD_MINIMA)
    curva = []
    for minimo, cobertura, similitud in PUNTOS_DE_OPERACION:

        def abstiene(
            s: SenalesDeAbstencion,
            minimo: int = minimo,
            cobertura: float = cobertura,
            similitud: float = similitud,
        ) -> bool:
            return s.sin_evidencia or s.fuera_del_corpus(
                minimo=minimo, cobertura_minima=cobertura, similitud_minima=similitud
            )

        curva.append(
            {
                "puntos": minimo,
                "cobertura_minima": cobertura,
                "similitud_minima": similitud,
                "falsas": sum(not fuera and abstiene(senales) for fuera, senales in medidos),
                "omitidas": sum(fuera and not abstiene(senales) for fuera, senales in medidos),
                "en_uso": (minimo, cobertura, similitud) == en_uso,
            }
        )
    return curva


# --- resumen ----------------------------------------------------------------------------------


def resumen(puntajes: list[Puntaje]) -> dict[str, Any]:
    """Totales del README: ítems correctos (global y por tipo), cita@1, cita@3, hechos, clasificación
    y abstención correcta, más el recall@5 de la búsqueda; cada tasa sobre los ítems a los que aplica."""

    def tasa(valores: list[bool | None]) -> float | None:
        aplicables = [v for v in valores if v is not None]
        return round(sum(aplicables) / len(aplicables), 3) if aplicables else None

    por_tipo = {
        tipo: {"correctos": sum(p.correcto for p in grupo), "total": len(grupo)}
        for tipo in TIPOS
        if (grupo := [p for p in puntajes if p.tipo == tipo])
    }
    return {
        "correctos": sum(p.correcto for p in puntajes),
        "total": len(puntajes),
        "por_tipo": por_tipo,
        "cita1": tasa([p.cita1 for p in puntajes]),
        "cita3": tasa([p.cita3 for p in puntajes]),
        "hechos": tasa([p.hechos for p in puntajes]),
        "clasificacion": tasa([p.clasificacion for p in puntajes]),
        "abstencion": tasa([p.abstencion for p in puntajes]),
        "recall_busqueda": tasa([p.busqueda for p in puntajes]),
        **_precision_y_recall_de_abstencion(puntajes),
        "falsas_abstenciones": sum(p.abstuvo and p.tipo != "fuera_de_corpus" for p in puntajes),
        "del_corpus": sum(p.tipo != "fuera_de_corpus" for p in puntajes),
        "abstenciones_omitidas": sum(not p.abstuvo and p.tipo == "fuera_de_corpus" for p in puntajes),
        "fuera_de_corpus": sum(p.tipo == "fuera_de_corpus" for p in puntajes),
        "curva_abstencion": curva_de_abstencion(puntajes),
        **_confianza_y_forma(puntajes),
        "items": [asdict(p) for p in puntajes],
    }
