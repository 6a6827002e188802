// Mapa pequeño del informe: el proyecto y los elementos que generaron efectos o alertas.
"use strict";
(function () {
  const config = JSON.parse(document.getElementById("config-mapa").textContent);
  const mapa = Capas.mapa("mapa-informe", config.teselas);
  const elementos = Capas.capa({ type: "FeatureCollection", features: config.elementos }).addTo(mapa);
  const proyecto = L.geoJSON(config.geometria, { style: { color: "#d9480f", weight: 3, fillOpacity: 0.2 } }).addTo(mapa);
  const limites = proyecto.getBounds();
  if (config.elementos.length) limites.extend(elementos.getBounds());
  mapa.fitBounds(limites, { maxZoom: 13, padding: [10, 10] });
  Capas.leyenda(document.getElementById("leyenda"), config.elementos);
})();
