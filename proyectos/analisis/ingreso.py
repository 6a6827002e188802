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


def tipologias_de_ingreso(*, tipo: str, codigo_region: str, cantidades: Cantidades) -> list[Tipologia]:
    """Devuelve los literales de ingreso que el proyecto cumple (vacío: no ingresa por la letra i).

    Supone una entrada ya validada (tipo conocido, cantidades no negativas); una cantidad ausente no
    cumple ningún umbral.
    """
    if tipo not in TIPOS:
        raise ValueError(f"Tipo de proyecto desconocido: «{tipo}».")
    norte = codigo_region in REGIONES_NORTE
    return [t for t in _reglas(tipo, norte, cantidades) if t is not None]


def _reglas(tipo: str, norte: bool, c: Cantidades) -> list[Tipologia | None]:
    capacidad = c.capacidad_extraccion_t_mes
    if tipo in ("explotacion", "planta_procesamiento"):
        return [
            _si(
                _mayor(capacidad, EXTRACCION_T_MES),
                "i.1",
                f"extracción de {_n(capacidad)} t/mes > 5.000 t/mes",
            )
        ]
    if tipo in ("deposito_relaves", "botadero_esteriles"):
        return [
            _si(
                _mayor(capacidad, EXTRACCION_T_MES),
                "i.3",
                f"residuos de proyectos con extracción de {_n(capacidad)} t/mes > 5.000 t/mes (literal i.1)",
            )
        ]
    if tipo == "prospeccion":
        umbral = PLATAFORMAS_NORTE if norte else PLATAFORMAS_CENTRO_SUR
        return [
            _si(
                c.plataformas is not None and c.plataformas >= umbral,
                "i.2",
                f"{c.plataformas} plataformas ≥ {umbral} ({_zona(norte)})",
            )
        ]
    if tipo == "aridos_pozo":
        motivos = [
            motivo
            for cumple, motivo in (
                (
                    _al_menos(c.aridos_m3_mes, ARIDOS_POZO_M3_MES),
                    f"{_n(c.aridos_m3_mes)} m³/mes ≥ 10.000 m³/mes",
                ),
                (
                    _al_menos(c.aridos_m3_total, ARIDOS_POZO_M3_TOTAL),
                    f"{_n(c.aridos_m3_total)} m³ ≥ 100.000 m³ totales",
                ),
                (_al_menos(c.superficie_ha, ARIDOS_POZO_HA), f"{_n(c.superficie_ha)} ha ≥ 5 ha"),
            )
            if cumple
        ]
        return [_si(bool(motivos), "i.5.1", "; ".join(motivos))]
    if tipo == "aridos_cauce":
        umbral_m3 = ARIDOS_CAUCE_M3_NORTE if norte else ARIDOS_CAUCE_M3_CENTRO_SUR
        return [
            _si(
                _al_menos(c.aridos_m3_total, umbral_m3),
                "i.5.2",
                f"{_n(c.aridos_m3_total)} m³ ≥ {_n(umbral_m3)} m³ en un cauce ({_zona(norte)})",
            )
        ]
    if tipo == "aridos_playa":
        return [
            _si(
                _al_menos(c.aridos_m3_total, ARIDOS_PLAYA_M3),
                "i.5.3",
                f"{_n(c.aridos_m3_total)} m³ ≥ 50.000 m³ de arena en playa",
            )
        ]
    return [Tipologia("i.4", "explotación de yacimientos de petróleo o gas")]  # hidrocarburos


def _zona(norte: bool) -> str:
    return "Arica y Parinacota a Coquimbo" if norte else "Valparaíso a Magallanes, incluida la RM"


def _si(cumple: bool, literal: str, motivo: str) -> Tipologia | None:
    return Tipologia(literal, motivo) if cumple else None


def _mayor(valor: Decimal | None, umbral: Decimal) -> bool:
    return valor is not None and valor > umbral


def _al_menos(valor: Decimal | None, umbral: Decimal) -> bool:
    return valor is not None and valor >= umbral


def _n(valor: Decimal | int | None) -> str:
    """5000 → «5.000»; con decimales solo si los tiene."""
    if valor is None:
        return "—"
    return numero_cl(valor, 0 if Decimal(valor) == Decimal(valor).to_integral() else 2)


def numero_cl(valor: Decimal | float, decimales: int = 0) -> str:
    """Número con separadores chilenos: 15000.5 → «15.000,50» (punto de miles, coma decimal)."""
    return f"{valor:,.{decimales}f}".replace(",", "X").replace(".", ",").replace("X", ".")
