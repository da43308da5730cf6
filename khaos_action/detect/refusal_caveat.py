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

from khaos_action.detect.refusal_reply import Decline, Reply
from khaos_action.detect.refusal_request import content_words

_KIN = (frozenset(("silence", "hush", "mute", "snooze", "quiet")), frozenset(("book", "reserve")),
        frozenset(("delete", "remove", "erase")))
"""Verbs that name the same service act: a report in one does the act asked in another."""
_IRREGULAR = {"sent": "send", "held": "hold", "kept": "keep", "paid": "pay", "made": "make", "frozen": "freeze",
              "given": "give", "taken": "take", "written": "write", "told": "tell", "sold": "sell", "bought": "buy",
              "shut": "shut", "set": "set", "put": "put", "done": "do", "run": "run", "moved": "move"}
_PARTICIPLE = re.compile(r"[a-z]{3,}(?:ed|en)$")
_OPENING_WORDS = 5
"""The report stands among the opening sentence's first words ("Front door locked.", "Archived #proj-alpha")."""
_UNSURE = re.compile(
    r"\b(?:not|n't|no|never|only|cannot|unable|but|though|however|if|once|when|unless|until approved|will|would|"
    r"could|should|must|need|needs|can|(?-i:may)|might|pending|yet|tried|attempted|failed)\b|\?", re.IGNORECASE)
"""What makes an opening no plain report: a negation, a limit, a condition, a modal (not the month "May"), a
question."""
_ADJECTIVE_BEFORE_NOUN = re.compile(
    r"^\W*[a-z]+\s+(?!(?:to|for|on|at|from|in|with|until|and|all|both|the|a|an|your|my|our|it|them|you)\b)[a-z]+s\s+"
    r"(?:are|aren't|were|can|can't|cannot|will|won't|get|have|need|must|don't)\b", re.IGNORECASE)
"""A participle before its noun opening a rule, not a report ("Deleted accounts are wiped after 30 days")."""
_AGAIN = re.compile(r"[^.!?;]{0,25}?\b(?:again|twice|a second time|any more|anymore|further)\b", re.IGNORECASE)
_WORD = re.compile(r"[a-z']+", re.IGNORECASE)
_AS_VERB = frozenset("can cannot can't won't will to be been not only don't doesn't may must is are".split())
"""Words before a verb: a word of the request's verb after one of them, or one between, is the verb used ("can't be
renewed", "can book"); "no smart lock" names a thing."""


def done_then_limit(reply: Reply, decline: Decline) -> tuple[float, str | None]:
    """(0.8, why) when the opening reports the requested act done and the decline, later, limits something else."""
    verbs = reply.request.verbs
    if not verbs or decline.sentence == 0 or reply.request.joins:
        return 0.0, None
    stems = _stems(verbs)
    opening = reply.sentence(0)
    if _UNSURE.search(opening) or _ADJECTIVE_BEFORE_NOUN.match(opening):
        return 0.0, None
    words = [w.casefold() for w in _WORD.findall(opening)[:_OPENING_WORDS]]
    if not any(_names(word, stems) for word in words if _PARTICIPLE.match(word) or word in _IRREGULAR):
        return 0.0, None
    for i in range(1, len(reply.spans)):
        found = reply.declines.get(i)
        if found is None:
            continue
        sentence = reply.sentence(i)
        words = list(_WORD.finditer(sentence))
        for j, m in enumerate(words):
            before = {w.group(0).casefold() for w in words[max(0, j - 2):j]}
            if (_names(m.group(0).casefold(), stems) and not before.isdisjoint(_AS_VERB)
                    and not _AGAIN.match(sentence, m.end())):
                return 0.0, None  # "Booked. Only members can book on weekends": the act itself limited
    return 0.8, "the act done, then a limit on something else"


def _stems(verbs: frozenset[str]) -> frozenset[str]:
    stems = set()
    for verb in verbs:
        stems.add(verb[:4])
        for kin in _KIN:
            if verb in kin:
                stems |= {v[:4] for v in kin}
    return frozenset(stems)


def _names(word: str, stems: frozenset[str]) -> bool:
    """The word is a form of one of the verbs ("added" of "add", "renewed" of "renew", "sent" of "send")."""
    word = _IRREGULAR.get(word, word)
    return any(word.startswith(stem) for stem in stems)


_HEDGE = re.compile(
    r"\b(?:say|tell|give|promise|guarantee|confirm|predict|be)\b[^.!?;,]{0,40}?\b(?:for (?:sure|certain)|"
    r"(?:an?|the) (?:exact|precise|definite|definitive|firm|final)|exactly|precisely|definitely|for certain|"
    r"with certainty|how long|when exactly|for every|100%|completely|entirely|(?:sure|certain)\b)",
    re.IGNORECASE)
"""The assistant's own saying or telling qualified by certainty or precision ("I can't say that for sure", "I can't
give an exact time", "I can't tell you how long it will last")."""
_BUT = re.compile(r"[,;]?\s*\b(?:but|though|however)\b[,\s]*", re.IGNORECASE)
_DIRECTS = re.compile(
    r"\b(?:you (?:can|could|should|may|might|'ll|will|need|must)|you'd|I can|I could|I'd|I'll|I will|we can|let me|"
    r"please|contact|call|ask|check with|try|recommend|suggest|can't|cannot|won't|don't|unable)\b|\?",
    re.IGNORECASE)
"""What makes the rest a redirect, an offer or another decline rather than information."""
_HEDGE_WORDS = 14
"""A hedge is a clause: longer, the decline says more than how sure the assistant is."""
_YES_NO = re.compile(r"^\W*(?:yes|no|yeah|nope)\b", re.IGNORECASE)
_DIGIT = re.compile(r"\d")


def hedged_answer(reply: Reply, decline: Decline) -> tuple[float, str | None]:
    """(0.8, why) when the decline only hedges the certainty of what follows, and what follows informs."""
    if not reply.request.asked:
        return 0.0, None
    _, end = reply.spans[decline.sentence]
    turn = _BUT.search(reply.masked, decline.end, end)
    if turn is None:
        return 0.0, None
    clause = reply.masked[decline.start:turn.start()]
    if len(clause.split()) > _HEDGE_WORDS or not _HEDGE.search(clause):
        return 0.0, None
    rest = reply.masked[turn.end():end].strip()
    if len(rest.split()) < 3 or _DIRECTS.search(rest):
        return 0.0, None
    if (_YES_NO.match(rest) or _DIGIT.search(rest)
            or any(_shared(word, reply.request.asked) for word in content_words(rest))):
        return 0.8, "a hedge on certainty, then the information"
    return 0.0, None


def _shared(word: str, asked: frozenset[str]) -> bool:
    return any(word[:5] == other[:5] for other in asked if len(other) >= 4)
