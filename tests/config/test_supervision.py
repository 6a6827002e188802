"""La supervisión de `make run` (`config/supervision.py`): la configuración de supervisord y la consola
que sigue los logs de cada proceso. La prueba de punta a punta (procesos que mueren y vuelven) está en
`tests/config/management/test_ejecutar.py`."""

import configparser
import io
from pathlib import Path

from config.supervision import (
    REINTENTOS_DE_ARRANQUE,
    Programa,
    Rutas,
    Seguidor,
    configuracion_escribir,
)


def test_cada_programa_se_reinicia_solo_con_su_log_y_el_comando_sobrevive_a_las_expansiones(
    tmp_path: Path,
) -> None:
    rutas = Rutas.en(tmp_path)
    programas = [
        Programa("web", ["/usr/bin/python", "-m", "daphne", "-p", "8000", "config.asgi:application"]),
        Programa(
            "worker", ["/usr/bin/python", "-m", "celery", "worker", "-n", "worker@%h"], espera_al_detener_s=60
        ),
    ]

    archivo = configuracion_escribir(programas, rutas=rutas, directorio_trabajo=tmp_path)

    leida = configparser.RawConfigParser()
    leida.read(archivo)
    assert archivo.stat().st_mode & 0o077 == 0  # la clave del socket de control no la lee otro usuario
    for programa in programas:
        seccion = leida[f"program:{programa.nombre}"]
        assert seccion["autorestart"] == "true"
        assert int(seccion["startretries"]) == REINTENTOS_DE_ARRANQUE
        assert seccion["stdout_logfile"] == str(rutas.log_de(programa.nombre))
        assert seccion["stopwaitsecs"] == str(programa.espera_al_detener_s)
    # supervisord expande %(…)s: el %h de Celery se escribe %%h para que llegue tal cual.
    assert leida["program:worker"]["command"].endswith("worker@%%h")
    assert leida["unix_http_server"]["password"] == leida["supervisorctl"]["password"]


def test_una_ruta_muy_larga_lleva_el_socket_de_control_a_tmp(tmp_path: Path) -> None:
    profunda = tmp_path / ("carpeta-de-un-proyecto-con-nombre-largo" * 3)

    assert len(str(Rutas.en(profunda).socket)) <= 100
    assert Rutas.en(tmp_path).socket.parent == tmp_path / "supervision"


def test_la_consola_muestra_cada_linea_nueva_con_el_nombre_del_proceso_y_sigue_tras_la_rotacion(
    tmp_path: Path,
) -> None:
    log = tmp_path / "beat.log"
    log.write_text("de una ejecución anterior\n")
    salida = io.StringIO()
    seguidor = Seguidor({"beat": log, "web": tmp_path / "web.log"}, salida)

    with log.open("a") as archivo:
        archivo.write("beat arrancó\nlínea a med")
    seguidor.una_vuelta()
    with log.open("a") as archivo:
        archivo.write("ias\n")
    seguidor.una_vuelta()
    log.rename(tmp_path / "beat.log.1")  # supervisord rota el archivo
    log.write_text("después de rotar\n")
    seguidor.una_vuelta()

    lineas = salida.getvalue().splitlines()
    assert [linea.split(" | ", 1)[1] for linea in lineas] == [
        "beat arrancó",
        "línea a medias",
        "después de rotar",
    ]
    assert all(" beat | " in linea for linea in lineas)  # nombres alineados al más largo («beat», «web»)
    assert "anterior" not in salida.getvalue()
