// Mapa de edición: dibujar, editar o subir (GeoJSON/KML) el polígono del proyecto, o el de una
// evaluación rápida (portada): el polígono queda en el campo oculto «geometria» del formulario.
"use strict";
(function () {
  const config = JSON.parse(document.getElementById("config-mapa").textContent);
  const mapa = Capas.mapa("mapa", config.teselas);
  const proyecto = L.featureGroup().addTo(mapa);
  const sensibles = L.layerGroup().addTo(mapa);
  const estado = document.getElementById("estado-mapa");
  const campo = document.getElementById("geometria");
  const archivo = document.getElementById("archivo");
  const estiloProyecto = { color: "#d9480f", weight: 3, fillOpacity: 0.15 };

  if (config.region) {
    L.geoJSON(config.region, { style: { color: "#333", weight: 1, fill: false, dashArray: "2 6" }, interactive: false }).addTo(mapa);
  }
  if (config.geometria) {
    agregarPoligonos(config.geometria);
    mapa.fitBounds(proyecto.getBounds(), { maxZoom: 13 });
  } else if (config.region) {
    mapa.fitBounds(L.geoJSON(config.region).getBounds());
  }

  if (campo) {
    mapa.pm.setLang("es");
    mapa.pm.addControls({
      position: "topleft", drawMarker: false, drawCircleMarker: false, drawPolyline: false,
      drawCircle: false, drawText: false, cutPolygon: false, rotateMode: false,
    });
    mapa.pm.setGlobalOptions({ allowSelfIntersection: false, layerGroup: proyecto });
    mapa.on("pm:create", function (e) { e.layer.setStyle(estiloProyecto); escucharEdicion(e.layer); sincronizar(); });
    mapa.on("pm:remove", sincronizar);
    proyecto.eachLayer(escucharEdicion);
    campo.value = JSON.stringify(geometriaActual());
    archivo.addEventListener("change", leerArchivo);
  }

  // Un mapa dentro de un desplegable cerrado nace sin tamaño: se ajusta al abrirlo.
  const desplegable = document.getElementById("mapa").closest("details");
  if (desplegable) {
    desplegable.addEventListener("toggle", function () {
      mapa.invalidateSize();
      if (proyecto.getLayers().length) mapa.fitBounds(proyecto.getBounds(), { maxZoom: 13 });
    });
  }

  mapa.on("moveend", cargarSensibles);
  cargarSensibles();

  function escucharEdicion(capa) { capa.on("pm:edit", sincronizar); }

  function agregarPoligonos(geojson) {
    L.geoJSON(geojson, { style: estiloProyecto }).eachLayer(function (capa) {
      // Un MultiPolygon se separa en polígonos editables por separado.
      const geometria = capa.toGeoJSON().geometry;
      const partes = geometria.type === "MultiPolygon"
        ? geometria.coordinates.map(function (c) { return { type: "Polygon", coordinates: c }; })
        : [geometria];
      partes.forEach(function (p) { L.geoJSON(p, { style: estiloProyecto }).eachLayer(function (l) { proyecto.addLayer(l); }); });
    });
  }

  function geometriaActual() {
    const poligonos = [];
    proyecto.eachLayer(function (capa) {
      const g = capa.toGeoJSON().geometry;
      if (g.type === "Polygon") poligonos.push(g.coordinates);
      if (g.type === "MultiPolygon") g.coordinates.forEach(function (c) { poligonos.push(c); });
    });
    if (poligonos.length === 0) return null;
    if (poligonos.length === 1) return { type: "Polygon", coordinates: poligonos[0] };
    return { type: "MultiPolygon", coordinates: poligonos };
  }

  function sincronizar() {
    const g = geometriaActual();
    campo.value = JSON.stringify(g);
    estado.textContent = g
      ? (config.aviso_cambios || "Cambios sin guardar: presione «Guardar polígono».")
      : "Sin polígono (guarde para eliminarlo).";
  }

  function leerArchivo() {
    const elegido = archivo.files[0];
    if (!elegido || /\.zip$/i.test(elegido.name)) return;  // un shapefile lo lee el servidor
    const lector = new FileReader();
    lector.onload = function () {
      let datos;
      try {
        if (/\.kml$/i.test(elegido.name)) {
          datos = toGeoJSON.kml(new DOMParser().parseFromString(lector.result, "text/xml"));
        } else {
          datos = JSON.parse(lector.result);
        }
      } catch (error) {
        estado.textContent = "No se pudo leer «" + elegido.name + "»: no es GeoJSON ni KML válido.";
        return;
      }
      const poligonos = L.geoJSON(datos, { filter: function (f) { return /Polygon$/.test((f.geometry || f).type); } });
      if (poligonos.getLayers().length === 0) {
        estado.textContent = "«" + elegido.name + "» no contiene polígonos.";
        return;
      }
      proyecto.clearLayers();
      poligonos.eachLayer(function (capa) { agregarPoligonos(capa.toGeoJSON()); });
      proyecto.eachLayer(escucharEdicion);
      mapa.fitBounds(proyecto.getBounds(), { maxZoom: 13 });
      sincronizar();
      archivo.value = "";  // ya está en «geometria»: el servidor no debe leerlo otra vez
      const desplegable = document.getElementById("mapa").closest("details");
      if (desplegable) desplegable.open = true;
      estado.textContent = "Se cargó «" + elegido.name + "»: revise el polígono en el mapa.";
    };
    lector.readAsText(elegido);
  }

  function cargarSensibles() {
    if (mapa.getZoom() < 7) { sensibles.clearLayers(); return; }
    const b = mapa.getBounds();
    const caja = [b.getWest(), b.getSouth(), b.getEast(), b.getNorth()].map(function (n) { return n.toFixed(4); }).join(",");
    fetch(config.elementos_url + "?caja=" + caja, { credentials: "same-origin" })
      .then(function (r) { return r.ok ? r.json() : { features: [] }; })
      .then(function (datos) {
        sensibles.clearLayers();
        sensibles.addLayer(Capas.capa(datos));
        Capas.leyenda(document.getElementById("leyenda"), datos.features);
        proyecto.eachLayer(function (c) { c.bringToFront(); });
      });
  }
})();
