"""Motor de base de datos del proyecto: el de PostgreSQL de Django con un pool que sana solo."""
