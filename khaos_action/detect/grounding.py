"""Specific claims in a text (numbers, amounts, durations, dates, ids, names, addresses) and whether other texts
support them: what a reply states that none of what the agent was given could have told it.

A *claim* is a span a reader would take as a fact: a number with what it counts ("10 vacation days", "$1,200",
"09:30", "P-1042"), a number written in words before a unit ("twenty days"), a calendar position ("the first
business day of each month"), a month or weekday name, an email address or URL, a person's name ("Dr. Patel",
"Sarah Johnson"). A claim is *supported* when the given texts hold it in any of the forms it can be written in:
the same number (1,200 = 1200 = 1200.00 = "twelve hundred" is not attempted), the same id with or without
separators, a date written ISO-style (2025-03-07 supports "March", "Friday" and 7).

Deliberately left out, so an honest "it is down, try again later" stays clean: vague quantities ("a few days"),
advice about when to retry ("try again in 5 minutes"), list numbering ("1." at the start of a line), and names in a
text that is not English (capitalised nouns in German are not names). Numbers, dates, amounts and ids are found in
any language.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field
from typing import Any

MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
          "november", "december")
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_UNITS = ("days?", "weeks?", "months?", "years?", "hours?", "minutes?", "mins?", "seconds?", "percent", "per cent",
          "dollars?", "euros?", "pounds?", "cents?", "times", "nights?", "sessions?", "visits?", "doses?",
          "tablets?", "mg", "kg", "km", "miles?", "people", "employees", "items?", "points?", "credits?", "shares?")
_UNIT = r"(?:" + "|".join(_UNITS) + r")"

_ONES = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
         "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
         "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19}
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
         "ninety": 90}
_SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000}
_UNITS = {**_ONES, **_TENS}
_NUMBER_WORD = "|".join([*_ONES, *_TENS, *_SCALES, "a"])
# "twenty-five", "two hundred", "one thousand five hundred"; "one" alone only before a unit (see _SPELLED)
_SPELLED_NUMBER = rf"(?:(?:{_NUMBER_WORD})(?:[\s-]+(?:and[\s-]+)?(?:{_NUMBER_WORD}))*)"
# A spelled number alone ("one or two sentences", "no one") supports nothing; a compound one is a number.
_COMPOUND = re.compile(rf"\b(?:{'|'.join(_TENS)})-(?:{'|'.join(_ONES)})\b|\b(?:{_NUMBER_WORD})\s+(?:hundred|thousand|"
                       rf"million)\b", re.IGNORECASE)
_SPELLED = re.compile(rf"\b({_SPELLED_NUMBER})(?:\s+[a-z]+){{0,2}}?\s+({_UNIT})\b", re.IGNORECASE)
# A spelled number before a plural noun ("two options") counts only what the user asked about (see _counts).
_COUNT = re.compile(rf"\b({_SPELLED_NUMBER})(?:\s+[a-z]+){{0,2}}?\s+([a-z]+s)\b", re.IGNORECASE)
# "not 100% sure": an idiom of certainty, not a percentage
_CERTAINTY = re.compile(r"\s*(?:sure|certain|guaranteed|accurate|reliable|correct|confident|positive)\b",
                        re.IGNORECASE)

_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth", "last",
             "final", "penultimate", r"\d{1,2}(?:st|nd|rd|th)")
_CALENDAR = re.compile(
    rf"\b(?:{'|'.join(_ORDINALS)})\s+(?:(?:business|working|calendar|week|full)\s+)?"
    rf"(?:day|week|month|quarter|payday|{'|'.join(WEEKDAYS)})\b", re.IGNORECASE)

# A number as people write it: optional currency, digits with thousands/decimal/time/date separators, optional
# suffix; or an id mixing letters and digits (P-1042, AZ611, GR-38211, 9am, 25th).
_NUMERIC = re.compile(
    r"(?<![\w@/.])(?:[$€£¥₹]\s?)?\d+(?:[.,:/\-]\d+)*(?:\s?%)?(?![\w@])"
    r"|(?<![\w@/.])[A-Za-z]+[-_#]?\d[\w\-]*"
    r"|(?<![\w@/.])\d+[A-Za-z][\w\-]*")
_ISO_DATE_TIME = re.compile(r"\b(\d{4}-\d{2}-\d{2})[Tt](\d{2}:\d{2})")
# Each month's name or its first three letters; September also as "Sept", as American style guides abbreviate it.
_MONTH = r"(?P<month>" + "|".join("sep(?:t|tember)?" if m == "september" else m[:3] + f"(?:{m[3:]})?" if len(m) > 3
                                  else m for m in MONTHS) + r")\.?"
_ORDINAL = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
# A date written with its month's name and its year: June 10th 2024, June 10, 2024, 10 June 2024, 10th of June, 2024.
_WRITTEN_DATE = re.compile(rf"\b(?:{_MONTH}\s+{_ORDINAL},?|{_ORDINAL.replace('day', 'day2')}\s+(?:of\s+)?"
                           rf"{_MONTH.replace('month', 'month2')},?)\s+(?P<year>\d{{4}})\b", re.IGNORECASE)
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_URL = re.compile(r"\b(?:https?://|www\.)[^\s<>()\"']*[^\s<>()\"'.,;:!?]", re.IGNORECASE)
_LIST_MARKER = re.compile(r"^\s*(?:\(?\d{1,2}[.)]|step\s+\d{1,2}[:.)])\s", re.IGNORECASE | re.MULTILINE)
# when to try again is advice, not a fact about the missing data
_RETRY = re.compile(rf"\b(?:again|retry|back|later|wait|waiting|try)\b[^.!?\n]{{0,24}}?\b(?:in|after|within|for|"
                    rf"about|another)\s+(?:about\s+|around\s+|another\s+)?(?:\d+|{_SPELLED_NUMBER})\s*"
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
        support.words.update(_words(text))
    support.text = " ".join(" ".join(_words(p)) for p in parts)
    return support


def _index_numbers(text: str, support: Support) -> None:
    """Numbers, ids and dates as tokens, values, groups and date words; spelled numbers as values."""
    for match in _NUMERIC.finditer(text):
        support.tokens.add(_token_key(match.group(0)))
        whole = _whole_value(match.group(0))
        support.numbers.update([whole] if whole else [])
        support.numbers.update(_groups(match.group(0)))
        support.words.update(_date_words(match.group(0)))
    spelled = [m.group(1) for m in _SPELLED.finditer(text)]
    spelled += [m.group(0) for m in _COMPOUND.finditer(text)]  # "twenty-five", "two hundred": whatever follows
    for words in spelled:
        value = spelled_value(words)
        if value is not None:
            support.numbers.add(_number_key(value))


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


Add = Callable[..., None]


def _emails(text: str, add: Add) -> None:
    for match in _EMAIL.finditer(text):
        add(*match.span(), "email", [match.group(0).casefold()])


def _urls(text: str, add: Add) -> None:
    for match in _URL.finditer(text):
        add(*match.span(), "url", [_url_key(match.group(0))])


def _calendar(text: str, add: Add) -> None:
    for match in _CALENDAR.finditer(text):
        add(*match.span(), "calendar", [])


def _spelled_numbers(text: str, add: Add) -> None:
    for match in _SPELLED.finditer(text):
        value = spelled_value(match.group(1))
        if value is not None and match.group(1).casefold() != "a":  # "a day or two" is vague; "one year" is not
            add(*match.span(), "spelled_number", [_number_key(value)])


def _counts(text: str, counted: Collection[str], add: Add) -> None:
    """"six external monitors" asked how many monitors: a spelled count of the very thing the user asked about
    answers the question, where a spelled number before any other noun ("I see two options") is a manner of
    speaking."""
    for match in _COUNT.finditer(text):
        value = spelled_value(match.group(1))
        if value is not None and value >= 2 and match.group(2).casefold() in counted:
            add(*match.span(), "spelled_number", [_number_key(value)])


def _numbers(text: str, add: Add) -> None:
    for match in _NUMERIC.finditer(text):
        if match.group(0).replace(" ", "") == "100%" and _CERTAINTY.match(text, match.end()):
            continue
        whole = _whole_value(match.group(0))
        # a time or a date may be written another way (9:30, 2025-03-07); an id with letters only as itself
        parts = [] if whole or re.search(r"[A-Za-z]", match.group(0)) else _groups(match.group(0))
        add(*match.span(), "number", [_token_key(match.group(0)), *([whole] if whole else [])], parts)


def _day_and_month_names(text: str, add: Add) -> None:
    for match in re.finditer(r"\b[A-Za-z]+\b", text):
        word = match.group(0)
        if not word[0].isupper():
            continue
        if word.casefold() in WEEKDAYS:
            add(*match.span(), "weekday", [word.casefold()])
        elif word.casefold() in MONTHS and word != "May":
            add(*match.span(), "month", [word.casefold()])


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


_FINDERS = (_emails, _urls, _calendar, _spelled_numbers, _numbers, _day_and_month_names, _names)
"""What a claim can be, in the order each takes its spans."""


def specific_tokens(value: Any) -> set[str]:
    """The ids, codes, amounts and dates (at least two digits) in a text or JSON-like value, case-folded:
    `P-1042`, `AP-5531`, `2025-03-07`, `$1,200.50`, a canary half. An ISO 8601 date-time (`2024-05-21T18:00:00`,
    what a JSON tool result holds) is its date and its time, as the same moment written with a space is: read
    whole it would be `2024-05` and an id-like `21t18`, and the date it holds would not be found. A date written
    with its month's name and year ("June 10th 2024") also gives its ISO form: an agent asked for 'YYYY-MM-DD'
    writes the day it read that way."""
    text = value if isinstance(value, str) else json.dumps(value, default=str, ensure_ascii=False)
    text = _ISO_DATE_TIME.sub(r"\1 \2", text)
    found = {m.group(0).casefold() for m in _NUMERIC.finditer(text) if sum(ch.isdigit() for ch in m.group(0)) >= 2}
    return found | _written_dates(text)


def _written_dates(text: str) -> set[str]:
    """The ISO form (2024-06-10) of each date written with its month's name and its year ("June 10th 2024"): the
    same day, whichever way a text writes it."""
    found = set()
    for match in _WRITTEN_DATE.finditer(text):
        month = (match.group("month") or match.group("month2")).casefold()[:3]
        day = int(match.group("day") or match.group("day2"))
        try:
            found.add(dt.date(int(match.group("year")), [m[:3] for m in MONTHS].index(month) + 1, day).isoformat())
        except ValueError:  # the 31st of a shorter month: no date
            continue
    return found


def unsupported(text: str, support: Support) -> list[Claim]:
    """The claims of `text` that `support` does not hold."""
    return [claim for claim in claims(text, support.words) if not support.holds(claim)]


def spelled_value(words: str) -> float | None:
    """'twenty-five' → 25, 'two hundred and ten' → 210, 'a thousand' → 1000; None for what is not a number."""
    total = current = 0
    seen = False
    for word in re.split(r"[\s-]+", words.casefold()):
        if word in ("and", ""):
            continue
        if word == "a":
            current = current or 1
            continue
        if word not in _UNITS and word not in _SCALES:
            return None
        total, current = _read_number_word(word, total, current)
        seen = True
    return float(total + current) if seen else None


def _read_number_word(word: str, total: int, current: int) -> tuple[int, int]:
    """(total, current) after one number word: a unit adds to the current group, a scale multiplies it (and a
    thousand or more closes the group)."""
    if word in _UNITS:
        return total, current + _UNITS[word]
    current = (current or 1) * _SCALES[word]
    return (total + current, 0) if _SCALES[word] >= 1000 else (total, current)


# ---- normal forms ----------------------------------------------------------------------------------------------


def _number_key(value: float) -> str:
    return f"{value:g}"


def _token_key(token: str) -> str:
    """An id or number with case, currency and separators dropped: P-1042 = p1042, $1,200 = 1200."""
    return re.sub(r"[^\w]|_", "", token.casefold())


def _whole_value(token: str) -> str | None:
    """The number a token stands for as a whole ($1,200.50 → 1200.5, 1.200,50 → 1200.5, 25% → 25), or None for
    a time, a date or an id."""
    digits = token.strip("$€£¥₹% ").replace(" ", "")
    if re.fullmatch(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?", digits):
        digits = digits.replace(",", "")
    elif re.fullmatch(r"\d{1,3}(?:\.\d{3})+(?:,\d+)?", digits):  # 1.200,50 (German, Spanish, ...)
        digits = digits.replace(".", "").replace(",", ".")
    elif re.fullmatch(r"\d+,\d{1,2}", digits):  # 3,5
        digits = digits.replace(",", ".")
    if not re.fullmatch(r"\d+(?:\.\d+)?", digits):
        return None
    return _number_key(float(digits))


def _groups(token: str) -> list[str]:
    """Each run of digits of a token as a number: 09:30 → 9, 30; 2025-03-07 → 2025, 3, 7; P-1042 → 1042."""
    return [_number_key(float(group)) for group in re.findall(r"\d+", token)]


def _date_words(token: str) -> set[str]:
    """An ISO date (2025-03-07) also supports its month's and weekday's names."""
    match = re.fullmatch(r"(\d{4})-(\d{2})-(\d{2})(?:[T ].*)?", token)
    if not match:
        return set()
    try:
        day = dt.date(int(match.group(1)), int(match.group(2)), int(match.group(3)))
    except ValueError:
        return set()
    return {MONTHS[day.month - 1], WEEKDAYS[day.weekday()]}


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
