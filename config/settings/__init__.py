"""Configuraciones: base (común), local (desarrollo), test (pruebas) y production."""
