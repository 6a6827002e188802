"""Redacción de un proyecto descrito: los permisos que se nombran son los de sus partes."""

from asistente.motores.redaccion_proyecto import permisos_de_las_partes, redactar_evaluacion


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


def fuente(norma: str, articulo: str, letra: str = "") -> dict[str, str]:
    return {"norma": norma, "articulo": articulo, "letra": letra, "cita": f"{norma}, Art. {articulo} {letra}"}


def resultado_eia() -> dict[str, object]:
    """Una faena que pasa el umbral de extracción y declara un efecto de la letra b) del Art. 11."""
    return {
        "clasificacion": "EIA",
        "region": "Región de Tarapacá",
        "umbrales": [
            {"literal": "i.1", "texto": "extracción de 12.000 t/mes > 5.000 t/mes", "cumple": True},
            {"literal": "i.5.1", "texto": "extracción de 800 m³/mes < 10.000 m³/mes", "cumple": False},
        ],
        "tipologias": [{"tipologia": "i.1", "motivo": "extracción de 12.000 t/mes > 5.000 t/mes"}],
        "triggers": [
            {
                "letra": "b",
                "descripcion": "Efectos adversos significativos sobre la cantidad y calidad de los recursos "
                "naturales renovables (circunstancia declarada).",
                "evidencia": {"circunstancia": "afecta_recursos_hidricos"},
            }
        ],
        "advertencias": [],
        "fuentes": [
            fuente("Ley 19.300", "10", "i"),
            fuente("DS 40", "3", "i.1"),
            fuente("DS 40", "3", "i.5.1"),
            fuente("Ley 19.300", "11", "b"),
            fuente("DS 40", "6"),
        ],
    }


def test_la_primera_oracion_de_un_eia_dice_la_via_la_cifra_que_hace_ingresar_y_el_efecto_dicho():
    texto, fuentes = redactar_evaluacion(
        resultado_eia(),
        dichas={"afecta_recursos_hidricos": "descenso de 3 m del nivel freático bajo una vega"},
    )

    primero = texto.split("\n\n")[0]
    assert primero.startswith(
        "Con sus datos (Región de Tarapacá), el proyecto ingresa al SEIA mediante un **Estudio"
    )
    assert "extracción de 12.000 t/mes > 5.000 t/mes, según el literal i.1 del Art. 3 del DS 40" in primero
    assert "por lo que usted indicó («descenso de 3 m del nivel freático bajo una vega»)" in primero
    assert "recursos naturales renovables, por lo" in primero  # sin «(circunstancia declarada)»
    assert len(primero) < 520  # la vía, la causa y el efecto caben al comienzo
    assert [f["articulo"] for f in fuentes[:2]] == ["10", "3"]  # [1][2] son las de la primera oración


def test_lo_que_no_alcanza_va_despues_y_no_se_repite_lo_que_alcanza():
    texto, _ = redactar_evaluacion(resultado_eia(), dichas={})

    parrafos = texto.split("\n\n")
    assert "no alcanza el umbral del literal i.5.1 del Art. 3 del DS 40" in parrafos[1]
    assert texto.count("12.000 t/mes") == 1
    assert "efectos de la letra b) del Art. 11 de la Ley 19.300" in parrafos[0]  # sin frase del usuario


def test_de_lo_que_no_alcanza_su_umbral_la_cifra_dicha_frente_al_umbral_va_antes_que_el_texto_del_literal():
    resultado = resultado_eia()
    resultado["umbrales"] = [
        {
            "literal": "i.5.1",
            "texto": "extracción de 800 m³/mes < 10.000 m³/mes",
            "cumple": False,
            "exige": ("igual o superior a diez mil metros cúbicos mensuales (10.000 m³/mes)",),
        }
    ]

    texto, _ = redactar_evaluacion(resultado, dichas={})

    no_alcanza = texto.split("\n\n")[1]  # tras la vía
    assert no_alcanza.startswith(
        "Extracción de 800 m³/mes < 10.000 m³/mes: no alcanza el umbral del literal i.5.1 del Art. 3 "
        "del DS 40, que exige «igual o superior a diez mil"
    )


def test_de_un_literal_con_dos_umbrales_se_cita_el_del_que_se_comparo():
    resultado = resultado_eia()
    resultado["umbrales"] = [
        {
            "literal": "ñ.3",
            "texto": "almacenamiento de sustancias inflamables: 42.500 kg < 80.000 kg",
            "cumple": False,
            "exige": (
                "igual o superior a ochenta mil kilogramos diarios (80.000 kg/día)",
                "igual o superior a ochenta mil kilogramos (80.000 kg)",
            ),
        }
    ]

    texto, _ = redactar_evaluacion(resultado)

    assert "que exige «igual o superior a ochenta mil kilogramos (80.000 kg)» (letra ñ)" in texto
    assert "80.000 kg/día" not in texto
