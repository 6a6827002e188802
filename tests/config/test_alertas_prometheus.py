"""Las reglas de alerta de Prometheus (`config/prometheus/alertas.yml`): válidas para `promtool check
rules`, probadas con `promtool test rules` (cada alerta se dispara con series que pasan su umbral y no con
series normales) y con los mismos umbrales que revisa el producto."""

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from django.conf import settings

REGLAS = Path(__file__).resolve().parents[2] / "config" / "prometheus"
PROMTOOL = shutil.which("promtool") or "/usr/bin/promtool"
con_promtool = pytest.mark.skipif(
    not Path(PROMTOOL).exists(), reason="falta promtool (paquete prometheus de Debian; make test lo instala)"
)


def _promtool(*argumentos: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([PROMTOOL, *argumentos], cwd=REGLAS, capture_output=True, text=True, timeout=60)


@con_promtool
def test_promtool_acepta_las_reglas_y_sus_pruebas_pasan() -> None:
    revision = _promtool("check", "rules", "alertas.yml")
    pruebas = _promtool("test", "rules", "alertas_prueba.yml")

    assert revision.returncode == 0, revision.stdout + revision.stderr
    assert "SUCCESS: 5 rules found" in revision.stdout
    assert pruebas.returncode == 0, pruebas.stdout + pruebas.stderr


@con_promtool
def test_una_regla_con_otro_umbral_no_pasa_sus_pruebas(tmp_path: Path) -> None:
    (tmp_path / "alertas.yml").write_text(
        (REGLAS / "alertas.yml").read_text(encoding="utf-8").replace("> 0.05", "> 0.5"), encoding="utf-8"
    )
    shutil.copy(REGLAS / "alertas_prueba.yml", tmp_path)

    pruebas = subprocess.run(
        [PROMTOOL, "test", "rules", "alertas_prueba.yml"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert pruebas.returncode != 0 and "AsistenteTasaDeErrores" in pruebas.stdout + pruebas.stderr


def test_las_reglas_usan_los_umbrales_que_revisa_el_producto() -> None:
    reglas = (REGLAS / "alertas.yml").read_text(encoding="utf-8")

    def umbral(alerta: str) -> float:
        bloque = reglas.split(f"alert: {alerta}", 1)[1].split("- alert:", 1)[0]
        return float(re.search(r"\)\s*>\s*([\d.]+)", bloque).group(1))  # type: ignore[union-attr]

    assert umbral("AsistenteTasaDeErrores") == settings.ALERTA_ERRORES_TASA
    assert umbral("AsistenteRespaldoSinModelo") == settings.ALERTA_RESPALDO_TASA
    assert umbral("AsistenteLatenciaP95") == settings.METRICAS_META_TURNO_P95_MS / 1000
    assert umbral("CeleryColaLarga") == settings.ALERTA_COLA_CELERY
    assert f"[{settings.ALERTA_VENTANA_MIN}m]" in reglas
    assert f">= {settings.ALERTA_TURNOS_MINIMOS}" in reglas
