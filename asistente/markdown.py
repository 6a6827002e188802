"""Markdown de los mensajes del asistente → HTML saneado, igual que lo muestra el chat en vivo."""

from __future__ import annotations

import re
from typing import Any

import nh3
from django.utils.safestring import mark_safe
from markdown_it import MarkdownIt
from markdown_it.token import Token

# También las aplica `chat.js` al Markdown en vivo (van en la configuración del chat).
ETIQUETAS_PERMITIDAS = {
    *("p", "br", "hr", "strong", "em", "code", "pre", "blockquote", "ul", "ol", "li", "a"),
    *("h1", "h2", "h3", "h4", "h5", "h6"),
}
# CommonMark, como el chat en vivo (`static/js/chat.js`): una lista puede seguir a una línea de texto
# sin línea en blanco («Según el corpus normativo:\n- …», como escriben los motores) y cada salto de
# línea se respeta. Así un mensaje se ve igual al transmitirse que al recargar la página. El HTML
# crudo del texto se escapa, y nh3 sanea lo que quede.
_MARKDOWN = MarkdownIt("commonmark", {"breaks": True, "html": False})
MARCADOR = re.compile(r"(\[\d+\])")  # con grupo: `split` deja los marcadores entre las partes
# La línea «_Qué tan seguro estoy: …_» con que termina una respuesta del corpus: se ve aparte, con su
# nivel (como en `chat.js`), para que «poco» no pase por una respuesta segura.
SEGURIDAD = re.compile(r"<p><em>(Qué tan seguro estoy: (bastante|medianamente|poco)\b)")


def markdown_seguro(texto: str, *, fuentes_de: str = "", fuentes: int = 0) -> str:
    """Markdown → HTML saneado (el texto se guarda tal cual; se escapa solo al mostrarlo).

    Con `fuentes_de` (el id del mensaje), cada marcador [n] de una de sus `fuentes` enlaza a la fuente
    n de la lista del mensaje (`#fuente-<id>-<n>`), como en el chat en vivo; fuera del código.
    """
    env: dict[str, Any] = {}
    tokens = _MARKDOWN.parse(texto, env)
    if fuentes_de:
        for bloque in (t for t in tokens if t.type == "inline" and t.children):
            hijos, en_enlace = [], 0  # el texto de un enlace no lleva otro enlace dentro
            for hijo in bloque.children or []:
                en_enlace += hijo.nesting if hijo.type in ("link_open", "link_close") else 0
                hijos += [hijo] if en_enlace else _con_marcadores(hijo, fuentes_de, fuentes)
            bloque.children = hijos
    html = _MARKDOWN.renderer.render(tokens, _MARKDOWN.options, env)
    limpio = nh3.clean(html, tags=ETIQUETAS_PERMITIDAS, attributes={"a": {"href"}})
    return mark_safe(SEGURIDAD.sub(r'<p class="seguridad seguridad-\2"><em>\1', limpio))


def _con_marcadores(token: Token, fuentes_de: str, fuentes: int) -> list[Token]:
    if token.type != "text" or "[" not in token.content:
        return [token]
    partes: list[Token] = []
    for parte in MARCADOR.split(token.content):
        if MARCADOR.fullmatch(parte) and 1 <= int(parte[1:-1]) <= fuentes:
            href = f"#fuente-{fuentes_de}-{parte[1:-1]}"
            partes += [
                Token("link_open", "a", 1, attrs={"href": href}),
                Token("text", "", 0, content=parte),
                Token("link_close", "a", -1),
            ]
        elif parte:
            partes.append(Token("text", "", 0, content=parte))
    return partes
