"""BCN LeyChile, SEA y e-SEIA: clientes HTTP, caché y tareas."""
