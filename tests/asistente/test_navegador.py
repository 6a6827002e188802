"""El chat en un navegador real (Chromium de Debian sin interfaz, vía Playwright) contra la aplicación
servida por daphne: pregunta de ley con fuentes antes del texto, acción confirmada en el diálogo,
recarga a mitad de respuesta y aviso al abrir un proyecto sin geometría.

Las capturas quedan en `var/capturas/` (no se versionan).
"""

import json
import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from asistente.models import AccionPendiente, Aviso, ConfiguracionAvisos, Conversacion, Dominio, Mensaje
from config.redis_clientes import cliente_redis
from proyectos.models import Cliente, Proyecto
from proyectos.roles import Rol
from proyectos.services import proyecto_crear, usuario_crear_o_actualizar
from tests.utilidades import CHROMIUM, OPCIONES_CHROMIUM, con_claude, marcas_navegador, mensaje_sse

CAPTURAS = Path(__file__).resolve().parents[2] / "var" / "capturas"
USUARIA, CLAVE = "navegante-chat", "clave-chat-1"

# Red lenta: el websocket de la página recién abre 1,5 s después de conectarse de verdad.
WEBSOCKET_LENTO = """
const Real = window.WebSocket;
window.WebSocket = class extends Real {
  constructor(...args) {
    super(...args);
    let abierto = false, plazo = false;
    const avisar = () => {
      if (abierto && plazo) { this.listo = true; if (this.alAbrir) this.alAbrir(new Event("open")); }
    };
    super.addEventListener("open", () => { abierto = true; avisar(); });
    setTimeout(() => { plazo = true; avisar(); }, 1500);
  }
  get readyState() { return this.listo ? super.readyState : Real.CONNECTING; }
  set onopen(f) { this.alAbrir = f; }
  get onopen() { return this.alAbrir; }
};
"""

# Etiquetas (con su href e id) y texto de la primera respuesta, sin su calificación: para comparar lo
# pintado en vivo con lo que arma el servidor al recargar.
ESTRUCTURA = """() => {
  const li = document.querySelector(".chat-mensaje.assistant").cloneNode(true);
  li.querySelectorAll(".calificar").forEach((c) => c.remove());
  const etiquetas = Array.from(li.querySelectorAll("*"));
  return [etiquetas.map((e) => [e.tagName, e.getAttribute("href"), e.id].join(" ")),
          li.textContent.trim().split(/\\s+/).join(" ")];
}"""

pytestmark = marcas_navegador()


@pytest.fixture
def cliente_confirmado(corpus: Any, capas: Any, django_db_blocker: Any) -> Iterator[Cliente]:
    """Una consultora con rol de escritura y su cliente, confirmados (daphne corre en otro proceso)."""
    with django_db_blocker.unblock():
        cliente = Cliente.objects.create(nombre="Minera Chat Navegador")
        usuaria = usuario_crear_o_actualizar(nombre=USUARIA, rol=Rol.ESCRITURA, password=CLAVE).usuario
        cliente.usuarios.add(usuaria.pk)
        yield cliente
        Proyecto.objects.filter(cliente=cliente).delete()
        cliente.delete()
        get_user_model().objects.filter(username=USUARIA).delete()


@contextmanager
def chromium(django_db_blocker: Any) -> Iterator[Any]:
    """Chromium sin interfaz. Se abre después de lanzar daphne: un proceso hijo creado con Playwright
    abierto heredaría los conductos de su controlador y el cierre quedaría esperando."""
    from playwright.sync_api import sync_playwright

    with django_db_blocker.unblock(), sync_playwright() as p:
        instancia = p.chromium.launch(executable_path=CHROMIUM, args=OPCIONES_CHROMIUM)
        yield instancia
        instancia.close()


def en_hilo(consulta: Callable[[], Any]) -> Any:
    """Consulta la base desde otro hilo: el API síncrono de Playwright corre un bucle asyncio en este."""
    from concurrent.futures import ThreadPoolExecutor

    from django.db import connections

    def consultar_y_cerrar() -> Any:
        try:
            return consulta()
        finally:
            connections.close_all()  # la conexión del hilo no debe impedir borrar la base de pruebas

    with ThreadPoolExecutor(1) as hilo:
        return hilo.submit(consultar_y_cerrar).result()


class Pagina:
    """Una pestaña con sesión iniciada que registra errores de JS y los marcos del websocket."""

    def __init__(self, navegador: Any, url: str, *, ancho: int = 1280, red_lenta: bool = False) -> None:
        from playwright.sync_api import expect

        expect.set_options(timeout=20_000)  # la primera pregunta carga el modelo de embeddings
        self.url = url
        self.pagina = navegador.new_page(viewport={"width": ancho, "height": 900})
        self.pagina.set_default_timeout(20_000)
        if red_lenta:
            self.pagina.add_init_script(WEBSOCKET_LENTO)
        self.errores: list[str] = []
        self.marcos: list[dict[str, Any]] = []
        self.pagina.on("pageerror", lambda error: self.errores.append(str(error)))
        self.pagina.on("websocket", self._escuchar)
        self.pagina.goto(f"{url}/ingresar/?next=/asistente/")
        self.pagina.fill("#id_username", USUARIA)
        self.pagina.fill("#id_password", CLAVE)
        self.pagina.click("button[type=submit]")
        self.pagina.wait_for_url(re.compile(r"/asistente/"))

    def _escuchar(self, socket: Any) -> None:
        socket.on("framereceived", lambda carga: self.marcos.append(json.loads(carga)))

    def preguntar(self, texto: str) -> None:
        # chat.js va al final del cuerpo: antes de que corra, Enter solo agrega una línea al texto.
        # Lo que se prueba es escribir antes de que abra el websocket, no antes de cargar la página.
        self.pagina.wait_for_load_state("domcontentloaded")
        self.pagina.fill("#entrada", texto)
        self.pagina.press("#entrada", "Enter")  # con el teclado

    def preguntar_y_esperar(self, texto: str) -> None:
        """Pregunta y espera la respuesta completa (aparece su calificación)."""
        from playwright.sync_api import expect

        self.preguntar(texto)
        expect(self.pagina.locator(".chat-mensaje.assistant .calificar")).to_be_visible()

    def esperar_evento(self, evento: str, *, segundos: float = 20.0) -> None:
        """Espera a que el socket reciba un marco de `evento` (llegan mientras Playwright espera)."""
        limite = time.monotonic() + segundos
        while not any(m["evento"] == evento for m in self.marcos):
            assert time.monotonic() < limite, f"el socket no recibió «{evento}» en {segundos} s"
            self.pagina.wait_for_timeout(50)

    def eventos(self) -> list[str]:
        return [m["evento"] for m in self.marcos if m["evento"] not in ("latido", "contexto")]

    def capturar(self, nombre: str) -> None:
        CAPTURAS.mkdir(parents=True, exist_ok=True)
        self.pagina.screenshot(path=str(CAPTURAS / f"{nombre}.png"), full_page=True)


def test_una_pregunta_escrita_antes_de_abrir_el_socket_muestra_primero_sus_fuentes_y_luego_la_respuesta(
    cliente_confirmado: Cliente, daphne: Callable[..., str], django_db_blocker: Any
) -> None:

    url = daphne()
    with chromium(django_db_blocker) as navegador:
        _pregunta_de_ley(navegador, url)


def _pregunta_de_ley(navegador: Any, url: str) -> None:
    from playwright.sync_api import expect

    chat = Pagina(navegador, url, red_lenta=True)
    chat.preguntar("¿Qué dice la ley sobre glaciares?")
    expect(chat.pagina.locator(".chat-mensaje.user")).to_contain_text("glaciares")  # no se pierde
    expect(chat.pagina.locator("#actividad")).to_have_text("Conectando…")

    respuesta = chat.pagina.locator(".chat-mensaje.assistant .contenido").last
    expect(chat.pagina.locator(".chat-mensaje.assistant .calificar")).to_be_visible()
    expect(chat.pagina.locator("#fuentes a").first).to_have_attribute(
        "href", re.compile(r"^https://www\.bcn\.cl/leychile/navegar\?idNorma=\d+")
    )
    expect(respuesta).to_contain_text("glaciares")
    eventos = chat.eventos()
    assert eventos.index("sources") < eventos.index("start") < eventos.index("token")
    assert eventos.count("token") > 5 and eventos[-1] == "done"
    final = next(m for m in chat.marcos if m["evento"] == "done")["datos"]["mensaje"]["contenido"]
    assert "".join(m["datos"]["texto"] for m in chat.marcos if m["evento"] == "token") == final
    expect(chat.pagina.locator("#entrada")).to_be_enabled()
    nueva = chat.pagina.locator("#conversaciones li")  # la conversación nueva aparece sin recargar
    expect(nueva).to_have_count(1)
    expect(nueva.locator("a[aria-current=page]")).to_have_text("¿Qué dice la ley sobre glaciares?")
    chat.capturar("chat-pregunta-de-ley")

    chat.pagina.locator(".calificar button", has_text="Sí").click()
    expect(chat.pagina.locator(".calificar")).to_have_text("Gracias por su opinión.")

    # Cada marcador [n] lleva a la fuente n de la lista bajo la respuesta, que se abre.
    mensaje_id = chat.pagina.locator(".chat-mensaje.assistant").get_attribute("data-id")
    respuesta.locator("a", has_text="[1]").first.click()
    expect(chat.pagina.locator(f"#fuente-{mensaje_id}-1")).to_be_visible()
    en_vivo = chat.pagina.evaluate(ESTRUCTURA)

    movil = Pagina(navegador, chat.url, ancho=390)
    movil.pagina.goto(chat.pagina.url)
    expect(movil.pagina.locator(".chat-mensaje.assistant")).to_have_count(1)
    expect(movil.pagina.locator(".calificar")).to_have_text("Su opinión: le sirvió.")
    # Guardada y vuelta a mostrar por el servidor, la respuesta es la misma: lista de citas, marcadores
    # enlazados y fuentes.
    assert movil.pagina.evaluate(ESTRUCTURA) == en_vivo
    assert f"A #fuente-{mensaje_id}-1 " in en_vivo[0] and f"LI  fuente-{mensaje_id}-1" in en_vivo[0]
    assert len([e for e in en_vivo[0] if e.startswith("LI ")]) > 2
    assert movil.pagina.evaluate("document.documentElement.scrollWidth") <= 390
    # En el teléfono, «Nueva conversación» y la lista (plegada) van arriba de la conversación.
    nueva = movil.pagina.get_by_role("link", name="Nueva conversación")
    assert nueva.bounding_box()["y"] < movil.pagina.locator("#mensajes").bounding_box()["y"]
    actual = movil.pagina.locator("#conversaciones a[aria-current=page]")
    expect(actual).to_be_hidden()
    movil.pagina.get_by_text("Conversaciones", exact=True).click()
    expect(actual).to_have_text("¿Qué dice la ley sobre glaciares?")
    movil.capturar("chat-telefono")
    assert chat.errores == [] and movil.errores == []


def test_la_respuesta_a_una_pregunta_de_plazo_dice_los_dias_en_su_primera_oracion_y_el_1_lleva_al_articulo(
    cliente_confirmado: Cliente, daphne: Callable[..., str], django_db_blocker: Any
) -> None:
    from playwright.sync_api import expect

    url = daphne()
    with chromium(django_db_blocker) as navegador:
        chat = Pagina(navegador, url)
        chat.preguntar_y_esperar(
            "¿Qué plazo tienen los órganos con competencia ambiental para informar una Declaración de "
            "Impacto Ambiental?"
        )
        primera = chat.pagina.locator(".chat-mensaje.assistant .contenido p").first
        expect(primera).to_contain_text(re.compile(r"plazo máximo de quince días"))
        mensaje_id = chat.pagina.locator(".chat-mensaje.assistant").get_attribute("data-id")
        marcador = primera.locator("a", has_text="[1]")
        assert marcador.get_attribute("href") == f"#fuente-{mensaje_id}-1"
        marcador.click()
        fuente = chat.pagina.locator(f"#fuente-{mensaje_id}-1")
        expect(fuente).to_be_visible()
        expect(fuente).to_contain_text("DS 40, Art. 47")
        expect(fuente.locator("a").first).to_have_attribute(
            "href", re.compile(r"^https://www\.bcn\.cl/leychile/navegar\?idNorma=\d+")
        )
        chat.capturar("chat-pregunta-de-plazo")
        assert chat.errores == []


def test_una_respuesta_poco_segura_lo_dice_aparte_y_sus_pistas_van_en_lista_tambien_al_recargar(
    cliente_confirmado: Cliente, daphne: Callable[..., str], django_db_blocker: Any
) -> None:
    from playwright.sync_api import expect

    url = daphne()
    with chromium(django_db_blocker) as navegador:
        chat = Pagina(navegador, url)
        # Un plazo que ningún artículo fija: los que traen «días» son de otros trámites.
        chat.preguntar_y_esperar(
            "¿Con cuántos días de anticipación debe el titular avisar antes de detener la faena?"
        )
        contenido = chat.pagina.locator(".chat-mensaje.assistant .contenido").last
        expect(contenido.locator("p").first).to_contain_text("No encontré un artículo que responda esto")
        expect(contenido.locator("p").first).to_contain_text("de otro trámite")  # y por qué
        seguridad = contenido.locator("p.seguridad.seguridad-poco")
        expect(seguridad).to_be_visible()
        expect(seguridad).to_contain_text("Qué tan seguro estoy: poco")
        assert seguridad.evaluate("p => getComputedStyle(p).fontWeight") in ("600", "700")
        pistas = contenido.locator("ul > li")
        assert pistas.count() >= 2
        mensaje_id = chat.pagina.locator(".chat-mensaje.assistant").get_attribute("data-id")
        pistas.first.locator("a", has_text="[1]").click()
        expect(chat.pagina.locator(f"#fuente-{mensaje_id}-1")).to_be_visible()
        chat.capturar("chat-respuesta-poco-segura")

        chat.pagina.reload()  # guardada y vuelta a mostrar por el servidor, se ve igual
        recargada = chat.pagina.locator(".chat-mensaje.assistant .contenido").last
        expect(recargada.locator("p.seguridad.seguridad-poco")).to_contain_text("Qué tan seguro estoy: poco")
        assert recargada.locator("ul > li").count() == pistas.count()
        assert chat.errores == []


def test_un_proyecto_descrito_con_un_efecto_en_palabras_de_faena_es_eia_por_la_letra_c_citada(
    cliente_confirmado: Cliente, daphne: Callable[..., str], django_db_blocker: Any
) -> None:
    from playwright.sync_api import expect

    url = daphne()
    with chromium(django_db_blocker) as navegador:
        chat = Pagina(navegador, url)
        chat.preguntar_y_esperar(
            "Mina subterránea en la Región de Antofagasta de 9.000 toneladas al mes. Para el botadero "
            "hay que relocalizar a 12 familias de un caserío. ¿DIA o EIA?"
        )
        respuesta = chat.pagina.locator(".chat-mensaje.assistant .contenido")
        expect(respuesta).to_contain_text("Estudio de Impacto Ambiental (EIA)")
        expect(respuesta).to_contain_text("(«relocalizar a 12 familias de un caserío»), según la letra c)")
        fuentes = chat.pagina.locator("#fuentes")
        expect(fuentes).to_contain_text("Ley 19.300, Art. 11, letra c)")
        expect(fuentes).to_contain_text("DS 40, Art. 7")
        chat.capturar("chat-efecto-en-palabras")
        assert chat.errores == []


def test_crear_un_proyecto_pide_confirmacion_en_un_dialogo_con_parametros_editables(
    cliente_confirmado: Cliente, daphne: Callable[..., str], django_db_blocker: Any
) -> None:

    url = daphne()
    with chromium(django_db_blocker) as navegador:
        chat = Pagina(navegador, url)
        _crear_con_dialogo(chat, cliente_confirmado, django_db_blocker)


def _crear_con_dialogo(chat: Pagina, cliente_confirmado: Cliente, django_db_blocker: Any) -> None:
    from playwright.sync_api import expect

    chat.pagina.add_init_script(textos_de("estado-accion"))
    chat.pagina.reload()
    chat.preguntar("crea un proyecto llamado Mina Diálogo en Atacama de 8.000 toneladas al mes")

    dialogo = chat.pagina.locator("#dialogo-accion")
    expect(dialogo).to_be_visible()
    expect(dialogo).to_contain_text("¿Confirmar acción?")
    expect(chat.pagina.locator("#cuenta-accion")).to_have_text(re.compile(r"^(4:5\d|5:00)$"))
    expect(chat.pagina.locator("#parametros-accion")).to_contain_text("Región")  # etiquetas legibles
    expect(chat.pagina.locator("#parametros-accion")).to_contain_text("Extracción (t/mes)")
    chat.capturar("chat-dialogo-accion")
    assert not en_hilo(Proyecto.objects.filter(cliente=cliente_confirmado).exists)  # nada sin confirmar
    # Un parámetro inválido: el error se ve en el diálogo (no detrás de él) y se corrige ahí mismo.
    extraccion = chat.pagina.locator('#parametros-accion input[name="capacidad_extraccion_t_mes"]')
    extraccion.fill("-5")
    chat.pagina.click("#confirmar-accion")
    expect(chat.pagina.locator("#error-accion")).to_contain_text("capacidad_extraccion_t_mes")
    expect(dialogo).to_be_visible()
    expect(chat.pagina.locator("#confirmar-accion")).to_be_enabled()
    assert not en_hilo(Proyecto.objects.filter(cliente=cliente_confirmado).exists)
    extraccion.fill("8000")
    chat.pagina.fill('#parametros-accion input[name="nombre"]', "Mina Diálogo Editada")
    chat.pagina.click("#confirmar-accion")

    expect(dialogo).to_be_hidden()
    assert "Ejecutando…" in chat.pagina.evaluate("window.textos['estado-accion']")  # mientras se creaba
    expect(chat.pagina.locator("#mensajes")).to_contain_text("Listo: proyecto #")
    expect(chat.pagina.locator("#mensajes")).to_contain_text("«Mina Diálogo Editada»")
    chat.pagina.goto(f"{chat.url}/proyectos/")
    expect(chat.pagina.locator("main")).to_contain_text("Mina Diálogo Editada")
    assert chat.errores == []


def test_una_accion_propuesta_muestra_sus_parametros_tal_cual_con_opciones_fijas_en_lista_y_escape_la_cancela(
    cliente_confirmado: Cliente, daphne: Callable[..., str], django_db_blocker: Any
) -> None:
    from playwright.sync_api import expect

    # El modelo (o un sitio externo que lo manipuló) propone un nombre con comillas y etiquetas.
    nombre = 'Mina "Comillas" autofocus onfocus="alert(1)" <b>negrita</b>'
    propuesta = {"nombre": nombre, "region": "Atacama", "tipo": "aridos_pozo"}
    sse = mensaje_sse(
        {"type": "tool_use", "id": "toolu_1", "name": "crear_proyecto", "input": propuesta}, stop="tool_use"
    )
    # Tras la decisión, el modelo recibe la cancelación (un pedido sin herramientas) y sigue la conversación.
    continuacion = mensaje_sse({"type": "text", "text": "Entendido, no la creé. ¿La quiere en otra región?"})

    def guion(pedido: dict[str, Any]) -> str:
        return sse if "tools" in pedido else continuacion

    with con_claude(daphne, guion) as (url, _), chromium(django_db_blocker) as navegador:
        chat = Pagina(navegador, url)
        chat.preguntar("crea el proyecto que te indiqué")
        parametros = chat.pagina.locator("#parametros-accion")
        expect(parametros.locator('input[name="nombre"]')).to_have_value(nombre)
        expect(parametros.locator("select[name=tipo]")).to_have_value("aridos_pozo")
        expect(parametros.locator("select[name=tipo] option:checked")).to_have_text(
            "Áridos en pozo o cantera"
        )
        assert parametros.locator("b, [onfocus], [autofocus]").count() == 0
        chat.pagina.click("#cancelar-accion")
        expect(chat.pagina.locator("#dialogo-accion")).to_be_hidden()
        cancelada = chat.pagina.locator(".chat-mensaje.assistant", has_text="Acción cancelada.")
        expect(cancelada).to_have_count(1)
        siguio = chat.pagina.locator(".chat-mensaje.assistant", has_text="¿La quiere en otra región?")
        expect(siguio).to_have_count(1)
        expect(chat.pagina.locator("#actividad")).to_be_hidden()

        chat.preguntar("créalo de nuevo")  # Escape también cancela (no deja la acción pendiente)
        expect(parametros.locator('input[name="nombre"]')).to_be_visible()
        chat.pagina.keyboard.press("Escape")
        expect(chat.pagina.locator("#dialogo-accion")).to_be_hidden()
        expect(cancelada).to_have_count(2)
        expect(siguio).to_have_count(2)
        acciones = AccionPendiente.objects.filter(usuario__username=USUARIA)
        estados = en_hilo(lambda: list(acciones.values_list("estado", flat=True)))
        assert estados == ["cancelada", "cancelada"]
        assert chat.errores == []


def test_un_borrador_sobrevive_a_recargar_una_pregunta_rechazada_se_reintenta_y_la_conversacion_se_borra(
    cliente_confirmado: Cliente, daphne: Callable[..., str], django_db_blocker: Any
) -> None:
    from playwright.sync_api import expect

    url = daphne()
    with chromium(django_db_blocker) as navegador:
        chat = Pagina(navegador, url)
        usuaria = en_hilo(lambda: get_user_model().objects.get(username=USUARIA).pk)
        clave = f"asistente:limite:mensajes_minuto:{usuaria}"
        ahora_ms = int(time.time() * 1000)  # ya usó sus 10 mensajes del minuto
        cliente_redis().zadd(clave, {f"uso-{n}": ahora_ms for n in range(10)})

        chat.pagina.fill("#entrada", "¿Qué es una DIA?")
        chat.pagina.reload()  # lo escrito y no enviado no se pierde
        expect(chat.pagina.locator("#entrada")).to_have_value("¿Qué es una DIA?")
        chat.pagina.press("#entrada", "Enter")
        error = chat.pagina.locator("#error")
        expect(error).to_contain_text("Superó el límite de 10 por minuto")
        expect(error.locator("#reintentar")).to_be_visible()
        expect(chat.pagina.locator("#entrada")).to_be_enabled()

        cliente_redis().delete(clave)  # pasó el minuto
        error.locator("#reintentar").click()
        expect(error).to_be_hidden()
        expect(chat.pagina.locator(".chat-mensaje.assistant .calificar")).to_be_visible()
        expect(chat.pagina.locator(".chat-mensaje.user")).to_have_count(1)
        chat.pagina.reload()  # enviado, el borrador ya no está
        expect(chat.pagina.locator("#entrada")).to_have_value("")

        chat.pagina.once("dialog", lambda dialogo: dialogo.accept())
        chat.pagina.click("#eliminar-conversacion")
        expect(chat.pagina.locator("#conversaciones")).to_contain_text(
            "Aún no hay conversaciones: escriba su primera pregunta"
        )
        assert "?c=" not in chat.pagina.url
        assert en_hilo(lambda: list(Conversacion.objects.filter(usuario_id=usuaria, eliminada_at=None))) == []
        assert chat.errores == []


MARKDOWN_DEL_MODELO = (
    "## Resumen\n\nSegún la **Ley 19.300**:\n1. uno\n2. dos\n\n*cursiva* y `código`\n\n> una cita\n\n"
    "Ver [LeyChile](https://www.bcn.cl/leychile/navegar?idNorma=30667).\n\n---\n"
    "<script>alert(1)</script> [falso](javascript:alert(2)) ![imagen](https://ejemplo.cl/x.png)"
)


# Cada texto que toma el indicador de actividad (vacío si se oculta), en orden.
def textos_de(elemento_id: str) -> str:
    """Script de inicio de página: guarda en `window.textos[id]` cada texto que toma el elemento
    (vacío cuando se oculta), también los que duran un instante."""
    return f"""document.addEventListener("DOMContentLoaded", () => {{
  const e = document.getElementById("{elemento_id}"), vistos = [];
  if (!e) return;  // otra página del recorrido
  (window.textos = window.textos || {{}})["{elemento_id}"] = vistos;
  new MutationObserver(() => vistos.push(e.hidden ? "" : e.textContent))
    .observe(e, {{ attributes: true, childList: true, characterData: true, subtree: true }});
}});"""


def _buscar_y_luego_responder(pedido: dict[str, Any]) -> str:
    """Primera ronda: el modelo busca en la normativa; con el resultado, responde en Markdown."""
    if any(isinstance(m["content"], list) for m in pedido["messages"] if m["role"] == "user"):
        return mensaje_sse({"type": "text", "text": MARKDOWN_DEL_MODELO})
    uso = {"type": "tool_use", "id": "toolu_1", "name": "buscar_normativa", "input": {"consulta": "EIA"}}
    return mensaje_sse(uso, stop="tool_use")


def test_una_respuesta_en_markdown_dice_que_consulta_y_se_ve_igual_al_recargar(
    cliente_confirmado: Cliente, daphne: Callable[..., str], django_db_blocker: Any
) -> None:
    from playwright.sync_api import expect

    with con_claude(daphne, _buscar_y_luego_responder) as (url, _), chromium(django_db_blocker) as navegador:
        chat = Pagina(navegador, url)
        chat.pagina.add_init_script(textos_de("actividad"))
        chat.pagina.reload()
        chat.preguntar("Resuma la norma")
        expect(chat.pagina.locator(".chat-mensaje.assistant .calificar")).to_be_visible()
        actividades = [t for t in chat.pagina.evaluate("window.textos.actividad") if t]
        assert actividades.index("Buscando en la normativa…") < actividades.index("Preparando la respuesta…")
        expect(chat.pagina.locator("#actividad")).to_be_hidden()
        etiquetas, texto = chat.pagina.evaluate(ESTRUCTURA)

        chat.pagina.reload()
        expect(chat.pagina.locator(".chat-mensaje.assistant")).to_have_count(1)
        assert chat.pagina.evaluate(ESTRUCTURA) == [etiquetas, texto]
        nombres = {e.split(" ")[0] for e in etiquetas}
        assert {"H2", "STRONG", "OL", "LI", "EM", "CODE", "BLOCKQUOTE", "HR", "DETAILS"} <= nombres
        assert "A https://www.bcn.cl/leychile/navegar?idNorma=30667 " in etiquetas
        assert not [e for e in etiquetas if e.startswith(("SCRIPT", "IMG")) or "javascript" in e]
        assert "<script>alert(1)</script>" in texto and "[falso](javascript:alert(2))" in texto
        assert chat.errores == []


def test_recargar_a_mitad_de_respuesta_reanuda_el_flujo_sin_perder_ni_repetir_texto(
    cliente_confirmado: Cliente, daphne: Callable[..., str], django_db_blocker: Any
) -> None:

    palabras = [f"palabra{n}" for n in range(1, 41)] + ["fin."]
    sse = mensaje_sse({"type": "text", "text": " ".join(palabras)})
    with con_claude(daphne, lambda pedido: sse, pausa_s=0.1) as (url, suplente):
        with chromium(django_db_blocker) as navegador:
            _recargar_a_mitad(Pagina(navegador, url), palabras)
        assert len(suplente.pedidos) == 1


def _recargar_a_mitad(chat: Pagina, palabras: list[str]) -> None:
    from playwright.sync_api import expect

    chat.preguntar("Explíqueme el artículo 11 de la Ley 19.300")
    burbuja = chat.pagina.locator(".chat-mensaje.assistant .contenido").last
    expect(burbuja).to_contain_text("palabra5")
    expect(chat.pagina.locator("#entrada")).to_be_disabled()  # mientras llega la respuesta
    expect(chat.pagina.locator(".chat-mensaje.assistant")).to_have_attribute("aria-busy", "true")

    chat.pagina.reload()
    assert "?c=" in chat.pagina.url
    expect(chat.pagina.locator(".chat-mensaje.assistant .contenido").last).to_contain_text("fin.")
    expect(chat.pagina.locator(".chat-mensaje.assistant")).to_have_count(1)
    assert chat.pagina.locator(".chat-mensaje.assistant .contenido").last.inner_text().split() == palabras
    expect(chat.pagina.locator(".chat-mensaje.assistant[aria-busy]")).to_have_count(0)
    chat.capturar("chat-reanudado")

    chat.pagina.reload()  # ya guardada y sin calificar: se califica igual que en vivo
    chat.pagina.locator(".calificar button", has_text="No").click()
    expect(chat.pagina.locator(".calificar")).to_have_text("Gracias por su opinión.")
    mensaje_id = chat.pagina.locator(".chat-mensaje.assistant").get_attribute("data-id")
    assert en_hilo(lambda: Mensaje.objects.get(pk=mensaje_id).feedback) == -1
    assert chat.errores == []


def test_abrir_un_proyecto_sin_geometria_muestra_un_aviso_descartable_en_el_panel_lateral(
    cliente_confirmado: Cliente, daphne: Callable[..., str], django_db_blocker: Any
) -> None:

    with django_db_blocker.unblock():
        proyecto = proyecto_crear(
            cliente=cliente_confirmado,
            datos={"nombre": "Mina Sin Polígono", "region": "Antofagasta", "tipo": "explotacion"},
        )
        Proyecto.objects.filter(pk=proyecto.pk).update(creado_at=timezone.now() - timedelta(days=2))
        configuracion = ConfiguracionAvisos.vigente()
        horario = (configuracion.hora_inicio, configuracion.hora_fin)
        ConfiguracionAvisos.objects.filter(pk=configuracion.pk).update(hora_inicio=0, hora_fin=24)
    try:
        url = daphne()
        with chromium(django_db_blocker) as navegador:
            _aviso_en_el_panel(Pagina(navegador, url), proyecto)
        with django_db_blocker.unblock():
            assert Aviso.objects.get(
                usuario__username=USUARIA, objeto=f"proyecto:{proyecto.pk}"
            ).descartado_at
    finally:
        with django_db_blocker.unblock():
            ConfiguracionAvisos.objects.filter(pk=1).update(hora_inicio=horario[0], hora_fin=horario[1])


def _aviso_en_el_panel(pagina: Pagina, proyecto: Proyecto) -> None:
    from playwright.sync_api import expect

    pagina.pagina.goto(f"{pagina.url}/proyectos/{proyecto.pk}/")

    avisos = pagina.pagina.locator(".panel-chat #avisos")
    aviso = avisos.locator("li[data-aviso]")
    expect(aviso).to_contain_text(
        "El proyecto Mina Sin Polígono no tiene geometría definida. ¿Desea ir al mapa para dibujarla?"
    )
    expect(aviso.locator("a")).to_have_attribute("href", f"/proyectos/{proyecto.pk}/mapa/")
    expect(aviso.locator("a")).to_have_text("Ir al mapa")
    contexto = [m for m in pagina.marcos if m["evento"] == "contexto"][-1]
    assert contexto["datos"]["proyecto_id"] == proyecto.pk
    pagina.capturar("proyecto-con-aviso")

    pagina.preguntar("¿Qué le falta a este proyecto?")
    expect(pagina.pagina.locator(".panel-chat .chat-mensaje.assistant .calificar")).to_be_visible()
    assert pagina.errores == [] and "?c=" not in pagina.pagina.url

    expect(avisos.locator(".vacio")).to_be_hidden()
    aviso.get_by_role("button", name="Descartar").click()
    expect(aviso).to_have_count(0)
    expect(avisos.locator(".vacio")).to_have_text("No hay avisos pendientes.")


def test_un_aviso_de_la_tarea_periodica_aparece_en_el_chat_abierto_sin_recargar(
    cliente_confirmado: Cliente, daphne: Callable[..., str], django_db_blocker: Any
) -> None:
    from playwright.sync_api import expect

    from asistente.avisos import avisos_evaluar

    with django_db_blocker.unblock():
        configuracion = ConfiguracionAvisos.vigente()
        horario = (configuracion.hora_inicio, configuracion.hora_fin)
        ConfiguracionAvisos.objects.filter(pk=configuracion.pk).update(hora_inicio=0, hora_fin=24)
    try:
        url = daphne()
        with chromium(django_db_blocker) as navegador:
            chat = Pagina(navegador, url)
            expect(chat.pagina.locator("#avisos .vacio")).to_have_text("No hay avisos pendientes.")
            chat.pagina.evaluate("window.sinRecargar = true")  # una recarga la borraría
            # el socket abierto evalúa los avisos del usuario al recibir el contexto: en una máquina
            # cargada eso puede ocurrir después de crear el proyecto, y entonces el aviso es suyo
            chat.esperar_evento("contexto")

            def crear_y_evaluar() -> int:
                proyecto = proyecto_crear(
                    cliente=cliente_confirmado,
                    datos={"nombre": "Mina Del Aviso Vivo", "region": "Atacama", "tipo": "explotacion"},
                )
                Proyecto.objects.filter(pk=proyecto.pk).update(creado_at=timezone.now() - timedelta(days=2))
                usuaria = get_user_model().objects.get(username=USUARIA)
                avisos_evaluar(usuario=usuaria)  # lo que hace la tarea periódica
                return Aviso.objects.filter(usuario=usuaria, objeto=f"proyecto:{proyecto.pk}").count()

            assert en_hilo(crear_y_evaluar) == 1  # uno solo, lo haya creado la tarea o la apertura
            aviso = chat.pagina.locator("#avisos li[data-aviso]")
            expect(aviso).to_contain_text("El proyecto Mina Del Aviso Vivo no tiene geometría definida.")
            expect(chat.pagina.locator("#avisos .vacio")).to_be_hidden()
            assert chat.pagina.evaluate("window.sinRecargar") is True
            chat.capturar("aviso-en-vivo")
            assert chat.errores == []
    finally:
        with django_db_blocker.unblock():
            ConfiguracionAvisos.objects.filter(pk=1).update(hora_inicio=horario[0], hora_fin=horario[1])
            Aviso.objects.filter(usuario__username=USUARIA).delete()


def test_una_preferencia_dicha_en_el_chat_se_ve_en_mi_memoria_y_se_olvida_y_una_pregunta_parecida_se_recuerda(
    cliente_confirmado: Cliente, daphne: Callable[..., str], django_db_blocker: Any
) -> None:
    from playwright.sync_api import expect

    def conversacion_anterior() -> None:
        usuaria = get_user_model().objects.get(username=USUARIA)
        anterior = Conversacion.objects.create(
            usuario_id=usuaria.pk, dominio=Dominio.objects.get(codigo="mineria"), titulo="Plazos DIA"
        )
        pregunta = Mensaje.objects.create(
            conversacion=anterior, rol="user", contenido="¿Cuál es el plazo de evaluación de una DIA?"
        )
        Mensaje.objects.create(
            conversacion=anterior, rol="assistant", pregunta=pregunta, contenido="Sesenta días [1]."
        )

    url = daphne()
    with chromium(django_db_blocker) as navegador:
        en_hilo(conversacion_anterior)
        chat = Pagina(navegador, url)
        chat.preguntar("Respóndeme breve, por favor.")
        expect(chat.pagina.locator(".chat-mensaje.assistant").last).to_contain_text(
            "Anotado: Respuestas breves."
        )

        chat.preguntar("plazos de evaluación de una DIA minera")
        recuerdo = chat.pagina.locator(".chat-mensaje.assistant .recuerdos").last
        expect(recuerdo).to_contain_text("Usted preguntó algo parecido antes:")
        expect(recuerdo.locator("a")).to_have_text("«¿Cuál es el plazo de evaluación de una DIA?»")

        # El enlace de la confirmación lleva a «Mi memoria» (también está en la barra).
        chat.pagina.locator(".chat-mensaje.assistant").first.get_by_role("link", name="Mi memoria").click()
        fila = chat.pagina.locator("tr[data-preferencia=largo]")
        expect(fila).to_contain_text("Respuestas breves")
        expect(fila).to_contain_text("«Respóndeme breve, por favor.»")
        expect(chat.pagina.locator("tr[data-pregunta]")).to_have_count(2)  # «respóndeme breve» no es pregunta
        chat.capturar("mi_memoria")
        fila.get_by_role("button", name="Olvidar Largo de las respuestas").click()
        expect(chat.pagina.locator(".mensajes")).to_contain_text("Listo: lo olvidé.")
        expect(chat.pagina.locator("tr[data-preferencia]")).to_have_count(0)
        chat.pagina.get_by_role("button", name="Olvidar todo").click()
        expect(chat.pagina.locator("tr[data-pregunta]")).to_have_count(0)
        assert chat.errores == []


def test_el_dominio_elegido_rige_la_conversacion_y_advertencias_y_sugerencias_son_de_la_respuesta_en_vista(
    cliente_confirmado: Cliente, daphne: Callable[..., str], django_db_blocker: Any
) -> None:
    """El dominio elegido en el selector rige la conversación y queda fijo; las advertencias son las de la
    respuesta en vista (se limpian cada turno y vuelven al recargar); las sugerencias son botones bajo la
    última respuesta, siguen al recargar y un clic las pregunta."""
    from playwright.sync_api import expect

    with django_db_blocker.unblock():
        Dominio.objects.create(
            codigo="sin-corpus", nombre="Consultas sin corpus", prompt_sistema="P.", rag_habilitado=False
        )
    url = daphne()
    try:
        with chromium(django_db_blocker) as navegador:
            chat = Pagina(navegador, url)
            pagina = chat.pagina
            selector, panel = pagina.locator("#dominio"), pagina.locator("#panel-advertencias")
            expect(selector).to_be_enabled()
            expect(selector).to_have_value("mineria")
            expect(panel).to_be_hidden()
            selector.select_option(label="Consultas sin corpus")
            chat.preguntar_y_esperar("¿Qué plazo tiene el Servicio para evaluar una Declaración?")

            respuestas = pagina.locator(".chat-mensaje.assistant")
            expect(respuestas.first).to_contain_text("desactivada en el dominio «Consultas sin corpus»")
            expect(panel).to_contain_text("Sin base suficiente en el corpus.")
            expect(selector).to_be_disabled()
            conversacion = en_hilo(
                lambda: Conversacion.objects.select_related("dominio").get(usuario__username=USUARIA)
            )
            assert conversacion.dominio.codigo == "sin-corpus"

            pagina.reload()
            expect(pagina.locator("#dominio")).to_be_disabled()
            expect(pagina.locator("#dominio")).to_have_value("sin-corpus")
            expect(pagina.locator("#advertencias")).to_contain_text("Sin base suficiente en el corpus.")
            pagina.fill("#entrada", "gracias")
            pagina.press("#entrada", "Enter")
            expect(respuestas.nth(1).locator(".calificar")).to_be_visible()
            expect(respuestas.nth(1)).to_contain_text("De nada")
            expect(pagina.locator("#panel-advertencias")).to_be_hidden()
            expect(respuestas.nth(1).locator(".sugerencias button")).to_have_count(3)

            pagina.reload()
            botones = pagina.locator(".chat-mensaje.assistant").nth(1).locator(".sugerencias button")
            expect(botones).to_have_count(3)
            expect(botones.nth(2)).to_have_text("Lista mis proyectos")
            botones.nth(2).click()
            expect(pagina.locator(".chat-mensaje.user").nth(2)).to_have_text("Lista mis proyectos")
            expect(pagina.locator(".chat-mensaje.assistant").nth(2).locator(".calificar")).to_be_visible()
            expect(pagina.locator(".chat-mensaje.assistant .sugerencias")).to_have_count(0)
            chat.capturar("chat-dominio-advertencias-y-sugerencias")

            pagina.click("text=Nueva conversación")
            expect(pagina.locator("#dominio")).to_be_enabled()
            expect(pagina.locator("#dominio")).to_have_value("mineria")
            assert chat.errores == []
    finally:
        with django_db_blocker.unblock():
            Conversacion.objects.filter(dominio__codigo="sin-corpus").delete()
            Dominio.objects.filter(codigo="sin-corpus").delete()
