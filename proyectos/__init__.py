"""Clientes, proyectos, capas geográficas y motor de prefactibilidad."""
