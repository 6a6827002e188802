"""Las reglas del motor atadas al texto que las funda.

Cada literal que el motor decide es una regla: nombra el fragmento que aplica (norma, artículo, literal),
cita las palabras del texto que fijan su umbral (número y unidad, o la frase que lo hace ingresar sin
umbral) y guarda el hash del texto con que se escribió. Una prueba verifica que cada cita y cada número
de las constantes están en el texto vigente del corpus; cuando llega otra versión del fragmento (detección
de cambios en la BCN o ingesta), su hash deja de calzar y la regla queda «revisar»
(`proyectos.services.reglas_revisar`): cada resultado que la usa lo advierte hasta que el personal la
revise.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from config.seia import LEY, REGLAMENTO
from proyectos.analisis import componentes as c
from proyectos.analisis import ingreso as i
from proyectos.analisis.fundamentos import Referencia

AVISO_REVISAR = "la norma cambió después de esta regla: verifique el umbral"


@dataclass(frozen=True)
class Regla:
    """Un literal del motor, el fragmento que aplica y lo que de su texto fija el umbral."""

    literal: str
    referencia: Referencia
    # Palabras del texto que fijan el umbral, tal como están escritas y con la comparación que lo decide
    # («superior a cinco mil toneladas mensuales (5.000 t/mes)»: 5.000 justas no lo alcanzan).
    citas: tuple[str, ...]
    # Las constantes del motor que esas citas fijan: cada una aparece en alguna cita.
    umbrales: tuple[Decimal | int, ...]
    # `config.texto.hash_de_texto` del texto del fragmento con que se escribió la regla.
    hash_texto: str

    @property
    def fragmento(self) -> str:
        r = self.referencia
        return f"{r.norma} Art. {r.articulo}" + (f" {r.letra}" if r.letra else "")


def _regla(literal: str, citas: tuple[str, ...], umbrales: tuple[Decimal | int, ...], huella: str) -> Regla:
    referencia = Referencia(LEY, "10", literal) if literal == "s" else Referencia(REGLAMENTO, "3", literal)
    return Regla(literal, referencia, citas, umbrales, huella)


_SUSTANCIA = {literal: (dia, kg) for literal, _, dia, kg in c.SUSTANCIAS.values()}

REGLAS: tuple[Regla, ...] = (
    _regla(
        "a",
        ("que deban someterse a la autorización establecida en el artículo 294 del Código de Aguas",),
        (),
        "8c1f21bfceb6e105",
    ),
    _regla(
        "a.1",
        ("cinco metros (5 m)", "superior a cincuenta mil metros cúbicos (50.000 m3)"),
        (c.PRESA_ALTURA_M, c.EMBALSE_M3),
        "d7d346562fe9ec32",
    ),
    _regla(
        "a.2.1",
        ("Arica y Parinacota, Tarapacá y Antofagasta", "cualquiera sea su superficie"),
        (),
        "afa141ba46a04c20",
    ),
    _regla("a.2.2", ("igual o superior a doscientas hectáreas (200 ha)",), (c.NADIS_HA,), "2c06d0823ffc9de2"),
    _regla("a.2.3", ("Turberas",), (), "716771973ffab27b"),
    _regla(
        "a.2.4",
        (
            "igual o superior a diez hectáreas (10 ha)",
            "o a veinte hectáreas (20 ha)",
            "o a treinta hectáreas (30 ha)",
        ),
        tuple(c.DRENAJE_HA.values()),
        "65d1585371a81159",
    ),
    _regla(
        "a.3",
        (
            "igual o superior a veinte mil metros cúbicos (20.000 m³)",
            "cincuenta mil metros cúbicos (50.000 m³)",
        ),
        (c.DRAGADO_M3_NORTE, c.DRAGADO_M3_RESTO),
        "9d674dae1d34daf0",
    ),
    _regla(
        "a.4",
        (
            "igual o superior a cincuenta mil metros cúbicos de material (50.000 m³)",
            "cien mil metros cúbicos (100.000 m³)",
        ),
        (c.CAUCE_M3_NORTE, c.CAUCE_M3_RESTO),
        "5bc2eb491146edf1",
    ),
    _regla("a.5", ("alteración de las características del glaciar",), (), "e9be31bde1ae5d4f"),
    _regla("b.1", ("mayor a veintitrés kilovoltios (23 kV)",), (c.LINEA_KV,), "41a65d22a6b8733b"),
    _regla("c", ("mayores a 3 MW",), (c.GENERACION_MW,), "3852e170519e0973"),
    _regla(
        "i.1",
        ("superior a cinco mil toneladas mensuales (5.000 t/mes)",),
        (i.EXTRACCION_T_MES,),
        "352805b19920d264",
    ),
    _regla(
        "i.2",
        ("cuarenta (40) o más plataformas", "veinte (20) o más plataformas"),
        (i.PLATAFORMAS_NORTE, i.PLATAFORMAS_CENTRO_SUR),
        "911b59683cc8e888",
    ),
    _regla("i.3", ("capacidad de extracción considerada en la letra i.1",), (), "84fb787d83de8fa3"),
    _regla("i.4", ("petróleo y gas",), (), "41d1ee3b06a5f828"),
    _regla(
        "i.5.1",
        (
            "igual o superior a diez mil metros cúbicos mensuales (10.000 m³/mes)",
            "cien mil metros cúbicos (100.000 m³) totales",
            "igual o mayor a cinco hectáreas (5 ha)",
        ),
        (i.ARIDOS_POZO_M3_MES, i.ARIDOS_POZO_M3_TOTAL, i.ARIDOS_POZO_HA),
        "e6e2b3eacd0d0632",
    ),
    _regla(
        "i.5.2",
        (
            "igual o superior a veinte mil metros cúbicos (20.000 m³)",
            "cincuenta mil metros cúbicos (50.000 m³)",
        ),
        (i.ARIDOS_CAUCE_M3_NORTE, i.ARIDOS_CAUCE_M3_CENTRO_SUR),
        "6b7efeaad7ea13fd",
    ),
    _regla(
        "i.5.3",
        ("igual o superior a cincuenta mil metros cúbicos (50.000 m3)",),
        (i.ARIDOS_PLAYA_M3,),
        "bad6a7695b3fb3d9",
    ),
    _regla("i.6", ("toda extracción de turba",), (), "3feb14456ebf5300"),
    _regla("j", ("ductos mineros",), (), "78da2cc81d31554e"),
    _regla(
        "k.1",
        ("igual o superior a dos mil kilovoltios-ampere (2.000 KVA)",),
        (c.POTENCIA_FABRIL_KVA,),
        "db3ebc5353e8e577",
    ),
    _regla(
        "ñ.1",
        (
            "igual o superior a diez mil kilogramos diarios (10.000 kg/día)",
            "igual o superior a treinta mil kilogramos (30.000 kg)",
        ),
        _SUSTANCIA["ñ.1"],
        "3221bef5a5caa23e",
    ),
    _regla(
        "ñ.2",
        (
            "igual o superior a dos mil quinientos kilogramos diarios (2.500 kg/día)",
            "igual o superior a dos mil quinientos kilogramos (2.500 kg)",
        ),
        _SUSTANCIA["ñ.2"],
        "501c468072cb91e0",
    ),
    _regla(
        "ñ.3",
        (
            "igual o superior a ochenta mil kilogramos diarios (80.000 kg/día)",
            "igual o superior a ochenta mil kilogramos (80.000 kg)",
        ),
        _SUSTANCIA["ñ.3"],
        "b7c6f779d7c0989d",
    ),
    _regla(
        "ñ.4",
        (
            "igual o superior a ciento veinte mil kilogramos diarios (120.000 kg/día)",
            "igual o superior a ciento veinte mil kilogramos (120.000 kg)",
        ),
        _SUSTANCIA["ñ.4"],
        "b67dd49c9be5dbb7",
    ),
    _regla(
        "ñ.5",
        ("durante un semestre o más", "igual o superior a cuatrocientas toneladas diarias (400 t/día)"),
        (c.TRANSPORTE_SUSTANCIAS_T_DIA,),
        "1aa8283e9c1018f5",
    ),
    _regla("ñ.6", ("límites A2 del Decreto Supremo Nº 12, de 1985", "5000 A1"), (), "d77a5295568296b7"),
    _regla("ñ.7", ("aprobación multilateral",), (), "1241220a65055172"),
    _regla(
        "o.4",
        ("igual o mayor a dos mil quinientos (2.500) habitantes",),
        (c.AGUAS_SERVIDAS_HABITANTES,),
        "b0bd5007e903b5d8",
    ),
    _regla("o.7.1", ("lagunas de estabilización",), (), "3fcf860bd6ddf63f"),
    _regla(
        "o.7.2",
        ("se usen para el riego, infiltración, aspersión y humectación de terrenos o caminos",),
        (),
        "1a7e412ab81a5824",
    ),
    _regla("o.7.3", ("residuos provenientes de terceros",), (), "238a9fee456d4a41"),
    _regla("p", ("áreas colocadas bajo protección oficial",), (), "c79bff47b99936c2"),
    _regla("s", ("dentro del límite urbano", "indistintamente de su superficie"), (), "bea57568748c779b"),
)
POR_LITERAL = {r.literal: r for r in REGLAS}
NORMAS_DE_REGLAS = frozenset(r.referencia.norma for r in REGLAS)
