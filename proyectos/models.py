"""Modelos de proyectos."""
