// Chat del asistente por websocket: eventos meta → sources → warnings? → start → token* → done.
// Reanuda tras una recarga o un corte con el id del último evento recibido (sessionStorage).
"use strict";
(function () {
  const config = JSON.parse(document.getElementById("config-chat").textContent);
  const $ = (id) => document.getElementById(id);
  const lista = $("mensajes"), entrada = $("entrada"), enviar = $("enviar"), actividad = $("actividad");
  const fuentes = $("fuentes"), advertencias = $("advertencias"), panelAdv = $("panel-advertencias");
  const error = $("error"), dialogo = $("dialogo-accion"), selectorDominio = $("dominio");
  let socket = null, burbuja = null, texto = "", conversacion = config.conversacion_id, enCurso = false;
  let ultimoMensaje = "", accion = null, cuenta = null, reintentos = 0, reanudaciones = 0, primera = true, yaGuardada = false;
  let pintura = 0;  // cuadro de pantalla pedido para pintar los trozos recibidos
  let fuentesTurno = 0;  // fuentes del turno en curso: los marcadores [n] hasta ese número se enlazan
  let pendiente = null;  // mensaje escrito antes de que el websocket abriera: sale al conectar
  // El último mensaje enviado cuyo turno aún no empezó (no llegó su «meta»): si el socket se corta, se
  // reenvía al reconectar con su mismo `id_cliente`, y el servidor retransmite ese turno, no otro.
  let sinAcuse = null;
  let decidiendo = null;  // la decisión (Confirmar o Cancelar) enviada cuya respuesta falta

  // Para texto y atributos entre comillas dobles (innerHTML de un nodo de texto no escapa las comillas).
  function escapar(t) { const d = document.createElement("div"); d.textContent = t == null ? "" : String(t); return d.innerHTML.replaceAll('"', "&quot;"); }
  // El mismo Markdown que el servidor al recargar (`asistente.selectors.markdown_seguro`): markdown-it
  // CommonMark con los saltos de línea respetados y el HTML crudo escapado, y solo las etiquetas que
  // el servidor permite (las demás se quitan dejando su texto). Así una respuesta se ve igual
  // mientras llega que guardada. Con `de` (el id del mensaje), cada marcador [n] de una de sus
  // `fuentes` enlaza a la fuente n de la lista del mensaje, como hace el servidor.
  const md = window.markdownit("commonmark", { breaks: true, html: false });
  const permitidas = new Set(config.etiquetas_markdown);
  function markdown(t, de, cuantas) {
    const plantilla = document.createElement("template");
    plantilla.innerHTML = md.render(t);
    sanear(plantilla.content);
    if (de) enlazarMarcadores(plantilla.content, de, cuantas);
    marcarSeguridad(plantilla.content);
    return plantilla.innerHTML;
  }
  // La línea «Qué tan seguro estoy: …» se ve aparte y con su nivel, como la marca el servidor.
  function marcarSeguridad(raiz) {
    raiz.querySelectorAll("p").forEach(function (p) {
      const em = p.firstElementChild;
      const m = em && em.tagName === "EM" && p.firstChild === em
        ? em.textContent.match(/^Qué tan seguro estoy: (bastante|medianamente|poco)\b/) : null;
      if (m) p.className = "seguridad seguridad-" + m[1];
    });
  }
  function sanear(nodo) {
    Array.from(nodo.children).forEach(function (el) {
      sanear(el);
      const etiqueta = el.tagName.toLowerCase();
      if (!permitidas.has(etiqueta)) { el.replaceWith(...Array.from(el.childNodes)); return; }
      Array.from(el.attributes).forEach(function (a) { if (!(etiqueta === "a" && a.name === "href")) el.removeAttribute(a.name); });
    });
  }
  function enlazarMarcadores(raiz, de, cuantas) {
    const caminante = document.createTreeWalker(raiz, NodeFilter.SHOW_TEXT), nodos = [];
    while (caminante.nextNode()) {
      const n = caminante.currentNode;
      if (/\[\d+\]/.test(n.data) && !n.parentElement?.closest("code, a")) nodos.push(n);
    }
    nodos.forEach(function (n) {
      n.replaceWith(...n.data.split(/(\[\d+\])/).map(function (parte) {
        const m = parte.match(/^\[(\d+)\]$/);
        if (!m || m[1] < 1 || m[1] > cuantas) return document.createTextNode(parte);
        const a = document.createElement("a");
        a.href = "#fuente-" + de + "-" + m[1]; a.textContent = parte;
        return a;
      }));
    });
  }
  function clave() { return "chat:ultimo:" + conversacion; }
  function conectar() {
    const protocolo = location.protocol === "https:" ? "wss://" : "ws://";
    socket = new WebSocket(protocolo + location.host + config.ws);
    socket.onopen = function () {
      if (reintentos) actividad.hidden = true;
      reintentos = 0;
      socket.send(JSON.stringify({ tipo: "contexto", vista: config.vista, proyecto_id: config.proyecto_id }));
      const ultimo = conversacion ? sessionStorage.getItem(clave()) : null;
      if (conversacion && ultimo && sessionStorage.getItem(clave() + ":fin") !== "1") {
        // Tras un corte se pide lo que falta; tras recargar la página (que perdió lo ya mostrado),
        // el turno completo desde el principio.
        socket.send(JSON.stringify({ tipo: "reanudar", conversacion_id: conversacion, ultimo_evento: primera ? 0 : Number(ultimo) }));
        if (primera) { enCurso = true; entrada.disabled = enviar.disabled = true; }
      }
      primera = false;
      if (pendiente || sinAcuse) { socket.send(JSON.stringify(pendiente || sinAcuse)); pendiente = null; actividad.hidden = true; }
      // Si el socket se cortó antes de la respuesta a una decisión, se repite: repetir la misma
      // decisión devuelve el mismo resultado (no ejecuta dos veces).
      else if (decidiendo) socket.send(JSON.stringify(decidiendo));
    };
    socket.onmessage = function (m) { recibir(JSON.parse(m.data)); };
    socket.onclose = function (e) {
      if (e.code === 4401) { mostrarError("Su sesión terminó: vuelva a ingresar."); return; }
      // A lo más 4 s entre intentos: cuando el servidor vuelve, el chat vuelve con él.
      actividad.hidden = false; actividad.textContent = "Sin conexión con el servidor; reconectando…";
      setTimeout(conectar, Math.min(500 * 2 ** reintentos++, 4000));
    };
  }
  function recibir(marco) {
    const d = marco.datos || {};
    if (marco.id && conversacion) sessionStorage.setItem(clave(), marco.id);
    switch (marco.evento) {
      case "meta":
        sinAcuse = null;
        conversacion = d.conversacion_id; fuentesTurno = 0; sessionStorage.setItem(clave(), marco.id); sessionStorage.removeItem(clave() + ":fin");
        pintarAdvertencias([]);  // las advertencias son de cada respuesta: las de la anterior no siguen
        if (!config.panel && !new URLSearchParams(location.search).get("c")) history.replaceState(null, "", "?c=" + conversacion);
        anotarConversacion(d.titulo);
        if (selectorDominio) selectorDominio.disabled = true;  // el dominio de la conversación ya quedó
        if ($("eliminar-conversacion")) $("eliminar-conversacion").hidden = false;
        break;
      case "sources": fuentesTurno = (d.fuentes || []).length; pintarFuentes(d.fuentes || []); break;
      case "warnings": pintarAdvertencias(d.advertencias || []); break;
      case "start": {
        // Al reanudar un turno que ya terminó, su respuesta ya viene en la página: no se repite.
        const previa = lista.querySelector('[data-id="' + d.mensaje_id + '"]');
        yaGuardada = !!previa; burbuja = previa || agregar("assistant", ""); burbuja.dataset.id = d.mensaje_id; texto = "";
        // Un lector de pantalla anuncia la respuesta una vez, completa, y no cada trozo repintado.
        if (!yaGuardada) burbuja.setAttribute("aria-busy", "true");
        break;
      }
      // Qué consulta el asistente mientras corre; al terminar, el modelo redacta con lo encontrado.
      case "tool_start": actividad.hidden = false; actividad.textContent = d.actividad; break;
      case "tool": actividad.hidden = false; actividad.textContent = "Preparando la respuesta…"; break;
      case "token":
        if (yaGuardada) break;
        if (!burbuja) { burbuja = agregar("assistant", ""); texto = ""; }
        texto += d.texto; actividad.hidden = true; pintarPronto();
        break;
      // El proceso que preparaba la respuesta se detuvo y el turno se retoma desde el inicio: lo
      // recibido hasta aquí se descarta (llega de nuevo).
      case "reinicio":
        texto = ""; yaGuardada = false;
        if (burbuja) burbuja.querySelector(".contenido").textContent = "";
        actividad.hidden = false; actividad.textContent = d.mensaje;
        break;
      case "action": abrirAccion(d); break;
      case "aviso": mostrarAviso(d); break;
      case "done": terminar(d); break;
      case "confirmacion":
        esperarDecision(null); cerrarAccion(); agregar("assistant", seguimiento(d));
        if (d.continua) { actividad.hidden = false; actividad.textContent = "El asistente continúa la conversación…"; }
        break;
      // Con Claude, tras la decisión el modelo sigue la conversación con el resultado (o la cancelación).
      case "seguimiento":
        actividad.hidden = true;
        if (d.mensaje) {
          const li = agregar("assistant", d.mensaje.contenido);
          li.dataset.id = d.mensaje.id; agregarCalificacion(li, d.mensaje.id);
        }
        break;
      case "error":
        // El error de una decisión se muestra en el diálogo (si no, quedaría detrás de él): con
        // parámetros inválidos (400) se corrigen ahí mismo; si la acción venció o ya no existe, se cierra.
        if (decidiendo) {
          esperarDecision(null);
          if (d.codigo === 400) { const e = $("error-accion"); e.textContent = d.mensaje; e.hidden = false; break; }
          cerrarAccion(); mostrarError(d.mensaje || "No se pudo decidir la acción.", false); break;
        }
        sinAcuse = null;  // el servidor respondió a ese mensaje (con un error)
        if (d.reanudable && conversacion) {  // la transmisión se cortó, el turno sigue: se pide lo que falta
          reanudarLuego(d);
          break;
        }
        terminar(null); mostrarError(d.mensaje || "Ocurrió un error.", true); break;
      default: break;
    }
  }
  // Una conversación recién creada aparece al tope de la lista, con su título, y queda marcada como la actual.
  function anotarConversacion(titulo) {
    const listaConv = $("conversaciones");
    if (!listaConv || listaConv.querySelector('a[href="?c=' + conversacion + '"]')) return;
    listaConv.querySelectorAll(".vacio").forEach(function (v) { v.remove(); });
    listaConv.querySelectorAll("[aria-current]").forEach(function (a) { a.removeAttribute("aria-current"); });
    const li = document.createElement("li"), enlace = document.createElement("a");
    enlace.href = "?c=" + conversacion; enlace.setAttribute("aria-current", "page");
    enlace.textContent = titulo || "(sin título)";
    li.appendChild(enlace); listaConv.prepend(li);
  }
  // Los trozos se pintan a lo más una vez por cuadro de pantalla: con respuestas largas, volver a
  // armar el Markdown completo en cada trozo recargaría el teléfono.
  function pintarPronto() { if (!pintura) pintura = requestAnimationFrame(pintarAhora); }
  function pintarAhora() {
    if (pintura) cancelAnimationFrame(pintura);
    pintura = 0;
    if (burbuja && !yaGuardada) {
      burbuja.querySelector(".contenido").innerHTML = markdown(texto, burbuja.dataset.id, fuentesTurno);
      burbuja.scrollIntoView({ block: "end" });
    }
  }
  // Sin Redis el turno sigue y se guarda: se avisa y se pide lo que falta cuando vuelva (con esperas
  // crecientes si aún no está), sin que el usuario tenga que hacer nada.
  function reanudarLuego(d) {
    const espera = Math.min(1000 * (d.reintentar_en || 0) * 2 ** reanudaciones++, 15000);
    if (d.reintentar_en) { actividad.hidden = false; actividad.textContent = d.mensaje; }
    setTimeout(function () {
      if (socket.readyState !== WebSocket.OPEN) return;  // al reconectar, onopen pide lo que falta
      socket.send(JSON.stringify({ tipo: "reanudar", conversacion_id: conversacion, ultimo_evento: Number(sessionStorage.getItem(clave()) || 0) }));
    }, espera);
  }
  function terminar(d) {
    reanudaciones = 0;
    // Una respuesta reanudada cuyo comienzo se perdió (llegó solo su `done`, desde lo guardado).
    if (d && d.mensaje && !burbuja && !lista.querySelector('[data-id="' + d.mensaje.id + '"]')) {
      burbuja = agregar("assistant", ""); burbuja.dataset.id = d.mensaje.id;
    }
    pintarAhora();
    if (burbuja) burbuja.removeAttribute("aria-busy");
    enCurso = false; entrada.disabled = enviar.disabled = false; actividad.hidden = true;
    if (conversacion) sessionStorage.setItem(clave() + ":fin", "1");
    if (d && d.mensaje) pintarAdvertencias(d.mensaje.advertencias || []);  // las de la respuesta guardada
    if (d && d.mensaje && burbuja && !yaGuardada) {
      const m = d.mensaje, lista_ = m.fuentes || [];
      burbuja.querySelector(".contenido").innerHTML = markdown(m.contenido, m.id, lista_.length);
      fuentesDelMensaje(burbuja, m.id, lista_);
      recuerdosDelMensaje(burbuja, m.recuerdos || []);
      agregarCalificacion(burbuja, m.id);
    }
    pintarSugerencias(d && d.sugerencias ? d.sugerencias : []);
    burbuja = null; yaGuardada = false; entrada.focus();
  }
  function agregar(rol, contenido) {
    const li = document.createElement("li");
    li.className = "chat-mensaje " + rol;
    li.innerHTML = '<div class="contenido">' + markdown(contenido) + "</div>";
    lista.appendChild(li); li.scrollIntoView({ block: "end" });
    return li;
  }
  // La lista de fuentes bajo la respuesta, como la arma el servidor al recargar.
  function fuentesDelMensaje(li, id, lista_) {
    if (!lista_.length) return;
    const detalles = document.createElement("details"), resumen = document.createElement("summary");
    const ol = document.createElement("ol");
    detalles.className = "fuentes-mensaje"; resumen.textContent = "Fuentes (" + lista_.length + ")";
    lista_.forEach(function (f, i) {
      const item = document.createElement("li"), a = document.createElement("a");
      item.id = "fuente-" + id + "-" + (i + 1);
      a.href = f.url; a.target = "_blank"; a.rel = "noopener"; a.textContent = f.cita;
      item.appendChild(a); vigencia(item, f); ol.appendChild(item);
    });
    detalles.append(resumen, ol); li.appendChild(detalles);
  }
  // Preguntas parecidas que el usuario hizo antes (su memoria), como las arma el servidor al recargar.
  function recuerdosDelMensaje(li, recuerdos) {
    if (!recuerdos.length) return;
    const caja = document.createElement("div"), titulo = document.createElement("p"), ul = document.createElement("ul");
    caja.className = "recuerdos"; titulo.textContent = "Usted preguntó algo parecido antes:";
    recuerdos.forEach(function (r) {
      const item = document.createElement("li"), a = document.createElement("a");
      a.href = "?c=" + encodeURIComponent(r.conversacion_id); a.textContent = "«" + r.pregunta + "»";
      item.append(a, " (" + r.fecha + ")" + (r.respuesta ? ": " + r.respuesta : ""));
      ul.appendChild(item);
    });
    caja.append(titulo, ul); li.appendChild(caja);
  }
  // Un marcador [n] abre la lista de fuentes de su respuesta (cerrada por omisión) antes de saltar.
  lista.addEventListener("click", function (e) {
    const enlace = e.target.closest('a[href^="#fuente-"]');
    const destino = enlace && document.getElementById(enlace.getAttribute("href").slice(1));
    const detalles = destino && destino.closest("details");
    if (detalles) detalles.open = true;
  });
  function agregarCalificacion(li, id) {
    const caja = document.createElement("div");
    caja.className = "calificar";
    caja.innerHTML = '¿Le sirvió? <button type="button" class="enlace">Sí</button> <button type="button" class="enlace">No</button>';
    caja.querySelectorAll("button").forEach(function (b, i) {
      b.onclick = function () {
        fetch("/api/asistente/mensajes/" + id + "/feedback", {
          method: "POST", credentials: "same-origin",
          headers: { "Content-Type": "application/json", "X-CSRFToken": csrf() },
          body: JSON.stringify({ valor: i === 0 ? 1 : -1 }),
        }).then(function (r) { caja.textContent = r.ok ? "Gracias por su opinión." : "No se pudo guardar su opinión."; },
          function () { caja.textContent = "No se pudo guardar su opinión (sin conexión)."; });
      };
    });
    li.appendChild(caja);
  }
  // Lo que el asistente sugiere preguntar después, como botones bajo la última respuesta: un clic lo
  // envía. Las sugerencias de una respuesta anterior no siguen.
  function pintarSugerencias(lista_) {
    lista.querySelectorAll(".sugerencias").forEach(function (s) { s.remove(); });
    const ultima = lista.querySelector(".chat-mensaje.assistant:last-of-type");
    if (!lista_.length || !ultima) return;
    const caja = document.createElement("div");
    caja.className = "sugerencias"; caja.setAttribute("aria-label", "Sugerencias");
    lista_.forEach(function (texto) {
      const b = document.createElement("button");
      b.type = "button"; b.className = "boton secundario"; b.textContent = texto;
      b.onclick = function () { mandar(texto); };
      caja.appendChild(b);
    });
    ultima.appendChild(caja);
  }
  lista.querySelectorAll(".sugerencias button").forEach(function (b) { b.onclick = function () { mandar(b.textContent); }; });
  function pintarFuentes(lista_) {
    fuentes.innerHTML = lista_.length ? "" : '<li class="vacio">Sin fuentes en esta respuesta.</li>';
    lista_.forEach(function (f, i) {
      const li = document.createElement("li");
      li.innerHTML = '<a href="' + escapar(f.url) + '" target="_blank" rel="noopener">' + escapar(f.cita) + "</a>";
      vigencia(li, f);
      const p = document.createElement("p"); p.textContent = f.extracto; li.appendChild(p);
      fuentes.appendChild(li);
    });
  }
  // Junto a la cita, la fecha del texto citado y el aviso de vigencia de su norma (como `_vigencia.html`).
  function vigencia(li, f) {
    [[f.vigencia, "vigencia", "(" + f.vigencia + ")"], [f.advertencia, "advertencia-vigencia", "⚠ " + f.advertencia]]
      .forEach(function ([valor, clase, texto]) {
        if (!valor) return;
        const s = document.createElement("small"); s.className = clase; s.textContent = texto;
        li.append(" ", s);
      });
  }
  function pintarAdvertencias(lista_) {
    panelAdv.hidden = !lista_.length;
    advertencias.innerHTML = lista_.map(function (a) { return "<li>" + escapar(a) + "</li>"; }).join("");
  }
  function abrirAccion(a) {
    accion = a; esperarDecision(null); $("error-accion").hidden = true;
    $("descripcion-accion").textContent = a.descripcion;
    const campos = $("parametros-accion");
    campos.querySelectorAll("label").forEach(function (l) { l.remove(); });
    Object.entries(a.parametros || {}).forEach(function ([k, v]) {
      if (typeof v === "object" && v !== null) return;
      // Con el DOM, no con HTML armado: los valores vienen del motor (y del texto del usuario o de
      // sitios externos), y una comilla no debe poder salir del atributo.
      const label = document.createElement("label");
      const opciones = (a.opciones || {})[k];
      const control = document.createElement(opciones ? "select" : "input");
      control.name = k;
      Object.entries(opciones || {}).forEach(function ([valor, texto]) { control.add(new Option(texto, valor, false, valor === v)); });
      if (!opciones) control.value = v == null ? "" : String(v);
      label.append((a.etiquetas || {})[k] || k.replaceAll("_", " "), " ", control);
      campos.appendChild(label);
    });
    const vence = new Date(a.expires_at).getTime();
    clearInterval(cuenta);
    cuenta = setInterval(function () {
      const s = Math.max(0, Math.round((vence - Date.now()) / 1000));
      $("cuenta-accion").textContent = Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
      if (s === 0) { cerrarAccion(); agregar("assistant", "La acción venció sin confirmarse."); }
    }, 1000);
    dialogo.showModal();
  }
  function cerrarAccion() { clearInterval(cuenta); if (dialogo.open) dialogo.close(); }
  function decidir(confirmada) {
    if (decidiendo) return;  // un segundo clic (o Escape) mientras se ejecuta no manda otra decisión
    const parametros = {};
    $("parametros-accion").querySelectorAll("input, select").forEach(function (i) {
      const original = accion.parametros[i.name];
      const vacio = original === null || original === undefined;
      const valor = i.value.trim();
      if ((vacio && valor === "") || String(original) === valor) return;
      const numerico = /^-?\d+([.,]\d+)?$/.test(valor);
      parametros[i.name] = valor === "" ? null : numerico ? Number(valor.replace(",", ".")) : valor;
    });
    const marco = { tipo: "confirmar", accion_id: accion.id, confirmada: confirmada, parametros: Object.keys(parametros).length ? parametros : null };
    esperarDecision(marco, confirmada ? "Ejecutando…" : "Cancelando…");
    enviarMarco(marco);
  }
  // Mientras el servidor ejecuta la acción (un análisis tarda segundos), el diálogo lo dice y sus
  // botones no responden.
  function esperarDecision(marco, texto) {
    decidiendo = marco;
    $("confirmar-accion").disabled = $("cancelar-accion").disabled = !!marco;
    const estado = $("estado-accion");
    estado.hidden = !marco; estado.textContent = marco ? texto : "";
    if (marco) $("error-accion").hidden = true;
  }
  // Sin socket abierto (corte de red), el marco espera a la reconexión: no se pierde.
  function enviarMarco(marco) {
    if (marco.tipo === "mensaje") sinAcuse = marco;
    if (socket && socket.readyState === 1) { socket.send(JSON.stringify(marco)); return; }
    pendiente = marco; actividad.hidden = false; actividad.textContent = "Conectando…";
  }
  function seguimiento(a) {
    if (a.estado === "fallida") return "No se pudo ejecutar: " + (a.error || "") + " No se modificó nada.";
    if (a.estado === "cancelada") return "Acción cancelada. Puede pedírmela de nuevo con otros datos.";
    const r = a.resultado || {};
    if (r.proyecto) return "Listo: proyecto #" + r.proyecto.id + " «" + r.proyecto.nombre + "» (" + r.proyecto.estado + ").";
    if (r.analisis) return "Análisis #" + r.analisis.id + ": " + r.analisis.clasificacion + ". " + (r.analisis.resumen || "");
    return "Acción " + a.estado + ".";
  }
  function mostrarAviso(a) {
    const zona = $("avisos");
    if (!zona || zona.querySelector('[data-aviso="' + a.id + '"]')) return;
    const li = document.createElement("li");
    li.dataset.aviso = a.id;
    li.innerHTML = escapar(a.mensaje) + (a.enlace ? ' <a href="' + escapar(a.enlace) + '">' + escapar(a.texto_enlace || "Ir") + "</a>" : "") +
      (a.ofrece_accion ? ' <button type="button" class="enlace" data-hacer="accion">Volver a analizar</button>' : "") +
      ' <button type="button" class="enlace" data-hacer="descartar">Descartar</button>';
    li.querySelector('[data-hacer="descartar"]').onclick = function () {
      fetch("/api/asistente/avisos/" + a.id + "/descartar", { method: "POST", credentials: "same-origin", headers: { "X-CSRFToken": csrf() } })
        .then(function (r) {
          if (!r.ok) { fallaAviso(li, "No se pudo descartar; reintente."); return; }
          li.remove();
          if (!zona.querySelector("[data-aviso]")) ninguno(zona, false);
        }, function () { fallaAviso(li, "No se pudo descartar; revise su conexión."); });
    };
    const proponer = li.querySelector('[data-hacer="accion"]');
    if (proponer) proponer.onclick = function () {
      // La acción se crea al pedirla (vence según `VIGENCIA_ACCION`) y se confirma en el mismo diálogo.
      fetch("/api/asistente/avisos/" + a.id + "/accion", { method: "POST", credentials: "same-origin", headers: { "X-CSRFToken": csrf() } })
        .then(function (r) { return r.json().then(function (d) { return { ok: r.ok, d: d }; }); })
        .then(function (r) { if (r.ok) abrirAccion(r.d); else fallaAviso(li, r.d.detail || r.d.error || "No se pudo proponer la acción."); },
          function () { fallaAviso(li, "No se pudo proponer la acción; revise su conexión."); });
    };
    ninguno(zona, true);
    zona.appendChild(li);
  }
  // El «No hay avisos pendientes.» de la plantilla se oculta mientras haya alguno.
  function ninguno(zona, ocultar) { zona.querySelectorAll(".vacio").forEach(function (v) { v.hidden = ocultar; }); }
  // Un error del aviso se muestra en el aviso (el «Reintentar» del chat reenvía la pregunta).
  function fallaAviso(li, mensaje) {
    let nota = li.querySelector(".chat-error");
    if (!nota) { nota = document.createElement("span"); nota.className = "chat-error"; nota.setAttribute("role", "alert"); li.appendChild(nota); }
    nota.textContent = " " + mensaje;
  }
  // «Reintentar» reenvía la última pregunta: solo se ofrece cuando lo que falló fue el turno.
  function mostrarError(mensaje, reintentable) {
    error.hidden = false; error.querySelector("span").textContent = mensaje; $("reintentar").hidden = !reintentable;
  }
  // Un UUID v4; `crypto.randomUUID` solo existe en contextos seguros (https o localhost).
  function nuevoId() {
    if (window.crypto.randomUUID) return window.crypto.randomUUID();
    const b = window.crypto.getRandomValues(new Uint8Array(16));
    b[6] = (b[6] & 0x0f) | 0x40; b[8] = (b[8] & 0x3f) | 0x80;
    const h = Array.from(b, function (x) { return x.toString(16).padStart(2, "0"); }).join("");
    return h.slice(0, 8) + "-" + h.slice(8, 12) + "-" + h.slice(12, 16) + "-" + h.slice(16, 20) + "-" + h.slice(20);
  }
  function csrf() { const m = document.cookie.match(/csrftoken=([^;]+)/); return m ? m[1] : ""; }
  function mandar(mensaje) {
    if (!mensaje.trim() || enCurso) return;
    enCurso = true; entrada.disabled = enviar.disabled = true; error.hidden = true; ultimoMensaje = mensaje;
    agregar("user", mensaje); pintarSugerencias([]);
    const marco = { tipo: "mensaje", mensaje: mensaje, conversacion_id: conversacion, proyecto_id: config.proyecto_id, vista: config.vista, dominio: selectorDominio ? selectorDominio.value : null, id_cliente: nuevoId() };
    enviarMarco(marco);
    entrada.value = ""; sessionStorage.removeItem(claveBorrador());
  }
  // Lo escrito y no enviado sobrevive a una recarga de la pestaña (un borrador por página; la
  // dirección cambia a ?c=… cuando empieza una conversación nueva).
  function claveBorrador() { return "chat:borrador:" + location.pathname + location.search; }
  entrada.value = sessionStorage.getItem(claveBorrador()) || "";
  entrada.addEventListener("input", function () { sessionStorage.setItem(claveBorrador(), entrada.value); });
  $("formulario").addEventListener("submit", function (e) { e.preventDefault(); mandar(entrada.value); });
  entrada.addEventListener("keydown", function (e) { if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); mandar(entrada.value); } });
  $("reintentar").addEventListener("click", function () {
    error.hidden = true;
    const fallida = lista.lastElementChild;  // la pregunta sin respuesta se vuelve a mostrar una sola vez
    if (fallida && fallida.classList.contains("user") && !fallida.dataset.id) fallida.remove();
    mandar(ultimoMensaje);
  });
  $("confirmar-accion").addEventListener("click", function () { decidir(true); });
  $("cancelar-accion").addEventListener("click", function () { decidir(false); });
  // Eliminar oculta la conversación (la API la marca eliminada) y vuelve a una conversación nueva.
  const eliminar = $("eliminar-conversacion");
  if (eliminar) eliminar.addEventListener("click", function () {
    if (!conversacion || !window.confirm("¿Eliminar esta conversación? Dejará de aparecer en su lista.")) return;
    fetch("/api/asistente/conversaciones/" + conversacion + "/", { method: "DELETE", credentials: "same-origin", headers: { "X-CSRFToken": csrf() } })
      .then(function (r) {
        if (r.ok || r.status === 404) { sessionStorage.removeItem(clave()); sessionStorage.removeItem(clave() + ":fin"); location.assign(location.pathname); }
        else mostrarError("No se pudo eliminar la conversación; reintente.");
      }, function () { mostrarError("No se pudo eliminar la conversación; revise su conexión."); });
  });
  // En un teléfono la lista de conversaciones empieza plegada: la conversación queda a la vista, con
  // «Nueva conversación» y la lista a un toque arriba de ella.
  const historial = $("historial");
  if (historial && window.matchMedia("(max-width: 60rem)").matches) historial.open = false;
  // Escape equivale a Cancelar: sin esto el diálogo se cerraba y la acción seguía pendiente.
  dialogo.addEventListener("cancel", function (e) { e.preventDefault(); decidir(false); });
  // Las respuestas guardadas sin calificar (al recargar) también se pueden calificar.
  lista.querySelectorAll("[data-calificable]").forEach(function (li) { agregarCalificacion(li, li.dataset.id); });
  conectar();
})();
