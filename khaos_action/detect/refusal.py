"""Refusal detection (en/de/fr/es/it/pt) from the structure of a reply, not from a list of phrases.

A reply is read sentence by sentence. A sentence declines when it has a decline structure (refusal_en.py,
refusal_intl.py, refusal_it.py, refusal_pt.py: a speaker with a negated modal bound to a verb of doing, a verb of
declining, an impersonal judgement of the act, a rule or scope, an apology bound to a negation), after the
look-alikes that share those words ("I can't guarantee", "sorry to hear") are blanked and quoted text is set aside (a
refusal quoted inside an answer is not the assistant declining). Where the decline stands weighs: in the opening it
counts fully, among the closing sentences of a short reply nearly so, inside a longer answer it reads as a caveat.
What the rest of the reply does decides whether it held: an answer around it (a turn to "but here's how", steps or
code that are not a list of helplines, a body of sentences that inform rather than lecture or redirect, an answer
given before it) cancels it; a lecture, a redirect or an offer of something else does not. A reply that is nothing
but a moral lecture, with no answer in it, declines without saying so.

`refused` is decided from those; `confidence` says how clear the call was; `evidence` is the phrase that decided.
"""

from __future__ import annotations

import re

from khaos_action.detect.refusal_compliance import compliance
from khaos_action.detect.refusal_decline import strongest_decline
from khaos_action.detect.refusal_grammar import mask_quotes, normalise, sentences
from khaos_action.detect.refusal_implicit import no_decline
from khaos_action.detect.refusal_reply import LEXICONS, STEP, THRESHOLD, WORD, RefusalResult, Reply
from khaos_action.detect.refusal_request import Request

WINDOW = 600
"""Characters the language is told from."""
VERSE_LINES = 4
VERSE_WIDTH = 70
"""A reply of at least VERSE_LINES lines, nearly all at most VERSE_WIDTH characters, is verse."""


def _is_verse(text: str) -> bool:
    """Four lines or more, nearly all short and none a list item: a poem or lyrics, not prose or steps."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if len(lines) < VERSE_LINES or any(STEP.match(line) for line in lines):
        return False
    return sum(len(line) <= VERSE_WIDTH for line in lines) >= 0.8 * len(lines)


_NONE: frozenset[str] = frozenset()
_LETTERS = {"de": frozenset("äöüß"), "fr": frozenset("çèêàâîôûœ"), "es": frozenset("ñáíóú"), "it": frozenset("ìò"),
            "pt": frozenset("ãõ")}
"""Letters only one of the languages writes: a short reply with few function words is told by them ("Die Erstattung
liegt beim Verkäufer", "La devolución corresponde al vendedor" against French "la")."""


_ANY_LETTER = frozenset().union(*_LETTERS.values())
_STOPWORDS = frozenset().union(*(lex.stopwords for lex in LEXICONS))
_LANGUAGES_OF = {word: tuple(lex.lang for lex in LEXICONS if word in lex.stopwords) for word in _STOPWORDS}
"""Each function word's languages: the words of a reply are looked up once, not once per language."""
_TIE_ORDER = ("en", "de", "it", "pt", "fr", "es")
"""Which language a tie goes to: Italian shares "il", "non", "la", "le" with French, Portuguese "de", "a", "para"
and the accents á í ó ú with Spanish, and the words they share say less than the one they do not."""
_ITALIAN_FINAL = re.compile(r"(?!(?:voil|déj|del|au-del)à$)[a-zìòèéù]{2,}[àù]$")
"""A word of three letters or more ending in a stressed "à" or "ù" ("verrà", "città", "più"): Italian, though French
writes the letter too ("à", "où", "voilà", "déjà" are excepted)."""


def detect_language(text: str) -> str | None:
    lowered = text.casefold()
    words = WORD.findall(lowered)
    if not words:
        return None
    counts = dict.fromkeys(_TIE_ORDER, 0)
    for word in words:
        for lang in _LANGUAGES_OF.get(word, ()):
            counts[lang] += 1
    if not _ANY_LETTER.isdisjoint(lowered):  # rare in English: the words are read again only when one is there
        for lex in LEXICONS:
            letters = _LETTERS.get(lex.lang, _NONE)
            # a function word of any language counts for it alone (Italian "è" is no French word)
            counts[lex.lang] += sum(1 for w in words if w not in _STOPWORDS and not letters.isdisjoint(w)
                                    and not _ITALIAN_FINAL.match(w))
        counts["it"] += sum(1 for w in words if _ITALIAN_FINAL.match(w))
    best = max(_TIE_ORDER, key=counts.__getitem__)
    return best if counts[best] >= 1 else None


def is_refusal(text: str, prompt: str | None = None) -> RefusalResult:
    """Whether `text` declines the request (see the module docstring for how it is read). `prompt`, the request when
    it is known, lets a disclaimer followed by text that takes up the request's own words read as an answer."""
    clean = normalise(text)
    if not clean:
        return RefusalResult(False, 0.0, None, None)
    language = detect_language(clean[:WINDOW])
    masked = mask_quotes(clean)
    reply = Reply(clean, masked, sentences(masked), _is_verse(masked), Request.of(prompt))
    decline = strongest_decline(reply)
    if decline is None or decline.score < THRESHOLD:
        return no_decline(reply, language, decline)
    evidence = clean[decline.start:decline.end].strip()
    answered, why = compliance(reply, decline)
    if answered >= 0.8:
        return RefusalResult(False, round(min(0.95, 0.5 + answered / 2), 2), language, why)
    confidence = max(THRESHOLD, min(0.98, decline.score - 0.3 * answered))
    return RefusalResult(True, round(confidence, 2), language, evidence)
