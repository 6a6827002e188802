/* Panel «Métricas del asistente»: dibuja con Chart.js (vendorizado) los datos que la página trae en
   #metricas-datos. Cada lienzo dibujado queda con data-dibujado="si" (lo verifica la prueba de navegador). */
(function () {
  "use strict";

  const COLORES = ["#0b5d6b", "#e07a1f", "#6a4c93", "#1b7a3a", "#a4161a", "#5c6b73", "#c9a227"];
  const META = "#a4161a";

  function porcentaje(valor) {
    return valor === null || valor === undefined ? null : Math.round(valor * 1000) / 10;
  }

  // «Confirmada (60 %)»: en un gráfico de torta la tasa se lee en la leyenda.
  function conTasa(conteos) {
    const total = Object.values(conteos).reduce(function (a, b) { return a + b; }, 0);
    return Object.keys(conteos).map(function (nombre) {
      return total ? nombre + " (" + Math.round(conteos[nombre] * 100 / total) + " %)" : nombre;
    });
  }

  function lineaDeMeta(etiqueta, valor, cantidad) {
    return {
      type: "line", label: etiqueta, data: Array(cantidad).fill(valor), borderColor: META,
      borderDash: [6, 4], borderWidth: 1.5, pointRadius: 0, fill: false,
    };
  }

  function opciones(extra) {
    return Object.assign({
      animation: false, responsive: true, maintainAspectRatio: false,
      interaction: { mode: "index", intersect: false },
      plugins: { legend: { position: "bottom", labels: { boxWidth: 12 } } },
    }, extra || {});
  }

  function ejes(titulo, extra) {
    return { y: Object.assign({ beginAtZero: true, title: { display: true, text: titulo } }, extra || {}) };
  }

  // p50 y p95 por periodo, con la meta del p95 como línea punteada.
  function percentiles(etiquetas, p50, p95, meta) {
    return {
      type: "line",
      data: {
        labels: etiquetas,
        datasets: [
          { label: "p50", data: p50, borderColor: COLORES[0], spanGaps: true },
          { label: "p95", data: p95, borderColor: COLORES[1], spanGaps: true },
          lineaDeMeta("meta p95", meta, etiquetas.length),
        ],
      },
      options: opciones({ scales: ejes("ms") }),
    };
  }

  function graficos(d) {
    const n = d.etiquetas.length;
    const herramientas = d.herramientas.map(function (h) { return h.herramienta; });
    return {
      turnos: {
        type: "bar",
        data: {
          labels: d.etiquetas,
          datasets: Object.keys(d.turnos).map(function (motor, i) {
            return { label: motor, data: d.turnos[motor], backgroundColor: COLORES[i % COLORES.length] };
          }),
        },
        options: opciones({ scales: { x: { stacked: true }, y: { stacked: true, beginAtZero: true, title: { display: true, text: "turnos" } } } }),
      },
      latencia: percentiles(d.etiquetas, d.latencia.p50, d.latencia.p95, d.metas.turno_p95_ms),
      primer_token: percentiles(
        d.etiquetas, d.latencia.primer_token_p50, d.latencia.primer_token_p95, d.metas.primer_token_p95_ms),
      costo: {
        type: "bar",
        data: {
          labels: d.etiquetas,
          datasets: [
            { label: "costo del periodo (US$)", data: d.costo.total_usd, backgroundColor: COLORES[0], yAxisID: "y" },
            { type: "line", label: "por conversación (US$)", data: d.costo.por_conversacion_usd, borderColor: COLORES[1], yAxisID: "y1", spanGaps: true },
          ],
        },
        options: opciones({
          scales: {
            y: { beginAtZero: true, title: { display: true, text: "US$" } },
            y1: { beginAtZero: true, position: "right", grid: { drawOnChartArea: false }, title: { display: true, text: "US$ / conversación" } },
          },
        }),
      },
      herramientas_exito: {
        type: "bar",
        data: {
          labels: herramientas,
          datasets: [{ label: "éxito (%)", data: d.herramientas.map(function (h) { return porcentaje(h.exito); }), backgroundColor: COLORES[3] }],
        },
        options: opciones({ indexAxis: "y", scales: { x: { min: 0, max: 100, title: { display: true, text: "%" } } } }),
      },
      herramientas_latencia: {
        type: "bar",
        data: {
          labels: herramientas,
          datasets: [
            { label: "p50 (ms)", data: d.herramientas.map(function (h) { return h.p50_ms; }), backgroundColor: COLORES[0] },
            { label: "p95 (ms)", data: d.herramientas.map(function (h) { return h.p95_ms; }), backgroundColor: COLORES[1] },
            lineaDeMeta("meta de la búsqueda (p95)", d.metas.busqueda_p95_ms, herramientas.length),
          ],
        },
        options: opciones({ scales: ejes("ms") }),
      },
      acciones: {
        type: "doughnut",
        data: {
          labels: conTasa(d.acciones),
          datasets: [{ data: Object.values(d.acciones), backgroundColor: COLORES }],
        },
        options: opciones({ interaction: {} }),
      },
      valoraciones: {
        type: "doughnut",
        data: {
          labels: conTasa(d.valoraciones),
          datasets: [{ data: Object.values(d.valoraciones), backgroundColor: [COLORES[3], COLORES[4]] }],
        },
        options: opciones({ interaction: {} }),
      },
      confianza: {
        type: "bar",
        data: {
          labels: Object.keys(d.confianza),
          datasets: [{ label: "turnos", data: Object.values(d.confianza), backgroundColor: [COLORES[3], COLORES[0], COLORES[1], COLORES[4], COLORES[5]] }],
        },
        options: opciones({ plugins: { legend: { display: false } }, scales: ejes("turnos") }),
      },
      abstencion: {
        type: "line",
        data: {
          labels: d.etiquetas,
          datasets: [
            { label: "abstenciones (%)", data: d.abstencion.map(porcentaje), borderColor: COLORES[2], spanGaps: true },
            { label: "errores (%)", data: d.errores.map(porcentaje), borderColor: COLORES[4], spanGaps: true },
          ],
        },
        options: opciones({ scales: ejes("% de los turnos", { suggestedMax: 10 }) }),
      },
      caches: {
        type: "bar",
        data: {
          labels: d.caches.map(function (c) { return c.cache; }),
          datasets: [
            { label: "aciertos (%)", data: d.caches.map(function (c) { return porcentaje(c.tasa); }), backgroundColor: COLORES[0] },
            lineaDeMeta("meta", porcentaje(d.metas.cache_aciertos), d.caches.length),
          ],
        },
        options: opciones({ scales: { y: { min: 0, max: 100, title: { display: true, text: "%" } } } }),
      },
      fuentes: {
        type: "bar",
        data: {
          labels: d.fuentes.map(function (f) { return f.fuente; }),
          datasets: [
            { label: "aciertos de caché", data: d.fuentes.map(function (f) { return f.aciertos; }), backgroundColor: COLORES[3] },
            { label: "fallos de caché", data: d.fuentes.map(function (f) { return f.fallos; }), backgroundColor: COLORES[1] },
            { label: "fallos seguidos", data: d.fuentes.map(function (f) { return f.fallos_consecutivos; }), backgroundColor: COLORES[4] },
          ],
        },
        options: opciones({ scales: ejes("consultas") }),
      },
    };
  }

  function dibujar() {
    const nodo = document.getElementById("metricas-datos");
    if (!nodo || !window.Chart) { return; }
    const definiciones = graficos(JSON.parse(nodo.textContent));
    document.querySelectorAll("canvas[data-grafico]").forEach(function (lienzo) {
      const definicion = definiciones[lienzo.dataset.grafico];
      if (!definicion) { return; }
      new window.Chart(lienzo, definicion);
      lienzo.dataset.dibujado = "si";
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", dibujar);
  } else {
    dibujar();
  }
})();
