"""La memoria del usuario (semilla 000 §2.2.3): lo que el asistente guarda de él y lo que él ve y borra
en «Mi memoria».

- Preferencias que dice explícitamente («respóndeme breve», «trabajo con el cliente X», una región).
- Proyectos que más consulta (resuelven «mi proyecto» cuando la conversación no tiene uno activo).
- El resumen de cada conversación larga: lo que sale de la ventana de mensajes recientes. Con Claude,
  una llamada breve que resume (su costo queda en el registro del turno); sin modelo, o si falla, un
  resumen extractivo de las preguntas, los proyectos y las conclusiones.
- Las preguntas anteriores, que el asistente recuerda cuando vuelve una parecida (`turno.memoria`).
- Las calificaciones que dio a las respuestas.
"""

from __future__ import annotations

import re

import anthropic
import structlog
from django.conf import settings
from django.db.models import F
from django.utils import timezone

from asistente.models import Conversacion, MemoriaUsuario, Mensaje
from asistente.motores import motor_llm_configurado
from asistente.motores.claude import redactar
from asistente.turno.medicion import publicar_costo
from asistente.turno.memoria import NOMBRES, acortar, preferencias_dichas, sin_marcas, solo_preferencias
from asistente.turno.tipos import VENTANA_MENSAJES, Respuesta
from config.errores import NoEncontrado
from proyectos.roles import Usuario, id_de

registro = structlog.get_logger(__name__)

LARGO_RESUMEN = 4000
# Con Claude se resume por tandas: una llamada cada tantos mensajes que salen de la ventana.
TANDA_RESUMEN = 6
PROYECTOS_RECORDADOS = 10
INSTRUCCION_RESUMEN = (
    "Resume en español, en no más de 8 viñetas breves, lo que el usuario preguntó, los proyectos que se "
    "mencionaron (con su número) y las conclusiones o decisiones a las que se llegó. Conserva las citas "
    "de artículos (p. ej. «art. 11 Ley 19.300»). Incluye lo esencial del resumen anterior si lo hay. No "
    "agregues nada que no esté en la conversación."
)


# --- preferencias ---------------------------------------------------------------------------


def preferencias_anotar(*, usuario: Usuario, mensaje: Mensaje) -> list[str]:
    """Guarda las preferencias que el mensaje declara; devuelve cómo se muestran («Respuestas breves»).
    Un mensaje que solo fija preferencias no es una pregunta: no vuelve entre las recordadas."""
    texto = mensaje.contenido
    dichas = preferencias_dichas(texto, usuario=usuario)
    if not dichas:
        return []
    if solo_preferencias(texto):
        Mensaje.objects.filter(pk=mensaje.pk).update(olvidado=True)
    memoria, _ = MemoriaUsuario.objects.get_or_create(usuario_id=id_de(usuario))
    fecha = timezone.now().isoformat()
    for preferencia in dichas:
        memoria.preferencias[preferencia.clave] = preferencia.como_dato(" ".join(texto.split()), fecha)
    memoria.save(update_fields=["preferencias", "actualizada_at"])
    usuario.memoria = memoria  # type: ignore[union-attr]  # el turno la lee ya con lo anotado
    return [p.descripcion for p in dichas]


def preferencia_olvidar(*, usuario: Usuario, clave: str) -> None:
    memoria = _memoria(usuario)
    if clave not in memoria.preferencias:
        raise NoEncontrado("Esa preferencia no está en su memoria.")
    del memoria.preferencias[clave]
    memoria.save(update_fields=["preferencias", "actualizada_at"])


# --- proyectos frecuentes -------------------------------------------------------------------


def proyectos_recordar(*, usuario: Usuario, ids: list[int]) -> None:
    """Cuenta los proyectos que el usuario consulta (los frecuentes, primero)."""
    if not ids:
        return
    memoria, _ = MemoriaUsuario.objects.get_or_create(usuario_id=id_de(usuario))
    cuentas = {int(p["id"]): int(p["veces"]) for p in memoria.proyectos_frecuentes}
    for pk in ids:
        cuentas[pk] = cuentas.get(pk, 0) + 1
    ordenados = sorted(cuentas.items(), key=lambda par: -par[1])[:PROYECTOS_RECORDADOS]
    memoria.proyectos_frecuentes = [{"id": pk, "veces": veces} for pk, veces in ordenados]
    memoria.save(update_fields=["proyectos_frecuentes", "actualizada_at"])


def proyecto_olvidar(*, usuario: Usuario, proyecto_id: int) -> None:
    memoria = _memoria(usuario)
    quedan = [p for p in memoria.proyectos_frecuentes if int(p["id"]) != proyecto_id]
    if len(quedan) == len(memoria.proyectos_frecuentes):
        raise NoEncontrado("Ese proyecto no está entre los que recuerdo.")
    memoria.proyectos_frecuentes = quedan
    memoria.save(update_fields=["proyectos_frecuentes", "actualizada_at"])


# --- resumen de la conversación -------------------------------------------------------------


def conversacion_resumir(*, conversacion: Conversacion, turno: Mensaje | None = None) -> None:
    """Lleva al resumen lo que salió de la ventana de mensajes recientes.

    Con Claude, cuando suma una tanda (`TANDA_RESUMEN`), un resumen del modelo; su costo y sus tokens se
    suman al registro del turno (`turno`, el mensaje del asistente que lo provocó). Sin modelo, o si la
    llamada falla, el resumen extractivo.
    """
    mensajes = list(conversacion.mensajes.order_by("creado_at"))
    resumidos = int(conversacion.metadata.get("resumidos", 0))
    fuera = mensajes[resumidos : max(len(mensajes) - VENTANA_MENSAJES, resumidos)]
    if not fuera:
        return
    con_modelo = motor_llm_configurado() == "claude"
    if con_modelo and len(fuera) < TANDA_RESUMEN:
        return  # la tanda se completa en los próximos turnos
    resumen = (_resumen_del_modelo(conversacion, fuera, turno) if con_modelo else None) or "\n".join(
        filter(None, [conversacion.resumen, resumen_extractivo(fuera)])
    )
    conversacion.resumen = _recortar(resumen)
    conversacion.metadata = {**conversacion.metadata, "resumidos": resumidos + len(fuera)}
    conversacion.save(update_fields=["resumen", "metadata"])


def resumen_extractivo(mensajes: list[Mensaje]) -> str:
    """Una línea por pregunta del usuario: la pregunta, los proyectos nombrados y la conclusión (la
    primera oración de la respuesta, sin marcadores de cita)."""
    lineas = []
    respuestas = {m.pregunta_id: m for m in mensajes if m.rol == Mensaje.Rol.ASISTENTE and m.pregunta_id}
    sueltas = [m for m in mensajes if m.rol == Mensaje.Rol.ASISTENTE and not m.pregunta_id]
    for mensaje in mensajes:
        if mensaje.rol != Mensaje.Rol.USUARIO:
            continue
        respuesta = respuestas.get(mensaje.pk)
        linea = f"- Preguntó: «{acortar(mensaje.contenido, 160)}»"
        proyectos = _proyectos_nombrados(mensaje.contenido + " " + (respuesta.contenido if respuesta else ""))
        if proyectos:
            linea += f" (proyectos {', '.join(proyectos)})"
        if respuesta is not None:
            linea += f" → {_primera_oracion(respuesta.contenido)}"
        lineas.append(linea)
    lineas += [f"- {_primera_oracion(m.contenido)}" for m in sueltas if m.motor == "acciones"]
    return "\n".join(lineas)


def resumen_olvidar(*, usuario: Usuario, conversacion_id: str) -> None:
    filas = Conversacion.objects.filter(pk=conversacion_id, usuario_id=id_de(usuario)).exclude(resumen="")
    if not filas.update(resumen=""):
        raise NoEncontrado("Esa conversación no tiene un resumen guardado.")


def _resumen_del_modelo(
    conversacion: Conversacion, fuera: list[Mensaje], turno: Mensaje | None
) -> str | None:
    transcripcion = "\n".join(
        f"{'Usuario' if m.rol == Mensaje.Rol.USUARIO else 'Asistente'}: {acortar(m.contenido, 1200)}"
        for m in fuera
    )
    pedido = (
        f"Resumen anterior:\n{conversacion.resumen}\n\n" if conversacion.resumen else ""
    ) + f"Conversación por resumir:\n{transcripcion}"
    try:
        respuesta = redactar(
            sistema=INSTRUCCION_RESUMEN,
            mensajes=[{"role": "user", "content": pedido}],
            max_tokens=settings.ASISTENTE_RESUMEN_MAX_TOKENS,
        )
    except anthropic.APIError as error:
        registro.warning("resumen_fallo", conversacion=str(conversacion.pk), error=type(error).__name__)
        return None
    _sumar_al_turno(turno, respuesta)
    registro.info(
        "asistente_resumen",
        conversacion_id=str(conversacion.pk),
        mensajes=len(fuera),
        tokens_entrada=respuesta.tokens_entrada,
        tokens_salida=respuesta.tokens_salida,
        costo_usd=respuesta.costo_usd,
    )
    return respuesta.texto.strip() or None


def _sumar_al_turno(turno: Mensaje | None, respuesta: Respuesta) -> None:
    """El costo del resumen es parte del turno que lo provocó: se suma a su registro y a las métricas."""
    publicar_costo(respuesta)
    if turno is not None:
        Mensaje.objects.filter(pk=turno.pk).update(
            tokens_entrada=F("tokens_entrada") + respuesta.tokens_entrada,
            tokens_salida=F("tokens_salida") + respuesta.tokens_salida,
            tokens_cache_lectura=F("tokens_cache_lectura") + respuesta.tokens_cache_lectura,
            tokens_cache_escritura=F("tokens_cache_escritura") + respuesta.tokens_cache_escritura,
            costo_usd=F("costo_usd") + respuesta.costo_usd,
        )


def _recortar(resumen: str) -> str:
    """A lo más `LARGO_RESUMEN` caracteres, conservando lo más reciente y líneas completas."""
    if len(resumen) <= LARGO_RESUMEN:
        return resumen.strip()
    recorte = resumen[-LARGO_RESUMEN:]
    return recorte[recorte.find("\n") + 1 :].strip() if "\n" in recorte else recorte.strip()


def _primera_oracion(texto: str) -> str:
    oracion = re.split(r"(?<=[.!?])\s+(?=[A-ZÁÉÍÓÚÑ¿¡«\d-])", sin_marcas(texto), maxsplit=1)[0]
    return acortar(oracion, 200)


def _proyectos_nombrados(texto: str) -> list[str]:
    return list(dict.fromkeys(f"#{n}" for n in re.findall(r"#(\d+)\b", texto)))[:5]


# --- preguntas recordadas y calificaciones ----------------------------------------------------


def pregunta_olvidar(*, usuario: Usuario, mensaje_id: str) -> None:
    """La pregunta no vuelve a recordarse (sigue en su conversación)."""
    filas = Mensaje.objects.filter(
        pk=mensaje_id, conversacion__usuario_id=id_de(usuario), rol=Mensaje.Rol.USUARIO, olvidado=False
    )
    if not filas.update(olvidado=True):
        raise NoEncontrado("Esa pregunta no está en su memoria.")


def calificacion_olvidar(*, usuario: Usuario, mensaje_id: str) -> None:
    memoria = _memoria(usuario)
    quedan = [f for f in memoria.feedback if f.get("mensaje") != mensaje_id]
    if len(quedan) == len(memoria.feedback):
        raise NoEncontrado("Esa calificación no está en su memoria.")
    memoria.feedback = quedan
    memoria.save(update_fields=["feedback", "actualizada_at"])


def memoria_borrar(*, usuario: Usuario) -> None:
    """Olvida todo: preferencias, proyectos, calificaciones, resúmenes y preguntas recordadas."""
    MemoriaUsuario.objects.filter(usuario_id=id_de(usuario)).delete()
    Conversacion.objects.filter(usuario_id=id_de(usuario)).exclude(resumen="").update(resumen="")
    Mensaje.objects.filter(conversacion__usuario_id=id_de(usuario), rol=Mensaje.Rol.USUARIO).update(
        olvidado=True
    )


def memoria_olvidar(*, usuario: Usuario, tipo: str, clave: str) -> None:
    """Olvida un elemento de la memoria por su tipo (lo que envía la página «Mi memoria»)."""
    if tipo == "todo":
        memoria_borrar(usuario=usuario)
    elif tipo == "preferencia" and clave in NOMBRES:
        preferencia_olvidar(usuario=usuario, clave=clave)
    elif tipo == "proyecto" and clave.isdigit():
        proyecto_olvidar(usuario=usuario, proyecto_id=int(clave))
    elif tipo == "resumen":
        resumen_olvidar(usuario=usuario, conversacion_id=_uuid(clave))
    elif tipo == "pregunta":
        pregunta_olvidar(usuario=usuario, mensaje_id=_uuid(clave))
    elif tipo == "calificacion":
        calificacion_olvidar(usuario=usuario, mensaje_id=clave)
    else:
        raise NoEncontrado("No hay nada así en su memoria.")


def _uuid(clave: str) -> str:
    if not re.fullmatch(r"[0-9a-fA-F-]{32,36}", clave):
        raise NoEncontrado("No hay nada así en su memoria.")
    return clave


def _memoria(usuario: Usuario) -> MemoriaUsuario:
    memoria = MemoriaUsuario.objects.filter(usuario_id=id_de(usuario)).first()
    if memoria is None:
        raise NoEncontrado("Su memoria está vacía.")
    return memoria
