"""¿Ingresa al SEIA? Tipologías mineras de la letra i) del Art. 10 de la Ley 19.300, desarrolladas en
los literales i.1–i.6 del Art. 3 del Reglamento del SEIA (DS 40/2012, texto de 2014).

Cada umbral es una constante con el texto que la fija; las comparaciones respetan la redacción:
«superior a» es estricto (>) y «igual o superior a» / «o más» incluyen el límite (≥). Donde la norma
distingue regiones, el norte es de Arica y Parinacota a Coquimbo y el resto es de Valparaíso a
Magallanes, incluida la Metropolitana.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

# Códigos CUT de «las Regiones de Arica y Parinacota a la Región de Coquimbo» (DS 40, Art. 3, i.2 e i.5.2).
REGIONES_NORTE = frozenset({"15", "01", "02", "03", "04"})

# DS 40, Art. 3, literal i.1: «capacidad de extracción de mineral es superior a cinco mil toneladas
# mensuales (5.000 t/mes)».
EXTRACCION_T_MES = Decimal(5000)
# DS 40, Art. 3, literal i.2: «cuarenta (40) o más plataformas… de Arica y Parinacota a Coquimbo, o
# veinte (20) o más plataformas… de Valparaíso a Magallanes…, incluida la Región Metropolitana».
PLATAFORMAS_NORTE, PLATAFORMAS_CENTRO_SUR = 40, 20
# DS 40, Art. 3, literal i.5.1 (pozos o canteras): «igual o superior a diez mil metros cúbicos
# mensuales (10.000 m³/mes), o a cien mil metros cúbicos (100.000 m³) totales…, o abarca una superficie
# total igual o mayor a cinco hectáreas (5 ha)».
ARIDOS_POZO_M3_MES, ARIDOS_POZO_M3_TOTAL, ARIDOS_POZO_HA = Decimal(10000), Decimal(100000), Decimal(5)
# DS 40, Art. 3, literal i.5.2 (cuerpo o curso de agua): «igual o superior a veinte mil metros cúbicos
# (20.000 m³) … de Arica y Parinacota a Coquimbo, o a cincuenta mil metros cúbicos (50.000 m³) … de
# Valparaíso a Magallanes…, incluida la Región Metropolitana».
ARIDOS_CAUCE_M3_NORTE, ARIDOS_CAUCE_M3_CENTRO_SUR = Decimal(20000), Decimal(50000)
# DS 40, Art. 3, literal i.5.3 (arena en playa): «igual o superior a cincuenta mil metros cúbicos».
ARIDOS_PLAYA_M3 = Decimal(50000)

TIPOS = (
    "explotacion",
    "prospeccion",
    "planta_procesamiento",
    "deposito_relaves",
    "botadero_esteriles",
    "aridos_pozo",
    "aridos_cauce",
    "aridos_playa",
    "hidrocarburos",
)

# Cantidad que cada tipo necesita para decidir (la validación de entrada exige al menos una).
CANTIDADES_REQUERIDAS: dict[str, tuple[str, ...]] = {
    "explotacion": ("capacidad_extraccion_t_mes",),
    "planta_procesamiento": ("capacidad_extraccion_t_mes",),
    "deposito_relaves": ("capacidad_extraccion_t_mes",),
    "botadero_esteriles": ("capacidad_extraccion_t_mes",),
    "prospeccion": ("plataformas",),
    "aridos_pozo": ("aridos_m3_mes", "aridos_m3_total", "superficie_ha"),
    "aridos_cauce": ("aridos_m3_total",),
    "aridos_playa": ("aridos_m3_total",),
    "hidrocarburos": (),
}


@dataclass(frozen=True)
class Cantidades:
    capacidad_extraccion_t_mes: Decimal | None = None
    plataformas: int | None = None
    aridos_m3_mes: Decimal | None = None
    aridos_m3_total: Decimal | None = None
    superficie_ha: Decimal | None = None


@dataclass(frozen=True)
class Tipologia:
    """Literal del Art. 3 del DS 40 que el proyecto cumple, y por qué."""

    literal: str
    motivo: str


@dataclass(frozen=True)
class Comparacion:
    """Una cantidad del proyecto frente al umbral de un literal, cumpla o no («15.000 m³ < 20.000 m³»)."""

    literal: str
    texto: str
    cumple: bool


def tipologias_de_ingreso(*, tipo: str, codigo_region: str, cantidades: Cantidades) -> list[Tipologia]:
    """Devuelve los literales de ingreso que el proyecto cumple (vacío: no ingresa por la letra i).

    Supone una entrada ya validada (tipo conocido, cantidades no negativas); una cantidad ausente no
    cumple ningún umbral.
    """
    cumplidas: dict[str, list[str]] = {}
    for c in comparaciones(tipo=tipo, codigo_region=codigo_region, cantidades=cantidades):
        if c.cumple:
            cumplidas.setdefault(c.literal, []).append(c.texto)
    return [Tipologia(literal, "; ".join(motivos)) for literal, motivos in cumplidas.items()]


# Los tipos cuyo umbral cambia con la región (i.2: 40 o 20 plataformas; i.5.2: 20.000 o 50.000 m³); en los
# demás, la región no cambia el resultado de la comparación.
TIPOS_CON_UMBRAL_REGIONAL = frozenset({"prospeccion", "aridos_cauce"})


def comparaciones(*, tipo: str, codigo_region: str, cantidades: Cantidades) -> list[Comparacion]:
    """Cada cantidad dada frente a su umbral (en el orden del literal), cumpla o no: lo que permite
    decir por qué un proyecto no ingresa, no solo por qué ingresa. Una cantidad ausente no se compara."""
    if tipo not in TIPOS:
        raise ValueError(f"Tipo de proyecto desconocido: «{tipo}».")
    norte = codigo_region in REGIONES_NORTE
    c = cantidades
    capacidad = c.capacidad_extraccion_t_mes
    if tipo in ("explotacion", "planta_procesamiento"):
        return comparar_con_umbral(
            "i.1", capacidad, EXTRACCION_T_MES, estricto=True, unidad="t/mes", prefijo="extracción de "
        )
    if tipo in ("deposito_relaves", "botadero_esteriles"):
        return comparar_con_umbral(
            "i.3",
            capacidad,
            EXTRACCION_T_MES,
            estricto=True,
            unidad="t/mes",
            prefijo="residuos de proyectos con extracción de ",
            sufijo=" (literal i.1)",
        )
    if tipo == "prospeccion":
        umbral = PLATAFORMAS_NORTE if norte else PLATAFORMAS_CENTRO_SUR
        if c.plataformas is None:
            return []
        cumple = c.plataformas >= umbral
        signo = "≥" if cumple else "<"
        return [Comparacion("i.2", f"{c.plataformas} plataformas {signo} {umbral} ({_zona(norte)})", cumple)]
    if tipo == "aridos_pozo":
        return [
            *comparar_con_umbral("i.5.1", c.aridos_m3_mes, ARIDOS_POZO_M3_MES, unidad="m³/mes"),
            *comparar_con_umbral(
                "i.5.1", c.aridos_m3_total, ARIDOS_POZO_M3_TOTAL, unidad="m³", sufijo=" totales"
            ),
            *comparar_con_umbral("i.5.1", c.superficie_ha, ARIDOS_POZO_HA, unidad="ha", sufijo=""),
        ]
    if tipo == "aridos_cauce":
        umbral_m3 = ARIDOS_CAUCE_M3_NORTE if norte else ARIDOS_CAUCE_M3_CENTRO_SUR
        return comparar_con_umbral(
            "i.5.2", c.aridos_m3_total, umbral_m3, unidad="m³", sufijo=f" en un cauce ({_zona(norte)})"
        )
    if tipo == "aridos_playa":
        return comparar_con_umbral(
            "i.5.3", c.aridos_m3_total, ARIDOS_PLAYA_M3, unidad="m³", sufijo=" de arena en playa"
        )
    return [Comparacion("i.4", "explotación de yacimientos de petróleo o gas", True)]  # hidrocarburos


def comparar_con_umbral(
    literal: str,
    valor: Decimal | None,
    umbral: Decimal,
    *,
    unidad: str,
    estricto: bool = False,
    prefijo: str = "",
    sufijo: str = "",
) -> list[Comparacion]:
    """«superior a» es estricto (>); «igual o superior a» incluye el límite (≥)."""
    if valor is None:
        return []
    cumple = _mayor(valor, umbral) if estricto else _al_menos(valor, umbral)
    signo = (">" if estricto else "≥") if cumple else ("≤" if estricto else "<")
    texto = f"{prefijo}{numero_corto(valor)} {unidad} {signo} {numero_corto(umbral)} {unidad}{sufijo}"
    return [Comparacion(literal, texto, cumple)]


def _zona(norte: bool) -> str:
    return "Arica y Parinacota a Coquimbo" if norte else "Valparaíso a Magallanes, incluida la RM"


def _mayor(valor: Decimal | None, umbral: Decimal) -> bool:
    return valor is not None and valor > umbral


def _al_menos(valor: Decimal | None, umbral: Decimal) -> bool:
    return valor is not None and valor >= umbral


def numero_corto(valor: Decimal | int | None) -> str:
    """5000 → «5.000»; con decimales solo si los tiene."""
    if valor is None:
        return "—"
    return numero_cl(valor, 0 if Decimal(valor) == Decimal(valor).to_integral() else 2)


def numero_json(valor: Decimal | None) -> float | int | None:
    """Una cantidad como la guarda el JSON del motor: 5000 → 5000; 12.5 → 12.5."""
    if valor is None:
        return None
    return int(valor) if valor == valor.to_integral() else float(valor)


def numero_cl(valor: Decimal | float, decimales: int = 0) -> str:
    """Número con separadores chilenos: 15000.5 → «15.000,50» (punto de miles, coma decimal)."""
    return f"{valor:,.{decimales}f}".replace(",", "X").replace(".", ",").replace("X", ".")
