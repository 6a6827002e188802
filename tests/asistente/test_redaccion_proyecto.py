"""Redacción de un proyecto descrito: los permisos que se nombran son los de sus partes."""

from asistente.motores.redaccion_proyecto import permisos_de_las_partes


def permiso(articulo: str, *partes: str) -> dict[str, object]:
    return {"articulo": articulo, "partes": list(partes)}


def test_un_proyecto_dicho_por_sus_partes_no_lleva_los_permisos_que_trae_solo_el_tipo():
    permisos = [
        permiso("137", "la faena minera, que debe tener su plan de cierre (tipo de proyecto)"),
        permiso(
            "155",
            "las obras hidráulicas del Art. 294 del Código de Aguas (muro de presa de 8 m > 5 m)",
            "la faena minera (tipo de proyecto)",
        ),
    ]

    propios = permisos_de_las_partes(permisos)

    assert [p["articulo"] for p in propios] == ["155"]
    assert propios[0]["partes"] == [
        "las obras hidráulicas del Art. 294 del Código de Aguas (muro de presa de 8 m > 5 m)"
    ]
