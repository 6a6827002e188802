"""Datos de demostración: un cliente y cuatro proyectos reales junto a las capas incluidas, analizados,
para que una instalación nueva muestre la lista, el mapa, el informe y el contexto del chat con
contenido desde el primer ingreso. Los carga `make run` una vez (nunca la configuración de
producción); `manage.py demo --borrar` o la acción del admin los quitan.
"""

from __future__ import annotations

import json
from typing import Any

import shapely
from django.db import transaction
from django.utils import timezone
from shapely.geometry import mapping

from config.servicios import directorio_var
from proyectos.models import Cliente, Proyecto
from proyectos.services import analisis_ejecutar, proyecto_crear

CLIENTE_DEMO = "Minera Demostración (datos de ejemplo)"
# Cada uno cerca de elementos de las capas incluidas, para que el informe tenga evidencia real.
PROYECTOS_DEMO: list[dict[str, Any]] = [
    {  # intersecta el sitio prioritario Península de Mejillones: EIA por el Art. 11 letra d)
        "nombre": "Mina Península de Mejillones (demostración)",
        "region": "02",
        "tipo": "explotacion",
        "capacidad_extraccion_t_mes": 15000,
        "geometria": mapping(shapely.box(-70.555, -23.286, -70.545, -23.277)),
    },
    {  # a menos de un kilómetro del Parque Nacional Nevado Tres Cruces y del sitio Ramsar
        "nombre": "Prospección Laguna del Negro Francisco (demostración)",
        "region": "03",
        "tipo": "prospeccion",
        "plataformas": 45,
        "superficie_ha": 300,
        "geometria": mapping(shapely.box(-69.29, -27.49, -69.265, -27.47)),
    },
    {  # pozo de áridos en Pirque, a 1,8 km del Parque Nacional Río Clarillo
        "nombre": "Áridos Pirque (demostración)",
        "region": "13",
        "tipo": "aridos_pozo",
        "aridos_m3_mes": 12000,
        "aridos_m3_total": 500000,
        "geometria": mapping(shapely.box(-70.53, -33.745, -70.515, -33.735)),
    },
    {  # bajo el umbral del literal i.1: no ingresa
        "nombre": "Pequeña minería Andacollo (demostración)",
        "region": "04",
        "tipo": "explotacion",
        "capacidad_extraccion_t_mes": 3000,
        "geometria": mapping(shapely.box(-71.09, -30.24, -71.08, -30.23)),
    },
]


@transaction.atomic
def demo_cargar() -> list[Proyecto]:
    """Crea el cliente y los proyectos de demostración que falten, cada uno analizado. Idempotente:
    devuelve los creados ahora (ninguno si ya estaban)."""
    cliente, _ = Cliente.objects.get_or_create(nombre=CLIENTE_DEMO, defaults={"demo": True})
    creados = []
    for datos in PROYECTOS_DEMO:
        if Proyecto.objects.filter(cliente=cliente, nombre=datos["nombre"]).exists():
            continue
        proyecto = proyecto_crear(cliente=cliente, datos=datos)
        analisis_ejecutar(proyecto=proyecto)
        creados.append(proyecto)
    _marcar(cargada=True)
    return creados


def demo_cargar_primera_vez() -> list[Proyecto] | None:
    """Lo que hace `make run`: carga la demostración si nunca se cargó en esta instalación (si se
    borró, no vuelve). None si no correspondía."""
    if _marca().get("cargada"):
        return None
    return demo_cargar()


@transaction.atomic
def demo_borrar(clientes: Any = None) -> int:
    """Borra los clientes de demostración (todos, o los dados que lo sean) con sus proyectos y
    análisis; devuelve cuántos proyectos se borraron. La demostración no vuelve a cargarse sola."""
    demo = (clientes if clientes is not None else Cliente.objects.all()).filter(demo=True)
    proyectos = Proyecto.objects.filter(cliente__in=demo)
    cantidad = proyectos.count()
    proyectos.delete()
    demo.delete()
    return cantidad


def _marca() -> dict[str, Any]:
    archivo = directorio_var() / "demo.json"
    return json.loads(archivo.read_text()) if archivo.exists() else {}


def _marcar(*, cargada: bool) -> None:
    archivo = directorio_var() / "demo.json"
    archivo.parent.mkdir(parents=True, exist_ok=True)
    archivo.write_text(
        json.dumps({"cargada": cargada, "fecha": timezone.now().isoformat(timespec="seconds")})
    )
