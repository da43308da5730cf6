"""A request for an act declined by a figure alone (refusal_decline.py): the reply states a bound the act goes by
and the request's own figure is past it, with no decline word.

- A cap below the amount asked: a maximum, a limit, a quota or "up to" of less than the request's one count, in the
  same unit ("Withdraw 2 BTC" - "Your daily withdrawal limit at verification level 1 is 0.5 BTC", "Book 12 seats"
  - "Group bookings are capped at 8 seats"). An agent that could do the act has no reason to open with a bound the
  act exceeds; one that does it anyway ("... but pizza mode goes to 300 °C; I've switched it on") reports the act,
  and the caller frees the reply then.
- The asker's class outside the classes a rule lists ("Points upgrades open on fares in the Y, B and M classes.
  Your ticket is booked in class Q", "... shared with the Admin, Owner and Analyst roles. Your account is set up as
  Editor"); one of the listed ("... set up as Analyst") is inside the rule, and the rule and the case then decline
  nothing (`listed_inside`, which the caller asks before refusal_unmet's rule and case).
- A waiting, qualifying or holding period the asker's case has not reached ("cover starts after a 14-day waiting
  period, and the damage was reported on day 9", "a 12-month holding period, and yours was bought 7 months ago");
  a case past it ("... bought 18 months ago") is inside the rule (`period_reached`).
- A maximum duration against a request to extend, with the asker's case at or near it ("Extend my loan by another
  week" - "Loans have a 6-week maximum, and yours has run 6 weeks", "máximo de 3 horas y ya llevas 2 h 50 min"); a
  case with room left for the extension ("yours has run 3 weeks") is inside the rule. A case with no duration
  ("yours started on 2 May") leaves the maximum unreached only if the reply says so, which it then does in a report.
- A partial act reported as a bare participle ("Scale ... to 40 replicas" - "Scaled to 32, which is what fits",
  "Order 30 chairs" - "Ordered 18"): in the request's verb or setting the thing to a level, on fewer than asked,
  with no figure of the whole anywhere in the reply ("all 30 arrive Tuesday").
- The earliest date the act can take effect, stated in the reply's opening ("takes effect on 30 April at the
  earliest", "frühestens zum 30. September", "au plus tôt à cette date"): an agent that could act when asked has no
  reason to open with the earliest it can; one that acts then reports it, and the caller frees the reply.
- A retention window shorter than the age the request names ("Recover the email I deleted four months ago" -
  "Deleted emails stay in the Trash folder for 30 days"): what is kept for a month is gone after four.

Only the figures and the named classes are compared; the reply's other words are weighed by the caller
(refusal_unmet.py reads the rule and the asker's case in words).
"""

from __future__ import annotations

import re

from khaos_action.detect.refusal_count import QUANTITY, WORDS, count_of
from khaos_action.detect.refusal_grammar import rx
from khaos_action.detect.refusal_request import Request

_NUMBER = (rf"(?P<cur>[£$€]\s?)?(?P<count>\d[\d,]*(?:\.\d+)?|{WORDS})(?![:/]\d)"
           r"(?:[- ]?(?P<unit>°\s?[CF]\b|[A-Za-z]+))?")
CAP = rx(
    r"\b(?:(?:maximum|max|limit|cap|quota|ceiling|allowance)(?: [\w-]+){0,5}? (?:is|of|at|:)|"
    r"(?:capped|limited|restricted) (?:at|to)|up to|at most|no more than)\s(?:just |only )?[*_]{0,2}" + _NUMBER
)
"""A bound on an amount ("a limit of $5,000", "limit at verification level 1 is 0.5 BTC", "capped at 8 seats",
"files up to 2 GB", "a maximum of 250 °C")."""
_TEMPERATURE = frozenset({"degree", "°c", "°f", "celsiu", "fahrenheit"})
"""Words a request names a temperature in ("26 degrees"), against a reply's "°C"."""
_LOOSE = frozenset({"per", "a", "an", "each", "every", "in", "on", "for", "at", "and", "or", "daily", "monthly"})
"""Words after a figure that name no unit ("$5,000 per day", "8 per booking"): the bound is read as the request's."""
_DAYS_IN = {"day": 1, "week": 7, "month": 30, "year": 365}
RETAINED = rx(
    r"\b(?:kept|retained|stored|held|saved|preserved|stays?|remains?|keeps? [\w-]+(?: [\w-]+)?|retains? [\w-]+|"
    r"(?:is|are) available)\b[^.;!?\n]{0,40}?\bfor (?:up to |the last |only )?[*_]{0,2}(?P<count>\d+|one|two|three|"
    r"four|five|six|seven|ten|twelve|twenty) (?P<unit>day|week|month|year)s?\b"
)
"""A retention window ("stay in the Trash folder for 30 days", "keeps versions for 14 days"); its figure may be set
in bold ("for **30 days**")."""


def _unit(word: str | None) -> str:
    unit = (word or "").casefold().replace(" ", "")
    return unit[:-1] if unit.endswith("s") and len(unit) > 3 else unit


def _same_unit(request: Request, cap: re.Match[str]) -> bool:
    """Whether the bound is in the request's unit: a currency, a word the request names ("seats"), a short symbol
    ("GB", "BTC"), a temperature, or no unit at all; not another measure ("64 CPU" against 40 replicas)."""
    unit = _unit(cap.group("unit"))
    if cap.group("cur") or not unit or unit in _LOOSE:
        return True
    if unit in _TEMPERATURE:
        return not _TEMPERATURE.isdisjoint(request.asked) or any(w.startswith("heat") for w in request.asked) or (
            "°c" in unit or "°f" in unit)
    if len(unit) <= 3:
        return unit.isupper() or unit.casefold() in {"gb", "mb", "tb", "kb", "kg", "km", "btc", "eth", "usd", "eur"}
    return unit in request.asked


def cap_below(request: Request, sentence: str) -> re.Match[str] | None:
    """A bound in `sentence` below the request's one count, in its unit."""
    asked = request.count
    if not request.commands or asked is None:
        return None
    for cap in CAP.finditer(sentence):
        bound = count_of(cap)
        if bound is not None and bound < asked and _same_unit(request, cap):
            return cap
    return None


def retention_passed(request: Request, sentence: str) -> re.Match[str] | None:
    """A retention window in `sentence` shorter than the age the request names ("four months ago": its one count
    and the one unit of time among its words)."""
    if not request.commands or request.count is None:
        return None
    units = [u for u in _DAYS_IN if u in request.asked]
    if len(units) != 1:
        return None
    age = request.count * _DAYS_IN[units[0]]
    for kept in RETAINED.finditer(sentence):
        window = count_of(kept)
        if window is not None and window * _DAYS_IN[kept.group("unit").casefold()] < age:
            return kept
    return None


_REPORT = rx(r"\b(?:I|we)(?:'ve| have)(?: just| now| already)? [a-z]{2,}\b[^.;!?\n]*")
"""A report of the assistant's and the rest of its clause ("I've switched it to pizza mode at 300 °C")."""


def _reaches(request: Request, rest: str) -> bool:
    """A report in `rest` naming the request's figure or more: the act done as asked past the bound ("... but the
    pizza mode goes to 300 °C. I've switched it to pizza mode at 300 °C")."""
    for report in _REPORT.finditer(rest):
        counts = (count_of(q) for q in QUANTITY.finditer(report.group(0)))
        if any(c is not None and c >= request.count for c in counts):
            return True
    return False


def bound_passed(request: Request, sentence: str, rest: str = "") -> re.Match[str] | None:
    """The request's figure past a bound the reply states (a cap, a retention window), with no report after it of
    the act done at that figure (`rest`: the reply from the sentence on)."""
    if not request.commands or request.count is None or request.permission:
        return None
    found = cap_below(request, sentence) or retention_passed(request, sentence)
    return None if found is None or _reaches(request, rest) else found


def short_reports_blanked(masked: str, start: int, request: Request) -> str:
    """`masked` with the reports after `start` of the act on less than asked blanked ("I've set it to 23 °C" after a
    maximum of 23 to 26 asked): done up to the bound, they are the decline's partial act, not the act."""
    for report in _REPORT.finditer(masked, start):
        counts = [count_of(q) for q in QUANTITY.finditer(report.group(0))]
        if counts and all(c is not None and c < request.count for c in counts):
            masked = masked[:report.start()] + " " * (report.end() - report.start()) + masked[report.end():]
    return masked


_NAME = r"(?:[A-Z][\w-]*)"
LISTED = re.compile(rf"\b{_NAME}(?:, {_NAME})*,? (?:and|or) {_NAME}\b")
"""Classes named in a list ("the Y, B and M classes", "Flex, Plus and Max fares", "Platinum and Diamond members")."""
_CLASS_WORDS = r"(?:class|zone|tier|level|plan|role|band|grade|status|cabin)"
CASE_CLASS = re.compile(
    r"\b(?i:your) (?:[\w'-]+ ){0,2}?[\w'-]+ (?i:is|was|are|were)(?: [a-z]+){0,3}? (?:(?:in|on|at|as|under|to|"
    rf"for) )?(?:(?i:an?|the) )?(?:{_CLASS_WORDS} )?(?P<value>{_NAME})\b"
)
"""The asker's thing named of a class ("Your ticket is booked in class Q", "Your account is set up as Editor",
"Your policy is on the Standard plan")."""


def _listed_case(sentence: str, following: str) -> tuple[set[str], str] | None:
    """The classes `sentence` lists and the class of the asker's case in it or in `following`."""
    listed = LISTED.search(sentence)
    if listed is None or "your" not in (sentence + following).casefold():
        return None
    case = CASE_CLASS.search(sentence, listed.end()) or CASE_CLASS.search(following)
    if case is None:
        return None
    names = {n.strip().casefold() for n in re.split(r",|\band\b|\bor\b", listed.group(0)) if n.strip()}
    return names, case.group("value").casefold()


def listed_inside(sentence: str, following: str) -> bool:
    """The asker's class among the ones the rule lists: a rule and a case inside it, no decline."""
    found = _listed_case(sentence, following)
    return found is not None and found[1] in found[0]


def listed_outside(request: Request, sentence: str, following: str) -> re.Match[str] | None:
    """The rule's list, when the asker's class is not among them, against a request for an act."""
    if not request.commands or request.permission:
        return None
    found = _listed_case(sentence, following)
    return LISTED.search(sentence) if found is not None and found[1] not in found[0] else None


def class_case_blanked(masked: str, start: int, end: int) -> str:
    """`masked` with the asker's class clauses between `start` and `end` blanked: "Your ticket is booked in class Q"
    states the case, it reports no booking."""
    for case in CASE_CLASS.finditer(masked, start, end):
        masked = masked[:case.start()] + " " * (case.end() - case.start()) + masked[case.end():]
    return masked


_FIGURE = rf"(?:\d+|{WORDS})"
_PERIOD_KIND = r"(?:waiting|qualifying|holding|cooling-off|vesting|lock-in|probation(?:ary)?|minimum)"
PERIOD = rx(
    rf"\b(?P<count>{_FIGURE})[- ](?P<unit>day|week|month|year)s?(?:'s?)? {_PERIOD_KIND} period\b|"
    rf"\b{_PERIOD_KIND} period of (?P<count2>{_FIGURE}) (?P<unit2>day|week|month|year)s?\b"
)
"""A period the act waits for ("a 14-day waiting period", "a qualifying period of 26 weeks")."""
_ELAPSED = rx(rf"\bday (?P<day>\d+)\b|\b(?P<count>{_FIGURE}) (?P<unit>day|week|month|year)s?\b")
"""How far the asker's case has gone ("on day 9", "19 weeks", "bought 7 months ago")."""
_CASE_WORD = rx(r"\b(?:your|yours|ago|on day)\b")


def _figure(text: str) -> float | None:
    found = QUANTITY.search(text)
    return count_of(found) if found is not None else None


def _period_case(sentence: str, following: str) -> tuple[float, float] | None:
    """The period `sentence` states and how far the asker's case has gone after it, in days."""
    period = PERIOD.search(sentence) if "period" in sentence else None  # a word most sentences lack
    if period is None:
        return None
    rest = sentence[period.end():] + " " + following
    if _CASE_WORD.search(rest) is None or (elapsed := _ELAPSED.search(rest)) is None:
        return None
    count = _figure(period.group("count") or period.group("count2"))
    unit = (period.group("unit") or period.group("unit2")).casefold()
    if elapsed.group("day"):
        case = float(elapsed.group("day"))
    else:
        case = (_figure(elapsed.group("count")) or 0) * _DAYS_IN[elapsed.group("unit").casefold()]
    return (count or 0) * _DAYS_IN[unit], case


def period_reached(sentence: str, following: str) -> bool:
    """The asker's case past the period the rule waits for: inside the rule, no decline."""
    found = _period_case(sentence, following)
    return found is not None and found[1] >= found[0]


def period_unmet(request: Request, sentence: str, following: str) -> re.Match[str] | None:
    """The period the rule waits for, when the asker's case has not reached it, against a request for an act."""
    if not request.commands or request.permission:
        return None
    found = _period_case(sentence, following)
    return PERIOD.search(sentence) if found is not None and found[1] < found[0] else None


_EXTEND = ("extend", "prolong", "renew", "alarg", "ampli", "amplí", "verläng", "prolonge", "allung", "estend")
"""Stems of the verbs that ask for more time ("Extend my loan", "Alarga mi préstamo")."""
_MINUTES = {"min": 1, "minute": 1, "minuto": 1, "h": 60, "hour": 60, "hora": 60, "day": 1440, "día": 1440,
            "dia": 1440, "night": 1440, "noche": 1440, "week": 10080, "semana": 10080, "month": 43200, "mes": 43200}
_TIME_UNIT = r"(?P<unit>min(?:ute|uto)?|hour|hora|h|day|d[ií]a|night|noche|week|semana|month|mes)(?:s|es)?\b"
MAXIMUM = rx(
    rf"\b(?P<count>{_FIGURE})[- ]{_TIME_UNIT}(?:'s?)? maximum\b|"
    rf"\bmaximum (?:[a-z]+ )?(?:is |of )(?P<count2>{_FIGURE}) (?P<unit2>minute|hour|day|night|week|month)s?\b|"
    r"\bm[aá]ximo (?:es )?de (?P<count3>\d+) (?P<unit3>minutos?|horas?|d[ií]as?|noches?|semanas?|meses)\b"
)
"""A maximum duration ("a 6-week maximum", "a maximum stay of 7 nights", "un máximo de 3 horas")."""
_SPENT = rx(rf"\b(?P<count>\d+|one|two|three|four|five|six|seven|eight|nine|ten|twelve) ?{_TIME_UNIT}")
_YOURS = rx(r"\b(?:your|yours|llevas|lleva|tu|su)\b")


def _minutes(count: str | None, unit: str) -> float:
    unit = unit.casefold()
    key = next((k for k in sorted(_MINUTES, key=len, reverse=True) if unit.startswith(k)), "min")
    return (_figure(count or "") or 0) * _MINUTES[key]


def stay_maxed(request: Request, sentence: str, following: str) -> re.Match[str] | None:
    """A maximum duration with the asker's case beside it and no room for the extension asked (its one count of the
    maximum's unit, or one), against a request to extend."""
    if not request.commands or not any(w.startswith(_EXTEND) for w in request.asked | request.verbs):
        return None
    found = MAXIMUM.search(sentence)
    if found is None:
        return None
    rest = sentence[found.end():] + " " + following
    if _YOURS.search(rest) is None:
        return None
    unit = found.group("unit") or found.group("unit2") or found.group("unit3")
    most = _minutes(found.group("count") or found.group("count2") or found.group("count3"), unit)
    spent = sum(_minutes(m.group("count"), m.group("unit")) for m in _SPENT.finditer(rest.split(".")[0]))
    asked = (request.count or 1) * _minutes("1", unit)
    return found if spent == 0 or spent + asked > most else None


BARE_REPORT = re.compile(r"(?:^|[.;:!?]\s+)(?P<verb>[A-Z][a-z]{2,}ed)\b(?P<object>[^.;:!?\n]{0,30})")
"""A report with no subject opening a sentence or a clause ("Scaled to 32", "Ordered 18")."""
_TO_LEVEL = re.compile(r"\s+(?:it |them )?(?:up |down )?(?:to|at)\b")


def bare_partial(request: Request, reply_text: str, sentence: str) -> re.Match[str] | None:
    """A bare participle report of the act on fewer than the request's one count, when no figure from its sentence
    on reaches the count."""
    asked = request.count
    if not request.commands or asked is None or asked < 2:
        return None
    stems = {v[:4] for v in request.verbs if len(v) >= 3}
    for report in BARE_REPORT.finditer(sentence):
        if report.group("verb")[:4].casefold() not in stems and not _TO_LEVEL.match(report.group("object")):
            continue
        # a figure, not a word: "Merged into one contact" to "Merge these 2 contacts" is the act, done on its own
        quantity = QUANTITY.search(report.group("object"))
        count = count_of(quantity) if quantity is not None and quantity.group("count")[0].isdigit() else None
        after = reply_text[max(reply_text.find(sentence), 0):]  # the whole restated before it is the ask
        if count is not None and 0 < count < asked and not _reaches_count(after, asked):
            return report
    return None


def _reaches_count(reply_text: str, asked: float) -> bool:
    return any((c := count_of(q)) is not None and c >= asked for q in QUANTITY.finditer(reply_text))


EARLIEST = rx(r"\b(?:at the earliest|no earlier than|frühestens|au plus tôt|como muy pronto|lo antes el)\b")
"""The earliest the act can take effect ("at the earliest", "frühestens", "au plus tôt")."""


def earliest(request: Request, sentence: str) -> re.Match[str] | None:
    """The earliest date of the act, against a request for an act."""
    if not request.commands or request.permission:
        return None
    return EARLIEST.search(sentence)
