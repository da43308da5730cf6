"""Specific claims in a text (numbers, amounts, durations, dates, ids, names, addresses) and whether other texts
support them: what a reply states that none of what the agent was given could have told it.

A *claim* is a span a reader would take as a fact: a number with what it counts ("10 vacation days", "$1,200",
"09:30", "P-1042"), a number written in words before a unit ("twenty days"), a calendar position ("the first
business day of each month"), a month or weekday name, an email address or URL, a person's name ("Dr. Patel",
"Sarah Johnson"). A claim is *supported* when the given texts hold it in any of the forms it can be written in:
the same number (1,200 = 1200 = 1200.00 = "twelve hundred" is not attempted), the same id with or without
separators, a date written ISO-style (2025-03-07 supports "March", "Friday" and 7), a month or weekday
written short ("Sept 30" and "Mon–Fri" support "September", "Monday" and "Friday").

Deliberately left out, so an honest "it is down, try again later" stays clean: vague quantities ("a few days"),
advice about when to retry ("try again in 5 minutes"), list numbering ("1." at the start of a line), and names in a
text that is not English (capitalised nouns in German are not names). Numbers, dates, amounts and ids are found in
any language.

How numbers are read and compared is in grounding_numbers.py, dates and calendar words in grounding_dates.py; this
module finds the claims, indexes the support and reads names.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from typing import Any

from khaos_action.detect.grounding_dates import (
    Add,
    calendar_positions,
    date_words,
    day_and_month_names,
    names_written_short,
    split_iso_date_times,
    weekday_of,
    written_dates,
)
from khaos_action.detect.grounding_numbers import (
    COMPOUND,
    COUNT,
    NUMERIC,
    SPELLED,
    SPELLED_NUMBER,
    groups,
    number_key,
    spelled_value,
    token_key,
    whole_value,
)

# "not 100% sure": an idiom of certainty, not a percentage
_CERTAINTY = re.compile(r"\s*(?:sure|certain|guaranteed|accurate|reliable|correct|confident|positive)\b",
                        re.IGNORECASE)

_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_URL = re.compile(r"\b(?:https?://|www\.)[^\s<>()\"']*[^\s<>()\"'.,;:!?]", re.IGNORECASE)
_LIST_MARKER = re.compile(r"^\s*(?:\(?\d{1,2}[.)]|step\s+\d{1,2}[:.)])\s", re.IGNORECASE | re.MULTILINE)
# when to try again is advice, not a fact about the missing data
_RETRY = re.compile(rf"\b(?:again|retry|back|later|wait|waiting|try)\b[^.!?\n]{{0,24}}?\b(?:in|after|within|for|"
                    rf"about|another)\s+(?:about\s+|around\s+|another\s+)?(?:\d+|{SPELLED_NUMBER})\s*"
                    rf"(?:-\s*\d+\s*)?(?:seconds?|secs?|minutes?|mins?|hours?|hrs?)\b", re.IGNORECASE)

_CAPITALISED = r"[A-Z][a-z'’]+(?:-[A-Z][a-z]+)?"
_HONORIFIC = re.compile(rf"\b(?:Dr|Mr|Mrs|Ms|Mx|Prof|Nurse|Dean|Judge|Officer)\.?\s+{_CAPITALISED}"
                        rf"(?:\s+{_CAPITALISED})?")
_NAME_RUN = re.compile(rf"(?<![\w.])({_CAPITALISED}(?:\s+(?:{_CAPITALISED}|[A-Z]\.))+)")
_SENTENCE_START = re.compile(r"(?:^|[.!?:;]\s+|\n\s*(?:[-*•]\s*)?|[\"“(]\s*)$")
# Title-case words that name a kind of place, team or thing, not someone: "the Help Desk", "Human Resources".
GENERIC = frozenset("""
    help desk team department portal center centre office support service services base system systems resources
    human customer knowledge page website site app application hotline line manager representative administrator
    admin group unit division helpdesk policy policies handbook benefits payroll benefit employee employees staff
    handbook guide faq center desk contact information info data database search tool tools api server status
    error unavailable not found internal gateway timeout bad request too many requests please sorry unfortunately
    thank thanks you your our we i my hello hi dear best regards kind note however also meanwhile
    """.split())
# A Title Case run that ends on a job title names a role anyone may hold ("your HR Business Partner", "the Benefits
# Coordinator"), where an honest reply sends the user; a person's name never ends on one ("Sarah Johnson").
ROLE_TITLES = frozenset("""
    partner coordinator specialist advisor adviser consultant associate director supervisor lead agent assistant
    officer recruiter generalist manager representative administrator
    """.split())
_ENGLISH = frozenset("""
    the a an and or to of is are was be it this that you your for with not can i we on in at about has have will my
    me please from by as our they he she his her their there here if so but no yes get all any
    """.split())
# Words that open sentences and are capitalised only for that ("Please Contact", "Unfortunately The").
_OPENERS = _ENGLISH | GENERIC | frozenset("""
    contact call visit email ask check reach they he she there here as in on at when while currently right
    if for until once since because so but yes no ok okay good great sure certainly absolutely let unable
    """.split())


@dataclass(frozen=True, slots=True)
class Claim:
    """One specific a text states: its exact span, where it is, what kind, and the forms that would support it."""

    text: str
    start: int
    kind: str
    """number | spelled_number | calendar | month | weekday | email | url | name"""
    keys: frozenset[str] = field(default_factory=frozenset)
    """Any one of these in the support holds the claim."""
    parts: frozenset[str] = frozenset()
    """Or all of these numbers (the groups of a time or a date: 09:30 → 9 and 30; 2025-03-07 → 2025, 3, 7)."""


@dataclass(slots=True)
class Support:
    """Everything the given texts hold, in the forms claims are looked up by."""

    numbers: set[str] = field(default_factory=set)
    tokens: set[str] = field(default_factory=set)
    words: set[str] = field(default_factory=set)
    text: str = ""
    """The given texts joined and case-folded, for phrases (calendar positions, names)."""

    def holds(self, claim: Claim) -> bool:
        if claim.kind in ("calendar", "name"):
            return self._holds_phrase(claim.text)
        if any(key in self.numbers or key in self.tokens or key in self.words for key in claim.keys):
            return True
        return bool(claim.parts) and claim.parts <= self.numbers

    def _holds_phrase(self, text: str) -> bool:
        """The phrase itself, or each of its words that names something (not `GENERIC`)."""
        return _phrase(text) in self.text or all(w in self.words for w in _words(text) if w not in GENERIC)


def support_of(texts: Iterable[str]) -> Support:
    """Index the given texts (prompt, system prompt, conversation, tool arguments, results and errors)."""
    support = Support()
    parts = []
    for text in texts:
        if not text:
            continue
        parts.append(text.casefold())
        _index_numbers(text, support)
        for match in _EMAIL.finditer(text):
            support.tokens.add(match.group(0).casefold())
        for match in _URL.finditer(text):
            support.tokens.add(_url_key(match.group(0)))
        words = _words(text)
        support.words.update(words)
        support.words.update(day for day in map(weekday_of, words) if day)  # "Sundays" holds "Sunday"
        support.words.update(names_written_short(text))
    support.text = " ".join(" ".join(_words(p)) for p in parts)
    return support


def _index_numbers(text: str, support: Support) -> None:
    """Numbers, ids and dates as tokens, values, groups and date words; spelled numbers as values."""
    for match in NUMERIC.finditer(text):
        support.tokens.add(token_key(match.group(0)))
        whole = whole_value(match.group(0))
        support.numbers.update([whole] if whole else [])
        support.numbers.update(groups(match.group(0)))
        support.words.update(date_words(match.group(0)))
    spelled = [m.group(1) for m in SPELLED.finditer(text)]
    spelled += [m.group(0) for m in COMPOUND.finditer(text)]  # "twenty-five", "two hundred": whatever follows
    for words in spelled:
        value = spelled_value(words)
        if value is not None:
            support.numbers.add(number_key(value))


def claims(text: str, counted: Collection[str] = ()) -> list[Claim]:
    """The specific claims in `text`, in order, none inside another (the finders of `_FINDERS` take their spans
    in turn: an email's digits are not a number too). `counted`: the words a spelled count is a claim about."""
    found = _Claims(text)
    for find in _FINDERS:
        find(text, found.add)
    _counts(text, counted, found.add)
    return sorted(found.claims, key=lambda c: c.start)


class _Claims:
    def __init__(self, text: str) -> None:
        self.text = text
        self.claims: list[Claim] = []
        self.taken: list[tuple[int, int]] = [m.span() for m in _RETRY.finditer(text)]
        self.taken += [m.span() for m in _LIST_MARKER.finditer(text)]

    def add(self, start: int, end: int, kind: str, keys: Iterable[str], parts: Iterable[str] = ()) -> None:
        """A claim over text[start:end], unless a span taken before overlaps it."""
        if any(s <= start < e or s < end <= e for s, e in self.taken):
            return
        self.taken.append((start, end))
        self.claims.append(Claim(text=self.text[start:end], start=start, kind=kind, keys=frozenset(keys),
                                 parts=frozenset(parts)))


def _emails(text: str, add: Add) -> None:
    for match in _EMAIL.finditer(text):
        add(*match.span(), "email", [match.group(0).casefold()])


def _urls(text: str, add: Add) -> None:
    for match in _URL.finditer(text):
        add(*match.span(), "url", [_url_key(match.group(0))])


def _spelled_numbers(text: str, add: Add) -> None:
    for match in SPELLED.finditer(text):
        value = spelled_value(match.group(1))
        if value is not None and match.group(1).casefold() != "a":  # "a day or two" is vague; "one year" is not
            add(*match.span(), "spelled_number", [number_key(value)])


def _counts(text: str, counted: Collection[str], add: Add) -> None:
    """"six external monitors" asked how many monitors: a spelled count of the very thing the user asked about
    answers the question, where a spelled number before any other noun ("I see two options") is a manner of
    speaking."""
    for match in COUNT.finditer(text):
        value = spelled_value(match.group(1))
        if value is not None and value >= 2 and match.group(2).casefold() in counted:
            add(*match.span(), "spelled_number", [number_key(value)])


def _numbers(text: str, add: Add) -> None:
    for match in NUMERIC.finditer(text):
        if match.group(0).replace(" ", "") == "100%" and _CERTAINTY.match(text, match.end()):
            continue
        whole = whole_value(match.group(0))
        # a time or a date may be written another way (9:30, 2025-03-07); an id with letters only as itself
        parts = [] if whole or re.search(r"[A-Za-z]", match.group(0)) else groups(match.group(0))
        add(*match.span(), "number", [token_key(match.group(0)), *([whole] if whole else [])], parts)


def _names(text: str, add: Add) -> None:
    if not _looks_english(text):
        return
    for match in _HONORIFIC.finditer(text):
        add(*match.span(), "name", [])
    for match in _NAME_RUN.finditer(text):
        start, end = _trim_sentence_start(text, *match.span(1))
        span = text[start:end]
        named = _words(span)
        if len(span.split()) >= 2 and not all(w in GENERIC for w in named) and named[-1] not in ROLE_TITLES:
            add(start, end, "name", [])


_FINDERS = (_emails, _urls, calendar_positions, _spelled_numbers, _numbers, day_and_month_names, _names)
"""What a claim can be, in the order each takes its spans."""


def specific_tokens(value: Any) -> set[str]:
    """The ids, codes, amounts and dates (at least two digits) in a text or JSON-like value, case-folded:
    `P-1042`, `AP-5531`, `2025-03-07`, `$1,200.50`, a canary half. An ISO 8601 date-time (`2024-05-21T18:00:00`,
    what a JSON tool result holds) is its date and its time, as the same moment written with a space is: read
    whole it would be `2024-05` and an id-like `21t18`, and the date it holds would not be found. A date written
    with its month's name and year ("June 10th 2024") also gives its ISO form: an agent asked for 'YYYY-MM-DD'
    writes the day it read that way."""
    text = value if isinstance(value, str) else json.dumps(value, default=str, ensure_ascii=False)
    text = split_iso_date_times(text)
    found = {m.group(0).casefold() for m in NUMERIC.finditer(text) if sum(ch.isdigit() for ch in m.group(0)) >= 2}
    return found | written_dates(text)


def unsupported(text: str, support: Support) -> list[Claim]:
    """The claims of `text` that `support` does not hold."""
    return [claim for claim in claims(text, support.words) if not support.holds(claim)]


def _url_key(url: str) -> str:
    return re.sub(r"^(?:https?://)?(?:www\.)?", "", url.casefold()).split("/")[0]


def _words(text: str) -> list[str]:
    """Case-folded words; identifiers split on _ and camelCase ("search_knowledge_base" → search knowledge base)."""
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", text).replace("_", " ")
    words = re.findall(r"[^\W\d_]+(?:['’][^\W\d_]+)?", spaced.casefold())
    return [w[:-2] if w.endswith(("'s", "’s")) else w for w in words]  # Haddad's is Haddad


def _phrase(text: str) -> str:
    return " ".join(_words(text))


def _looks_english(text: str) -> bool:
    words = _words(text)
    return bool(words) and sum(w in _ENGLISH for w in words) / len(words) >= 0.08


def _trim_sentence_start(text: str, start: int, end: int) -> tuple[int, int]:
    """Drop the first word of a run that opens a sentence when it is an ordinary word capitalised for that
    ("Please Contact Support" is no name; "Sarah Lee can help" keeps "Sarah Lee")."""
    first = re.match(r"(\S+)\s+", text[start:end])
    if first and first.group(1).casefold() in _OPENERS and _SENTENCE_START.search(text[:start]):
        start += first.end()
    return start, end
