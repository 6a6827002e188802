"""Herramientas de proyectos: la misma visibilidad al proponer que al ejecutar, y solo se propone lo
que puede ejecutarse (lo que falta se pregunta)."""

from collections.abc import Callable

import pytest
from django.conf import settings
from django.contrib.auth.models import AbstractUser

from asistente.acciones import accion_decidir, accion_proponer
from asistente.models import AccionPendiente, Conversacion, Dominio
from asistente.registro import REGISTRO, Contexto, ErrorDeHerramienta, ejecutar
from asistente.services import turno_iniciar
from proyectos.models import Cliente, Proyecto
from proyectos.roles import Rol
from proyectos.services import proyecto_crear, usuario_crear_o_actualizar
from tests.asistente.conftest import Charla

pytestmark = pytest.mark.usefixtures("capas")


def test_un_escritor_de_otro_cliente_no_ve_el_nombre_de_un_proyecto_ajeno_en_la_propuesta(
    proyecto_eia: Proyecto, usuaria: Callable[..., AbstractUser], conversar: Callable[..., Charla]
) -> None:
    intrusa = usuaria("intrusa")

    charla = conversar(intrusa, f"analiza el proyecto #{proyecto_eia.pk}")

    assert charla.accion is None
    assert "Mina Mejillones" not in charla.texto
    assert f"No existe el proyecto #{proyecto_eia.pk} entre los suyos" in charla.texto
    assert not AccionPendiente.objects.exists()


def test_con_varios_clientes_la_propuesta_pregunta_cual_y_acepta_el_nombre_dicho(
    usuaria: Callable[..., AbstractUser], conversar: Callable[..., Charla]
) -> None:
    consultora = usuaria()
    otro = Cliente.objects.create(nombre="Minera Beta")
    otro.usuarios.add(consultora.pk)

    pregunta = conversar(consultora, "crea un proyecto llamado Mina Sur en Atacama de 8.000 toneladas al mes")
    respuesta = conversar(
        consultora, "crea un proyecto llamado Mina Sur en Atacama para el cliente minera beta, 8.000 t/mes"
    )

    assert pregunta.accion is None
    assert "¿Para cuál de sus clientes" in pregunta.texto
    assert "«Minera Beta»" in pregunta.texto and "«Cliente de consultora»" in pregunta.texto
    assert respuesta.accion is not None
    assert respuesta.accion["parametros"]["cliente_id"] == otro.pk
    assert "para el cliente «Minera Beta»" in respuesta.accion["descripcion"]
    accion = accion_decidir(accion_id=respuesta.accion["id"], usuario=consultora, confirmada=True)
    assert accion.estado == AccionPendiente.Estado.CONFIRMADA
    assert Proyecto.objects.get(nombre="Mina Sur").cliente == otro


def test_un_usuario_sin_clientes_sabe_que_no_puede_crear_proyectos_y_a_quien_pedirlo(
    db: None, conversar: Callable[..., Charla]
) -> None:
    sin_cliente = usuario_crear_o_actualizar(nombre="nueva", rol=Rol.ESCRITURA).usuario

    charla = conversar(sin_cliente, "crea un proyecto llamado Mina Sur en Atacama")

    assert charla.accion is None
    assert "no tiene clientes asignados" in charla.texto
    assert "administrador" in charla.texto


def test_una_region_o_comuna_desconocida_se_pregunta_al_proponer_y_no_al_confirmar(
    usuaria: Callable[..., AbstractUser],
) -> None:
    turno = turno_iniciar(usuario=usuaria(), mensaje="crea un proyecto")

    with pytest.raises(ErrorDeHerramienta, match=r"Para crear el proyecto necesito un dato más: .*Narnia"):
        accion_proponer(
            turno=turno, herramienta="crear_proyecto", parametros={"nombre": "Mina X", "region": "Narnia"}
        )
    with pytest.raises(ErrorDeHerramienta, match="comuna"):
        accion_proponer(
            turno=turno,
            herramienta="crear_proyecto",
            parametros={"nombre": "Mina X", "region": "Atacama", "comuna": "Valdivia"},
        )
    assert not AccionPendiente.objects.exists()


def test_analizar_un_proyecto_sin_la_cantidad_que_su_tipo_exige_pide_ese_dato(
    usuaria: Callable[..., AbstractUser], conversar: Callable[..., Charla]
) -> None:
    consultora = usuaria()
    proyecto = proyecto_crear(
        cliente=Cliente.objects.get(nombre="Cliente de consultora"),
        datos={"nombre": "Mina Borrador", "region": "Atacama", "tipo": "explotacion"},
    )

    charla = conversar(consultora, f"analiza el proyecto #{proyecto.pk}")

    assert charla.accion is None
    assert f"Para analizar el proyecto #{proyecto.pk} «Mina Borrador» necesito un dato más" in charla.texto
    assert "capacidad de extracción" in charla.texto
    assert not AccionPendiente.objects.exists()


def test_actualizar_con_un_valor_imposible_se_rechaza_al_proponer(
    usuaria: Callable[..., AbstractUser],
) -> None:
    consultora = usuaria()
    proyecto = proyecto_crear(
        cliente=Cliente.objects.get(nombre="Cliente de consultora"),
        datos={"nombre": "Mina Uno", "region": "Atacama", "tipo": "explotacion"},
    )
    turno = turno_iniciar(usuario=consultora, mensaje="cambia la capacidad")

    with pytest.raises(ErrorDeHerramienta, match="capacidad de extracción"):
        accion_proponer(
            turno=turno,
            herramienta="actualizar_proyecto",
            parametros={"proyecto_id": proyecto.pk, "cambios": {"capacidad_extraccion_t_mes": -5}},
        )


def test_consultar_proyecto_sin_argumentos_responde_por_el_proyecto_activo_aunque_este_en_cache(
    usuaria: Callable[..., AbstractUser],
) -> None:
    consultora = usuaria()
    cliente = Cliente.objects.get(nombre="Cliente de consultora")
    uno, dos = (
        proyecto_crear(cliente=cliente, datos={"nombre": n, "region": "Atacama", "tipo": "explotacion"})
        for n in ("Mina Uno", "Mina Dos")
    )
    conversacion = Conversacion.objects.create(
        usuario_id=consultora.pk, dominio=Dominio.objects.get(codigo=settings.ASISTENTE_DOMINIO)
    )

    nombres = [
        ejecutar(
            "consultar_proyecto",
            {},
            contexto=Contexto(usuario=consultora, conversacion=conversacion, proyecto_activo_id=activo.pk),
        )["resultado"]["proyecto"]["nombre"]
        for activo in (uno, dos)
    ]

    assert nombres == ["Mina Uno", "Mina Dos"]


@pytest.mark.usefixtures("corpus")
def test_evaluar_un_proyecto_descrito_no_guarda_nada_y_compara_cada_cantidad_con_su_umbral(
    usuaria: Callable[..., AbstractUser],
) -> None:
    contexto = Contexto(usuario=usuaria())

    llamada = ejecutar(
        "evaluar_proyecto", {"tipo": "prospeccion", "region": "Maule", "plataformas": 15}, contexto=contexto
    )

    resultado = llamada["resultado"]
    assert llamada["error"] is None and resultado["clasificacion"] == "NO_INGRESA"
    assert [u["texto"] for u in resultado["umbrales"]] == [
        "15 plataformas < 20 (Valparaíso a Magallanes, incluida la RM)"
    ]
    assert "DS 40, Art. 3, literal i.2" in [f["cita"] for f in contexto.fuentes]
    assert not Proyecto.objects.exists()


@pytest.mark.usefixtures("corpus")
def test_evaluar_un_proyecto_por_sus_partes_no_exige_la_capacidad_y_dice_que_falta(
    usuaria: Callable[..., AbstractUser],
) -> None:
    llamada = ejecutar(
        "evaluar_proyecto",
        {"tipo": "explotacion", "region": "Atacama", "componentes": {"presa_altura_m": 7}},
        contexto=Contexto(usuario=usuaria()),
    )

    resultado = llamada["resultado"]
    assert llamada["error"] is None and resultado["clasificacion"] == "DIA"
    assert resultado["sin_cantidad_del_tipo"] is True
    assert resultado["advertencias"][0].startswith("No se indicó la capacidad de extracción (t/mes)")


def test_evaluar_un_proyecto_sin_partes_ni_la_cantidad_de_su_tipo_pide_esa_cantidad(
    usuaria: Callable[..., AbstractUser],
) -> None:
    llamada = ejecutar(
        "evaluar_proyecto", {"tipo": "explotacion", "region": "Atacama"}, contexto=Contexto(usuario=usuaria())
    )

    assert llamada["resultado"] is None and "capacidad de extracción" in llamada["error"]


def test_evaluar_un_proyecto_con_una_region_desconocida_lo_dice_en_castellano(
    usuaria: Callable[..., AbstractUser],
) -> None:
    llamada = ejecutar(
        "evaluar_proyecto",
        {"tipo": "explotacion", "region": "Mendoza", "capacidad_extraccion_t_mes": 9000},
        contexto=Contexto(usuario=usuaria()),
    )

    assert llamada["resultado"] is None and "Región desconocida" in llamada["error"]


def test_listar_proyectos_filtra_por_cliente_y_por_fechas_y_las_estadisticas_por_periodo_y_mes(
    usuaria: Callable[..., AbstractUser],
) -> None:
    from datetime import timedelta

    from django.utils import timezone

    consultora = usuaria()
    propio = Cliente.objects.get(nombre="Cliente de consultora")
    beta = Cliente.objects.create(nombre="Minera Beta")
    beta.usuarios.add(consultora.pk)
    datos = {"region": "Atacama", "tipo": "explotacion"}
    antiguo = proyecto_crear(cliente=propio, datos={**datos, "nombre": "Mina Antigua"})
    proyecto_crear(cliente=propio, datos={**datos, "nombre": "Mina Nueva"})
    proyecto_crear(cliente=beta, datos={**datos, "nombre": "Mina Beta"})
    hace_dos_meses = timezone.now() - timedelta(days=60)
    Proyecto.objects.filter(pk=antiguo.pk).update(creado_at=hace_dos_meses)
    contexto = Contexto(usuario=consultora)
    hoy = timezone.localdate()

    de_beta = ejecutar("listar_proyectos", {"cliente": "beta"}, contexto=contexto)["resultado"]
    recientes = ejecutar(
        "listar_proyectos", {"desde": (hoy - timedelta(days=7)).isoformat()}, contexto=contexto
    )["resultado"]
    al_reves = ejecutar(
        "listar_proyectos", {"desde": hoy.isoformat(), "hasta": "2020-01-01"}, contexto=contexto
    )
    otro = ejecutar("listar_proyectos", {"cliente": "Minera Gamma"}, contexto=contexto)
    estadisticas = ejecutar(
        "obtener_estadisticas", {"desde": (hoy - timedelta(days=90)).isoformat()}, contexto=contexto
    )["resultado"]
    del_periodo = ejecutar(
        "obtener_estadisticas", {"desde": (hoy - timedelta(days=7)).isoformat()}, contexto=contexto
    )["resultado"]

    assert [p["nombre"] for p in de_beta["proyectos"]] == ["Mina Beta"]
    assert {p["nombre"] for p in recientes["proyectos"]} == {"Mina Nueva", "Mina Beta"}
    assert al_reves["error"] == "La fecha «desde» es posterior a «hasta»: inviértalas."
    assert otro["error"].startswith("No encuentro el cliente «Minera Gamma» entre los suyos:")
    assert estadisticas["total"] == 3 and del_periodo["total"] == 2
    assert estadisticas["por_mes"] == {
        timezone.localtime(hace_dos_meses).strftime("%Y-%m"): 1,
        timezone.localtime(timezone.now()).strftime("%Y-%m"): 2,
    }


def test_buscar_documentacion_pasa_su_top_k_a_la_busqueda(
    usuaria: Callable[..., AbstractUser], monkeypatch: pytest.MonkeyPatch
) -> None:
    """La documentación del sistema no se carga en las pruebas (sus embeddings no vienen hechos): se
    verifica que el parámetro llega a la búsqueda y que fuera de rango se rechaza."""
    from normativa import busqueda as corpus
    from normativa.busqueda import ResultadoBusqueda

    pedidos: list[int] = []

    def buscar(*, consulta: str, top_k: int) -> ResultadoBusqueda:
        pedidos.append(top_k)
        return ResultadoBusqueda(consulta=consulta, modo="hibrido", resultados=[], confianza="NONE")

    import dataclasses

    disponible = dataclasses.replace(REGISTRO["buscar_documentacion"], disponible=lambda: True)
    monkeypatch.setitem(REGISTRO, "buscar_documentacion", disponible)
    monkeypatch.setattr(corpus, "buscar_documentacion", buscar)
    contexto = Contexto(usuario=usuaria())

    ejecutar("buscar_documentacion", {"consulta": "cómo funciona el motor", "top_k": 3}, contexto=contexto)
    fuera = ejecutar("buscar_documentacion", {"consulta": "motor", "top_k": 50}, contexto=contexto)

    assert pedidos == [3] and fuera["error"]


def test_proponer_implementacion_arma_la_propuesta_tecnica_con_la_documentacion_que_aplica(
    usuaria: Callable[..., AbstractUser], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Con la sección real de la guía de contribución que la búsqueda encontraría (la documentación no
    se carga en las pruebas): arquitectura, archivos que existen, pasos y estimación."""
    import dataclasses
    from pathlib import Path

    from normativa import busqueda as corpus
    from normativa.busqueda import Resultado, ResultadoBusqueda

    guia = (Path(settings.BASE_DIR) / "CONTRIBUTING.md").read_text(encoding="utf-8")
    seccion = guia[guia.index("### Nueva tarea periódica") : guia.index("### Nueva fuente externa")]
    encontrada = Resultado(
        fragmento_id=1, norma="CONTRIBUTING", tipo_documento="documentacion", articulo="", letra="",
        texto=seccion + "\nVer también `asistente/no_existe.py`.", breadcrumb="Listas de verificación",
        cita="CONTRIBUTING", url="", score=1.0, similitud=0.9,
    )  # fmt: skip
    monkeypatch.setitem(
        REGISTRO, "proponer_implementacion",
        dataclasses.replace(REGISTRO["proponer_implementacion"], disponible=lambda: True),
    )  # fmt: skip

    def buscar(*, consulta: str, top_k: int) -> ResultadoBusqueda:
        return ResultadoBusqueda(consulta=consulta, modo="hibrido", resultados=[encontrada], confianza="HIGH")

    monkeypatch.setattr(corpus, "buscar_documentacion", buscar)

    llamada = ejecutar(
        "proponer_implementacion",
        {"objetivo": "una tarea periódica que limpie avisos viejos", "contexto": "cada noche"},
        contexto=Contexto(usuario=usuaria("admin", Rol.ADMINISTRADOR)),
    )
    lectora = ejecutar(
        "proponer_implementacion",
        {"objetivo": "otra cosa más"},
        contexto=Contexto(usuario=usuaria("l", Rol.LECTURA)),
    )

    propuesta = llamada["resultado"]
    assert propuesta["archivos"] == ["fuentes_externas/periodicas.py"]  # la que no existe no se propone
    assert len(propuesta["pasos"]) == 3 and propuesta["pasos"][0].startswith(
        "Tarea delgada en `<app>/tasks.py`"
    )
    assert (
        propuesta["estimacion"]["tamano"] == "pequeña"
        and propuesta["arquitectura"][0]["documento"] == "CONTRIBUTING"
    )
    assert lectora["error"]


def test_un_periodo_de_mas_de_24_meses_se_rechaza_con_lo_que_hay_que_pedir_y_uno_de_24_se_acepta(
    usuaria: Callable[..., AbstractUser],
) -> None:
    contexto = Contexto(usuario=usuaria())

    largo = ejecutar(
        "obtener_estadisticas", {"desde": "2023-01-01", "hasta": "2025-02-01"}, contexto=contexto
    )
    sin_hasta = ejecutar("listar_proyectos", {"desde": "2020-03-15"}, contexto=contexto)
    justo = ejecutar("listar_proyectos", {"desde": "2023-01-01", "hasta": "2025-01-01"}, contexto=contexto)

    assert largo["resultado"] is None
    assert largo["error"] == (
        "El periodo del 01-01-2023 al 01-02-2025 abarca 25 meses y el máximo es 24: pida uno de hasta 24 "
        "meses (por ejemplo, desde el 01-02-2023) o consulte el periodo por partes."
    )
    assert sin_hasta["resultado"] is None and "el máximo es 24" in sin_hasta["error"]
    assert justo["error"] is None and justo["resultado"]["proyectos"] == []
