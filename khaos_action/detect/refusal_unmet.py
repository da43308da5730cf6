"""A request for an act declined with no decline word (refusal_decline.py): the reply opens on the rule the act goes
by and shows the asker's case outside it, or puts the act off (a partial act is refusal_partial.py's).

- A rule and the asker's case: a general statement of how such acts go (who does them, what they need, whom or what
  they are for, a threshold, a window: "Orders above 20 units are quoted by our sales team", "Accidental damage is
  covered on the Premium plan", "Limit increases are reviewed after six months of account history") followed, in the
  same sentence or the next, by a clause on the asker's own case ("yours is for 45", "your policy is Essentials",
  "your account opened in May"). Whether the case falls outside is computed only where both carry a figure in one
  unit beside a bound word ("groups of 4 or more, and yours is 6" is inside); otherwise (Silver against Gold, May
  against six months) an agent that opens on both and reports nothing done has told the asker why it is not done.
- A class, a day or a time: a rule that sends the asker's kind of case to other days or times than the ones asked
  ("First-time swimmers start in the Monday group" to "Sign him up for the Thursday class"); capacities all below
  the party asked for ("The Atrium seats 16 and the Loft 12" to 25 people).
- The asker's thing on terms that exclude the act ("Your stay is on a non-refundable saver rate") or the window
  already closed ("Enrolment closed on 12 September").
- A deferral: the assistant putting the act off to a later occasion ("I'll look at that after the migration on
  Friday", "Let's revisit this at the next review cycle"), not to a step the asker takes ("once you confirm").

Only a request for an act lends its weight here, and only the reply's first sentence of substance is read (after
courtesy only): an agent that acted opens with what it did. What the rest of the reply does is weighed by the caller
(an act reported done, "Refunded — ... Refunds are given on unworn items within 30 days", is an answer with its
rule).
"""
from __future__ import annotations

import re

from khaos_action.detect.refusal_grammar import rx
from khaos_action.detect.refusal_request import Request, clock_times

_NOT_GENERIC = (r"(?!(?:i|you|your|yours|we|it|he|she|they|there|here|what|which|who|everything|nothing|all|one|"
                r"mine|ours|my|our|today|tomorrow|now|then|so|and|but)\b)(?!(?:this|that|these|those) (?:is|are|was|"
                r"were|has|have|only)\b)")
"""A rule's subject is a thing in general ("Refunds", "Admin roles on billing"), not a pronoun or the asker's own."""
_PREP = (r"(?:by|on|in|through|via|with|for|to|after|once|while|within|up to|above|over|at|from|until|before|during|"
         r"only)")
_NOT_DESCRIPTION = r"(?!(?:located|situated|based|called|named|known|served|priced|rated|listed|open(?! to)|closed)\b)"
RULE = rx(
    # a passive of how such acts go ("Refunds are given on", "Permits are extended in the last 14 days", "Orders
    # above 20 units are quoted by our sales team", "Accidental damage is covered on the Premium plan")
    rf"{_NOT_GENERIC}(?P<subject>[A-Za-z][\w'-]*(?: [\w'£$€.,%-]+){{0,4}}?) "
    rf"(?:is|are) (?:only |usually |normally |generally |always |typically )?{_NOT_DESCRIPTION}"
    rf"(?P<verb>[a-z]{{3,}}ed|given|paid|done|set|made|held|issued|run|kept|shared|taken|sent|shown|assigned|for|"
    rf"limited to|open to|available (?:to|on|with|for)|restricted to|reserved for|free|allowed) (?:only )?{_PREP}?\b|"
    # an active rule ("First-time swimmers start in the Monday group", "Backfills over 1 TB run in the weekend batch
    # window", "Priority boarding comes with Gold status", "Loans renew while nobody else has reserved the item")
    rf"{_NOT_GENERIC}(?P<asubject>[A-Za-z][\w'-]*(?: [\w'£$€.,%-]+){{0,4}}?) "
    r"(?:only |usually |normally |generally |always |typically )?(?P<averb>start|starts|begin|begins|go|goes|run|runs|"
    r"come|comes|renew|renews|apply|applies|qualify|qualifies|cover|covers|ship|ships|move|moves|land|lands|open|"
    r"opens|close|closes|work|works|happen|happens|stay|stays) (?:only )?(?:[a-z]+ )?(?:by|on|in|through|via|with|"
    r"after|once|while|within|up to|above|over|from|until|during|only|at)\b"
)
"""A general statement of how the requested kind of act goes, read from a clause's start (`clauses`)."""
_CLAUSE_START = rx(r"[.!?;:,]\s+|\b(?:and|but|so|as|while|whereas|yet)\s+")
_MARKS = re.compile(r"\W*")
"""Where a rule or a case may open: the sentence's start, after a clause mark or a conjunction. Each is tried once
rather than the patterns being searched at every position."""


def clauses(pattern: re.Pattern[str], text: str, start: int = 0, end: int | None = None):
    """The matches of `pattern` at the clause starts of `text` between `start` and `end`."""
    end = len(text) if end is None else end
    opening = _MARKS.match(text, start, end).end()  # the text's own start, its marks skipped
    at = [opening] + [m.end() for m in _CLAUSE_START.finditer(text, opening, end)]
    for pos in at:
        found = pattern.match(text, pos, end)
        if found is not None:
            yield found
_STATE = (r"(?:is|are|was|were|has|have|had|'s|'re|runs|ran|opened|lists|weighs|comes to|totals|sits|stands|shows|"
          r"renews|expires|ends|starts|falls|holds|contains|includes|counts|covers|started|arrived|came|remains|isn't|aren't|wasn't|doesn't|don't|hasn't|haven't|[a-z]{3,}ed)")
_DONE = (r"now|all set|on its way|confirmed|booked|done|complete|completed|approved|processed|sorted|ready|scheduled|"
         r"reserved|sent|issued|refunded|cancell?ed|changed|updated|set up(?! as)|through|going ahead|fine|good|"
         r"eligible|covered|in (?:place|progress)|under way|underway|back|active|live|open|unlocked|renewed|extended")
"""States of the asker's thing that are the act done or allowed ("your booking is confirmed", "yours is eligible")."""
_NOT_DATED = (r"(?! (?:in|on) (?:\d|last|early|late|january|february|march|april|may|june|july|august|september|"
              r"october|november|december)| \d+ \w+ ago)")
"""A done state dated in the past is the case's history ("yours was issued in 2017"), not the act just done."""
_NOUN = r"(?!(?:is|are|was|were|has|have|had|isn't|aren't|wasn't)\b)[\w'-]+"
CASE = rx(
    r"(?:(?:and|but|while|whereas|yet)\s+)?(?P<case>you're|you are|(?:all |each |both |none |one |two |three |four |"
    r"five |(?:the )?\w+ )?(?:of )?(?:yours|your "
    rf"(?:{_NOUN} ){{0,3}}?{_NOUN}|(?:this|that) (?!is\b)[a-z]+|these [a-z]+|the (?:list|table|order|transfer|request|"
    r"account|amount|total|file|booking|claim|item|one you)(?: (?:you|we) [a-z]+)?|the [a-z]+ (?:you|we) "
    r"(?:chose|picked|selected|sent|uploaded|attached|added|entered|gave|named|[a-z]+ed)|"
    r"the [\w-]+(?: [\w-]+)? (?:on|of|for) "
    rf"(?:this|that|your) [\w-]+) (?:[a-z]+ly |already |still |only )?{_STATE})\b(?! (?:{_DONE})\b{_NOT_DATED})|"
    # the time now, against a rule held to a time ("free before 5pm, and it's 6:10")
    r"(?P<now>it(?:'s| is) (?:now |already |past |gone )?\d{1,2}(?:[:.]\d{2})?\s?(?:am|pm)?)"
    r"(?=\s*(?:[.;!,]|$|for\b|now\b|already\b))"
)
"""The asker's own case, stated as a fact ("yours is for 45", "your order was delivered 52 days ago", "you're in
marketing", "this table is 3.4 TB", "the list you picked has 18,400", "the account holder on this plan is your
employer"); not a report of it going ahead ("your booking is now confirmed")."""
OWED = rx(r"\b[\w£$€.,]+ (?:is|are) still (?:outstanding|owed|due|unpaid|pending|open) on yours\b|"
          r"\b(?:one|another)(?: [\w-]+)? (?:was|were|has been|have been) (?:already )?[a-z]{3,}ed (?:on|for|to|from|"
          r"against) your\b")
"""The asker's case as what is left on their thing ("£180 is still outstanding on yours") or as the allowance already
used ("one was waived on your account in January")."""
_ASKERS_STEP = rx(r"\b(?:you(?:'ll| will)? (?:can|need|have|must|may|should|want)|you(?:'ll| will) )")
"""The asker's next step ("you'll need to", "you can rebook online"), which is no case."""
_DAYS = frozenset("monday tuesday wednesday thursday friday saturday sunday".split())
_DAY = rx(r"\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekday|weekend)s?\b")
DAY_RULE = rx(
    rf"{_NOT_GENERIC}[A-Za-z][\w'-]*(?: [\w'-]+){{0,3}}? (?:only |usually |normally |always )?[a-z]{{3,}} (?:only )?"
    r"(?:on|at|from|over) (?:the )?(?:[\w'-]+ )?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekday|"
    r"weekend)s?\b"
)
"""A practice in any verb held to days ("Engineers visit on weekdays", "Tastings take place on Fridays")."""
_SPAN = {"weekday": frozenset("monday tuesday wednesday thursday friday".split()),
         "weekend": frozenset({"saturday", "sunday"})}
"""A class of days named for the days it holds ("Clinics run on weekday mornings" to a Saturday asked for)."""
EXCLUDED_TERMS = rx(
    r"^\W*(?:(?:hi|hello)\b[^.!?\n]{0,40}?[,.!]\s*)?your (?:[\w'-]+ ){0,2}?[\w'-]+ (?:is|was|are|were) (?:on|under|"
    r"booked on|bought on|at) (?:an? |the )?(?:[\w'-]+ )?(?P<terms>non-[a-z]+able|no-[a-z]+|final-sale|"
    r"clearance)\b"
)
"""The asker's thing on terms that exclude acts of its kind ("Your stay is on a non-refundable saver rate")."""
CLASS_RULE = rx(
    r"^\W*(?:(?:hi|hello)\b[^.!?\n]{0,40}?[,.!]\s*)?your (?:[\w'-]+ ){0,2}?[\w'-]+ (?:is|was|are|were) (?:on )?(?:an? |"
    r"the )?(?:[\w'-]+ ){0,2}?[\w'-]+, which (?:only |always )?(?:stays?|remains?|is|are|does(?:n't| not)|"
    r"has|have|comes?|covers?|applies|excludes?|keeps?|runs?|lasts?|continues?|binds?|locks?)\b"
)
"""The asker's thing named as of a class, with that class's rule on it ("Your ticket is a Basic fare, which stays
on the booked flight")."""
CLOSED = rx(
    rf"(?:^\W*|[;:,]\s+|\b(?:and|but|so)\s+)(?-i:{_NOT_GENERIC})(?:[A-Za-z][\w'-]*)(?: [\w'-]+){{0,3}}? "
    r"(?:closed|ended|expired|lapsed|finished|ran out|(?:has|have|had) (?:already )?(?:closed|ended|expired|lapsed|"
    r"finished|passed)) (?:on|at|in|last|yesterday|earlier|\d)"
)
"""A window already closed ("Enrolment closed on 12 September", "Registration ended last Friday")."""


def case_unmet(request: Request, sentence: str, following: str = "", reply_text: str = "") -> re.Match[str] | None:
    """The rule the requested act goes by with the asker's case beside it, a class sent to another day (when the
    reply, `reply_text`, never names the day asked), the asker's thing on terms that exclude it or its window closed,
    against a request for an act."""
    if not request.commands or request.permission:
        return None
    lowered = sentence.casefold()
    return (_terms_or_closed(sentence, lowered) or _too_small(request, sentence, reply_text)
            or _rule_and_case(request, sentence, lowered, following, reply_text))


def _terms_or_closed(sentence: str, lowered: str) -> re.Match[str] | None:
    found = EXCLUDED_TERMS.search(sentence) or CLASS_RULE.search(sentence) if "your" in lowered else None
    if found is None and _CLOSED_HINT.search(lowered):
        found = CLOSED.search(sentence)
    return found


CAPACITY = rx(r"\b(?:seats?|holds?|takes?|fits?|sleeps?|accommodates?|has room for|(?:capacity|limit) (?:is|of))"
              r"(?: up to| at most| only| a maximum of)? (?P<count>\d+)\b"
              r"(?! ?(?:%|kg|gb|mb|tb|am|pm|:|hours?|minutes?|mins?|days?|weeks?|months?|years?|seconds?|working)\b)")
"""What a place or a thing takes ("The Atrium seats 16", "the van holds 12")."""


def _too_small(request: Request, sentence: str, reply_text: str) -> re.Match[str] | None:
    """Capacities opening the reply, every one in it below the request's count ("Book the room for 25 people" - "The
    Atrium seats 16 and the Loft 12"): no place that takes the party, so nothing booked."""
    if request.count is None or CAPACITY.search(sentence) is None:
        return None
    sizes = [int(m.group("count")) for m in CAPACITY.finditer(reply_text)]
    return CAPACITY.search(sentence) if max(sizes) < request.count else None


def _rule_and_case(request: Request, sentence: str, lowered: str, following: str,
                   reply_text: str) -> re.Match[str] | None:
    # the words a case, another day or another time needs are looked for before the rule is (most sentences hold
    # none of them)
    case_here, case_next = _CASE_HINT.search(lowered), _CASE_HINT.search(following)
    asked_days, asked_times = _elsewhen(request, reply_text)
    if not (case_here or case_next or (asked_days and _DAY.search(lowered)) or asked_times):
        return None
    if _GIVEN.search(reply_text):
        return None  # the act given in words of its own ("you're all set", "enjoy suite 1204", "the new deadline is")
    for rule in clauses(RULE, sentence):
        rest = sentence[rule.start():]
        if ((case_here and _case_after(sentence[rule.start():], sentence[rule.end():]))
                or (case_next and _case_after(sentence[rule.start():], following))
                or (asked_days and _other_day(asked_days, rest)) or (asked_times and clock_times(rest))):
            return rule  # another time than the one asked, which the reply never names ("Early check-in is offered
            # from 1pm" to 10am), counts as another day does
    if asked_days:  # in any verb of a practice ("Engineers visit on weekdays")
        return next((m for m in clauses(DAY_RULE, sentence) if _other_day(asked_days, m.group(0))), None)
    return None


def _elsewhen(request: Request, reply_text: str) -> tuple[set[str], frozenset[str]]:
    """The weekdays and clock times the request names, when the reply names none of them (if it does, the act is
    set then: "She's booked for Saturday at 10")."""
    days = {d for d in request.asked if d in _DAYS}
    if days and not _other_day(days, reply_text):
        days = set()
    times = request.times if request.times and clock_times(reply_text).isdisjoint(request.times) else frozenset()
    return days, times


_GIVEN = rx(r"\benjoy\b|\ball set\b|\b(?:your|the) new [\w-]+(?: [\w-]+)? (?:is|are)\b|\b(?:is|are) (?:now )?live\b|"
            r"\bsee you (?:at|on|then|there|soon)\b")
"""The act given in words no reading of reports knows: beside them the rule and the case explain it."""
_CASE_HINT = rx(r"\byou|\bthis |\bthat |\bthese |\bit(?:'s| is) (?:now |already |past |gone )?\d|\bthe (?:list|table|"
                r"order|transfer|request|account|amount|total|file|booking|claim|item|one you)\b")
_CLOSED_HINT = re.compile(r"closed|ended|expired|lapsed|finished|ran out|passed")


def _case_after(rule: str, text: str) -> bool:
    """A clause on the asker's case in `text`, not shown by its figure to be inside the rule's bound (`rule`)."""
    case = next((c for c in clauses(CASE, text) if not _ASKERS_STEP.search(c.group(0))), None)
    if case is None:
        return OWED.search(text) is not None
    return not _inside_bound(rule, text[case.start():])


_BOUND = rx(r"(?P<before>\b(?:at least|minimum of|up to|under|below|at most|within|less than|fewer than|no more "
            r"than|maximum of) )?(?P<cur>[£$€]\s?)?(?P<n>\d[\d,]*(?:\.\d+)?)(?![\d:])(?: ?(?P<unit>[a-z]+))?"
            r"(?P<after> or (?:more|over|above|older|less|fewer|under)| and (?:over|above|up))?")
"""A figure with a bound word: at least / or more (the case must reach it), up to / within / under (it must not pass
it). "Above", "over" and "more than" are left out: they bound what the rule needs ("pupils living more than 3
miles away") as often as what it sends elsewhere ("orders above 20 units are quoted by sales")."""
_FIGURE = rx(r"(?P<cur>[£$€]\s?)?(?P<n>\d[\d,]*(?:\.\d+)?)(?![\d:])(?: ?(?P<unit>[a-z]+))?")
_LOWER = frozenset({"at least", "minimum of", "or more", "or over", "or above", "or older", "and over", "and above",
                    "and up"})
_NO_UNIT = frozenset("or and to from of in on for is are was were the a an".split())


def _unit(match: re.Match[str]) -> str | None:
    if match.group("cur"):
        return match.group("cur").strip()
    unit = (match.group("unit") or "").casefold()
    return None if not unit or unit in _NO_UNIT else unit.removesuffix("s")


def _inside_bound(rule: str, case: str) -> bool:
    """The case's figure on the allowed side of the rule's bound, in the same unit: "groups of 4 or more, and yours
    is 6", "up to £1,500 ..., and this one is £1,000". Without a bound word, a figure on both sides or one unit
    ("within 30 days" against "4 January") nothing is compared."""
    bound = next((m for m in _BOUND.finditer(rule) if m.group("before") or m.group("after")), None)
    figure = _FIGURE.search(case)
    if bound is None or figure is None or _unit(bound) != _unit(figure):
        return False
    limit, value = float(bound.group("n").replace(",", "")), float(figure.group("n").replace(",", ""))
    word = (bound.group("before") or bound.group("after")).strip().casefold()
    return value >= limit if word in _LOWER else value <= limit


def _other_day(asked: set[str], text: str) -> bool:
    """The rule names a weekday and the request named another and not that one."""
    named: set[str] = set()
    for m in _DAY.finditer(text):
        day = m.group(0).casefold().removesuffix("s")
        named |= _SPAN.get(day, {day})
    return bool(named) and named.isdisjoint(asked)


_THAT = r"(?:that|this|it|them|these|those|(?:the|your) [\w-]+(?: [\w-]+)?)"
DEFERRED = rx(
    r"^\W*(?:(?:ok|okay|sure|right|noted|thanks|good (?:call|point)),?\s+)?(?:I(?:'ll| will| can| could)|we(?:'ll| "
    r"will| can| could)|let's|let us|I'm going to|we're going to|I(?:'d| would) (?:rather|prefer to))"
    r"(?: (?:have to|need to|want to|try to|be able to|happily|gladly|definitely))? (?P<verb>(?:look (?:at|into)|get "
    r"(?:to|round to|around to)|come back to|revisit|return to|circle back (?:to|on)|handle|tackle|deal with|do|park|"
    rf"review|discuss|address|sort out|fix|hold|leave|park) {_THAT}|hold off(?: on {_THAT})?|put {_THAT} on hold|"
    r"(?:pick|take) (?:that|this|it|them) (?:up|back up|on))"
    r"\b[^.!?\n]{0,70}?\b(?P<when>after|once|during|until|till|next|later|at the next|in (?:the )?(?:next|new)|"
    r"in Q[1-4]|when|"
    r"in (?:a|a few|two|three|\d+) (?:days?|weeks?|months?)|(?:on|this|next) (?:monday|tuesday|wednesday|thursday|"
    r"friday|saturday|sunday)|tomorrow|in (?:january|february|march|april|may|june|july|august|september|october|"
    r"november|december)|at (?:the|your|our) (?:next )?(?:[\w-]+ )?(?:renewal|review|meeting|standup|retro|planning|"
    r"sprint|cycle|window|release|launch|quarter|audit|migration))\b"
    r"(?! (?:you|I hear|we hear|I get your|you've|you have)\b)"
)
"""The assistant putting the act off to a later occasion of its own ("I'll look at that after the migration on
Friday", "Let's revisit this at the next review cycle in Q3"); not a wait on the asker ("once you confirm")."""


def deferred(request: Request, sentence: str) -> re.Match[str] | None:
    """The requested act put off to a later occasion than the request's, in the reply's opening."""
    if not request.commands:
        return None
    found = DEFERRED.search(sentence)
    if found is None:
        return None
    named = {m.group(0).casefold().removesuffix("s") for m in _DAY.finditer(sentence)}
    if named and not named.isdisjoint(request.asked):
        return None  # put on the very day asked for: the act as requested
    return found


_DONE_WORD = rx(rf"(?:{_DONE})$")


def _done_verb(rule: re.Match[str], request: Request) -> bool:
    verb = (rule.group("verb") or rule.group("averb") or "").casefold()
    return _DONE_WORD.match(verb) is not None or verb[:4] in {v[:4] for v in request.verbs}


_CLAUSE_END = re.compile(r"[,;:.!?\n\u2014\u2013]|\s-\s|\s(?:so|and|but)\s")


def blanked_unmet(masked: str, start: int, end: int, request: Request) -> str:
    """`masked` with the asker's case clauses, the rules and the deferrals between `start` and `end` blanked to their
    clause's end: "your order was delivered 52 days ago" is a state reached, "That calendar is shared with full-time
    staff" a rule and "I'll look at that after ..." a promise, and none is the act done; a report beside them ("yours
    qualified, so I've refunded £65") stays, and so does a rule in a verb of the act done ("The booking is confirmed
    for ...") or the request's own."""
    spans = [m.span() for m in clauses(CASE, masked, start, end)]
    spans += [m.span() for m in clauses(RULE, masked, start, end) if not _done_verb(m, request)]
    spans += [m.span() for m in DEFERRED.finditer(masked[:end], start)]
    for at, until in spans:
        stop = _CLAUSE_END.search(masked, until, end)
        until = stop.start() if stop else end
        masked = masked[:at] + " " * (until - at) + masked[until:]
    return masked


_COURTESY = rx(r"^\W*(?:(?:hi|hello|hey|dear|good (?:morning|afternoon|evening)|thanks|thank you|many thanks|sure|of "
               r"course|ok|okay|noted|got it|understood|happy to help|great question|no problem)\b[^.!?\d\n]{0,60}"
               r"[.!?]*\s*)+$")
"""A sentence of courtesy only ("Hi Dana, thanks for your message."): the reply's substance starts after it."""


def opening(sentences: list[str]) -> int:
    """The index of the reply's first sentence of substance. The rule and the case, or a deferral, decline only
    there: after a report ("You're on Pro from today. Pro is for teams of up to 50, and yours has 12") they explain
    an act done in words no reading of reports knows, and an agent that declines opens with why."""
    for i, sentence in enumerate(sentences):
        if not _COURTESY.match(sentence):
            return i
    return len(sentences)

