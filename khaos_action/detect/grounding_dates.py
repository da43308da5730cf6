"""Dates as claims and as support (detect/grounding.py): month and weekday names, calendar positions ("the first
business day"), ISO dates and date-times, and dates written with their month's name ("June 10th 2024"), each with
the other forms the same day takes (2025-03-07 is a March and a Friday)."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable

MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
          "november", "december")
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")

_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth", "last",
             "final", "penultimate", r"\d{1,2}(?:st|nd|rd|th)")
_CALENDAR = re.compile(
    rf"\b(?:{'|'.join(_ORDINALS)})\s+(?:(?:business|working|calendar|week|full)\s+)?"
    rf"(?:day|week|month|quarter|payday|{'|'.join(WEEKDAYS)})\b", re.IGNORECASE)

_ISO_DATE_TIME = re.compile(r"\b(\d{4}-\d{2}-\d{2})[Tt](\d{2}:\d{2})")
# Each month's name or its first three letters; September also as "Sept", as American style guides abbreviate it.
_MONTH = r"(?P<month>" + "|".join("sep(?:t|tember)?" if m == "september" else m[:3] + f"(?:{m[3:]})?" if len(m) > 3
                                  else m for m in MONTHS) + r")\.?"
_ORDINAL = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
# A date written with its month's name and its year: June 10th 2024, June 10, 2024, 10 June 2024, 10th of June, 2024.
_WRITTEN_DATE = re.compile(rf"\b(?:{_MONTH}\s+{_ORDINAL},?|{_ORDINAL.replace('day', 'day2')}\s+(?:of\s+)?"
                           rf"{_MONTH.replace('month', 'month2')},?)\s+(?P<year>\d{{4}})\b", re.IGNORECASE)

_NAMES = (*MONTHS, *WEEKDAYS)
# How texts write the names short: Jan, Sept, Mon, Tues, Thur, Thurs ("May" is the whole name).
_ABBREVIATIONS = frozenset({name[:3] for name in _NAMES} | {"sept", "tues", "thur", "thurs"})
_SHORT_NAME = re.compile(r"\b[A-Z][a-z]{2,}\b")
# Where a text was cut: its end (past closing quotes and brackets), or an ellipsis.
_CUT = re.compile(r"\.\.\.|…|[\"'\]})\s]*$")
# What joins a date's parts or a range's ends: "Sept 30", "30 Sep", "Mon–Fri", "Thu, 12 Mar", "Mon to Fri".
_JOIN = r"\.?[\s,/&\-–—]*(?:(?:to|and|or|through|thru|till|until)\s+)?"
_AFTER = re.compile(rf"{_JOIN}(\d|[A-Za-z]+)")
_BEFORE = re.compile(rf"(\d|[A-Za-z]+){_JOIN}$")

Add = Callable[..., None]


def calendar_positions(text: str, add: Add) -> None:
    """'the first business day', 'last Friday': claims held only by the phrase itself."""
    for match in _CALENDAR.finditer(text):
        add(*match.span(), "calendar", [])


def day_and_month_names(text: str, add: Add) -> None:
    """A capitalised weekday or month name ('May' is left out: it is a verb as often as a month); a weekday in the
    plural ("open on Sundays") is the same claim as in the singular."""
    for match in re.finditer(r"\b[A-Za-z]+\b", text):
        word = match.group(0)
        if not word[0].isupper():
            continue
        day = weekday_of(word.casefold())
        if day:
            add(*match.span(), "weekday", [day])
        elif word.casefold() in MONTHS and word != "May":
            add(*match.span(), "month", [word.casefold()])


def weekday_of(word: str) -> str | None:
    """The weekday a case-folded word names, in the singular or the plural ("sundays" → "sunday"), or None."""
    day = word[:-1] if word.endswith("s") and word not in WEEKDAYS else word
    return day if day in WEEKDAYS else None


def split_iso_date_times(text: str) -> str:
    """'2024-05-21T18:00:00' as '2024-05-21 18:00:00': the date and the time a tool's JSON holds, each on its own."""
    return _ISO_DATE_TIME.sub(r"\1 \2", text)


def written_dates(text: str) -> set[str]:
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


def names_written_short(text: str) -> set[str]:
    """The month and weekday names a text writes short, as a reply may write them whole: a Title Case abbreviation
    beside a number or another name ("Sept 30", "30 Sep", "Mon–Fri", "Sat 10:00") or, where the text was cut, the
    beginning of one ("collected every Thursd", "opens in Septem…"), of three letters or more, that begins exactly
    one name. Alone, the same letters are often another word ("Casa Del Mar", "Jan Novak", "9.9% APR", "we sat")
    and support nothing."""
    found = set()
    for match in _SHORT_NAME.finditer(text):
        named = _named(match.group(0))
        if named and (_CUT.match(text, match.end()) or _beside_a_date(text, *match.span())):
            found.add(named)
    return found


def _named(word: str) -> str | None:
    """The one month or weekday name `word` begins and is not whole, or None."""
    word = word.casefold()
    named = [name for name in _NAMES if name.startswith(word) and name != word]
    return named[0] if len(named) == 1 else None


def _beside_a_date(text: str, start: int, end: int) -> bool:
    """An abbreviation next to a number or to another month or weekday name, as a date or a range writes it."""
    if text[start:end].casefold() not in _ABBREVIATIONS:
        return False
    after = _AFTER.match(text, end)
    before = _BEFORE.search(text[max(0, start - 24):start])
    return any(m and (m.group(1)[0].isdigit() or _is_name(m.group(1))) for m in (after, before))


def _is_name(word: str) -> bool:
    return word.casefold() in _NAMES or (word.casefold() in _ABBREVIATIONS and _named(word) is not None)


def date_words(token: str) -> set[str]:
    """An ISO date (2025-03-07) also supports its month's and weekday's names."""
    match = re.fullmatch(r"(\d{4})-(\d{2})-(\d{2})(?:[T ].*)?", token)
    if not match:
        return set()
    try:
        day = dt.date(int(match.group(1)), int(match.group(2)), int(match.group(3)))
    except ValueError:
        return set()
    return {MONTHS[day.month - 1], WEEKDAYS[day.weekday()]}
