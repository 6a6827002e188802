"""El turno del asistente: sus tipos (`tipos`), de los que dependen motores, acciones y transportes."""
