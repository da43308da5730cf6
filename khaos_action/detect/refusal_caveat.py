"""Declines that are caveats around an answer (refusal_compliance.py weighs them): two readings, both only when the
request is known.

- **the act done, then a limit on something else** ("Archive #proj-alpha." - "Archived #proj-alpha. Only admins can
  unarchive it."; "Silence the alarm." - "Hushed for 10 minutes. It can't be switched off for good from here."): the
  opening sentence reports the request's own verb done (its participle, or a verb of the same act: "hushed" for
  "silence", "reserved" for "book"), with no negation, condition or modal in it, and no later decline names that
  verb again, unless only its repetition ("They can't be renewed again"). A request that joins two acts ("Cancel my
  order and refund me") is left alone: the limit may be on the second one. "Switch off the alarm for good" - "Hushed
  for 10 minutes. It can't be switched off ..." stays a decline: the report is of another act than the one asked.
- **a hedge on certainty, then the information** ("Did anything unusual happen last night?" - "I can't say that for
  sure, but nothing in the logs looks unusual"; "Where is my parcel?" - "I can't give an exact time, but it's due
  today before 18:00"): the decline is the assistant's own saying or telling qualified by certainty or precision, and
  after "but" comes a statement (no redirect, no offer, no other decline) that takes up the question's words, a
  figure or a yes or no. "I can't say that, but it's in the IT vault" has no such qualifier: it withholds.
"""

from __future__ import annotations

import re
import unicodedata

from khaos_action.detect import refusal_caveat_words as words
from khaos_action.detect.refusal_reply import Decline, Reply
from khaos_action.detect.refusal_request import content_words

_KIN = (frozenset(("silence", "hush", "mute", "snooze", "quiet")), frozenset(("book", "reserve")),
        frozenset(("delete", "remove", "erase")))
"""Verbs that name the same service act: a report in one does the act asked in another."""
_IRREGULAR = {"sent": "send", "held": "hold", "kept": "keep", "paid": "pay", "made": "make", "frozen": "freeze",
              "given": "give", "taken": "take", "written": "write", "told": "tell", "sold": "sell", "bought": "buy",
              "shut": "shut", "set": "set", "put": "put", "done": "do", "run": "run", "moved": "move"}
_OPENING_WORDS = 5
"""The report stands among the opening sentence's first words ("Front door locked.", "Archived #proj-alpha")."""
_ADJECTIVE_BEFORE_NOUN = re.compile(
    r"^\W*[a-z]+\s+(?!(?:to|for|on|at|from|in|with|until|and|all|both|the|a|an|your|my|our|it|them|you)\b)[a-z]+s\s+"
    r"(?:are|aren't|were|can|can't|cannot|will|won't|get|have|need|must|don't)\b", re.IGNORECASE)
"""A participle before its noun opening a rule, not a report ("Deleted accounts are wiped after 30 days")."""
_WORD = re.compile(r"[^\W\d_][\w']*")
_BACK = frozenset("it they this that these those he she es sie er ils elles il elle lo la li los las os as".split())
"""A pronoun opening the limit's sentence points back to the thing the act was done on."""
_CLAUSE_MARK = re.compile(r"\s*[;\u2013\u2014]\s*|\s+-\s+")
"""A clause mark between the report and the limit in one sentence ("Archived; only admins can unarchive it")."""


def done_then_limit(reply: Reply, decline: Decline) -> tuple[float, str | None]:
    """(0.8, why) when the opening reports the requested act done and the decline, later, limits something else."""
    verbs = reply.request.verbs
    if not verbs or reply.request.joins:
        return 0.0, None
    stems = _stems(verbs)
    if verbs <= words.ASKING_MODALS:  # "Pouvez-vous prolonger mes livres ?": the verb is the request's infinitive
        stems |= {_fold(word)[:4] for word in reply.request.asked if words.INFINITIVE.fullmatch(word)}
    opening = reply.sentence(0)
    mark = None
    if decline.sentence == 0:  # "Front door unlocked; it re-locks automatically after 5 minutes": a clause apart
        mark = _CLAUSE_MARK.search(reply.masked, 0, decline.start)
        if mark is None:
            return 0.0, None
        opening = reply.masked[:mark.start()]
    if not _reports(opening, verbs, stems):
        return 0.0, None
    things = frozenset(_fold(w)[:4] for w in reply.request.asked) - stems
    if mark is not None and _uses_verb(reply.masked[mark.end():reply.spans[0][1]], stems, things):
        return 0.0, None
    for i in range(1, len(reply.spans)):
        if reply.declines.get(i) is not None and _uses_verb(reply.sentence(i), stems, things):
            return 0.0, None  # "Booked. Only members can book rooms": the act itself limited
    return 0.8, "the act done, then a limit on something else"


def _reports(opening: str, verbs: frozenset[str], stems: frozenset[str]) -> bool:
    """The opening reports the act done: a word of getting it done, or a participle of the request's verb among its
    first words, with no negation, condition, modal or question, and no participle before its noun."""
    if not (words.DONE_OPENING.match(opening) or any(
            _names(word, stems) for word in (w.casefold() for w in _WORD.findall(opening)[:_OPENING_WORDS])
            if word in _IRREGULAR or (words.PARTICIPLE.fullmatch(word) and word not in verbs))):
        return False
    return not (words.UNSURE.search(opening) or _ADJECTIVE_BEFORE_NOUN.match(opening))


def _uses_verb(sentence: str, stems: frozenset[str], things: frozenset[str]) -> bool:
    """`sentence` limits the request's verb by a negation or a restriction, on the request's own thing (a word of the
    request's other than its verb, or a pronoun opening the sentence), for no other cases than the one done
    (words.OTHER_CASES: "They can't be renewed again", "Claims over £500 can't be approved"). "Votre carte est
    bloquée. Les prélèvements déjà programmés ne seront pas bloqués" limits the act on another thing."""
    if words.OTHER_CASES.search(sentence):
        return False
    found = [w.casefold() for w in _WORD.findall(sentence)]
    if not any(_names(word, stems) and not words.LIMITING.isdisjoint(found[max(0, j - 3):j])
               for j, word in enumerate(found)):
        return False
    return bool(found) and (found[0] in _BACK or any(_fold(word)[:4] in things for word in found))


def _fold(word: str) -> str:
    """Lower-cased with its accents dropped ("envía" and "enviada" share "envi") and a Spanish stem's diphthong
    closed ("renueva" and "renovados" share "reno", "cierra" and "cerrado" "cerr")."""
    bare = "".join(c for c in unicodedata.normalize("NFKD", word.casefold()) if not unicodedata.combining(c))
    return bare.replace("ue", "o").replace("ie", "e")


def _stems(verbs: frozenset[str]) -> frozenset[str]:
    stems = set()
    for verb in verbs:
        stems.add(_fold(verb)[:4])
        for kin in _KIN:
            if verb in kin:
                stems |= {v[:4] for v in kin}
    return frozenset(stems)


def _names(word: str, stems: frozenset[str]) -> bool:
    """The word is a form of one of the verbs ("added" of "add", "renewed" of "renew", "sent" of "send")."""
    word = _fold(_IRREGULAR.get(word, word))
    return any(word.startswith(stem) for stem in stems)


_HEDGE_WORDS = 14
"""A hedge is a clause: longer, the decline says more than how sure the assistant is."""
_DIGIT = re.compile(r"\d")


def hedged_answer(reply: Reply, decline: Decline) -> tuple[float, str | None]:
    """(0.8, why) when the decline only hedges the certainty of what follows, and what follows informs."""
    if not reply.request.asked:
        return 0.0, None
    start, end = reply.spans[decline.sentence]
    turn = words.BUT.search(reply.masked, decline.end, end)
    if turn is None:
        return 0.0, None
    clause = reply.masked[start:turn.start()]  # "Mit Sicherheit kann ich das nicht sagen": the qualifier may lead
    if len(clause.split()) > _HEDGE_WORDS or not (words.TELLING.search(clause) and words.CERTAINTY.search(clause)):
        return 0.0, None
    rest = reply.masked[turn.end():end].strip()
    if len(rest.split()) < 3 or words.DIRECTS.search(rest):
        return 0.0, None
    if (words.YES_NO.match(rest) or _DIGIT.search(rest)
            or any(_shared(word, reply.request.asked) for word in content_words(rest))):
        return 0.8, "a hedge on certainty, then the information"
    return 0.0, None


def _shared(word: str, asked: frozenset[str]) -> bool:
    return any(word[:5] == other[:5] for other in asked if len(other) >= 4)
