"""Lo que comparten las herramientas del asistente: tiempos de caché, la disponibilidad del corpus, el
tipo de proyecto validado, el proyecto visible por nombre o número y las fuentes citables."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, Field

from asistente.registro import Contexto, ErrorDeHerramienta, Fuente, por_oferta
from config.texto import texto_del
from normativa import busqueda as corpus
from normativa import selectors as normativa
from normativa.models import Norma
from proyectos import selectors as proyectos
from proyectos.analisis.componentes import ETIQUETAS as ETIQUETAS_COMPONENTES
from proyectos.analisis.entrada import AREAS_DECLARABLES
from proyectos.analisis.ingreso import TIPOS
from proyectos.analisis.resultado import Fundamento
from proyectos.models import Analisis, Proyecto

TTL_NORMATIVA = 24 * 3600
TTL_PROYECTO = 5 * 60
TTL_SEA = 6 * 3600  # búsquedas en el sitio del SEA (guías y noticias)
TTL_FICHA_ESEIA = 7 * 24 * 3600  # la ficha de un proyecto del e-SEIA cambia poco
GRUPO_PROYECTOS = "proyectos"
LARGO_ORACION = 1600  # las oraciones que eligió la búsqueda (hasta tres, más lo que las anuncia o sigue)


def _tipo_conocido(tipo: str) -> str:
    if tipo not in TIPOS:
        raise ValueError(f"Tipo desconocido «{tipo}». Use uno de: {', '.join(TIPOS)}.")
    return tipo


# Los tipos de proyecto salen del motor (`TIPOS`), no de una lista aquí.
Tipo = Annotated[str, Field(json_schema_extra={"enum": list(TIPOS)}), AfterValidator(_tipo_conocido)]


@por_oferta
def tipos_cargados() -> set[str]:
    """Los tipos de norma que tienen fragmentos (se consulta una vez por oferta de herramientas)."""
    return normativa.tipos_con_fragmentos()


def hay_corpus() -> bool:
    return bool(tipos_cargados() - {Norma.Tipo.DOCUMENTACION})


def hay_documentacion() -> bool:
    return Norma.Tipo.DOCUMENTACION in tipos_cargados()


def grupo_proyecto(entrada: Any, ctx: Contexto) -> str:
    """Grupo de caché de lo que lee proyectos: cualquier cambio de un proyecto o análisis lo invalida
    (ver asistente/apps.py)."""
    return GRUPO_PROYECTOS


def campo_componentes() -> Any:
    """Las otras partes de la faena, con sus campos y etiquetas (las mismas en evaluar y en crear)."""
    return Field(
        default_factory=dict,
        title="Otras partes de la faena",
        description="Las que pueden hacerla ingresar por su propia letra del Art. 3 del DS 40 (el motor las "
        "valida): "
        + "; ".join(f"{campo}: {etiqueta}" for campo, etiqueta in ETIQUETAS_COMPONENTES.items())
        + ".",
    )


def campo_areas_declaradas() -> Any:
    """Las áreas en que se dice que está el proyecto, sin polígono (las mismas en evaluar y en crear)."""
    return Field(
        default_factory=list,
        title="Áreas en que está (sin polígono)",
        description="Si el usuario sitúa el proyecto en un área protegida sin dar su polígono (p. ej. «en la "
        'Reserva Nacional Los Flamencos»): [{"categoria": …, "nombre": …}], categorías: '
        + ", ".join(AREAS_DECLARABLES)
        + ". El motor aplica la letra p del Art. 10 y la d del Art. 11 como con un polígono.",
    )


def proyecto_visible(pk: int | None, nombre: str | None, ctx: Contexto) -> Proyecto:
    visibles = proyectos.proyectos_visibles(usuario=ctx.usuario)
    pk = pk or (None if nombre else ctx.proyecto_activo_id)
    if pk:
        proyecto = visibles.filter(pk=pk).first()
        if proyecto is None:
            raise ErrorDeHerramienta(f"No existe el proyecto #{pk} entre los suyos.")
        return proyecto
    if not nombre:
        raise ErrorDeHerramienta("¿De qué proyecto? Indique su número (#12) o su nombre.")
    exacto = visibles.filter(nombre__iexact=nombre.strip()).first()
    if exacto:
        return exacto
    parecidos = proyectos.proyectos_parecidos(usuario=ctx.usuario, nombre=nombre)
    sugerencia = f" ¿Quiso decir {', '.join(f'«{p}»' for p in parecidos)}?" if parecidos else ""
    raise ErrorDeHerramienta(f"No encuentro un proyecto llamado «{nombre}».{sugerencia}")


def proyecto_json(p: Proyecto, *, breve: bool = False) -> dict[str, Any]:
    datos: dict[str, Any] = {
        "id": p.pk,
        "nombre": p.nombre,
        "cliente": p.cliente.nombre,
        "region": p.region.nombre,
        "comuna": p.comuna.nombre if p.comuna else None,
        "tipo": p.tipo,
        "estado": p.estado,
        "ultima_clasificacion": getattr(p, "ultima_clasificacion", None),
    }
    if not breve:
        entrada = proyectos.proyecto_como_entrada(p)
        datos.update({k: v for k, v in entrada.items() if k not in ("region", "comuna", "geometria")})
        datos["geometria"] = "sí" if p.geometria else "no"
        datos["tipo_nombre"] = p.get_tipo_display()
    return datos


def analisis_resumen(a: Analisis) -> dict[str, Any]:
    return {
        "id": a.pk,
        "fecha": a.fecha.isoformat(),
        "tipo": a.tipo,
        "clasificacion": a.clasificacion,
        "resumen": a.resultado.get("resumen", ""),
        "letras": sorted({t["letra"] for t in a.resultado.get("triggers", [])}),
        "tipologias": a.resultado.get("tipologias", []),
    }


def fuente_de_resultado(r: corpus.Resultado) -> Fuente:
    fuente: Fuente = {
        "fragmento_id": r.fragmento_id,
        "norma": r.norma,
        "articulo": r.articulo,
        "letra": r.letra,
        "cita": r.cita,
        "url": r.url,
        # La oración que mejor responde, si el reordenador la eligió; si no, el comienzo del fragmento.
        "extracto": extracto(r.oracion, LARGO_ORACION) if r.oracion else extracto(r.texto),
        "advertencia": r.advertencia,
        "vigencia": texto_del(r.fecha_version),
    }
    if r.epigrafe:
        fuente["epigrafe"] = r.epigrafe
    return fuente


def fuente_de_fundamento(f: Fundamento) -> Fuente:
    return {
        "fragmento_id": f["fragmento_id"],
        "norma": f["norma"],
        "articulo": f["articulo"],
        "letra": f.get("letra") or "",
        "cita": cita_de_fundamento(f),
        "url": f.get("url", ""),
        "extracto": f.get("cita", ""),
        "advertencia": f.get("advertencia_vigencia", ""),
        "vigencia": texto_del(f.get("fecha_version")),
    }


def cita_de_fundamento(f: Fundamento) -> str:
    """Como las citas del corpus: «Ley 19.300, Art. 10, letra i)», «DS 40, Art. 3, literal i.1»."""
    cita = f"{f['norma']}, Art. {f['articulo']}"
    letra = f.get("letra") or ""
    if letra:
        cita += f", {normativa.nombre_de_la_division(letra)}"
    return cita


def seccion_de(r: corpus.Resultado) -> dict[str, Any]:
    return {"documento": r.norma, "seccion": r.breadcrumb, "extracto": extracto(r.texto, 700)}


def extracto(texto: str, largo: int = 400) -> str:
    texto = " ".join(texto.split())
    return texto if len(texto) <= largo else texto[: texto.rfind(" ", 0, largo)] + " …"
