"""The parts a refusal is built from, and the text handling the refusal detector shares across languages.

A language is described by a `Lexicon`: decline *structures* (who declines, with which modal or negation, bound to
which kind of verb), the look-alikes that share those words without declining ("I can't guarantee", "je ne peux
pas garantir"), and the vocabularies that tell what the rest of a reply does (lectures and redirects, delivery of
an answer). The rules themselves live in refusal_en.py, refusal_intl.py, refusal_it.py and refusal_pt.py; the
decision in refusal.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from khaos_action.detect.refusal_factor import factored

# What a decline structure is, which decides how much it weighs and how it is reported.
SPEAKER = "speaker"      # the assistant says it will not / cannot do the act: "I can't share that"
VERB = "verb"            # a verb of declining: "I must decline", "je refuse"
IMPERSONAL = "impersonal"  # the act judged not fit to do: "it's not appropriate to provide instructions"
POLICY = "policy"        # a rule or scope forbids it: "against my guidelines", "outside my scope", "only ... about"
APOLOGY = "apology"      # an apology bound to a negation: "Sorry, that's not possible"
TERSE = "terse"          # a reply that is only "No." / "Nope" / "Afraid not"


@dataclass(frozen=True, slots=True)
class Rule:
    kind: str
    weight: float
    pattern: re.Pattern[str]
    triggers: tuple[str, ...] = ()
    """Lower-cased substrings one of which must be in the sentence for the pattern to run (cheap `in` tests)."""


@dataclass(frozen=True, slots=True)
class Lexicon:
    lang: str
    rules: tuple[Rule, ...]
    hedges: re.Pattern[str]
    """Look-alikes, blanked before rules run."""
    lecture: re.Pattern[str]
    """Normative, moral and redirecting vocabulary: a sentence holding it gives no answer."""
    deliver: re.Pattern[str]
    """Phrases that hand over what was asked ("here's how", "you can", "the answer is")."""
    contrast: re.Pattern[str]
    """Connectors after which a reply turns from declining to answering ("but", "however")."""
    opening_comply: re.Pattern[str]
    """Openings of a reply that agrees to do the task ("Sure", "Bien sûr")."""
    stopwords: frozenset[str]
    disclaimer: re.Pattern[str] | None = None
    """What a decline's act is about when the assistant only disclaims its own opinions, knowledge or competence
    ("I cannot provide a personal opinion", "I don't have access to current data"): a caveat once the reply goes on
    to inform, a refusal when nothing but a lecture or a redirect follows."""
    redirect: re.Pattern[str] | None = None
    """Sending the asker to someone else (a professional, a hotline, someone they trust)."""
    support: re.Pattern[str] | None = None
    """Sentences that comfort or acknowledge the asker, or apologise for the inconvenience, rather than inform."""
    handoff: re.Pattern[str] | None = None
    """What the one the asker is sent to does for them, when it is a service's task on the asker's own things
    ("to reset your password"): a redirect that says so is a hand-off, the answer to a question of where to turn."""
    hedge_hints: tuple[str, ...] = ()
    """Lower-cased substrings one of which a sentence must hold for `hedges` to be tried (empty: always tried)."""


def rule(kind: str, weight: float, pattern: str, *triggers: str) -> Rule:
    """A rule of a language's table: its kind, weight, pattern and the trigger words a sentence must hold."""
    return Rule(kind, weight, rx(pattern), tuple(triggers))


def rx(pattern: str) -> re.Pattern[str]:
    # factored: the same matches, found without entering every branch of a vocabulary at every position
    return re.compile(factored(pattern, re.IGNORECASE), re.IGNORECASE)


def alt(*words: str) -> str:
    """A non-capturing alternation of regex fragments."""
    return "(?:" + "|".join(words) + ")"


# Double and typographic quotes, code; single quotes only where they open before a letter after a space and close
# before a space or a mark, so the apostrophes of "can't ... it's" never pair up.
_QUOTED = re.compile(r"\"[^\"\n]{12,}?\"|“[^”\n]{12,}?”|«[^»\n]{12,}?»|„[^“”\n]{12,}?[“”]|```.*?(?:```|$)|"
                     r"(?<![\w'])'(?=[A-Za-z])(?:[^'\n]|'(?=\w)){11,}?'(?![\w'])", re.DOTALL)
_OPENING_MARKS = ('"', "“", "«", "„", "```")
"""The opening marks of _QUOTED's double-quoted, guillemet, low-quoted and fenced passages."""
_MONTH = (r"(?:Januar|Jänner|Februar|März|April|Mai|Juni|Juli|August|September|Oktober|November|Dezember|Jan|Feb|Mär|"
          r"Apr|Jun|Jul|Aug|Sep|Sept|Okt|Nov|Dez)\b")
_SENTENCE_END = re.compile(r"(?<=[.!?…])(?!(?<=\b\d\.)\s+" + _MONTH + r"|(?<=\b\d\d\.)\s+" + _MONTH + r")"
                           r"[\"'”»)\]]*\s+|\n\s*\n|\n(?=\s*(?:[-*•]|\d{1,2}[.)])\s)|(?<=:)\s*\n")
"""A sentence ends at a mark and a space, never after a German day before its month ("endete am 3. Mai")."""


def normalise(text: str) -> str:
    return (text or "").replace("\u2019", "'").replace("\u2018", "'").replace("\u00a0", " ").strip()


_OPENING_SINGLE = re.compile(r"'(?<![\w']')")
"""A single quote after no letter and no quote, the only place _QUOTED's single-quoted passage opens: found by its
literal first character, which the engine seeks fast, where _QUOTED is tried branch by branch at every position."""


def mask_quotes(text: str) -> str:
    """Blank quoted passages and code (same length): a refusal quoted inside an answer ("reply with: 'Sorry, I
    can't make it'") is not the assistant declining."""
    if not any(mark in text for mark in _OPENING_MARKS) and _OPENING_SINGLE.search(text) is None:
        return text  # every passage _QUOTED blanks opens on one of these: most replies hold none
    return _QUOTED.sub(lambda m: " " * len(m.group(0)), text)


def sentences(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence, list item or paragraph of `text`, blank ones left out."""
    spans, start = [], 0
    for match in _SENTENCE_END.finditer(text):
        spans.append((start, match.start()))
        start = match.end()
    spans.append((start, len(text)))
    return [(s, e) for s, e in spans if text[s:e].strip()]


def blank(pattern: re.Pattern[str], text: str) -> str:
    return pattern.sub(lambda m: " " * len(m.group(0)), text)
