// Estilos y utilidades compartidas por el mapa de edición y el del informe.
"use strict";
window.Capas = (function () {
  const COLORES = {
    parque_nacional: "#1b7f3b", reserva_nacional: "#3c9d4f", monumento_natural: "#6bb36a",
    santuario_naturaleza: "#2e8b57", humedal_ramsar: "#1f6fb2", sitio_prioritario: "#b8860b",
    glaciar: "#5bc0de", humedal_inventario: "#4a90c2", humedal_urbano: "#2a6fb0",
    area_desarrollo_indigena: "#8e44ad", area_observacion_astronomica: "#555577",
  };
  function color(categoria) { return COLORES[categoria] || "#666"; }
  function estilo(feature) {
    const c = color(feature.properties.categoria);
    const astronomica = feature.properties.categoria === "area_observacion_astronomica";
    return { color: c, weight: 1.5, fillOpacity: astronomica ? 0.02 : 0.25, dashArray: astronomica ? "4 4" : null };
  }
  function capa(datos) {
    return L.geoJSON(datos, {
      style: estilo,
      onEachFeature: function (f, l) {
        l.bindPopup("<strong>" + escapar(f.properties.nombre) + "</strong><br>" + escapar(f.properties.categoria_nombre));
      },
    });
  }
  function escapar(texto) {
    const d = document.createElement("div");
    d.textContent = texto || "";
    return d.innerHTML;
  }
  function mapa(id, teselas) {
    const m = L.map(id, { zoomControl: true }).setView([-23.6, -70.0], 6);
    if (teselas) {
      L.tileLayer(teselas, { maxZoom: 18, attribution: "© colaboradores de OpenStreetMap" }).addTo(m);
    }
    return m;
  }
  function leyenda(elemento, features) {
    if (!elemento) return;
    const vistas = new Map();
    features.forEach(function (f) { vistas.set(f.properties.categoria, f.properties.categoria_nombre); });
    elemento.innerHTML = "";
    vistas.forEach(function (nombre, categoria) {
      const li = document.createElement("li");
      li.innerHTML = '<span class="muestra" style="background:' + color(categoria) + '"></span>' + escapar(nombre);
      elemento.appendChild(li);
    });
  }
  return { capa: capa, mapa: mapa, leyenda: leyenda, color: color };
})();
