"""Cada parser lee su formato real y produce artículos, letras y secciones limpias."""

import json
import re
from pathlib import Path

import pytest

from config.texto import texto_comparable
from normativa.ingesta.corpus import CORPUS, corpus_parsear, fuentes_del_corpus
from normativa.parsers import (
    ErrorDeParseo,
    bcn_xml,
    documentacion,
    fragmentar,
    guia_pdf,
    json_estructurado,
    leychile_pdf,
    markdown,
    parsear_archivo,
)
from normativa.parsers.base import Articulo, DocumentoParseado, Fragmento, es_modificatorio

FUENTES = CORPUS / "fuentes"
BCN = Path(__file__).resolve().parents[2] / "fixtures" / "bcn"
# Restos de la maqueta de LeyChile que nunca deben quedar en un fragmento.
RESTOS = re.compile(
    r"D\.O\.\s*\d{2}\.\d{2}\.\d{4}|Biblioteca del Congreso Nacional de Chile - www|documento generado el"
    r"|página \d+ de \d+"
    r"|Art\. PRIMERO N[º°]"
)


@pytest.fixture(scope="module")
def ley_xml():
    return bcn_xml.parsear((FUENTES / "ley_19300_v2024-04-10_leychile-epub.xml").read_bytes())


@pytest.fixture(scope="module")
def ley_pdf():
    return leychile_pdf.parsear(FUENTES / "ley_19300_leychile_2024-04-10.pdf")


def comparable(texto: str) -> str:
    # La copia XML trae tres caracteres dañados (U+FFFD) donde el PDF tiene la letra.
    return texto_comparable(texto)


def iguales_salvo_reemplazos(xml: str, pdf: str) -> bool:
    patron = re.escape(comparable(xml)).replace("\ufffd", ".")
    return re.fullmatch(patron, comparable(pdf)) is not None


def test_el_pdf_y_el_xml_de_la_ley_19300_dan_los_mismos_articulos(ley_xml, ley_pdf):
    assert [(a.numero, a.transitorio) for a in ley_pdf.articulos] == [
        (a.numero, a.transitorio) for a in ley_xml.articulos
    ]
    distintos = [
        a.numero
        for a, b in zip(ley_xml.articulos, ley_pdf.articulos, strict=True)
        if not iguales_salvo_reemplazos(a.texto, b.texto)
    ]
    assert distintos == []
    assert [a.derogado for a in ley_pdf.articulos] == [a.derogado for a in ley_xml.articulos]


def test_la_ley_19300_trae_125_articulos_con_su_version_y_sus_derogados(ley_xml):
    assert len(ley_xml.articulos) == 125
    assert str(ley_xml.fecha_version) == "2024-04-10"
    derogados = {a.numero for a in ley_xml.articulos if a.derogado}
    assert {"17", "23", "56", "57", "58"} <= derogados
    assert sum(a.transitorio for a in ley_xml.articulos) == 7


def test_el_articulo_11_da_un_fragmento_por_letra_y_el_articulo_entero(ley_xml):
    fragmentos = [f for f in fragmentar(ley_xml) if f.articulo == "11" and not f.transitorio]

    assert [f.letra for f in fragmentos] == ["", "a", "b", "c", "d", "e", "f"]
    letra_d = fragmentos[4].texto
    assert letra_d.startswith("d) Localización en o próxima a poblaciones")
    assert "glaciares" in letra_d
    assert fragmentos[0].jerarquia[-1].startswith("Párrafo 2º Del Sistema de Evaluación")


def test_una_letra_con_un_punto_tras_el_parentesis_es_su_propio_fragmento(ley_xml):
    letras = {f.letra: f for f in fragmentar(ley_xml) if f.articulo == "2" and f.letra.startswith("i")}

    assert list(letras) == ["i", "i bis"]
    assert letras["i bis"].termino_definido == "Evaluación Ambiental Estratégica"
    assert "Evaluación Ambiental Estratégica" not in letras["i"].texto


def test_los_articulos_bis_y_quater_se_normalizan(ley_xml):
    numeros = {a.numero for a in ley_xml.articulos}
    assert {"7 bis", "7 quinquies", "25 quáter", "31 bis", "31 ter"} <= numeros


def test_el_reglamento_del_seia_separa_la_letra_i_y_sus_literales():
    documento = markdown.parsear((FUENTES / "ds40_2012_reglamento_seia_completo.md").read_text())
    articulo_3 = [f for f in fragmentar(documento) if f.articulo == "3" and not f.transitorio]
    letras = [f.letra for f in articulo_3]

    assert {"i", "i.1", "i.2", "i.3", "i.4", "i.5", "i.5.1", "i.5.2", "i.5.3", "i.6"} <= set(letras)
    por_letra = {f.letra: f.texto for f in articulo_3}
    assert "cinco mil toneladas mensuales (5.000 t/mes)" in por_letra["i.1"]
    assert "i.5.2 Tratándose de extracciones en un cuerpo o curso de agua" in por_letra["i.5"]
    assert por_letra["i"].count("i.5.") >= 3
    assert articulo_3[0].id_parte == "9369810"


def test_el_reglamento_no_abre_titulos_con_los_encabezados_espurios_del_conversor():
    documento = markdown.parsear((FUENTES / "ds40_2012_reglamento_seia_completo.md").read_text())
    titulos = {tuple(a.jerarquia) for a in documento.articulos}

    assert not any("— de este Reglamento" in parte for jerarquia in titulos for parte in jerarquia)
    assert len([a for a in documento.articulos if not a.transitorio]) == 172  # primero, 1–170, segundo


def test_el_markdown_de_legalize_lee_titulos_parrafos_y_transitorios():
    documento = markdown.parsear((FUENTES / "ley_20600_legalize-cl_CL-1041361.md").read_text())
    articulo_17 = next(a for a in documento.articulos if a.numero == "17")

    assert articulo_17.jerarquia == ["TÍTULO II De la competencia"]
    assert [a.numero for a in documento.articulos if a.transitorio][:2] == ["1", "2"]
    letras = [f.letra for f in fragmentar(documento) if f.articulo == "5" and not f.transitorio]
    assert letras == ["", "a", "b", "c"]


def test_el_xml_real_de_obtxml_decodifica_entidades_y_lee_fecha_e_id_parte():
    documento = bcn_xml.parsear((BCN / "obtxml_opt7_idNorma243302.xml").read_bytes())

    assert str(documento.fecha_version) == "2005-10-28"
    (articulo,) = documento.articulos
    assert articulo.id_parte == "6545485"
    assert "Subsecretaría" in articulo.texto and "&#" not in articulo.texto


def test_el_xml_de_la_constitucion_recorre_estructuras_anidadas_sin_notas_de_margen():
    documento = bcn_xml.parsear((BCN / "obtxml_opt7_idNorma242302_constitucion_v2025-10-07.xml").read_bytes())

    nota = re.compile(r"D\.O\.\s*\d{2}\.\d{2}\.\d{4}")
    con_notas = [a.numero for a in documento.articulos if nota.search(a.texto)]

    assert len(documento.articulos) > 100
    # En los Arts. 53 y 57 la propia BCN entrega la nota mezclada dentro de la línea («Estad o»):
    # no hay columna que cortar. Todo el resto sale limpio.
    assert con_notas == ["53", "57"]
    assert any(a.jerarquia for a in documento.articulos)


def test_una_pagina_html_en_vez_de_xml_es_un_error_claro():
    with pytest.raises(ErrorDeParseo, match="no es XML de la BCN"):
        bcn_xml.parsear(b"<!DOCTYPE html><html><body>Servicio no disponible</body></html>")


def test_un_xml_mal_formado_es_un_error_claro():
    with pytest.raises(ErrorDeParseo, match="XML mal formado"):
        bcn_xml.parsear(b"<?xml version='1.0'?><Norma><sin-cerrar></Norma>")


def test_un_pdf_sin_texto_se_rechaza_como_escaneado(tmp_path):
    import pypdf

    escritor = pypdf.PdfWriter()
    escritor.add_blank_page(width=612, height=792)
    ruta = tmp_path / "escaneado.pdf"
    with ruta.open("wb") as archivo:
        escritor.write(archivo)

    with pytest.raises(ErrorDeParseo, match="escaneado"):
        guia_pdf.parsear(ruta)


def test_un_pdf_corto_con_texto_no_se_confunde_con_uno_escaneado(tmp_path):
    from tests.utilidades import pdf_de_texto

    ruta = tmp_path / "corta.pdf"
    lineas = [
        "1. Introducción",
        "Esta guía breve describe cómo se presentan los depósitos de relaves en el SEIA.",
        "El titular describe la estabilidad física del depósito y su plan de cierre.",
        "La línea de base cubre al menos un ciclo hidrológico completo del área de influencia.",
    ]  # unos 250 caracteres en 4 líneas: antes se contaban líneas, no caracteres
    ruta.write_bytes(pdf_de_texto([lineas]))

    documento = guia_pdf.parsear(ruta)

    assert [s.jerarquia for s in documento.secciones] == [["1. Introducción"]]


@pytest.mark.parametrize(
    ("nombre", "contenido", "mensaje"),
    [
        ("ley.pdf", b"esto no es un PDF", "no es un PDF"),
        ("norma.md", b"%PDF-1.7 binario", "binario"),
        ("norma.xml", b"%PDF-1.4 binario", "binario"),
        ("norma.json", b'{"a": "\x00"}', "binario"),
        ("norma.md", "Artículo 1 en latin-1: acción".encode("latin-1"), "UTF-8"),
        ("norma.docx", b"PK\x03\x04", "Formato no soportado"),
    ],
)
def test_un_archivo_que_no_es_lo_que_dice_su_extension_se_rechaza(tmp_path, nombre, contenido, mensaje):
    ruta = tmp_path / nombre
    ruta.write_bytes(contenido)

    with pytest.raises(ErrorDeParseo, match=mensaje):
        parsear_archivo(ruta)


def test_las_letras_llevan_el_encabezado_de_su_articulo_como_contexto(ley_xml):
    letra_i = next(f for f in fragmentar(ley_xml) if f.articulo == "10" and f.letra == "i")

    assert "deberán someterse al sistema de evaluación de impacto ambiental" in letra_i.contexto
    assert letra_i.texto.startswith("i) Proyectos de desarrollo minero")


def test_los_literales_llevan_el_encabezado_del_articulo_y_el_de_su_letra():
    fragmentos = fragmentar(markdown.parsear((FUENTES / "ds40_2012_reglamento_seia_completo.md").read_text()))
    literal = next(f for f in fragmentos if f.articulo == "3" and f.letra == "i.1")

    assert "Tipos de proyectos o actividades" in literal.contexto
    assert "i) Proyectos de desarrollo minero" in literal.contexto
    assert literal.texto.startswith("i.1")


def test_un_articulo_con_letras_se_busca_por_su_indice_y_no_por_su_texto_completo():
    fragmentos = fragmentar(markdown.parsear((FUENTES / "ds40_2012_reglamento_seia_completo.md").read_text()))
    articulo_3 = next(f for f in fragmentos if f.articulo == "3" and not f.letra)

    assert len(articulo_3.texto) > 30_000
    assert len(articulo_3.texto_busqueda) < 5_000
    assert "i) Proyectos de desarrollo minero" in articulo_3.texto_busqueda
    assert all(not f.texto_busqueda for f in fragmentos if f.letra)


def _de_la_ley(nombre: str) -> list[Fragmento]:
    return fragmentar(markdown.parsear((FUENTES / nombre).read_text()))


def test_las_definiciones_numeradas_en_un_solo_parrafo_dan_un_fragmento_por_numero_con_su_termino():
    definiciones = [
        f for f in _de_la_ley("ley_21600_legalize-cl_CL-1195666.md") if f.articulo == "3" and f.letra
    ]

    assert [f.letra for f in definiciones] == [str(n) for n in range(1, 35)]
    privada = next(f for f in definiciones if f.letra == "4")
    assert privada.termino_definido == "Área protegida privada"
    assert privada.texto.startswith("4) Área protegida privada: área protegida creada en espacios")
    assert "5) Biodiversidad" not in privada.texto
    assert next(f for f in definiciones if f.letra == "31").termino_definido == "Sitio prioritario"


def test_las_letras_juntas_en_un_parrafo_se_separan_aunque_otra_abra_parrafo_y_la_ley_salte_la_enie():
    definiciones = [
        f for f in _de_la_ley("ley_21455_legalize-cl_CL-1177286.md") if f.articulo == "3" and f.letra
    ]

    # la «m)» abre párrafo y las demás van juntas; tras la «n)» sigue la «o)»
    assert [f.letra for f in definiciones] == list("abcdefghijklmnopqrstuvwx")
    assert next(f for f in definiciones if f.letra == "d").termino_definido == "Carbono azul"
    assert next(f for f in definiciones if f.letra == "x").termino_definido == "Zona costera"


def test_los_numeros_de_un_articulo_llevan_sus_letras_y_lo_que_sigue_a_la_lista_queda_en_el_articulo():
    fragmentos = _de_la_ley("ley_21600_legalize-cl_CL-1195666.md")
    sanciones = {f.letra: f for f in fragmentos if f.articulo == "120"}

    assert list(sanciones) == ["", "1", "2", "3"]
    assert "a) Multa de hasta 15.000 unidades tributarias mensuales" in sanciones["1"].texto
    assert "d) Prohibición temporal de ingreso a las áreas protegidas, entre cinco y quince años" in (
        sanciones["1"].texto
    )
    # los criterios para determinar la sanción siguen a la lista: no son de las infracciones leves
    assert "criterios" not in sanciones["3"].texto and "criterios" in sanciones[""].texto
    assert "1. En el caso de las infracciones gravísimas" in sanciones[""].texto_busqueda


def test_lo_que_sigue_a_una_enumeracion_de_letras_es_del_articulo_y_entra_en_su_indice():
    fragmentos = _de_la_ley("ds40_2012_reglamento_seia_completo.md")
    informe = {f.letra: f for f in fragmentos if f.articulo == "50" and not f.transitorio}

    # «d) …;» y «e) … otorgamiento.» cierran la lista: el plazo para responder y su extensión son del
    # artículo, no de la letra e)
    assert informe["e"].texto.startswith("e) Las que tengan por finalidad pronunciarse")
    assert "hasta por dos veces" not in informe["e"].texto
    assert "hasta por dos veces" in informe[""].texto
    assert "hasta por dos veces" in informe[""].texto_busqueda


def test_la_ultima_letra_de_una_lista_de_letras_de_varios_parrafos_guarda_los_suyos():
    # la penúltima tiene dos párrafos: las letras no son incisos de una enumeración sino textos enteros
    texto = (
        "Artículo 9.- Para los efectos de este artículo:\n"
        "a) Se entenderá por faena el conjunto de instalaciones.\n"
        "Comprende también sus caminos de acceso.\n"
        "b) Se entenderá por cierre el término de las operaciones.\n"
        "El cierre comprende también las obras de estabilidad física."
    )
    documento = DocumentoParseado(titulo="Prueba", articulos=[Articulo(numero="9", texto=texto)])
    letras = {f.letra: f.texto for f in fragmentar(documento)}

    assert "obras de estabilidad física" in letras["b"]


def test_una_enumeracion_de_oraciones_enteras_deja_en_el_articulo_lo_que_le_sigue():
    fragmentos = _de_la_ley("ley_20600_legalize-cl_CL-1041361.md")
    nombramiento = {f.letra: f.texto for f in fragmentos if f.articulo == "2" and not f.transitorio}

    # «a) El perfil … será definido por el Consejo.» y «b) De no haber … según corresponda.»; lo que
    # sigue (la Corte Suprema, los suplentes) es del artículo
    assert nombramiento["b"].endswith("según corresponda.")
    assert "ministros suplentes" in nombramiento[""]


def test_los_numeros_de_un_articulo_que_modifica_otra_ley_no_se_separan():
    fragmentos = _de_la_ley("ley_21600_legalize-cl_CL-1195666.md")

    assert not [f for f in fragmentos if f.articulo == "150" and f.letra]


def test_las_competencias_del_tribunal_ambiental_son_un_fragmento_por_numero():
    fragmentos = _de_la_ley("ley_20600_legalize-cl_CL-1041361.md")
    competencias = {f.letra: f.texto for f in fragmentos if f.articulo == "17" and f.letra}

    assert list(competencias) == [str(n) for n in range(1, 12)]
    assert competencias["2"].startswith("2) Conocer de las demandas para obtener la reparación")


@pytest.mark.parametrize(
    ("texto", "modifica"),
    [
        ('Artículo PRIMERO.- "Introdúcense las siguientes modificaciones en la ley Nº 19.300…', True),
        ("Artículo 46.- Modificaciones a la ley sobre Bases. Introdúcense las siguientes enmiendas…", True),
        ("Artículo TERCERO.- Modifícase el decreto supremo Nº430, de 1992…", True),
        ("Artículo 12.- Modificación de un proyecto o actividad. El titular deberá indicar…", False),
        ("Artículo 17.- Derogado.", False),
    ],
)
def test_los_articulos_que_modifican_otra_norma_se_reconocen(texto, modifica):
    assert es_modificatorio(texto) is modifica


def test_el_json_estructurado_produce_articulos_con_letras_y_secciones():
    documento = json_estructurado.parsear(
        json.dumps(
            {
                "titulo": "Norma de prueba",
                "fecha_version": "2025-01-31",
                "articulos": [
                    {"numero": "4 BIS", "texto": "Artículo 4 bis.- Se entenderá por:\na) Uno: x.\nb) Dos: y."}
                ],
                "secciones": [{"jerarquia": ["1. Introducción"], "texto": "Texto de la guía.", "pagina": 2}],
            }
        ).encode()
    )
    fragmentos = fragmentar(documento)

    assert documento.fecha_version is not None and documento.fecha_version.isoformat() == "2025-01-31"
    assert [(f.articulo, f.letra) for f in fragmentos if f.articulo] == [
        ("4 bis", ""),
        ("4 bis", "a"),
        ("4 bis", "b"),
    ]
    assert fragmentos[-1].jerarquia == ["1. Introducción"] and fragmentos[-1].pagina == 2


@pytest.mark.parametrize(
    ("contenido", "mensaje"),
    [
        (b"{no es json", "JSON inválido"),
        (b"[]", "debe ser un objeto"),
        (b'{"articulos": []}', "no contiene artículos ni secciones"),
        (b'{"articulos": [{"numero": "1"}]}', "no tiene «numero» y «texto»"),
        (
            b'{"articulos": [{"numero": "1", "texto": "x"}], "fecha_version": "ayer"}',
            "fecha_version inválida",
        ),
    ],
)
def test_un_json_incompleto_da_un_error_en_espanol(contenido, mensaje):
    with pytest.raises(ErrorDeParseo, match=mensaje):
        json_estructurado.parsear(contenido)


def test_la_documentacion_se_divide_por_encabezados_sin_confundir_los_comentarios_del_codigo():
    documento = documentacion.parsear(
        "# Título\nIntro.\n## Uso\n```bash\n# esto es un comentario\nmake run\n```\n### Detalle\nMás.\n",
        titulo="README.md",
    )

    assert [s.jerarquia for s in documento.secciones] == [
        ["Título"],
        ["Título", "Uso"],
        ["Título", "Uso", "Detalle"],
    ]
    assert "# esto es un comentario" in documento.secciones[1].texto


def test_la_guia_minera_se_divide_en_secciones_con_encabezado_y_sin_cabeceras_de_pagina():
    documento = guia_pdf.parsear(CORPUS / "guias" / "12479226eece.pdf")
    fragmentos = fragmentar(documento)

    assert len(documento.secciones) > 50
    encabezados = {s.jerarquia[-1] for s in documento.secciones}
    assert "2.5 Descripción de la fase de construcción" in encabezados
    assert not any(e.startswith("8 Referencia") for e in encabezados), "las notas al pie no son secciones"
    assert not any(re.search(r"\s\d{1,3}$", s.jerarquia[-1]) for s in documento.secciones), "líneas de índice"
    assert all(f.pagina for f in fragmentos)


@pytest.mark.lento
def test_ningun_fragmento_del_corpus_trae_notas_de_margen_ni_cabeceras():
    con_restos = []
    fuentes = fuentes_del_corpus()
    parseados = corpus_parsear([(ruta, formato) for ruta, _, formato in fuentes])
    assert len(parseados) == len(fuentes)
    for ruta, datos, _ in fuentes:
        for fragmento in parseados[ruta][1]:
            if RESTOS.search(fragmento.texto):
                con_restos.append((datos.sigla, fragmento.articulo, RESTOS.search(fragmento.texto)))
    assert con_restos == []


def test_el_encabezado_articulos_transitorios_marca_los_que_siguen_y_no_queda_en_el_texto_anterior():
    documento = markdown.parsear((FUENTES / "ley_20417_legalize-cl_CL-1010459.md").read_text())
    transitorios = [a for a in documento.articulos if a.transitorio]
    antes = documento.articulos[len(documento.articulos) - len(transitorios) - 1]

    assert transitorios and transitorios[0].jerarquia == ["Artículos transitorios"]
    assert "Mientras no entre en funcionamiento el Tribunal Ambiental" in transitorios[-1].texto
    assert not [a for a in documento.articulos if "Artículos transitorios" in a.texto]
    assert not antes.transitorio


def test_cada_pdf_del_corpus_trae_su_texto_extraido_y_es_el_que_da_pypdf():
    guias = sorted((CORPUS / "guias").glob("*.pdf"))
    precalculados = guia_pdf.textos_precalculados()

    # si falta uno, `cargar_corpus --exportar-embeddings` lo vuelve a escribir
    assert all(guia_pdf.huella_pdf(ruta.read_bytes()) in precalculados for ruta in guias)
    la_mas_corta = min(guias, key=lambda ruta: ruta.stat().st_size)
    huella = guia_pdf.huella_pdf(la_mas_corta.read_bytes())
    assert precalculados[huella] == guia_pdf.extraer_textos(la_mas_corta)


def test_un_pdf_del_corpus_se_lee_sin_pypdf_y_uno_cambiado_se_vuelve_a_extraer(tmp_path, monkeypatch):
    original = CORPUS / "guias" / "23660255eae9.pdf"
    extraidos: list[Path] = []
    extraer = guia_pdf.extraer_textos

    def contar(ruta: Path) -> list[str]:
        extraidos.append(ruta)
        return extraer(ruta)

    monkeypatch.setattr(guia_pdf, "extraer_textos", contar)
    cambiado = tmp_path / "cambiado.pdf"
    cambiado.write_bytes(original.read_bytes() + b"\n% otra copia\n")  # después de %%EOF: el mismo contenido

    del_corpus = guia_pdf.parsear(original)
    otro = guia_pdf.parsear(cambiado)

    assert extraidos == [cambiado]
    assert [s.texto for s in otro.secciones] == [s.texto for s in del_corpus.secciones]
