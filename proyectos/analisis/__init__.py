"""Motor de prefactibilidad: determinista y explicable (ver `ingreso`)."""
