# Dos comandos: `make run` (sirve todo) y `make test` (prepara y ejecuta las pruebas).
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
INSTALADO := $(VENV)/.instalado

.PHONY: run test bench lint formato detener

$(INSTALADO): requirements.txt
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --disable-pip-version-check --quiet -r requirements.txt
	@touch $@

## Prepara servicios, migra, crea el superusuario de demostración y sirve web + worker + beat.
run: $(INSTALADO)
	$(BIN)/python manage.py ejecutar

## Prepara lo mismo y ejecuta la batería de pruebas (PostgreSQL+pgvector y Redis reales).
test: $(INSTALADO)
	$(BIN)/python -m pytest

## Benchmarks de rendimiento (latencias p50/p95); imprimen tablas.
bench: $(INSTALADO)
	$(BIN)/python -m bench

## ruff (formato + reglas) y mypy (django-stubs, drf-stubs).
lint: $(INSTALADO)
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .
	$(BIN)/mypy .

formato: $(INSTALADO)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

## Detiene el PostgreSQL y el Redis embebidos de var/ (si quedaron corriendo).
detener: $(INSTALADO)
	$(BIN)/python -m config.servicios detener
