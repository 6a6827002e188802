"""La memoria del usuario: preferencias dichas, resumen de lo que sale de la ventana (extractivo y con
Claude, con su costo en el registro del turno), preguntas recordadas y lo que el usuario olvida."""

import json
from collections.abc import Callable

import pytest
from django.contrib.auth.models import AbstractUser
from django.test import override_settings

from asistente.memoria import conversacion_resumir, memoria_borrar, memoria_olvidar
from asistente.models import Conversacion, Dominio, MemoriaUsuario, Mensaje
from asistente.turno.tipos import VENTANA_MENSAJES
from config.errores import NoEncontrado
from tests.asistente.conftest import Charla, responder_sse
from tests.utilidades import ServidorLocal
from tests.utilidades import mensaje_sse as sse


def conversacion_larga(usuario: AbstractUser, pares: int) -> Conversacion:
    """Una conversación con `pares` preguntas y respuestas, cada respuesta enlazada a su pregunta."""
    conversacion = Conversacion.objects.create(
        usuario_id=usuario.pk, dominio=Dominio.objects.get(codigo="mineria"), titulo="Larga"
    )
    for n in range(pares):
        pregunta = Mensaje.objects.create(
            conversacion=conversacion, rol="user", contenido=f"pregunta {n} sobre el proyecto #{n + 1}"
        )
        Mensaje.objects.create(
            conversacion=conversacion,
            rol="assistant",
            pregunta=pregunta,
            contenido=f"**Conclusión {n}**: ingresa por DIA [1]. Detalle que no va al resumen.",
        )
    return conversacion


def test_una_preferencia_dicha_se_anota_se_confirma_y_cambia_la_respuesta_sin_modelo(
    usuaria: Callable[..., AbstractUser], conversar: Callable[..., Charla]
) -> None:
    consultora = usuaria()

    charla = conversar(consultora, "Respóndeme breve, por favor.")

    assert charla.texto.startswith("Anotado: Respuestas breves.") and "Mi memoria" in charla.texto
    preferencia = MemoriaUsuario.objects.get(usuario_id=consultora.pk).preferencias["largo"]
    assert preferencia["valor"] == "breve" and preferencia["dicho"] == "Respóndeme breve, por favor."
    assert Mensaje.objects.get(pk=charla.turno.mensaje.pk).olvidado  # no es una pregunta que recordar


@pytest.mark.usefixtures("corpus")
def test_con_respuestas_breves_la_respuesta_normativa_trae_una_sola_fuente(
    usuaria: Callable[..., AbstractUser], conversar: Callable[..., Charla]
) -> None:
    consultora = usuaria()
    pregunta = "¿Qué es el Estudio de Impacto Ambiental?"
    completa = conversar(consultora, pregunta)

    breve = conversar(consultora, f"sé breve: {pregunta}")

    assert len(completa.fuentes) > 1 and len(breve.fuentes) == 1
    assert "Anoté en su memoria: Respuestas breves" in breve.texto


def test_los_mensajes_que_salen_de_la_ventana_pasan_a_un_resumen_de_preguntas_proyectos_y_conclusiones(
    usuaria: Callable[..., AbstractUser],
) -> None:
    conversacion = conversacion_larga(usuaria(), pares=VENTANA_MENSAJES // 2 + 2)

    conversacion_resumir(conversacion=conversacion)
    conversacion_resumir(conversacion=conversacion)  # lo ya resumido no se repite

    conversacion.refresh_from_db()
    assert conversacion.resumen.splitlines() == [
        "- Preguntó: «pregunta 0 sobre el proyecto #1» (proyectos #1) → Conclusión 0: ingresa por DIA.",
        "- Preguntó: «pregunta 1 sobre el proyecto #2» (proyectos #2) → Conclusión 1: ingresa por DIA.",
    ]
    assert conversacion.metadata["resumidos"] == 4


def test_con_claude_el_resumen_lo_escribe_el_modelo_y_su_costo_se_suma_al_turno(
    servidor: ServidorLocal, usuaria: Callable[..., AbstractUser]
) -> None:
    conversacion = conversacion_larga(usuaria(), pares=VENTANA_MENSAJES // 2 + 3)
    turno = conversacion.mensajes.filter(rol="assistant").last()
    assert turno is not None
    responder_sse(servidor, sse({"type": "text", "text": "- Preguntó por los proyectos #1 a #3: DIA."}))

    conversacion_resumir(conversacion=conversacion, turno=turno)

    conversacion.refresh_from_db()
    assert conversacion.resumen == "- Preguntó por los proyectos #1 a #3: DIA."
    (pedido,) = [json.loads(p[3]) for p in servidor.pedidos]
    assert "pregunta 2 sobre el proyecto #3" in pedido["messages"][0]["content"] and "tools" not in pedido
    turno.refresh_from_db()
    assert turno.tokens_entrada == 220 and turno.tokens_salida == 30 and turno.costo_usd > 0


def test_con_claude_el_resumen_espera_una_tanda_y_si_el_modelo_falla_queda_el_extractivo(
    servidor: ServidorLocal, usuaria: Callable[..., AbstractUser]
) -> None:
    conversacion = conversacion_larga(usuaria(), pares=VENTANA_MENSAJES // 2 + 1)
    conversacion_resumir(conversacion=conversacion)
    assert servidor.pedidos == [] and Conversacion.objects.get(pk=conversacion.pk).resumen == ""

    for n in range(2):
        Mensaje.objects.create(conversacion=conversacion, rol="user", contenido=f"otra {n}")
        Mensaje.objects.create(conversacion=conversacion, rol="assistant", contenido="respuesta")
    servidor.responder("/v1/messages", 500, "falla")
    conversacion_resumir(conversacion=conversacion)

    conversacion.refresh_from_db()
    assert conversacion.resumen.startswith("- Preguntó: «pregunta 0 sobre el proyecto #1»")


def test_se_olvida_cada_elemento_y_todo_a_la_vez(usuaria: Callable[..., AbstractUser]) -> None:
    consultora = usuaria()
    conversacion = conversacion_larga(consultora, pares=1)
    conversacion.resumen = "- algo"
    conversacion.save()
    pregunta = conversacion.mensajes.get(rol="user")
    MemoriaUsuario.objects.create(
        usuario_id=consultora.pk,
        preferencias={"largo": {"valor": "breve"}, "region": {"valor": "Atacama"}},
        proyectos_frecuentes=[{"id": 7, "veces": 3}],
        feedback=[{"mensaje": "m1", "valor": 1, "comentario": ""}],
    )

    memoria_olvidar(usuario=consultora, tipo="preferencia", clave="largo")
    memoria_olvidar(usuario=consultora, tipo="proyecto", clave="7")
    memoria_olvidar(usuario=consultora, tipo="calificacion", clave="m1")
    memoria_olvidar(usuario=consultora, tipo="pregunta", clave=str(pregunta.pk))
    memoria_olvidar(usuario=consultora, tipo="resumen", clave=str(conversacion.pk))

    memoria = MemoriaUsuario.objects.get(usuario_id=consultora.pk)
    assert memoria.preferencias == {"region": {"valor": "Atacama"}}
    assert memoria.proyectos_frecuentes == [] and memoria.feedback == []
    assert (
        Mensaje.objects.get(pk=pregunta.pk).olvidado
        and Conversacion.objects.get(pk=conversacion.pk).resumen == ""
    )
    with pytest.raises(NoEncontrado):
        memoria_olvidar(usuario=consultora, tipo="preferencia", clave="largo")

    memoria_borrar(usuario=consultora)

    assert not MemoriaUsuario.objects.filter(usuario_id=consultora.pk).exists()


def test_nadie_olvida_lo_de_otro(usuaria: Callable[..., AbstractUser]) -> None:
    ana, berta = usuaria("ana"), usuaria("berta")
    pregunta = conversacion_larga(ana, pares=1).mensajes.get(rol="user")

    with pytest.raises(NoEncontrado):
        memoria_olvidar(usuario=berta, tipo="pregunta", clave=str(pregunta.pk))

    assert not Mensaje.objects.get(pk=pregunta.pk).olvidado


@override_settings(ASISTENTE_ENRUTADOR=True)
def test_con_claude_una_preferencia_sola_se_confirma_sin_llamar_al_modelo(
    servidor: ServidorLocal, usuaria: Callable[..., AbstractUser], conversar: Callable[..., Charla]
) -> None:
    charla = conversar(usuaria(), "Trabajo en la Región de Antofagasta.")

    assert servidor.pedidos == [] and charla.texto.startswith("Anotado: Región de Antofagasta.")
    assert Mensaje.objects.get(pk=charla.final["mensaje"]["id"]).motor == "enrutador"
