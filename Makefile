# Dos comandos: `make run` (sirve todo) y `make test` (prepara y ejecuta las pruebas).
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
INSTALADO := $(VENV)/.instalado
CHROMIUM := /usr/bin/chromium
HAPROXY := /usr/sbin/haproxy
PROMTOOL := /usr/bin/promtool

.PHONY: run test bench lint formato detener

$(INSTALADO): requirements.txt
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --disable-pip-version-check --quiet -r requirements.txt
	@touch $@

# Chromium de Debian para las pruebas en navegador (Playwright no descarga navegadores aquí).
# Si no se puede instalar (sin apt ni root), esas pruebas se omiten diciéndolo.
$(CHROMIUM):
	-@apt-get install -y -q chromium >/dev/null 2>&1 || { apt-get update -q >/dev/null 2>&1 && \
	  apt-get install -y -q chromium >/dev/null 2>&1; } || echo "AVISO: no se pudo instalar chromium."

# HAProxy de Debian para la prueba de dos réplicas (la receta de escalamiento del README); sin él,
# esa prueba se omite diciéndolo.
$(HAPROXY):
	-@apt-get install -y -q haproxy >/dev/null 2>&1 || { apt-get update -q >/dev/null 2>&1 && \
	  apt-get install -y -q haproxy >/dev/null 2>&1; } || echo "AVISO: no se pudo instalar haproxy."

# promtool (paquete prometheus de Debian) verifica las reglas de alerta de config/prometheus/; sin él,
# esa prueba se omite diciéndolo.
$(PROMTOOL):
	-@apt-get install -y -q --no-install-recommends prometheus >/dev/null 2>&1 || { apt-get update -q >/dev/null 2>&1 && \
	  apt-get install -y -q --no-install-recommends prometheus >/dev/null 2>&1; } || echo "AVISO: no se pudo instalar promtool."

## Prepara servicios, migra, crea el superusuario de demostración y sirve web + worker + beat.
run: $(INSTALADO)
	$(BIN)/python manage.py ejecutar

## Prepara lo mismo y ejecuta la batería de pruebas (PostgreSQL+pgvector y Redis reales, y Chromium
## de Debian para las pruebas en navegador; HAProxy para la de dos réplicas; promtool para las alertas).
## Dos procesos (pytest-xdist), cada archivo entero en uno: las pruebas de un módulo comparten su sistema
## y su orden. Cada proceso tiene su base de pruebas y su base lógica de Redis.
test: $(INSTALADO) $(CHROMIUM) $(HAPROXY) $(PROMTOOL)
	$(BIN)/python -m pytest -n 2 --dist loadfile

## Benchmarks de rendimiento (latencias p50/p95); imprimen tablas.
bench: $(INSTALADO)
	$(BIN)/python -m bench

## ruff (formato + reglas), mypy (django-stubs, drf-stubs) y los contratos de importación.
lint: $(INSTALADO)
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .
	$(BIN)/mypy .
	$(BIN)/lint-imports

formato: $(INSTALADO)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

## Detiene el PostgreSQL y el Redis embebidos de var/ (si quedaron corriendo).
detener: $(INSTALADO)
	$(BIN)/python -m config.servicios detener
