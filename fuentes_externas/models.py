"""Modelos de fuentes externas."""
