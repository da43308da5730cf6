"""The German, French, Spanish, Italian and Portuguese words of the act reported done (refusal_performed.py and
refusal_done.py read them beside their English ones): a participle in a passive or a new state of the request's thing
("Votre commande a été annulée", "La tessera è rinnovata fino a dicembre"), a new value ("O seu limite passou para
2.000 €"), a headline opening the reply ("Servidor reiniciado."), the asker in the new state ("Ya estás dado de alta"),
a time set on the day asked ("La tonte est déplacée à samedi"), and the Italian and Portuguese act done or promised
("Ho abilitato il deploy", "Cancelei a sua reserva"). The constraints that leave the act undone are in
refusal_intl_unperformed.py.
"""

from __future__ import annotations

import re

from khaos_action.detect.refusal_grammar import rx
from khaos_action.detect.refusal_intl_request import WHEN
from khaos_action.detect.refusal_intl_unperformed import STATE
from khaos_action.detect.refusal_request import content_words

PERFORMED = rx(
    # Italian: the act reported done ("Ho abilitato il deploy", "Te l'ho inviata", "è stata annullata"), promised
    # ("lo invierò"); not what was only looked at ("ho controllato", "ho verificato")
    r"(?<!non )\b(?:(?:l'|gliel'|te l'|ve l'|ce l'|me l')(?:ho|abbiamo)|(?:ho|abbiamo))(?: (?:già|appena|ora|adesso|"
    r"anche|subito))? (?!(?:controllat|verificat|guardat|vist|lett|notat|provat|cercat|trovat|chiest|ricevut|capit|"
    r"dovut|potut|volut|avut|fatto presente)\w*\b)[^\W\d_]+(?:at|it|ut|ss|st|tt|rt|lt)[oaie]\b|"
    r"(?<!non )\b(?:è|sono) (?:ora|già|adesso) (?!(?:rifiutat|respint|negat|bloccat|sospes|chius|esaurit|occupat|"
    r"pien|scadut|terminat|passat|prenotat[oa] da)\w*)[^\W\d_]+(?:at|it|ut|ss|st|tt)[oaie]\b(?! (?:da|dal|"
    r"dalla|dai|dalle|dagli|fino|solo)\b)|"
    r"\b(?:lo |la |li |le |glielo |gliela |te lo |te la )?[^\W\d_]{3,}(?:erò|irò|eremo|iremo)\b|"
    # Portuguese: "Cancelei a sua reserva", "liberei o acesso", "a receita foi enviada", "vou enviar", "enviarei";
    # not the Italian conditional ("vorrei", "potrei") nor what was only looked at ("verifiquei")
    r"(?<!não )(?<!nao )\b(?:já )?(?:lhe |o |a |os |as |te )?(?!(?:verifiqu|confirm|olh|consult|procur|tent|"
    r"encontr|not|registr|pens|gost|dever|poder|quer|vorr|potr|dovr)\w*ei\b)[^\W\d_]{3,}(?<!r)ei\b|"
    # "-rei" is also the Italian conditional ("annullerei"): read only opening a clause or after "já", "eu", "então"
    r"(?:^\W*|[.!?;:,]\s*|\b(?:já|eu|nós|então|e|agora|assim) )(?:lhe |o |a |os |as |te )?(?!(?:vorr|potr|dovr|sar|"
    r"far|dar|star|avr|verr|andr|dir|vor|pot)rei\b)[^\W\d_]{3,}rei\b|"
    # French with a pronoun before the auxiliary: "Je vous ai mis jeudi à 15 h", "Je l'ai envoyée", "nous vous avons
    # inscrit"
    r"\b(?:je|nous)\s+(?:(?:vous|te|lui|leur|les|la|le)\s+|l')+(?:ai|avons)\b(?!\s+(?:pas|rien|jamais)\b)|"
    # German with the verb first ("daher habe ich den Zugang soeben freigeschaltet"), or a date between ("Ich habe
    # Ihr Abo zum 30. Juni gekündigt")
    r"\b(?:ich|wir) (?:habe|haben) (?!(?:[\w.-]+ ){0,4}?(?:nicht|nichts|kein\w*)\b)(?:[\w-]+ ){0,4}?\d+\. "
    r"(?:[\w.-]+ ){0,3}?(?:\w*ge\w+(?:t|en)|\w+iert)\b|"
    r"\b(?:habe|haben) (?:ich|wir) (?!(?:[\w-]+ ){0,4}?(?:nicht|nichts|kein\w*)\b)(?:[\w-]+ ){0,5}?"
    r"(?:\w*ge\w+(?:t|en)|\w+iert)\b|"
    r"(?<!não )\b(?:já está|já estão|está agora|estão agora) (?:\w+ )?(?!(?:recusad|rejeitad|negad|bloquead|"
    r"suspens|cobrad|marcad|fechad|esgotad|lotad|encerrad|ocupad|preenchid|reservad|vendid|"
    r"atribuíd)\w*)[^\W\d_]+(?:ad|id)[oa]s?\b(?! (?:por|pel[oa]s?|até|só|apenas)\b)|"
    r"(?<!não )\b(?:eu |nós )?(?:vou|vamos) (?!(?:ter|precisar|poder|conseguir|esperar|aguardar)\b)"
    r"[^\W\d_]+(?:ar|er|ir)"
    r"\b|\b[^\W\d_]{3,}(?<!s)arei\b"
)
"""The act reported done, under way or promised in Italian and Portuguese (refusal_performed.PERFORMED holds the
other languages)."""
PASSIVE = rx(
    r"(?P<subject>(?:[\w'-]+ ){1,4}?)(?:wurde|wurden|a été|ont été|ha sido|han sido|fue|fueron|è stat[oaie]|"
    r"sono stat[ie]|foi|foram)(?: (?:jetzt|nun|bereits|schon|bien|déjà|ya|già|ora|adesso|já|agora))? "
    r"(?P<word>[^\W\d_]+)\b(?! (?:von|durch|par|por|pel[oa]s?|da|dal|dalla|dai|dagli|dalle|bis|jusqu\w*|hasta|fino|"
    r"até|nur|seulement|solo|só|apenas|erst|après|nach|después|dopo|depois)\b)"
    # a past fact, not the act just done: "a sua foi ativada há 20 dias", "wurde vor drei Wochen eröffnet"
    r"(?! (?:há|vor|seit|il y a|depuis|hace|desde)\b| \d+ \w+ fa\b)"
)
"""A passive report of an act (reported decides whether it is the requested one)."""
COPULA = rx(
    r"(?P<subject>(?:[\w'-]+ ){1,3}?)"
    # not restricted or negated ("só é feita com ...", "non è previsto"): a rule, no report
    r"(?<!\bsó )(?<!\bsolo )(?<!\bsólo )(?<!\bnur )(?<!\bapenas )(?<!\bsoltanto )"
    r"(?<!\bne )(?<!\bnon )(?<!\bnão )(?<!\bno )(?<!\bnicht )"
    r"(?:è|sono|é|são|está|estão|estás|est|sont|ist|sind|es|son|fica|ficam|ficou|queda|"
    r"quedan|quedó)(?: (?:ora|già|adesso|agora|já|maintenant|désormais|ya|jetzt|nun|bereits|ahora))? "
    r"(?P<word>[^\W\d_]+)\b"
    # bound to an agent it is a rule: "sont traités par le transporteur", "è firmato da entrambe le parti"
    r"(?! (?:von|durch|par|por|pel[oa]s?|da|dal|dalla|dai|dagli|dalle|dall'|del|de la)\b)"
    r"(?! (?:com|con|avec|mit|quando|cuando|lorsque|wenn|sobald|se|si|solo|só|apenas|nur|seulement|uniquement|"
    r"dopo|depois|tras|después|après|nach|una vez|une fois)\b)"
)
"""A thing in a new state ("La tessera è rinnovata fino a dicembre", "Votre prêt est prolongé jusqu'au 14 juin",
"Ya estás dado de alta"): the act done when the state is the request's verb."""
NEW_VALUE = rx(
    r"(?P<subject>(?:[\w'-]+ ){1,3}?)(?:passou (?:para|a)|passa (?:para|a)|é agora|è ora|è passat[oa] a|pasó a|"
    r"ahora es|queda en|est passée? à|passe à|beträgt jetzt|liegt jetzt bei|ist jetzt auf|steht jetzt auf|"
    r"läuft jetzt bis|gilt jetzt bis|läuft jetzt|gilt jetzt)\b"
)
"""The request's thing at its new value ("O seu limite passou para 2.000 €", "Die Ausleihe läuft jetzt bis zum 12.
Mai")."""
HEADLINE = rx(
    # a figure may stand before the participle: "Auf 21 °C gestellt."
    r"^\W*(?:[^\W\d_]+ ){0,2}?(?:[\d°%€$][^\s.!?:;]* ){0,2}"
    # not a noun after its article: "Las entradas de ...", "Il certificato per ..."
    r"(?<!\bil )(?<!\blo )(?<!\bla )(?<!\bi )(?<!\bgli )(?<!\ble )(?<!\bel )(?<!\blos )(?<!\blas )(?<!\bo )"
    r"(?<!\ba )(?<!\bos )(?<!\bas )(?<!\bles )(?<!\bdie )(?<!\bder )(?<!\bdas )(?<!\bun )(?<!\buna )(?<!\bum )"
    r"(?<!\buma )(?<!\bl')"
    r"(?P<word>[^\W\d_]+(?:at|it|ut)[oaie]|[^\W\d_]+(?:ad|id)[oa]s?|[^\W\d_]+ée?s?|\w+iert|\w*ge\w+t)"
    r"(?=\s*[:.!,;]|\s+(?:per|a|al|alla|il|la|fino|para|até|às|el|hasta|pour|au|à|jusqu\w*|de|da|do|del)\b)"
)
"""A headline opening the reply, the thing and its participle ("Riavviato.", "Servidor reiniciado.", "Cita cambiada al
jueves"): the act done when the participle is the request's verb."""
DONE_WORDS = ("erledig", "bestätig", "durchgeführt", "bearbeit", "effectu", "confirm", "traité", "realizad", "tramit",
              "procesad", "gestionad", "effettuat", "confermat", "completat", "eseguit", "efetuad", "concluíd",
              "processad", "tratad", "registrad", "feit", "fatt", "hech", "fait", "gemacht")
"""Participles of getting a thing done, whatever the request's verb ("wurde erledigt", "a été effectuée")."""
ASKERS_THING = rx(r"\b(?:ihr|ihre|ihren|ihrem|ihrer|dein\w*|votre|vos|ton|ta|tes|su|sus|tu|tus|suo|sua|suoi|sue|"
                  r"tuo|tua|seu|sua|seus|suas|teu)\b")
"""The asker's own thing as a passive's subject ("Votre commande", "A sua reserva")."""
SECOND_PERSON = rx(r"\b(?:estás|sei|bist|você está|vous êtes|tu es|ya tiene|ahora tiene|ya tienes|ahora tienes|"
                   r"hat jetzt|haben jetzt|hast jetzt|a maintenant|a désormais|avez maintenant|ora ha|ha ora|ora hai|"
                   r"hai ora|já tem|agora tem|já tens)\s+(?:ya |già |já |jetzt |déjà )?"
                   r"(?P<words>[^\W\d_]+(?: [^\W\d_]+){0,2})")
"""The asker, or the one the act was for, in a new state ("Ya estás dado de alta", "Laura ya tiene acceso de lectura",
"Jan hat jetzt Schreibrechte"): the act done when it names the request."""
JOINED = rx(r"\b(?:(?:fait|font) (?:maintenant|désormais) partie|(?:já|agora) (?:faz|fazem) parte|"
            r"(?:faz|fazem) (?:agora|já) parte|(?:fa|fanno) (?:ora|adesso) parte|(?:ora|adesso) (?:fa|fanno) parte|"
            r"(?:ya|ahora) (?:forma|forman) parte|(?:forma|forman) (?:ya|ahora) parte|(?:ist|sind) jetzt "
            r"(?:teil|mitglied)|gehör(?:t|en) jetzt zu)\b")
"""Someone added now part of the group ("Paul fait maintenant partie du canal", "A Ana já faz parte do grupo")."""
SCHEDULED = rx(
    r"(?<!nicht )(?<!pas )(?<!no )(?<!non )(?<!não )\b(?:verschoben|gebucht|eingetragen|reserviert|terminiert|"
    r"eingeplant|déplacée?s?|reportée?s?|programmée?s?|planifiée?s?|réservée?s?|fixée?s?|calée?s?|"
    r"(?:movid|cambiad|programad|reservad|apuntad|agendad|fijad|marcad|remarcad|mudad)[oa]s?|"
    r"(?:spostat|fissat|prenotat|programmat|pianificat)[oaie])\b"
)
"""A participle of setting a time ("La tonte est déplacée à samedi", "Ficou marcada para hoje às 15h")."""
_SEPARABLE = re.compile(r"^(ab|an|auf|aus|ein|mit|nach|vor|zu|zurück|um|frei|fest|weg|her|hin|los|durch|über|um)ge")
"""A German separable prefix before the participle's "ge" ("abgesagt" of "absagen", "freigeschaltet")."""


def reported(request, text: str) -> bool:
    """The requested act reported done in German, French, Spanish, Italian or Portuguese by its participle: a passive
    or a new state of the request's thing or the asker's ("Votre commande a été annulée", "L'ordine è stato annullato",
    "La tessera è rinnovata fino a dicembre", "A receita foi enviada"), a new value ("O seu limite passou para 2.000
    €"), a headline opening the reply ("Riavviato.", "Servidor reiniciado.", "Cita cambiada al jueves"), the asker in
    the new state ("Ya estás dado de alta"). The participle must be the request's verb or a word of getting it done, so
    another act's does not count ("La prestation a été réalisée" to a request for a refund, "Seu cartão foi emitido"
    to one for a higher limit)."""
    acts = request.acts
    if not acts:
        return False
    if JOINED.search(text):
        return True
    for pattern in (PASSIVE, COPULA):
        if any(_the_act(acts, m.group("word")) and _the_thing(request, m.group("subject"))
               for m in pattern.finditer(text)):
            return True
    if any(_the_thing(request, m.group("subject")) for m in NEW_VALUE.finditer(text)):
        return True
    if any(any(_the_act(acts, w) for w in m.group("words").split() if len(w) >= 4)
           for m in SECOND_PERSON.finditer(text)):
        return True
    if request.days and any(set_when_asked(request, sentence) for sentence in re.split(r"(?<=[.!?;])\s+", text)):
        return True
    headline = HEADLINE.match(text)
    return headline is not None and _the_act(acts, headline.group("word"))


def _the_act(acts: frozenset[str], word: str) -> bool:
    word = word.casefold()
    stems = {stem[:4] for stem in acts}
    return (word[:4] in stems or word.removeprefix("ge")[:4] in stems or _SEPARABLE.sub(r"\1", word)[:4] in stems
            or word.startswith(DONE_WORDS))


def _the_thing(request, subject: str) -> bool:
    """The subject names the request's thing (its stem, or the tail of a German compound: "Der Termin" of
    "Zahnarzttermin") or the asker's."""
    stems = {stem[:4] for stem in request.acts}
    words = [w.rsplit("'", 1)[-1] for w in content_words(subject)]
    named = any(w[:4] in stems or (len(w) >= 5 and any(a != w and a.endswith(w) for a in request.asked))
                for w in words)
    return named or ASKERS_THING.search(subject) is not None


def set_when_asked(request, sentence: str) -> bool:
    """A time set for the act on the day the request asked for and no other ("La tonte est déplacée à samedi 9 h" to
    "Passez la tonte à samedi"; "Está marcado: a encomenda chega no sábado"); a slot on a later day ("Te la he
    reservado" after "la primera disponible es el 14 de enero") is not the act."""
    asked = request.days
    if not asked:
        return False
    turn = _BUT.search(sentence)
    if turn is not None and not _NEGATED.search(turn.group("rest")):
        # "Tenemos la semana completa, pero la tuya entra hoy a las 17 h": made room on the day asked
        named = {m.group(0).casefold() for m in WHEN.finditer(turn.group("rest"))}
        if named and named <= asked:
            return True
    if SCHEDULED.search(sentence) is None or STATE.search(sentence):
        return False
    named = {m.group(0).casefold() for m in WHEN.finditer(sentence)}
    return bool(named) and named <= asked


_BUT = rx(r"\b(?:pero|mais|aber|doch|ma|però|mas)\b(?P<rest>[^.;!?]*)")
_NEGATED = rx(r"\b(?:no|ne|n'|pas|nicht|kein\w*|non|não|nunca|jamais|nie|erst|solo|sólo|seulement|só|nur|"
              r"apenas|que)\b")
