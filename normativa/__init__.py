"""Corpus legal: normas, versiones, fragmentos citables y búsqueda híbrida."""
