"""Modelos de normativa."""
