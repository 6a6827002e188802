"""Los permisos ambientales sectoriales (PAS, Título VII del DS 40) que traen las partes de un proyecto.

Después de «¿DIA o EIA?», la DIA o el EIA deben acompañar los permisos que aplican «precisando la parte,
obra o acción» (DS 40, Arts. 18 m y 19 i). Cada regla de aquí nombra el artículo del PAS y la parte de la
faena que lo trae, y cita las palabras del artículo que la definen (una prueba las busca en el texto
vigente del corpus). Una parte lo trae por ser declarada (`componentes`), por el tipo de proyecto (un
depósito de relaves es la parte del Art. 135), por estar dentro de un área de las capas (labores mineras en
una reserva nacional, Art. 121) o por superar un umbral: el Art. 155 remite al Art. 294 del Código de Aguas,
cuyos embalses son los del literal a.1 del Art. 3 (muro de más de 5 m o más de 50.000 m³) y cuyos
acueductos conducen más de 2 m³/s; la comparación se dice como los umbrales del ingreso.

Lo que se sabe de cada permiso (nombre, requisito, clase, guía, órgano) sale del catálogo leído del
corpus (`CATALOGO_PERMISOS`), no de aquí.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import TypedDict

from config.seia import REGLAMENTO
from proyectos.analisis import componentes as c
from proyectos.analisis import fundamentos
from proyectos.analisis.fundamentos import Referencia
from proyectos.analisis.ingreso import Comparacion, comparar_con_umbral, numero_corto
from proyectos.analisis.resultado import Fundamento, PermisoAplicable, Umbral

# Los tipos de proyecto que son una faena minera (Ley 20.551, Art. 6, en el Art. 137 del DS 40).
FAENAS_MINERAS = ("explotacion", "planta_procesamiento", "deposito_relaves", "botadero_esteriles")
# Los tipos que ejecutan labores mineras (Art. 121): las faenas y la prospección.
LABORES_MINERAS = (*FAENAS_MINERAS, "prospeccion")
# Categorías de las capas dentro de las cuales una parte trae su permiso.
AREAS_SNASPE = ("parque_nacional", "reserva_nacional", "monumento_natural")
SANTUARIO = "santuario_naturaleza"
DECLARADO, POR_TIPO = "declarado", "tipo de proyecto"


@dataclass(frozen=True)
class TextoCitado:
    """Palabras de un fragmento del corpus que sostienen una regla."""

    referencia: Referencia
    citas: tuple[str, ...]


@dataclass(frozen=True)
class ReglaPermiso:
    """El PAS de un artículo del DS 40 y la parte que lo trae, con las palabras del artículo que la
    definen y, si el umbral lo fija otro texto, ese texto citado."""

    numero: int
    parte: str
    citas: tuple[str, ...]
    otros_textos: tuple[TextoCitado, ...] = ()
    # Norma que fija un umbral y el corpus no trae (se dice junto a la comparación).
    fuera_del_corpus: str = ""
    # Cuándo aplica si depende de la obra que se declare («si la obra regulariza o defiende el cauce»).
    condicion: str = ""

    @property
    def texto_del_articulo(self) -> TextoCitado:
        return TextoCitado(Referencia(REGLAMENTO, str(self.numero)), self.citas)


def _regla(numero: int, parte: str, *citas: str, **extra: object) -> ReglaPermiso:
    return ReglaPermiso(numero, parte, tuple(citas), **extra)  # type: ignore[arg-type]


_OBRAS_DEL_294 = TextoCitado(
    Referencia(REGLAMENTO, "3", "a"),
    ("Acueductos, embalses o tranques y sifones que deban someterse a la autorización establecida en el "
     "artículo 294 del Código de Aguas",),
)  # fmt: skip
_UMBRALES_DE_PRESA = TextoCitado(Referencia(REGLAMENTO, "3", "a.1"), ("cinco metros (5 m)", "(50.000 m3)"))

REGLAS: tuple[ReglaPermiso, ...] = (
    _regla(120, "las obras o actividades dentro de un santuario de la naturaleza",
           "alterar el estado natural de un Santuario de la Naturaleza"),
    _regla(121, "las labores mineras en un parque nacional, una reserva nacional o un monumento natural",
           "labores mineras en lugares declarados parques nacionales, reservas nacionales o monumentos "
           "naturales"),
    _regla(131, "la intervención de un monumento histórico", "Monumentos Históricos",
           "hacer construcciones en sus alrededores"),
    _regla(132, "las excavaciones arqueológicas, antropológicas o paleontológicas",
           "excavaciones de tipo arqueológico, antropológico y paleontológico"),
    _regla(135, "el depósito de relaves", "depósitos de relaves"),
    _regla(136, "el botadero de estériles o la acumulación de mineral",
           "botadero de estériles o acumulación de mineral"),
    _regla(137, "la faena minera, que debe tener su plan de cierre", "plan de cierre de una faena minera"),
    _regla(138, "las obras de evacuación, tratamiento o disposición de aguas servidas",
           "evacuación, tratamiento o disposición final de desagües, aguas servidas de cualquier naturaleza"),
    _regla(139, "las obras de evacuación, tratamiento o disposición de residuos industriales o mineros",
           "evacuación, tratamiento o disposición final de residuos industriales o mineros"),
    _regla(140, "el sitio de acumulación, tratamiento o disposición de basuras y desperdicios",
           "disposición final de basuras y desperdicios de cualquier clase"),
    _regla(141, "el relleno sanitario", "relleno sanitario"),
    _regla(142, "el sitio de almacenamiento de residuos peligrosos",
           "sitio destinado al almacenamiento de residuos peligrosos"),
    _regla(143, "el transporte de residuos peligrosos",
           "sistema de transporte de residuos peligrosos"),
    _regla(144, "la instalación de eliminación de residuos peligrosos",
           "instalaciones de eliminación de residuos peligrosos"),
    _regla(145, "el sitio de reciclaje de residuos peligrosos", "sitio de reciclaje de residuos peligrosos"),
    _regla(146, "la captura de ejemplares de especies protegidas de fauna",
           "caza o captura de ejemplares de animales de especies protegidas"),
    _regla(148, "la corta de bosque nativo", "corta de bosque nativo"),
    _regla(149, "la corta de plantaciones",
           "corta de plantaciones en terrenos de aptitud preferentemente forestal"),
    _regla(150, "la intervención de especies vegetales nativas clasificadas",
           "especies vegetales nativas clasificadas de conformidad con el artículo 37 de la Ley Nº 19.300"),
    _regla(151, "la corta de formaciones xerofíticas",
           "corta, destrucción o descepado de formaciones xerofíticas"),
    _regla(155, "las obras hidráulicas del Art. 294 del Código de Aguas", "ciertas obras hidráulicas",
           "artículo 294 del Decreto con Fuerza de Ley Nº 1.122",
           otros_textos=(_OBRAS_DEL_294, _UMBRALES_DE_PRESA),
           fuera_del_corpus="Código de Aguas, Art. 294 b): acueductos que conduzcan más de 2 m³/s"),
    _regla(156, "la modificación de cauce", "modificaciones de cauce",
           condicion="si la obra altera el trazado o la sección del cauce, sin ser de regularización o "
           "defensa"),
    _regla(157, "las obras de regularización o defensa de cauces naturales",
           "regularización o defensa de cauces naturales",
           condicion="si la obra regulariza o protege las riberas del cauce"),
    _regla(158, "las obras de recarga artificial de acuíferos", "recarga artificial de acuíferos"),
    _regla(159, "la extracción de ripio y arena en cauces",
           "extracción de ripio y arena en los cauces de los ríos y esteros"),
    _regla(160, "las construcciones fuera de los límites urbanos",
           "construcciones industriales, de equipamiento, turismo y poblaciones fuera de los límites "
           "urbanos"),
)  # fmt: skip
POR_NUMERO = {r.numero: r for r in REGLAS}
# El tipo de proyecto que es, él mismo, la parte de un PAS.
_POR_TIPO = {"deposito_relaves": 135, "botadero_esteriles": 136, "aridos_cauce": 159}


@dataclass(frozen=True)
class Requerido:
    """Un PAS que el proyecto necesita, la parte que lo trae y por qué («declarado», la comparación con el
    umbral o el área de las capas)."""

    numero: int
    parte: str
    motivo: str
    condicion: str = ""


def permisos_requeridos(
    *, tipo: str, componentes: c.Componentes, dentro_de: Mapping[str, Sequence[str]] | None = None
) -> tuple[list[Requerido], list[Comparacion]]:
    """Los PAS que traen las partes del proyecto (en el orden de sus artículos) y cada cantidad frente al
    umbral de un PAS, cumpla o no (`literal` = «PAS 155»). `dentro_de`: categoría de capa → elementos
    que el polígono intersecta."""
    dentro_de = dentro_de or {}
    requeridos: list[Requerido] = []
    for campo in fields(componentes):
        numeros = c.PAS_DE_CAMPO.get(campo.name, ())
        if campo.name in c.CAMPOS_SI_NO and getattr(componentes, campo.name) and numeros:
            requeridos += [_declarado(n, campo.name) for n in numeros]
    if tipo in _POR_TIPO:
        requeridos.append(Requerido(_POR_TIPO[tipo], POR_NUMERO[_POR_TIPO[tipo]].parte, POR_TIPO))
    if tipo in FAENAS_MINERAS:
        requeridos.append(Requerido(137, POR_NUMERO[137].parte, POR_TIPO))
    comparaciones = _obras_hidraulicas(componentes)
    requeridos += [
        Requerido(155, POR_NUMERO[155].parte, comparacion.texto)
        for comparacion in comparaciones
        if comparacion.cumple
    ]
    if componentes.cauce_movido_m3 is not None and componentes.cauce_movido_m3 > 0:
        movido = f"{numero_corto(componentes.cauce_movido_m3)} m³ movidos al defender o alterar un cauce"
        requeridos += [Requerido(n, POR_NUMERO[n].parte, movido, POR_NUMERO[n].condicion) for n in (156, 157)]
    areas = [nombre for categoria in AREAS_SNASPE for nombre in dentro_de.get(categoria, [])]
    if areas and tipo in LABORES_MINERAS:
        requeridos.append(
            Requerido(121, POR_NUMERO[121].parte, "el polígono está dentro de " + ", ".join(areas))
        )
    if santuarios := list(dentro_de.get(SANTUARIO, [])):
        requeridos.append(
            Requerido(120, POR_NUMERO[120].parte, "el polígono está dentro de " + ", ".join(santuarios))
        )
    return sorted(_sin_repetir(requeridos), key=lambda r: r.numero), comparaciones


def _declarado(numero: int, campo: str) -> Requerido:
    regla = POR_NUMERO[numero]
    condicion = regla.condicion if len(c.PAS_DE_CAMPO[campo]) > 1 else ""
    return Requerido(numero, regla.parte, DECLARADO, condicion)


def _obras_hidraulicas(componentes: c.Componentes) -> list[Comparacion]:
    """Las obras del Art. 294 del Código de Aguas frente a su umbral: embalses de más de 50.000 m³ o con
    muro de más de 5 m (los del literal a.1 del Art. 3), acueductos de más de 2 m³/s («superior a», «más
    de»: estrictos)."""
    return [
        *comparar_con_umbral(
            "PAS 155", componentes.presa_altura_m, c.PRESA_ALTURA_M, estricto=True, unidad="m",
            prefijo="muro de presa de ",
        ),
        *comparar_con_umbral(
            "PAS 155", componentes.embalse_m3, c.EMBALSE_M3, estricto=True, unidad="m³", prefijo="embalse de "
        ),
        *comparar_con_umbral(
            "PAS 155", componentes.acueducto_m3_s, c.ACUEDUCTO_M3_S, estricto=True, unidad="m³/s",
            prefijo="acueducto de ", sufijo=" (Art. 294 b del Código de Aguas)",
        ),
    ]  # fmt: skip


def _sin_repetir(requeridos: list[Requerido]) -> list[Requerido]:
    """Un PAS con la misma parte y el mismo motivo, una sola vez: el tipo de proyecto y la parte declarada
    (un depósito de relaves que además se marca como parte) cuentan como un solo motivo."""
    vistos: dict[tuple[int, str], Requerido] = {}
    for r in requeridos:
        vistos.setdefault((r.numero, "" if r.motivo in (DECLARADO, POR_TIPO) else r.motivo), r)
    return list(vistos.values())


# --- en el resultado del motor ---------------------------------------------------------------


class PermisoConReferencias(TypedDict):
    """Un PAS del proyecto antes de resolver sus citas (el motor las resuelve todas en una consulta)."""

    numero: int
    partes: list[str]
    condicion: str
    refs: list[fundamentos.Referencia]


def permisos_con_referencias(requeridos: list[Requerido]) -> list[PermisoConReferencias]:
    """Un elemento por PAS, con cada parte que lo trae («depósito de relaves (declarado)»); la cita de su
    artículo elige la oración del requisito."""
    por_numero: dict[int, PermisoConReferencias] = {}
    for r in requeridos:
        permiso = por_numero.setdefault(
            r.numero,
            {
                "numero": r.numero,
                "partes": [],
                "condicion": r.condicion,
                "refs": [fundamentos.Referencia(REGLAMENTO, str(r.numero), clave="otorgamiento")],
            },
        )
        permiso["partes"].append(f"{r.parte} ({r.motivo})")
        if not r.condicion:  # basta una parte que lo traiga sin condición
            permiso["condicion"] = ""
    return list(por_numero.values())


def referencias_del_155(texto: str) -> list[fundamentos.Referencia]:
    """El Art. 155 y el texto del DS 40 que fija el umbral comparado: los embalses del literal a.1, o los
    acueductos de la letra a) (cuyo caudal fija el Art. 294 del Código de Aguas)."""
    literal = "a" if texto.startswith("acueducto") else "a.1"
    return [
        fundamentos.Referencia(REGLAMENTO, "155", clave="otorgamiento"),
        fundamentos.Referencia(REGLAMENTO, "3", literal),
    ]


def permisos_con_catalogo(
    permisos: list[PermisoConReferencias], resueltas: dict[int, Fundamento], advertencias: list[str]
) -> list[PermisoAplicable]:
    """Cada PAS con lo que el catálogo leído del corpus dice de él; si el catálogo no lo tiene, el nombre
    de la regla y una advertencia."""
    catalogo = fundamentos.catalogo_de_permisos([p["numero"] for p in permisos]) if permisos else {}
    faltan = [p["numero"] for p in permisos if p["numero"] not in catalogo]
    if faltan:
        advertencias.append(
            "El catálogo de permisos no tiene los artículos "
            f"{', '.join(str(n) for n in faltan)} del DS 40 (ejecute cargar_corpus): se muestran sin su "
            "requisito."
        )
    resultado: list[PermisoAplicable] = []
    for p in permisos:
        entrada = catalogo.get(p["numero"], {})
        permiso: PermisoAplicable = {
            "articulo": str(p["numero"]),
            "nombre": entrada.get("nombre") or f"Permiso del Art. {p['numero']} del DS 40",
            "tipo": entrada.get("tipo", ""),
            "tipo_nombre": entrada.get("tipo_nombre", ""),
            "partes": p["partes"],
            "requisito": entrada.get("requisito", ""),
            "organo": entrada.get("organo", ""),
            "guia": entrada.get("guia", ""),
            "guia_url": entrada.get("guia_url", ""),
            "condicion": p["condicion"],
            "fundamento": [resueltas[id(r)] for r in p["refs"]],
        }
        if entrada.get("estado") == "revisar":
            fecha = entrada.get("fecha_texto")
            texto = f" (texto del {fecha[8:10]}-{fecha[5:7]}-{fecha[:4]})" if fecha else ""
            permiso["aviso_catalogo"] = (
                f"DS 40 Art. {p['numero']}{texto}: el texto cambió después de leído; verifique el requisito."
            )
        resultado.append(permiso)
    return resultado


@dataclass(frozen=True)
class PermisosDeLasPartes:
    permisos: list[PermisoAplicable]
    umbrales: list[Umbral]
    advertencias: list[str]


def permisos_de(*, tipo: str, componentes: c.Componentes) -> PermisosDeLasPartes:
    """Los PAS que traen unas partes dichas sin un proyecto completo (sin región ni capas), con sus citas
    resueltas: lo que el asistente responde a «¿qué permisos necesito si vamos a tener …?»."""
    requeridos, comparaciones = permisos_requeridos(tipo=tipo, componentes=componentes)
    permisos = permisos_con_referencias(requeridos)
    umbrales = [(comparacion, referencias_del_155(comparacion.texto)) for comparacion in comparaciones]
    todas = [r for p in permisos for r in p["refs"]] + [r for _, refs in umbrales for r in refs]
    resueltas = {id(r): f for r, f in zip(todas, fundamentos.resolver(todas), strict=True)}
    advertencias: list[str] = []
    return PermisosDeLasPartes(
        permisos=permisos_con_catalogo(permisos, resueltas, advertencias),
        umbrales=[
            {
                "literal": comparacion.literal,
                "texto": comparacion.texto,
                "cumple": comparacion.cumple,
                "fundamento": [resueltas[id(r)] for r in refs],
            }
            for comparacion, refs in umbrales
        ],
        advertencias=advertencias,
    )
