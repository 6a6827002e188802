"""El Markdown guardado se muestra como en el chat en vivo, saneado."""

from asistente.markdown import markdown_seguro


def test_una_lista_justo_despues_de_una_linea_de_texto_se_ve_como_lista_como_en_el_chat_en_vivo() -> None:
    html = markdown_seguro(
        "Según el corpus normativo:\n- **DS 40, Art. 8**: «…» [1]\n- **Ley 19.300, Art. 11** [2]"
    )

    assert html.startswith("<p>Según el corpus normativo:</p>\n<ul>")
    assert "<li><strong>DS 40, Art. 8</strong>: «…» [1]</li>" in html
    assert html.count("<li>") == 2


def test_los_saltos_de_linea_dentro_de_un_parrafo_se_conservan() -> None:
    assert markdown_seguro("Primera línea\nsegunda línea") == "<p>Primera línea<br>\nsegunda línea</p>\n"


def test_el_html_crudo_y_los_enlaces_javascript_nunca_llegan_a_la_pagina() -> None:
    html = markdown_seguro(
        '<script>alert(1)</script> <img src=x onerror="alert(2)"> [ver](javascript:alert(3))'
    )

    assert "<script" not in html and "<img" not in html and "<a" not in html
    assert "&lt;script&gt;" in html and "[ver](javascript:alert(3))" in html  # quedan como texto


def test_titulos_y_separadores_del_modelo_se_conservan_como_en_el_chat_en_vivo() -> None:
    assert markdown_seguro("## Resumen\n\n---\nFin") == "<h2>Resumen</h2>\n<hr>\n<p>Fin</p>\n"


def test_cada_marcador_de_una_fuente_conocida_enlaza_a_esa_fuente_bajo_su_mensaje() -> None:
    html = markdown_seguro("Ver [1] y [2]; [3] no existe.", fuentes_de="m1", fuentes=2)

    assert '<a href="#fuente-m1-1" rel="noopener noreferrer">[1]</a>' in html
    assert '<a href="#fuente-m1-2" rel="noopener noreferrer">[2]</a>' in html
    assert "[3] no existe" in html


def test_markers_inside_code_or_inside_a_link_stay_as_they_are() -> None:
    html = markdown_seguro("`lista[1]` y [ver [1]](https://www.bcn.cl)", fuentes_de="m1", fuentes=1)

    assert "<code>lista[1]</code>" in html and ">ver [1]</a>" in html and "#fuente" not in html


def test_la_linea_de_seguridad_se_marca_con_su_nivel():
    html = markdown_seguro("Respuesta.\n\n_Qué tan seguro estoy: poco; no encontré el artículo._")

    assert '<p class="seguridad seguridad-poco"><em>Qué tan seguro estoy: poco;' in html


def test_una_clase_escrita_en_el_texto_no_pasa_el_saneamiento():
    html = markdown_seguro('<p class="seguridad-poco">hola</p>')

    assert "<p class" not in html
