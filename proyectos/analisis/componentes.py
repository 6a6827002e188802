"""Partes de una faena que la hacen ingresar al SEIA por otras letras del Art. 10 de la Ley 19.300,
aunque su extracción quede bajo el umbral de la letra i): el mineroducto, la línea de alta tensión,
la central, la fundición, las obras hidráulicas, las obras sobre un glaciar, la turba, los explosivos
y demás sustancias peligrosas. Además, las partes que traen un permiso ambiental sectorial (PAS) sin cambiar
el ingreso: el depósito de relaves, el botadero, la planta de aguas servidas, la bodega de residuos
peligrosos, la captura de fauna, el rescate arqueológico, las obras en cauces… (`PAS_DE_CAMPO`; las reglas,
en `permisos.py`). Cada umbral es una constante con el
texto del literal del Art. 3 del Reglamento del SEIA (DS 40/2012, texto de 2014) que la fija, y las
comparaciones respetan la redacción: «mayor a» y «superior a» son estrictos (>), «igual o superior a»
incluye el límite (≥); donde el literal no pone umbral («cualquiera sea», «toda extracción»), basta
con que la parte exista.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from decimal import Decimal

from proyectos.analisis.ingreso import (
    REGIONES_NORTE,
    Comparacion,
    comparar_con_umbral,
    numero_corto,
    numero_json,
)

# DS 40, Art. 3, literal a.1: «Presas cuyo muro tenga una altura superior a cinco metros (5 m) … o que
# generen un embalse con una capacidad superior a cincuenta mil metros cúbicos (50.000 m3)».
PRESA_ALTURA_M, EMBALSE_M3 = Decimal(5), Decimal(50000)
# DS 40, Art. 3, literal a.2.1: «Vegas y bofedales ubicados en las Regiones de Arica y Parinacota,
# Tarapacá y Antofagasta, cualquiera sea su superficie de terreno a recuperar y/o afectar».
REGIONES_VEGAS = frozenset({"15", "01", "02"})
# DS 40, Art. 3, literal a.2.2: «Suelos "ñadis", cuya superficie de terreno a recuperar y/o afectar sea igual
# o superior a doscientas hectáreas (200 ha)». Literal a.2.3: «Turberas.» (sin umbral).
NADIS_HA = Decimal(200)
# DS 40, Art. 3, literal a.2.4: cuerpos naturales de aguas superficiales (lagos, lagunas, vegas,
# humedales, bofedales…) «igual o superior a diez hectáreas (10 ha), tratándose de las Regiones de Arica y
# Parinacota a la Región de Coquimbo; o a veinte hectáreas (20 ha), tratándose de las Regiones de Valparaíso
# a la Región del Maule, incluida la Región Metropolitana…; o a treinta hectáreas (30 ha), tratándose de las
# Regiones del Bío Bío a la Región de Magallanes». Ñuble (16) era parte del Bío Bío en el texto de 2014.
DRENAJE_HA = {"norte": Decimal(10), "centro": Decimal(20), "sur": Decimal(30)}
REGIONES_VALPARAISO_A_MAULE = frozenset({"05", "13", "06", "07"})
# DS 40, Art. 3, literal a.3: dragado de cuerpos de aguas continentales «igual o superior a veinte mil
# metros cúbicos (20.000 m³) … de las Regiones de Arica y Parinacota a la Región de Atacama, o … cincuenta
# mil metros cúbicos (50.000 m³) … de las Regiones de Coquimbo a la Región de Magallanes».
DRAGADO_M3_NORTE, DRAGADO_M3_RESTO = Decimal(20000), Decimal(50000)
REGIONES_ARICA_A_ATACAMA = frozenset({"15", "01", "02", "03"})
# DS 40, Art. 3, literal a.4: defensa o alteración de un cuerpo o curso de aguas continentales «tal que se
# movilice una cantidad igual o superior a cincuenta mil metros cúbicos de material (50.000 m³), tratándose
# de las Regiones de Arica y Parinacota a la Región de Coquimbo, o cien mil metros cúbicos (100.000 m³),
# tratándose de las Regiones de Valparaíso a la Región de Magallanes».
CAUCE_M3_NORTE, CAUCE_M3_RESTO = Decimal(50000), Decimal(100000)
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
# DS 40, Art. 3, literal o.4: «Plantas de tratamiento de aguas de origen domiciliario, que atiendan a una
# población igual o mayor a dos mil quinientos (2.500) habitantes» (la planta del campamento atiende a su
# dotación).
AGUAS_SERVIDAS_HABITANTES = Decimal(2500)
# DS 40, Art. 3, letra ñ: producción, almacenamiento, transporte, disposición o reutilización habituales de
# sustancias peligrosas. Por clase, la producción, disposición o reutilización «que se realice durante un
# semestre o más … en una cantidad igual o superior a» tantos kg/día, y la «capacidad de almacenamiento …
# igual o superior a» tantos kg (ñ.1 tóxicas 10.000 kg/día y 30.000 kg; ñ.2 explosivas 2.500 kg/día y
# 2.500 kg; ñ.3 inflamables 80.000 kg/día y 80.000 kg; ñ.4 corrosivas o reactivas 120.000 kg/día y
# 120.000 kg). ñ.5: transporte terrestre «durante un semestre o más, en una cantidad igual o superior a
# cuatrocientas toneladas diarias (400 t/día)».
SUSTANCIAS: dict[str, tuple[str, str, Decimal, Decimal]] = {
    # clase → (literal, nombre, kg/día, kg de almacenamiento)
    "toxicas": ("ñ.1", "sustancias tóxicas", Decimal(10000), Decimal(30000)),
    "explosivos": ("ñ.2", "sustancias explosivas", Decimal(2500), Decimal(2500)),
    "inflamables": ("ñ.3", "sustancias inflamables", Decimal(80000), Decimal(80000)),
    "corrosivas": ("ñ.4", "sustancias corrosivas o reactivas", Decimal(120000), Decimal(120000)),
}
TRANSPORTE_SUSTANCIAS_T_DIA = Decimal(400)
SEMESTRE_MESES = Decimal(6)
# ñ.6 y ñ.7 (radiactivas): el umbral son los límites A2 / 5000 A1 del DS 12/1985 del Ministerio de Minería,
# que el corpus no trae; quien evalúa declara si los supera.

# Código de Aguas (DFL 1.122 de 1981), Art. 294 b): requieren aprobación de la DGA «los acueductos que
# conduzcan más de dos metros cúbicos por segundo». El DS 40 lo nombra sin transcribirlo (Art. 3 letra a y
# Art. 155) y el corpus no trae el Código de Aguas: quien evalúa puede verificarlo en LeyChile.
ACUEDUCTO_M3_S = Decimal(2)

# DS 40, Art. 3, literal o.7: «Sistemas de tratamiento y/o disposición de residuos industriales líquidos,
# que cumplan al menos alguna de las siguientes condiciones: o.7.1 Contemplen dentro de sus instalaciones
# lagunas de estabilización; o.7.2 Que sus efluentes se usen para el riego, infiltración, aspersión y
# humectación de terrenos o caminos; o.7.3 Que den servicio de tratamiento a residuos provenientes de
# terceros» (sin umbral; la o.7.4, la carga contaminante, pide una medición que el motor no recibe).
_RILES = (
    ("riles_lagunas_estabilizacion", "o.7.1", "con lagunas de estabilización"),
    ("riles_riego_o_infiltracion", "o.7.2", "cuyos efluentes se usan para riego, infiltración o humectación"),
    ("riles_de_terceros", "o.7.3", "que recibe residuos de terceros"),
)

# Ley 19.300, Art. 10, letra s: «Ejecución de obras o actividades que puedan significar una alteración
# física o química … de humedales que se encuentran total o parcialmente dentro del límite urbano» (texto
# vigente; la letra s del DS 40 de 2014 es otra: cotos de caza).

# Campo del contrato → cómo se nombra en un error o un formulario.
ETIQUETAS = {
    "presa_altura_m": "la altura del muro de la presa o tranque de agua (m)",
    "embalse_m3": "la capacidad del embalse (m³)",
    "vegas_bofedales_ha": "la superficie de vegas o bofedales a drenar o afectar (ha)",
    "humedal_drenado_ha": "la superficie de lagunas, humedales u otros cuerpos de agua a drenar (ha)",
    "desecacion_vegas_bofedales": "si se drenan o secan vegas o bofedales (dicho sin su superficie)",
    "dragado_m3": "el material a dragar de cuerpos de agua continentales (m³)",
    "cauce_movido_m3": "el material a mover al defender o alterar un cauce (m³)",
    "ducto_minero_km": "el largo del ducto minero (km)",
    "linea_transmision_kv": "la tensión de la línea de transmisión (kV)",
    "generacion_mw": "la potencia de la central generadora (MW)",
    "potencia_instalada_kva": "la potencia instalada de la fundición o instalación fabril (kVA)",
    "nadis_ha": "la superficie de suelos ñadis a drenar o afectar (ha)",
    "drenaje_turberas": "si se drenan o desecan turberas",
    "toxicas_kg_dia": "la producción, disposición o reutilización de sustancias tóxicas (kg/día)",
    "toxicas_almacenamiento_kg": "la capacidad de almacenamiento de sustancias tóxicas (kg)",
    "explosivos_kg_dia": "la producción, disposición o reutilización de explosivos (kg/día)",
    "explosivos_almacenamiento_kg": "la capacidad de almacenamiento de explosivos, p. ej. polvorines (kg)",
    "inflamables_kg_dia": "la producción, disposición o reutilización de sustancias inflamables (kg/día)",
    "inflamables_almacenamiento_kg": "la capacidad de almacenamiento de sustancias inflamables (kg)",
    "corrosivas_kg_dia": "la producción, disposición o reutilización de sustancias corrosivas o reactivas "
    "(kg/día)",
    "corrosivas_almacenamiento_kg": "la capacidad de almacenamiento de sustancias corrosivas o reactivas "
    "(kg)",
    "transporte_sustancias_t_dia": "el transporte terrestre de sustancias peligrosas (t/día)",
    "sustancias_meses": "cuántos meses se producen o transportan las sustancias peligrosas",
    "radiactivas_sobre_limites": "si se producen, almacenan o usan sustancias radiactivas sobre los límites "
    "A2 (o 5000 A1) del DS 12/1985, semanalmente y por más de seis meses",
    "transporte_radiactivo_multilateral": "si se transportan por tierra sustancias radiactivas que "
    "requerirían aprobación multilateral, semanalmente y por más de seis meses",
    "obras_en_glaciar": "si hay obras o actividades sobre un glaciar",
    "extraccion_turba": "si se extrae turba",
    "obras_en_humedal_urbano": "si hay obras en un humedal urbano",
    "riles_lagunas_estabilizacion": "si el tratamiento de residuos industriales líquidos (riles) tiene "
    "lagunas de estabilización",
    "riles_riego_o_infiltracion": "si los efluentes tratados de riles se usan para riego, infiltración, "
    "aspersión o humectación de terrenos o caminos",
    "riles_de_terceros": "si el tratamiento de riles recibe residuos líquidos de terceros",
    "aguas_servidas_habitantes": "la población que atiende la planta de tratamiento de aguas servidas "
    "(habitantes; en un campamento, su dotación)",
    # Partes que traen un permiso ambiental sectorial (Título VII del DS 40).
    "deposito_relaves": "si hay un depósito de relaves (tranque, embalse o relaves espesados, en pasta o "
    "filtrados)",
    "botadero_esteriles": "si hay un botadero de estériles o una acumulación de mineral",
    "planta_aguas_servidas": "si hay obras para tratar o disponer aguas servidas (p. ej. la planta del "
    "campamento o una fosa séptica)",
    "tratamiento_residuos_liquidos": "si hay obras para evacuar, tratar o disponer residuos industriales o "
    "mineros líquidos (riles)",
    "sitio_residuos": "si hay un sitio para acumular, tratar o disponer basuras y desperdicios (residuos no "
    "peligrosos)",
    "relleno_sanitario": "si hay un relleno sanitario",
    "bodega_residuos_peligrosos": "si hay un sitio de almacenamiento de residuos peligrosos (bodega de "
    "respel)",
    "transporte_residuos_peligrosos": "si el proyecto transporta residuos peligrosos con su propio sistema",
    "eliminacion_residuos_peligrosos": "si hay una instalación de eliminación de residuos peligrosos",
    "reciclaje_residuos_peligrosos": "si hay un sitio de reciclaje de residuos peligrosos",
    "captura_fauna": "si se capturan o relocalizan ejemplares de especies protegidas de fauna (rescate y "
    "relocalización)",
    "excavacion_arqueologica": "si hay excavaciones o rescate arqueológico, antropológico o paleontológico",
    "intervencion_monumento_historico": "si se interviene un monumento histórico o se construye en sus "
    "alrededores",
    "corta_bosque_nativo": "si se corta bosque nativo",
    "corta_plantaciones": "si se cortan plantaciones en terrenos de aptitud preferentemente forestal",
    "intervencion_flora_clasificada": "si se intervienen especies vegetales nativas clasificadas (Art. 37 de "
    "la Ley 19.300) que forman parte de un bosque nativo, o su hábitat",
    "corta_formaciones_xerofiticas": "si se cortan, destruyen o descepan formaciones xerofíticas",
    "acueducto_m3_s": "el caudal del acueducto o canal de agua (m³/s)",
    "sifon_o_canoa": "si hay sifones o canoas que crucen cauces naturales",
    "modificacion_cauce": "si se modifica un cauce (cambio de trazado, obras dentro del cauce)",
    "defensa_cauce": "si hay obras de regularización o defensa de cauces naturales",
    "recarga_acuiferos": "si hay obras de recarga artificial de acuíferos",
    "construcciones_fuera_limite_urbano": "si hay construcciones fuera de los límites urbanos (campamento, "
    "oficinas, talleres) o se subdividen terrenos rurales",
}
# Las partes cuyo umbral cambia con la región (a.2.1, a.2.4, a.3, a.4); las demás valen igual en todo el país.
COMPONENTES_CON_UMBRAL_REGIONAL = frozenset(
    {
        "vegas_bofedales_ha",
        "desecacion_vegas_bofedales",
        "humedal_drenado_ha",
        "dragado_m3",
        "cauce_movido_m3",
    }
)
# Campo → literal que lo evalúa (para la ayuda de formularios y de la API).
LITERAL_DE_CAMPO = {
    "presa_altura_m": "a.1",
    "embalse_m3": "a.1",
    "vegas_bofedales_ha": "a.2.1 en Arica y Parinacota, Tarapacá y Antofagasta; a.2.4 en el resto",
    "humedal_drenado_ha": "a.2.4",
    "desecacion_vegas_bofedales": "a.2.1 (Arica y Parinacota, Tarapacá y Antofagasta)",
    "dragado_m3": "a.3",
    "cauce_movido_m3": "a.4",
    "ducto_minero_km": "j",
    "linea_transmision_kv": "b.1",
    "generacion_mw": "c",
    "potencia_instalada_kva": "k.1",
    "nadis_ha": "a.2.2",
    "drenaje_turberas": "a.2.3",
    "toxicas_kg_dia": "ñ.1",
    "toxicas_almacenamiento_kg": "ñ.1",
    "explosivos_kg_dia": "ñ.2",
    "explosivos_almacenamiento_kg": "ñ.2",
    "inflamables_kg_dia": "ñ.3",
    "inflamables_almacenamiento_kg": "ñ.3",
    "corrosivas_kg_dia": "ñ.4",
    "corrosivas_almacenamiento_kg": "ñ.4",
    "transporte_sustancias_t_dia": "ñ.5",
    "sustancias_meses": "ñ.1 a ñ.5 (un semestre o más)",
    "radiactivas_sobre_limites": "ñ.6",
    "transporte_radiactivo_multilateral": "ñ.7",
    "obras_en_glaciar": "a.5",
    "extraccion_turba": "i.6",
    "obras_en_humedal_urbano": "s de la Ley 19.300",
    "aguas_servidas_habitantes": "o.4",
    "riles_lagunas_estabilizacion": "o.7.1",
    "riles_riego_o_infiltracion": "o.7.2",
    "riles_de_terceros": "o.7.3",
    "acueducto_m3_s": "a (acueductos del Art. 294 del Código de Aguas)",
}
# Campo → artículo del DS 40 del permiso ambiental sectorial que trae (las reglas, en `permisos.py`).
PAS_DE_CAMPO: dict[str, tuple[int, ...]] = {
    "presa_altura_m": (155,),
    "embalse_m3": (155,),
    "cauce_movido_m3": (156, 157),
    "deposito_relaves": (135,),
    "botadero_esteriles": (136,),
    "planta_aguas_servidas": (138,),
    "aguas_servidas_habitantes": (138,),
    "riles_lagunas_estabilizacion": (139,),
    "riles_riego_o_infiltracion": (139,),
    "riles_de_terceros": (139,),
    "tratamiento_residuos_liquidos": (139,),
    "sitio_residuos": (140,),
    "relleno_sanitario": (141,),
    "bodega_residuos_peligrosos": (142,),
    "transporte_residuos_peligrosos": (143,),
    "eliminacion_residuos_peligrosos": (144,),
    "reciclaje_residuos_peligrosos": (145,),
    "captura_fauna": (146,),
    "excavacion_arqueologica": (132,),
    "intervencion_monumento_historico": (131,),
    "corta_bosque_nativo": (148,),
    "corta_plantaciones": (149,),
    "intervencion_flora_clasificada": (150,),
    "corta_formaciones_xerofiticas": (151,),
    "acueducto_m3_s": (155,),
    "sifon_o_canoa": (155,),
    "modificacion_cauce": (156,),
    "defensa_cauce": (157,),
    "recarga_acuiferos": (158,),
    "construcciones_fuera_limite_urbano": (160,),
}
# Las partes que solo traen un permiso (no cambian el ingreso): en los formularios van en su propio grupo.
SOLO_PERMISO = tuple(campo for campo in PAS_DE_CAMPO if campo not in LITERAL_DE_CAMPO)

CAMPOS_SI_NO = (
    "drenaje_turberas",
    "desecacion_vegas_bofedales",
    "radiactivas_sobre_limites",
    "transporte_radiactivo_multilateral",
    "obras_en_glaciar",
    "extraccion_turba",
    "obras_en_humedal_urbano",
    "riles_lagunas_estabilizacion",
    "riles_riego_o_infiltracion",
    "riles_de_terceros",
    *(campo for campo in SOLO_PERMISO if campo != "acueducto_m3_s"),
)


@dataclass(frozen=True)
class Componentes:
    """Lo que la faena tiene además de su extracción; `None` / `False`: no lo tiene o no se dijo."""

    presa_altura_m: Decimal | None = None
    embalse_m3: Decimal | None = None
    vegas_bofedales_ha: Decimal | None = None
    humedal_drenado_ha: Decimal | None = None
    desecacion_vegas_bofedales: bool = False
    dragado_m3: Decimal | None = None
    cauce_movido_m3: Decimal | None = None
    ducto_minero_km: Decimal | None = None
    linea_transmision_kv: Decimal | None = None
    generacion_mw: Decimal | None = None
    potencia_instalada_kva: Decimal | None = None
    nadis_ha: Decimal | None = None
    drenaje_turberas: bool = False
    toxicas_kg_dia: Decimal | None = None
    toxicas_almacenamiento_kg: Decimal | None = None
    explosivos_kg_dia: Decimal | None = None
    explosivos_almacenamiento_kg: Decimal | None = None
    inflamables_kg_dia: Decimal | None = None
    inflamables_almacenamiento_kg: Decimal | None = None
    corrosivas_kg_dia: Decimal | None = None
    corrosivas_almacenamiento_kg: Decimal | None = None
    transporte_sustancias_t_dia: Decimal | None = None
    sustancias_meses: Decimal | None = None
    radiactivas_sobre_limites: bool = False
    transporte_radiactivo_multilateral: bool = False
    obras_en_glaciar: bool = False
    extraccion_turba: bool = False
    obras_en_humedal_urbano: bool = False
    aguas_servidas_habitantes: Decimal | None = None
    riles_lagunas_estabilizacion: bool = False
    riles_riego_o_infiltracion: bool = False
    riles_de_terceros: bool = False
    deposito_relaves: bool = False
    botadero_esteriles: bool = False
    planta_aguas_servidas: bool = False
    tratamiento_residuos_liquidos: bool = False
    sitio_residuos: bool = False
    relleno_sanitario: bool = False
    bodega_residuos_peligrosos: bool = False
    transporte_residuos_peligrosos: bool = False
    eliminacion_residuos_peligrosos: bool = False
    reciclaje_residuos_peligrosos: bool = False
    captura_fauna: bool = False
    excavacion_arqueologica: bool = False
    intervencion_monumento_historico: bool = False
    corta_bosque_nativo: bool = False
    corta_plantaciones: bool = False
    intervencion_flora_clasificada: bool = False
    corta_formaciones_xerofiticas: bool = False
    acueducto_m3_s: Decimal | None = None
    sifon_o_canoa: bool = False
    modificacion_cauce: bool = False
    defensa_cauce: bool = False
    recarga_acuiferos: bool = False
    construcciones_fuera_limite_urbano: bool = False

    def como_json(self) -> dict[str, float | int | bool]:
        """Solo lo dicho: un proyecto sin componentes guarda `{}`."""
        valores: dict[str, float | int | bool] = {}
        for campo in fields(self):
            valor = getattr(self, campo.name)
            if valor is True:
                valores[campo.name] = True
            elif (numero := numero_json(valor if isinstance(valor, Decimal) else None)) is not None:
                valores[campo.name] = numero
        return valores


def comparaciones_de_componentes(componentes: Componentes, *, codigo_region: str) -> list[Comparacion]:
    """Cada parte dicha frente a su literal, cumpla o no (en el orden del Art. 3); los umbrales de las
    obras hidráulicas dependen de la región."""
    c = componentes
    resultado: list[Comparacion] = [
        *comparar_con_umbral(
            "a.1", c.presa_altura_m, PRESA_ALTURA_M, estricto=True, unidad="m", prefijo="muro de presa de "
        ),
        *comparar_con_umbral(
            "a.1", c.embalse_m3, EMBALSE_M3, estricto=True, unidad="m³", prefijo="embalse de "
        ),
        # DS 40, Art. 3, letra a: «Acueductos … que deban someterse a la autorización establecida en el
        # artículo 294 del Código de Aguas» (su letra b: los que conducen más de 2 m³/s, la misma regla del
        # PAS 155).
        *comparar_con_umbral(
            "a",
            c.acueducto_m3_s,
            ACUEDUCTO_M3_S,
            estricto=True,
            unidad="m³/s",
            prefijo="acueducto de ",
            sufijo=" (Art. 294 b del Código de Aguas)",
        ),
        *_drenajes(c, codigo_region),
    ]
    norte = codigo_region in REGIONES_ARICA_A_ATACAMA
    resultado += comparar_con_umbral(
        "a.3",
        c.dragado_m3,
        DRAGADO_M3_NORTE if norte else DRAGADO_M3_RESTO,
        unidad="m³",
        prefijo="dragado de ",
        sufijo=" (Arica y Parinacota a Atacama)" if norte else " (Coquimbo a Magallanes)",
    )
    norte = codigo_region in REGIONES_NORTE
    resultado += comparar_con_umbral(
        "a.4",
        c.cauce_movido_m3,
        CAUCE_M3_NORTE if norte else CAUCE_M3_RESTO,
        unidad="m³",
        prefijo="material movido en un cauce: ",
        sufijo=" (Arica y Parinacota a Coquimbo)" if norte else " (Valparaíso a Magallanes)",
    )
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
    resultado += _sustancias(c)
    resultado += comparar_con_umbral(
        "o.4",
        c.aguas_servidas_habitantes,
        AGUAS_SERVIDAS_HABITANTES,
        unidad="habitantes",
        prefijo="planta de aguas servidas que atiende a ",
    )
    for campo, literal, texto in _RILES:
        if getattr(c, campo):
            resultado.append(Comparacion(literal, f"tratamiento de riles {texto} (cualquier caudal)", True))
    if c.obras_en_humedal_urbano:
        resultado.append(
            Comparacion("s", "obras o actividades en un humedal urbano (cualquier tamaño)", True)
        )
    return resultado


def _drenajes(c: Componentes, codigo_region: str) -> list[Comparacion]:
    """Vegas y bofedales del norte grande, a.2.1, a cualquier superficie; en otras regiones, y los demás
    cuerpos de agua, a.2.4 con el umbral de su zona."""
    resultado: list[Comparacion] = []
    if codigo_region in REGIONES_VEGAS and c.vegas_bofedales_ha is not None and c.vegas_bofedales_ha > 0:
        texto = f"drenaje o afectación de {numero_corto(c.vegas_bofedales_ha)} ha de vegas o bofedales"
        resultado.append(Comparacion("a.2.1", f"{texto} (cualquier superficie en esta región)", True))
        superficies = [c.humedal_drenado_ha]
    elif codigo_region in REGIONES_VEGAS and c.desecacion_vegas_bofedales:
        # secarlas o drenarlas, sin superficie dicha: en estas regiones, cualquier superficie
        texto = "drenaje o desecación de vegas o bofedales (cualquier superficie en esta región)"
        resultado.append(Comparacion("a.2.1", texto, True))
        superficies = [c.humedal_drenado_ha]
    else:
        superficies = [c.vegas_bofedales_ha, c.humedal_drenado_ha]
    resultado += comparar_con_umbral(
        "a.2.2", c.nadis_ha, NADIS_HA, unidad="ha", prefijo="drenaje o afectación de ", sufijo=" de ñadis"
    )
    if c.drenaje_turberas:
        resultado.append(
            Comparacion("a.2.3", "drenaje o desecación de turberas (cualquier superficie)", True)
        )
    if codigo_region in REGIONES_NORTE:
        zona, nombre = "norte", "Arica y Parinacota a Coquimbo"
    elif codigo_region in REGIONES_VALPARAISO_A_MAULE:
        zona, nombre = "centro", "Valparaíso al Maule, incluida la RM"
    else:
        zona, nombre = "sur", "Bío Bío a Magallanes"
    for superficie in superficies:
        resultado += comparar_con_umbral(
            "a.2.4",
            superficie,
            DRENAJE_HA[zona],
            unidad="ha",
            prefijo="drenaje o afectación de ",
            sufijo=f" de cuerpos de agua ({nombre})",
        )
    return resultado


def _sustancias(c: Componentes) -> list[Comparacion]:
    """Letra ñ: la producción y el transporte cuentan si duran un semestre o más (sin plazo dicho se
    supone que sí y se dice); el almacenamiento cuenta por su capacidad, sin plazo."""
    resultado: list[Comparacion] = []
    breve = c.sustancias_meses is not None and c.sustancias_meses < SEMESTRE_MESES
    plazo = (
        " (sin plazo dicho: se supone un semestre o más)"
        if c.sustancias_meses is None
        else f" durante {numero_corto(c.sustancias_meses)} meses"
    )
    for clase, (literal, nombre, kg_dia, kg_almacenados) in SUSTANCIAS.items():
        resultado += _habitual(
            comparar_con_umbral(
                literal, getattr(c, f"{clase}_kg_dia"), kg_dia, unidad="kg/día", prefijo=f"{nombre}: "
            ),
            breve=breve,
            plazo=plazo,
        )
        resultado += comparar_con_umbral(
            literal,
            getattr(c, f"{clase}_almacenamiento_kg"),
            kg_almacenados,
            unidad="kg",
            prefijo=f"almacenamiento de {nombre}: ",
        )
    resultado += _habitual(
        comparar_con_umbral(
            "ñ.5",
            c.transporte_sustancias_t_dia,
            TRANSPORTE_SUSTANCIAS_T_DIA,
            unidad="t/día",
            prefijo="transporte terrestre de sustancias peligrosas: ",
        ),
        breve=breve,
        plazo=plazo,
    )
    if c.radiactivas_sobre_limites:
        texto = "sustancias radiactivas sobre los límites A2 / 5000 A1 del DS 12/1985 (declarado)"
        resultado.append(Comparacion("ñ.6", texto, True))
    if c.transporte_radiactivo_multilateral:
        texto = "transporte terrestre de sustancias radiactivas con aprobación multilateral (declarado)"
        resultado.append(Comparacion("ñ.7", texto, True))
    return resultado


def _habitual(comparaciones: list[Comparacion], *, breve: bool, plazo: str) -> list[Comparacion]:
    """Una producción o un transporte de menos de un semestre no es habitual: no cumple aunque supere la
    cantidad diaria."""
    return [
        Comparacion(
            c.literal,
            f"{c.texto}{plazo}" + (", menos de un semestre" if breve and c.cumple else ""),
            c.cumple and not breve,
        )
        for c in comparaciones
    ]


def rotulo(campo: str) -> str:
    """La etiqueta del campo como rótulo, con mayúscula inicial: «Largo del ducto minero (km)»."""
    etiqueta = ETIQUETAS[campo]
    return etiqueta[:1].upper() + etiqueta[1:]


def a_que_se_refiere(campo: str) -> str:
    """Lo que el campo decide, para la ayuda de formularios y de la API: «literal a.1; PAS del art. 155»."""
    partes = []
    if campo in LITERAL_DE_CAMPO:
        partes.append(f"literal {LITERAL_DE_CAMPO[campo]}")
    if campo in PAS_DE_CAMPO:
        articulos = " y ".join(str(n) for n in PAS_DE_CAMPO[campo])
        partes.append(f"PAS del art. {articulos} del DS 40")
    return "; ".join(partes)


def hay_partes(valores: Mapping[str, float | int | bool | None]) -> bool:
    """Indica si se declaró alguna parte de la faena (un valor que no es «no» ni falta)."""
    return any(valor is not None and valor is not False for valor in valores.values())


def componentes_descritos(valores: dict[str, float | int | bool]) -> list[str]:
    """Los componentes guardados de un proyecto, legibles y con lo que deciden: «El largo del ducto minero
    (km): 30 — literal j»."""
    descritos = []
    for campo in ETIQUETAS:
        valor = valores.get(campo)
        if valor is None or valor is False:
            continue
        texto = "sí" if valor is True else numero_corto(Decimal(str(valor)))
        descritos.append(f"{rotulo(campo)}: {texto} — {a_que_se_refiere(campo)}")
    return descritos
