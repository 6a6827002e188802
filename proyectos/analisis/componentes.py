"""Partes de una faena que la hacen ingresar al SEIA por otras letras del Art. 10 de la Ley 19.300,
aunque su extracción quede bajo el umbral de la letra i): el mineroducto, la línea de alta tensión,
la central, la fundición, las obras sobre un glaciar, la turba. Cada umbral es una constante con el
texto del literal del Art. 3 del Reglamento del SEIA (DS 40/2012, texto de 2014) que la fija, y las
comparaciones respetan la redacción: «mayor a» y «superior a» son estrictos (>), «igual o superior a»
incluye el límite (≥); donde el literal no pone umbral («cualquiera sea», «toda extracción»), basta
con que la parte exista.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from decimal import Decimal

from proyectos.analisis.ingreso import Comparacion, comparar_con_umbral, numero_corto

# DS 40, Art. 3, literal a.5: «La ejecución de obras o actividades que impliquen alteración de las
# características del glaciar.» (sin umbral).
# DS 40, Art. 3, literal b.1: «líneas que conducen energía eléctrica con una tensión mayor a veintitrés
# kilovoltios (23 kV)».
LINEA_KV = Decimal(23)
# DS 40, Art. 3, literal c: «Centrales generadoras de energía mayores a 3 MW».
GENERACION_MW = Decimal(3)
# DS 40, Art. 3, literal i.6: «Se entenderá que toda extracción de turba tiene características
# industriales.» (sin umbral).
# DS 40, Art. 3, literal j: «Oleoductos, gasoductos, ductos mineros u otros análogos.» (sin umbral de
# longitud).
# DS 40, Art. 3, literal k.1: «Instalaciones fabriles cuya potencia instalada sea igual o superior a dos
# mil kilovoltios-ampere (2.000 KVA)».
POTENCIA_FABRIL_KVA = Decimal(2000)

# Campo del contrato → cómo se nombra en un error o un formulario.
ETIQUETAS = {
    "ducto_minero_km": "el largo del ducto minero (km)",
    "linea_transmision_kv": "la tensión de la línea de transmisión (kV)",
    "generacion_mw": "la potencia de la central generadora (MW)",
    "potencia_instalada_kva": "la potencia instalada de la fundición o instalación fabril (kVA)",
    "obras_en_glaciar": "si hay obras o actividades sobre un glaciar",
    "extraccion_turba": "si se extrae turba",
}
CAMPOS_SI_NO = ("obras_en_glaciar", "extraccion_turba")


@dataclass(frozen=True)
class Componentes:
    """Lo que la faena tiene además de su extracción; `None` / `False`: no lo tiene o no se dijo."""

    ducto_minero_km: Decimal | None = None
    linea_transmision_kv: Decimal | None = None
    generacion_mw: Decimal | None = None
    potencia_instalada_kva: Decimal | None = None
    obras_en_glaciar: bool = False
    extraccion_turba: bool = False

    def como_json(self) -> dict[str, float | int | bool]:
        """Solo lo dicho: un proyecto sin componentes guarda `{}`."""
        valores: dict[str, float | int | bool] = {}
        for campo in fields(self):
            valor = getattr(self, campo.name)
            if isinstance(valor, Decimal):
                valores[campo.name] = int(valor) if valor == valor.to_integral() else float(valor)
            elif valor is True:
                valores[campo.name] = True
        return valores


def comparaciones_de_componentes(componentes: Componentes) -> list[Comparacion]:
    """Cada parte dicha frente a su literal, cumpla o no (en el orden del Art. 3)."""
    c = componentes
    resultado: list[Comparacion] = []
    if c.obras_en_glaciar:
        resultado.append(
            Comparacion("a.5", "obras o actividades que alteran un glaciar (cualquier tamaño)", True)
        )
    resultado += comparar_con_umbral(
        "b.1",
        c.linea_transmision_kv,
        LINEA_KV,
        estricto=True,
        unidad="kV",
        prefijo="línea de transmisión de ",
    )
    resultado += comparar_con_umbral(
        "c", c.generacion_mw, GENERACION_MW, estricto=True, unidad="MW", prefijo="central generadora de "
    )
    if c.extraccion_turba:
        resultado.append(Comparacion("i.6", "extracción de turba (toda extracción es industrial)", True))
    if c.ducto_minero_km is not None and c.ducto_minero_km > 0:
        resultado.append(
            Comparacion(
                "j", f"ducto minero de {numero_corto(c.ducto_minero_km)} km (cualquier longitud)", True
            )
        )
    resultado += comparar_con_umbral(
        "k.1",
        c.potencia_instalada_kva,
        POTENCIA_FABRIL_KVA,
        unidad="kVA",
        prefijo="instalación fabril de ",
        sufijo=" instalados",
    )
    return resultado
