"""El contrato de salida del motor de prefactibilidad, con tipos: lo que guarda `Analisis.resultado`,
devuelve `POST /api/analisis/evaluar/`, muestra el informe y leen las herramientas del asistente."""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

Clasificacion = Literal["NO_INGRESA", "DIA", "EIA"]
Severidad = str  # «critica», «alta» o «media» (la de la categoría de la capa)


class Fundamento(TypedDict):
    """Un artículo citado, resuelto contra el corpus (sin `fragmento_id` si no está cargado)."""

    norma: str
    articulo: str
    letra: str | None
    fragmento_id: int | None
    cita: str
    url: str
    # Fecha (ISO) de la versión del texto citado y el aviso de vigencia de su norma (DS 40 de 2014); los
    # análisis guardados antes de 2026-11-26 no los traen.
    fecha_version: NotRequired[str | None]
    advertencia_vigencia: NotRequired[str]


class Evidencia(TypedDict, total=False):
    """Por qué se concluye: un elemento de una capa (con distancia e intersección), una circunstancia
    declarada por el usuario o un área en que dijo estar (sin polígono)."""

    origen: Literal["capa", "circunstancia_declarada", "ubicacion_declarada"]
    circunstancia: str
    elemento_id: int
    elemento: str
    identificador: str
    categoria: str
    categoria_nombre: str
    capa: str
    capa_nombre: str
    fuente: str
    distancia_m: int
    interseccion_ha: float


class Efecto(TypedDict):
    """Un efecto del Art. 11 que obliga a un EIA (en la salida, `triggers`)."""

    letra: str
    descripcion: str
    severidad: Severidad
    evidencia: Evidencia
    fundamento: list[Fundamento]


class Alerta(TypedDict):
    """Algo que revisar que no es una causa: cercanía, o un efecto cuando el proyecto no ingresa."""

    severidad: Severidad
    mensaje: str
    evidencia: Evidencia


class DetalleTipologia(TypedDict):
    """Una tipología de ingreso (Art. 10 de la ley, Art. 3 del Reglamento) con su motivo."""

    tipologia: str
    motivo: str
    fundamento: list[Fundamento]
    # Si la regla que la decide quedó «revisar» (su texto cambió después de escrita), el aviso.
    aviso_regla: NotRequired[str]


class Umbral(TypedDict):
    """Una cantidad del proyecto frente al umbral de un literal del Art. 3 del DS 40, cumpla o no."""

    literal: str
    texto: str
    cumple: bool
    fundamento: list[Fundamento]
    aviso_regla: NotRequired[str]
    # Las palabras del literal que fijan el umbral («mayores a 3 MW»), tal como están escritas.
    exige: NotRequired[tuple[str, ...]]


class PermisoAplicable(TypedDict):
    """Un permiso ambiental sectorial (DS 40, Título VII) que traen las partes del proyecto, con lo que el
    catálogo leído del corpus dice de él."""

    articulo: str
    nombre: str
    tipo: str  # «mixto» o «ambiental»; vacío si el catálogo no está cargado
    tipo_nombre: str
    # Cada parte que lo trae y por qué: «depósito de relaves (declarado)».
    partes: list[str]
    requisito: str
    organo: str  # quién revisa sus contenidos, si el corpus lo dice
    guia: str  # guía trámite del SEA, si el corpus la trae
    guia_url: str
    # Cuándo aplica, si depende de la obra («si la obra regulariza o protege las riberas del cauce»).
    condicion: str
    fundamento: list[Fundamento]
    # Si el texto de su artículo cambió después de leído (catálogo en «revisar»), el aviso.
    aviso_catalogo: NotRequired[str]


class ComunaSugerida(TypedDict):
    codigo: str
    nombre: str


class Territorio(TypedDict, total=False):
    """Dónde cae el polígono (solo en un análisis completo con geometría)."""

    codigos_region: list[str]
    comuna_sugerida: ComunaSugerida | None


class ResultadoAnalisis(TypedDict):
    ingresa_seia: bool
    tipologias: list[str]
    clasificacion: Clasificacion
    triggers: list[Efecto]
    alertas: list[Alerta]
    advertencias: list[str]
    version_motor: str
    detalle_tipologias: list[DetalleTipologia]
    fundamento_clasificacion: list[Fundamento]
    resumen: str
    territorio: Territorio
    # Los análisis guardados antes de 2026-11-24 no lo traen.
    umbrales: NotRequired[list[Umbral]]
    # Los permisos ambientales sectoriales que traen sus partes y cada cantidad frente al umbral de un PAS
    # (los análisis guardados antes de 2026-11-27 no los traen).
    permisos: NotRequired[list[PermisoAplicable]]
    umbrales_permisos: NotRequired[list[Umbral]]
    # Referencia, no fundamento: la agregan otras apps a un análisis completo (`proyectos.referencias`).
    proyectos_similares_seia: NotRequired[list[dict[str, object]]]
