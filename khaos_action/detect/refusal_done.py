"""Whether a reply reports the requested act done or set going (refusal_reassured.py reads what follows it): a
participle opening the reply ("Cancelled.", "Changed to 14 Park Lane", "Done, and ..."), the headline form ("Note
added."), the assistant's "I've" with a participle of a service act, a thing of the request in its new state ("Your
return is processed", "Roaming is on"), a setting with its new value ("Set to 21°C."), the act under way ("Opening it
now.", "The export is running"), and the same reports in German, French, Spanish, Italian and Portuguese ("C'est
fait.", "ich habe für 19:30 reserviert", "Te he dado de alta", "Marquei para segunda", "Die Bestellung ist
storniert")."""

from __future__ import annotations

import re

from khaos_action.detect import refusal_intl_done

DONE_WORDS = frozenset((
    "done", "changed", "updated", "booked", "moved", "cancelled", "canceled", "added", "processed", "scheduled",
    "confirmed", "arranged", "sorted", "signed", "noted", "sent", "transferred", "activated", "enabled", "deleted",
    "removed", "renewed", "extended", "reset", "unlocked", "unblocked", "refunded", "paused", "resumed", "reserved",
    "rebooked", "switched", "upgraded", "submitted", "issued", "ordered", "registered", "enrolled", "subscribed",
    "unsubscribed", "corrected", "replaced", "raised", "lowered", "waived", "credited", "resent", "emailed", "e-mailed",
    "mailed", "texted", "forwarded", "uploaded", "printed",
))
"""Participles that report a service act done whatever the request's verb ("Booked for Monday" to "Can you fit me
in on Monday?"); not "fixed" or "set", which also say a thing cannot change ("The refund limit is fixed")."""
STATES = frozenset(("on", "off", "live", "active"))
"""A thing switched as asked ("Roaming is on", "Auto-renew is off"); "on hold" is no such state."""
_OPENING = re.compile(r"^\W*(?:all\s+)?(?P<word>[a-z]+)(?=\s*[.,:;!\u2013\u2014-]|\s+(?:to|for|on|at|from|in|and|with|"
                      r"now)\b)", re.IGNORECASE)
"""The reply's first word as a report ("Cancelled.", "Changed to 14 Park Lane", "Done, and ..."), not an adjective
before its noun ("Deleted accounts are wiped after 30 days")."""
_NOUN_DONE = re.compile(r"^\W*(?:(?:your|the)\s+)?[a-z-]+(?:\s+(?:[a-z-]+|#?\d[\w-]*))?\s+"
                        r"(?P<word>[a-z]+ed|sent|done)(?=\s*[.,:;!\u2013\u2014-]|"
                        r"\s+(?:to|for|on|at|from|in|and|with|now)\b)", re.IGNORECASE)
"""A thing of the request and its participle opening the reply ("Note added.", "Address updated to ...", "Payment
sent."), the headline form of a report."""
REPORTED = re.compile(r"\b(?:I|we)(?:'ve| have)(?: just| now| already| also)? (?P<word>[a-z]+)\b", re.IGNORECASE)
REPORTED_INTL = (
    re.compile(r"\b(?:je|j'|nous)\s*(?:(?:vous|te|lui|leur|les|la|le)\s+|l')*(?:ai|avons)\s+(?:bien\s+|déjà\s+)?"
               r"(?P<word>[^\W\d_]+)", re.IGNORECASE),
    re.compile(r"\b(?:ich|wir) (?:habe|haben)\b[^.!?,;]{0,50}?\s(?P<word>[^\W\d_]+)(?=\s*(?:[.!?,;]|$|und\b))",
               re.IGNORECASE),
    re.compile(r"\b(?:he|hemos)\s+(?P<word>[^\W\d_]+(?:ado|ido|to|cho))\b", re.IGNORECASE),
    re.compile(r"\b(?:ho|abbiamo)\s+(?P<word>[^\W\d_]+(?:at[oaie]|it[oaie]|ut[oaie]|ss[oa]|st[oa]))\b", re.IGNORECASE),
    re.compile(r"(?:^\W*|\bjá\s+)(?:lhe\s+|o\s+|a\s+)?(?P<word>[^\W\d_]{3,}ei)\b", re.IGNORECASE))
"""The assistant's own act reported done in German, French, Spanish, Italian or Portuguese ("Je vous l'ai envoyée",
"ich habe für 19:30 reserviert", "Te he dado de alta", "Te l'ho inviata", "Marquei para segunda")."""
_STATE_INTL = re.compile(
    r"^\W*(?:[^\W\d_]+\s+){1,3}(?:ist|sind|wurde|wurden|est|sont|a été|ont été|está|están|ha sido|han sido|fue|"
    r"è stat[oa]|sono stat[ie]|foi|foram)\s+(?:jetzt\s+|nun\s+|bien\s+|ya\s+|già\s+|já\s+)?(?P<word>[^\W\d_]+)\b"
    r"(?![ \t]+(?:von|par|por|da|dal|dalla|pelo|pela|nach|après|después|dopo|após|wenn|si|se|only|nur|seulement|"
    r"solo|sólo|apenas)\b)",
    re.IGNORECASE)
"""A thing of the request in its new state, opening the reply ("Die Bestellung ist storniert", "Votre adresse a été
modifiée", "A sua morada foi alterada"); bound to an agent or a condition it is a rule ("wird von ... entschieden")."""
DONE_STEMS_INTL = ("envoy", "annul", "réser", "modif", "chang", "dépla", "gesen", "gesch", "storn", "reser", "gebuc",
                   "geänd", "versc", "envia", "cance", "cambi", "dado", "invia", "prenot", "spedi", "marc", "alter",
                   "agend", "fatto", "hecho", "fait")
"""Participles of a service act done in those languages, by their first letters."""
_STATE = re.compile(
    r"(?:^\W*[\w-]+|\b(?:it|they|he|she|you|that|this|(?:the|a|an|your|my|our|his|her|their) [\w-]+(?: [\w-]+)?))"
    r"(?:'s|'re| is| are|"
    r" has been| have been) (?:now |all |already )?(?P<state>[a-z]+)\b"
    r"(?! (?:by|after|before|only|once|per|within|until|unless|if|hold|to be)\b)", re.IGNORECASE)
"""A thing of the asker's in its new state ("Your return is processed", "Roaming is on" opening the reply); a subject
with no determiner further on states a practice ("Remote adjustments are done after a hearing check"), and a state
bound to an agent or a condition ("is set by the building's policy") is a rule."""
_DONE_OPENING = re.compile(r"^\W*(?:c'est fait|c'est noté|voilà|erledigt|gemacht|listo|hecho|ya está|fatto|"
                           r"pronto|feito)(?=\s*[.,:;!\u2013\u2014-])", re.IGNORECASE)
"""The act reported done, opening a reply in German, French, Spanish, Italian or Portuguese ("C'est fait.",
"Erledigt,", "Listo,", "Fatto!", "Pronto.")."""
def shares_act(text: str, request) -> bool:
    return any(len(word) >= 4 and word[:4] in {act[:4] for act in request.acts} for word in _WORDS.findall(
        text.casefold()))


_WORDS = re.compile(r"[^\W\d_]+")


_SET_TO = re.compile(r"^\W*(?:all\s+)?set (?:to|for|at) [^.!?;]{0,20}?\d", re.IGNORECASE)
"""A setting reported with its new value ("Set to 21°C."): "set" alone also says a thing cannot change."""
_UNDER_WAY = re.compile(r"^\W*(?P<word>[a-z]{3,}ing)\b[^.!?;,]{0,30}?\bnow\b", re.IGNORECASE)
"""The requested act under way, opening the reply ("Opening it now.", "Sending the invoice now")."""


_RUNNING = re.compile(r"^\W*(?:the|your) (?P<thing>[\w-]+) (?:is|has) (?:now |already )?(?:running|under ?way|in "
                      r"progress|started|on its way)\b", re.IGNORECASE)
"""The requested act's own noun set going ("The export is running", "Your transfer is under way")."""


def done(text: str, request) -> bool:
    """Whether `text` reports the requested act done or set going."""
    return _set_going(text, request) or _done_intl(text, request) or _done_en(text, request)


def _set_going(text: str, request) -> bool:
    if _DONE_OPENING.match(text) or _SET_TO.match(text):
        return True
    running = _RUNNING.match(text)
    if running is not None and shares_act(running["thing"], request):
        return True
    under_way = _UNDER_WAY.match(text)
    return under_way is not None and names_act(under_way["word"], request)


def _done_intl(text: str, request) -> bool:
    if refusal_intl_done.reported(request, text):  # "Die Ausleihe läuft jetzt bis zum 12. Mai"
        return True
    state = _STATE_INTL.match(text)
    if state is not None and _intldone(state["word"], request):
        return True
    return any(_intldone(m.group("word"), request) for pattern in REPORTED_INTL for m in pattern.finditer(text))


def _done_en(text: str, request) -> bool:
    opening = _OPENING.match(text) or _NOUN_DONE.match(text)
    words = [opening.group("word")] if opening else []
    words += [m.group("word") for m in REPORTED.finditer(text)]
    states = [m.group("state") for m in _STATE.finditer(text)]
    if any(state.casefold() in STATES for state in states):
        return True
    return any(w.casefold() in DONE_WORDS or (w.casefold().endswith(("ed", "en")) and names_verb(w, request))
               for w in words + states)


def _intldone(word: str, request) -> bool:
    word = word.casefold()
    return word.startswith(DONE_STEMS_INTL) or (len(word) >= 5 and any(act[:4] == word[:4] for act in request.acts))


def names_verb(word: str, request) -> bool:
    stem = word.casefold()[:4]
    return len(stem) == 4 and any(verb[:4] == stem for verb in request.addressed)


def names_act(word: str, request) -> bool:
    stem = word.casefold()[:4]
    return len(stem) == 4 and any(act[:4] == stem for act in (*request.addressed, *request.acts))
