"""Two declines without a decline word, read in any of the six languages when the request is known
(refusal_decline.py asks after its other readings of the act):

- **a first free slot on another day, to a question of availability** ("Avete posto stasera per due?" - "Oggi siamo al
  completo, il primo posto libero è giovedì"; "Haben Sie heute Abend noch einen Tisch?" - "Heute sind wir ausgebucht,
  der erste freie Tisch ist am Donnerstag"): the question names its day, the reply names the first free one, and it
  is another. A slot on the day asked ("Stasera alle 20 siamo pieni, ma alle 21:30 c'è un tavolo") or a reply that
  opens on a yes or a no answers it ("No, Monday is fully booked. Her next free slot is Tuesday" to "Is Dr Lee free
  on Monday?" tells the fact asked). A request for an act is read by refusal_intl_unperformed.later_slot instead.
- **the asker's case said not to meet the condition** ("Ohne Quittung erstatten wir nur Kunden mit Kundenkarte, was
  bei Ihnen nicht der Fall ist" to "Ist die Rückerstattung ohne Quittung möglich?", "..., o que não é o seu caso"):
  the condition stated and the asker placed outside it, whatever the request's form, unless the reply then does the
  act anyway.
"""

from __future__ import annotations

import re

from khaos_action.detect.refusal_days import days_named
from khaos_action.detect.refusal_done import done
from khaos_action.detect.refusal_grammar import rx
from khaos_action.detect.refusal_intl_unperformed import DATE, FIRST_FREE
from khaos_action.detect.refusal_reply import Reply

FREE_LATER = rx(
    r"\b(?:first|next|earliest) (?:free|available|open)\b|\b(?:first|next|earliest) (?:opening|availability)\b|"
    r"\b(?:first|next|earliest) (?:\w+ )?(?:with (?:space|room|"
    r"seats|availability)|we (?:have|can offer))\b|"
    r"\b(?:früheste|erste|nächste)[nrs]? (?:freie[nr]?|verfügbare[nr]?|mögliche[nr]?) [\w-]+|"
    r"\b(?:premier|première|prochaine?) (?:\w+ )?(?:libre|disponible)s?\b|"
    r"\b(?:primer|primera|próxim[oa]) (?:\w+ )?(?:libre|disponible|con (?:plazas|sitio|hueco))\b|"
    r"\b(?:prim[oa]|prossim[oa]) (?:\w+ )?(?:liber[oa]|disponibile|con posti)\b|"
    r"\b(?:primeir[oa]|próxim[oa]) (?:\w+ )?(?:livre|disponível|com (?:lugares|vagas))\b|"
    r"\b(?:premier|première|prochaine?) (?:\w+ )?avec des places\b|\b(?:erste|nächste)[nrs]? (?:\w+ )?mit freien\b"
)
"""The first free slot named, beside refusal_intl_unperformed.FIRST_FREE's ("the first free table is", "der erste
freie Tisch", "la première place libre", "il primo posto libero")."""
_FREE_WORDS = ("first", "next", "earliest", "früh", "erst", "nächst", "premi", "proch", "prim", "próxim", "prossim")
_YES_OR_NO = rx(r"^\W*(?:yes|yeah|yep|sure|of course|no|nope|ja|gerne|nein|oui|bien sûr|non|sí|claro|sì|certo|sim|"
                r"não)\b")
"""A reply that opens on a yes or a no has answered the question of fact ("Is Dr Lee free on Monday?" - "No, Monday is
fully booked. Her next free slot is Tuesday"); the slot after it is an offer beside the answer."""
_TURN = rx(r"\b(?:but|however|aber|doch|mais|pero|ma|però|mas)\b")


def free_elsewhere(reply: Reply, text: str) -> re.Match[str] | None:
    """The first free slot named in `text` on a day the question did not ask for, in a reply that offers nothing on
    the day asked."""
    asked = reply.request.question_days
    if not asked or not any(word in text.casefold() for word in _FREE_WORDS):
        return None
    found = FREE_LATER.search(text) or FIRST_FREE.search(text)
    if found is None or _YES_OR_NO.match(reply.masked):
        return None
    rest = text[found.end():]
    if not (days_named(rest) - asked or DATE.search(rest)):
        return None
    for turn in _TURN.finditer(reply.masked):  # "..., ma alle 21:30 c'è un tavolo": the day asked has room after all
        clause = re.split(r"[.;!?]", reply.masked[turn.end():], maxsplit=1)[0]
        if not days_named(clause) - asked:
            return None
    return found


CASE_FAILS = rx(
    r"\b(?:o que|que) (?:ainda )?não (?:é o (?:seu|teu) caso|se aplica a (?:si|você|ti))\b|"
    r"\blo (?:que|cual) (?:todavía |aún )?no es (?:su|tu) caso\b|"
    r"\bce qui n'est (?:pas|toujours pas) (?:encore )?(?:votre|ton) cas\b|"
    r"\b(?:il )?che non è (?:ancora )?il (?:suo|tuo) caso\b|"
    r"\bwas (?:bei|für) (?:ihnen|dich|dir|sie) (?:\w+ ){0,3}?nicht (?:der fall ist|zutrifft|gilt)\b|"
    r"\bwhich (?:isn't|is not) (?:the case for you|your case)\b|\bwhich (?:doesn't|does not) apply to you\b"
)
"""The asker's case said not to meet the condition just stated."""
_EXCEPTION = rx(r"\b(?:exception|eccezione|excepción|exceção|ausnahme)\b")
"""An exception made for the asker after all ("..., ma ho fatto un'eccezione")."""
_CASE_WORDS = ("caso", "cas", "Fall", "zutrifft", "gilt", "case", "apply", "aplica")
"""A word CASE_FAILS needs, as written (the German noun is capitalised): a sentence with none is not searched."""


def case_fails(reply: Reply, text: str, end: int) -> re.Match[str] | None:
    """CASE_FAILS in `text` (a sentence ending at `end`), when the reply does not report the act done after it ("...,
    which isn't your case. I've made an exception and refunded it")."""
    if not reply.request.asked or not any(word in text for word in _CASE_WORDS):
        return None
    found = CASE_FAILS.search(text)
    if found is None:
        return None
    rest = text[found.end():] + reply.masked[end:]
    if _EXCEPTION.search(rest) or (reply.masked[end:].strip() and done(reply.masked[end:].strip(), reply.request)):
        return None
    return found
