"""Conversaciones, acciones pendientes, memoria y agente con herramientas."""
