"""A request for an act agreed to, then a limit on how it is done: "Yes, but we can't do it in one visit: it needs two
sessions a few weeks apart. Shall I book both?" to "Can you whiten my teeth before the wedding?". The opening agrees
to the act; the decline after it is of a manner the request never asked for. It stays a decline when its verb is the
requested act ("Sure, but we can't whiten them"), when it names nothing ("Sure, but I can't."), or when what it
excludes is in the request's words ("Yes, but we can't do it before the wedding")."""

from __future__ import annotations

import re

from khaos_action.detect.refusal_reassured import negated_verb
from khaos_action.detect.refusal_reply import Decline, Reply
from khaos_action.detect.refusal_request import content_words

_AGREES = re.compile(
    r"^\W*(?:yes|yeah|yep|sure|of course|certainly|absolutely|happy to|no problem|can do|will do|"
    r"(?:I|we) (?:can|could)(?: do (?:that|it|this))?|(?:I|we)(?:'d| would) be (?:happy|glad) to|"
    r"oui|bien sûr|d'accord|avec plaisir|ja|gerne|klar|natürlich|sí|claro|por supuesto|con gusto|sì|certo|"
    r"volentieri|sim|com certeza)\s*[,.!;:\u2013\u2014-]"
    r"(?!\s*(?:I (?:understand|see|know|hear|get|appreciate)|je comprends|ich verstehe|entiendo|comprendo|capisco|"
    r"entendo)\b)(?!\s*(?:(?:but|though|however)\s+(?:not|no|never)|mais\s+pas|aber\s+nicht|(?:pero|ma|mas)\s+"
    r"(?:no|non|não)(?!\s+(?:pued|pod|poss|riesc|riusc|consig|conseg|es|è|é|hay|lo|la|le|se|vamos|voy)))\b)",
    re.IGNORECASE)
"""An opening that agrees to the act and ends its clause ("Yes, but ...", "We can - ..."); "Yes, I understand, but
..." opens a decline, and "Yes, but not before the wedding" takes the yes back."""
_CLAUSE_END = re.compile(r"[.!?;:\u2013\u2014]|\s-\s|,\s*(?:but|and|so|because)\b")


def agreed_first(reply: Reply, decline: Decline) -> tuple[float, str | None]:
    """(0.8, why) when the reply agrees to the requested act and then declines only a manner of doing it."""
    request = reply.request
    if not request.acts or decline.sentence > 1 or not _AGREES.match(reply.clean):
        return 0.0, None
    verb = negated_verb(reply.clean, decline)
    if verb is None or verb.casefold()[:4] in {act[:4] for act in request.acts}:
        return 0.0, None
    at = reply.clean.casefold().find(verb.casefold(), decline.start)
    if at < 0:
        return 0.0, None
    rest = reply.clean[at + len(verb):]
    end = _CLAUSE_END.search(rest)
    words = content_words(rest[:end.start()] if end else rest)
    if not words or any(word[:4] == other[:4] for word in words for other in request.asked):
        return 0.0, None
    return 0.8, "the act agreed to before a limit on how it is done"
