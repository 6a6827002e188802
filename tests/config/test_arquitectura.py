"""Las importaciones siguen el mapa de CONTRIBUTING.md: los contratos de import-linter de
pyproject.toml se cumplen (también los corre `make lint`)."""

import subprocess
import sys
from pathlib import Path

RAIZ = Path(__file__).resolve().parents[2]


def test_los_contratos_de_importacion_se_cumplen() -> None:
    lint_imports = Path(sys.executable).with_name("lint-imports")

    resultado = subprocess.run(
        [str(lint_imports), "--no-cache"], cwd=RAIZ, capture_output=True, text=True, timeout=120
    )

    assert resultado.returncode == 0, resultado.stdout[-3000:] + resultado.stderr[-2000:]
    assert "BROKEN" not in resultado.stdout
