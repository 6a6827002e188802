"""El Markdown guardado se muestra como en el chat en vivo, saneado."""

from asistente.selectors import markdown_seguro


def test_a_list_right_after_a_line_of_text_is_shown_as_a_list_as_in_the_live_chat() -> None:
    html = markdown_seguro(
        "Según el corpus normativo:\n- **DS 40, Art. 8**: «…» [1]\n- **Ley 19.300, Art. 11** [2]"
    )

    assert html.startswith("<p>Según el corpus normativo:</p>\n<ul>")
    assert "<li><strong>DS 40, Art. 8</strong>: «…» [1]</li>" in html
    assert html.count("<li>") == 2


def test_line_breaks_inside_a_paragraph_are_kept() -> None:
    assert markdown_seguro("Primera línea\nsegunda línea") == "<p>Primera línea<br>\nsegunda línea</p>\n"


def test_raw_html_and_javascript_links_never_reach_the_page() -> None:
    html = markdown_seguro(
        '<script>alert(1)</script> <img src=x onerror="alert(2)"> [ver](javascript:alert(3))'
    )

    assert "<script" not in html and "<img" not in html and "<a" not in html
    assert "&lt;script&gt;" in html and "[ver](javascript:alert(3))" in html  # quedan como texto


def test_headings_and_rules_written_by_the_model_are_kept_as_the_live_chat_shows_them() -> None:
    assert markdown_seguro("## Resumen\n\n---\nFin") == "<h2>Resumen</h2>\n<hr>\n<p>Fin</p>\n"


def test_each_marker_of_a_known_source_links_to_that_source_under_its_message() -> None:
    html = markdown_seguro("Ver [1] y [2]; [3] no existe.", fuentes_de="m1", fuentes=2)

    assert '<a href="#fuente-m1-1" rel="noopener noreferrer">[1]</a>' in html
    assert '<a href="#fuente-m1-2" rel="noopener noreferrer">[2]</a>' in html
    assert "[3] no existe" in html


def test_markers_inside_code_or_inside_a_link_stay_as_they_are() -> None:
    html = markdown_seguro("`lista[1]` y [ver [1]](https://www.bcn.cl)", fuentes_de="m1", fuentes=1)

    assert "<code>lista[1]</code>" in html and ">ver [1]</a>" in html and "#fuente" not in html
