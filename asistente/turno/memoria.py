"""La memoria de largo plazo del usuario, en lo que leen los motores (semilla 000 §2.2.3): las
preferencias que dijo explícitamente y las preguntas suyas de otras conversaciones que se parecen a la
actual. Guardarlas y olvidarlas es de `asistente.memoria`.

Una preferencia se reconoce solo cuando el usuario la dice como tal («respóndeme breve», «trabajo con
el cliente Minera Norte», «mi región es Coquimbo»): nunca se infiere de lo que pregunta.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from asistente.models import Mensaje
from config.texto import normalizar, sin_tildes
from proyectos import selectors as proyectos
from proyectos.roles import Usuario, id_de

# Lo que el usuario puede fijar y cómo se muestra en «Mi memoria».
NOMBRES = {"largo": "Largo de las respuestas", "cliente": "Cliente con que trabaja", "region": "Región"}

_PIDE = (
    r"(respondeme|responde|contestame|contesta|escribeme|redacta)\s+"
    r"(de (forma|manera) |en forma |mas |siempre )?"
)
_PREFIERE = r"(quiero|prefiero|dame|me gustan|me gustarian)\s+(las\s+)?respuestas\s+(mas\s+)?"
_LARGO_BREVE = re.compile(
    rf"\b{_PIDE}(breve|corto|concis[oa]|resumid[oa])\b|\b(se|sea|se mas) (breve|concis[oa])\b"
    rf"|\b{_PREFIERE}(breves|cortas|concisas|resumidas)\b"
)
_LARGO_DETALLE = re.compile(
    rf"\b{_PIDE}(detallad[oa]|en detalle|con (mas )?detalle|extens[oa]|en extenso)\b"
    rf"|\b{_PREFIERE}(detalladas|extensas|completas|largas)\b"
)
_CLIENTE = re.compile(
    r"\b(?:trabajo|estoy trabajando|trabajamos)\s+(?:con|para)\s+(?:el\s+|la\s+)?"
    r"(?:cliente|empresa|mandante)\s+"
    r"[«\"“]?(?P<nombre>[^»\"”,.;:?!]{2,80})|"
    r"\bmi\s+(?:cliente|mandante)\s+es\s+[«\"“]?(?P<nombre2>[^»\"”,.;:?!]{2,80})"
)
_REGION = re.compile(
    r"\b(?:trabajo|trabajamos|opero|operamos|mis proyectos (?:estan|son))\s+(?:en|de|desde)\s+"
    r"(?:la\s+)?(?P<resto>region\b[^.?!,;]{3,50}|[^.?!,;]{3,40})|"
    r"\bmi region (?:es|preferida es)\s+(?P<resto2>[^.?!,;]{3,50})"
)

# Palabras que no dicen de qué trata una pregunta (para reconocer preguntas parecidas).
_VACIAS = frozenset(
    {
        "cual",
        "cuales",
        "como",
        "cuando",
        "donde",
        "quien",
        "cuanto",
        "cuanta",
        "cuantos",
        "cuantas",
        "para",
        "sobre",
        "entre",
        "desde",
        "hasta",
        "segun",
        "este",
        "esta",
        "estos",
        "estas",
        "esos",
        "esas",
        "aquel",
        "unos",
        "unas",
        "estan",
        "tiene",
        "tienen",
        "puede",
        "pueden",
        "debe",
        "deben",
        "hace",
        "hacer",
        "favor",
        "dime",
        "dame",
        "necesito",
        "quiero",
        "saber",
        "gracias",
        "hola",
        "tambien",
        "pero",
        "porque",
        "pues",
        "menos",
        "todo",
        "toda",
        "todos",
        "todas",
        "otro",
        "otra",
        "cada",
        "alguno",
        "alguna",
        "proyecto",
        "proyectos",
    }
)  # de cuatro letras o más
PARECIDO_MINIMO = 0.5
COMUNES_MINIMOS = 2
CANDIDATAS = 400
LARGO_RESPUESTA_RECORDADA = 240


@dataclass(frozen=True)
class Preferencia:
    clave: str
    valor: str
    descripcion: str
    extra: dict[str, Any] | None = None

    def como_dato(self, dicho: str, fecha: str) -> dict[str, Any]:
        return {"valor": self.valor, "descripcion": self.descripcion, "dicho": dicho[:200], "fecha": fecha,
                **(self.extra or {})}  # fmt: skip


def preferencias_dichas(texto: str, *, usuario: Usuario) -> list[Preferencia]:
    """Las preferencias que el mensaje declara explícitamente (largo, cliente, región)."""
    plano = " ".join(sin_tildes(texto).split())
    encontradas: list[Preferencia] = []
    if _LARGO_BREVE.search(plano):
        encontradas.append(Preferencia("largo", "breve", "Respuestas breves"))
    elif _LARGO_DETALLE.search(plano):
        encontradas.append(Preferencia("largo", "detallada", "Respuestas detalladas"))
    plegado = sin_tildes(texto)  # mismo largo que el texto: el nombre se toma del original, con mayúsculas
    if dicho := _CLIENTE.search(plegado):
        grupo = "nombre" if dicho.group("nombre") else "nombre2"
        original = texto if len(plegado) == len(texto) else plegado
        nombre = original[dicho.start(grupo) : dicho.end(grupo)].strip()
        nombre = re.split(r"\s+(?:y|en|que|desde|hace)\s+", nombre)[0].strip()
        if preferencia := _cliente(nombre, usuario):
            encontradas.append(preferencia)
    if (dicha := _REGION.search(plano)) and (
        region := proyectos.region_mencionada(texto=dicha.group("resto") or dicha.group("resto2") or "")
    ):
        encontradas.append(Preferencia("region", region, f"Región de {region}"))
    return encontradas


def _cliente(nombre: str, usuario: Usuario) -> Preferencia | None:
    """El cliente nombrado, si es uno de los que el usuario ve (con su id); si no, el nombre tal cual."""
    buscado = normalizar(nombre)
    if not buscado:
        return None
    for cliente in proyectos.clientes_visibles(usuario=usuario):
        if buscado in normalizar(cliente.nombre) or normalizar(cliente.nombre) in buscado:
            return Preferencia(
                "cliente", cliente.nombre, f"Trabaja con «{cliente.nombre}»", {"id": cliente.pk}
            )
    return Preferencia("cliente", nombre, f"Trabaja con «{nombre}» (no es uno de sus clientes registrados)")


def solo_preferencias(texto: str) -> bool:
    """El mensaje no pide nada más que fijar preferencias (no trae una pregunta que responder)."""
    plano = " ".join(sin_tildes(texto).split())
    if "?" in plano:
        return False
    resto = _LARGO_BREVE.sub(" ", _LARGO_DETALLE.sub(" ", _CLIENTE.sub(" ", plano)))
    resto = _REGION.sub(" ", resto)
    resto = re.sub(
        r"\b(por favor|desde ahora|de ahora en adelante|en adelante|siempre|ok|bueno)\b", " ", resto
    )
    return len(terminos(resto)) <= 1


def sin_preferencias(texto: str) -> str:
    """El mensaje sin las frases que fijan preferencias: «sé breve: ¿qué es una DIA?» → «¿qué es una
    DIA?». Lo que queda es lo que hay que responder."""
    plegado = sin_tildes(texto)
    if len(plegado) != len(texto):
        return texto
    patrones = (_LARGO_BREVE, _LARGO_DETALLE, _CLIENTE, _REGION)
    tramos = sorted((m.span() for patron in patrones for m in patron.finditer(plegado)), reverse=True)
    for inicio, fin in tramos:
        texto = texto[:inicio] + " " + texto[fin:]
    return " ".join(texto.split()).lstrip(" ,.;:-y").strip() or texto


def terminos(texto: str) -> set[str]:
    """Los términos que dicen de qué trata un texto: palabras de cuatro letras o más que no son vacías,
    recortadas a cinco letras (así «plazo» y «plazos», «evaluar» y «evaluación» coinciden)."""
    return {p[:5] for p in normalizar(texto).split() if len(p) >= 4 and p not in _VACIAS}


def recuerdos_de(
    *, usuario: Usuario, texto: str, conversacion_id: Any, limite: int = 2
) -> list[dict[str, Any]]:
    """Las preguntas del mismo usuario en otras conversaciones que más se parecen a esta (comparten al
    menos la mitad de sus términos y dos de ellos), con el comienzo de la respuesta que recibió. Las que
    pidió olvidar y las de conversaciones eliminadas no vuelven."""
    buscados = terminos(texto)
    if len(buscados) < COMUNES_MINIMOS:
        return []
    candidatas = (
        Mensaje.objects.filter(
            conversacion__usuario_id=id_de(usuario),
            conversacion__eliminada_at__isnull=True,
            rol=Mensaje.Rol.USUARIO,
            olvidado=False,
        )
        .exclude(conversacion_id=conversacion_id)
        .select_related("conversacion")
        .order_by("-creado_at")[:CANDIDATAS]
    )
    puntuadas = []
    vistas: set[str] = set()
    for pregunta in candidatas:
        parecido = _parecido(buscados, pregunta.contenido)
        clave = normalizar(pregunta.contenido)
        if parecido is not None and clave not in vistas:
            vistas.add(clave)
            puntuadas.append((parecido, pregunta))
    puntuadas.sort(key=lambda par: (-par[0], -par[1].creado_at.timestamp()))
    elegidas = [p for _, p in puntuadas[:limite]]
    respuestas = {
        r.pregunta_id: r
        for r in Mensaje.objects.filter(pregunta__in=elegidas, rol=Mensaje.Rol.ASISTENTE).order_by(
            "creado_at"
        )
    }
    return [
        {
            "mensaje_id": str(p.pk),
            "conversacion_id": str(p.conversacion_id),
            "titulo": p.conversacion.titulo,
            "fecha": p.creado_at.date().isoformat(),
            "pregunta": " ".join(p.contenido.split())[:200],
            "respuesta": acortar(sin_marcas(respuestas[p.pk].contenido), LARGO_RESPUESTA_RECORDADA)
            if p.pk in respuestas
            else "",
        }
        for p in elegidas
    ]


def reparo_de(*, usuario: Usuario, texto: str) -> dict[str, Any] | None:
    """La pregunta parecida más reciente del usuario (en cualquier conversación, también esta) cuya
    respuesta calificó «no me sirvió», con esa respuesta y su comentario; None si no hay. Lo que pidió
    olvidar y lo de conversaciones eliminadas no vuelve."""
    buscados = terminos(texto)
    if len(buscados) < COMUNES_MINIMOS:
        return None
    malas = (
        Mensaje.objects.filter(
            conversacion__usuario_id=id_de(usuario),
            conversacion__eliminada_at__isnull=True,
            rol=Mensaje.Rol.ASISTENTE,
            feedback__lt=0,
            pregunta__olvidado=False,
        )
        .select_related("pregunta")
        .order_by("-creado_at")[:CANDIDATAS]
    )
    for respuesta in malas:
        pregunta = respuesta.pregunta
        if pregunta is None:
            continue
        if _parecido(buscados, pregunta.contenido) is not None:
            return {
                "pregunta": " ".join(pregunta.contenido.split())[:200],
                "fecha": pregunta.creado_at.date().isoformat(),
                "respuesta": acortar(sin_marcas(respuesta.contenido), LARGO_RESPUESTA_RECORDADA),
                "comentario": " ".join(respuesta.feedback_comentario.split())[:300],
            }
    return None


def _parecido(buscados: set[str], texto: str) -> float | None:
    """Cuánto se parece `texto` a la pregunta de términos `buscados` (coseno de conjuntos), o None si no
    comparte al menos `COMUNES_MINIMOS` términos y `PARECIDO_MINIMO` de parecido."""
    propios = terminos(texto)
    comunes = buscados & propios
    parecido = len(comunes) / (len(buscados) * max(len(propios), 1)) ** 0.5
    return parecido if len(comunes) >= COMUNES_MINIMOS and parecido >= PARECIDO_MINIMO else None


def sin_marcas(texto: str) -> str:
    """El texto de una respuesta sin Markdown ni marcadores de cita [n], en una línea."""
    return " ".join(re.sub(r"[*_#>`]|\s?\[\d+\]", "", texto).split())


def acortar(texto: str, largo: int) -> str:
    """A lo más `largo` caracteres en una línea, cortando entre palabras y con «…» si cortó."""
    plano = " ".join(texto.split())
    return plano if len(plano) <= largo else plano[: largo - 1].rsplit(" ", 1)[0] + "…"
