"""Modelos de asistente."""
