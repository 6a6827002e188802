"""Ingesta del corpus: documentos versionados, cargas del personal y el corpus incluido."""
