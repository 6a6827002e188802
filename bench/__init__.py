"""Benchmarks de rendimiento: `make bench` ejecuta todos los registrados en `bench.__main__`."""
