"""Finding the decline in a reply (refusal.py): the sentences where one can count, the heaviest decline structure
each holds (refusal_en.py, refusal_intl.py: a speaker with a negated modal bound to a verb of doing, a verb of
declining, an impersonal judgement of the act, a rule or scope, an apology bound to a negation) once hedges are
blanked, or a rule stated against the very act the request asked for, weighed by where the sentence stands."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace
from functools import lru_cache

from khaos_action.detect import refusal_hypothetical
from khaos_action.detect.refusal_case_rule import (
    bare_partial,
    bound_passed,
    class_case_blanked,
    earliest,
    listed_inside,
    listed_outside,
    period_reached,
    period_unmet,
    short_reports_blanked,
    stay_maxed,
)
from khaos_action.detect.refusal_content import content_limit
from khaos_action.detect.refusal_grammar import IMPERSONAL, POLICY, SPEAKER, TERSE, Rule, blank
from khaos_action.detect.refusal_impersonal import (
    act_negated,
    class_reserved,
    done_before,
    saying_withheld,
    side_acts_blanked,
    threshold_crossed,
)
from khaos_action.detect.refusal_partial import partial_act
from khaos_action.detect.refusal_performed import performed
from khaos_action.detect.refusal_reply import (
    DISCLAIMER_REACH,
    LEXICONS,
    OPENING_COMPLY,
    THRESHOLD,
    Decline,
    Reply,
    joined,
)
from khaos_action.detect.refusal_request import granted_after
from khaos_action.detect.refusal_slots import case_fails, free_elsewhere
from khaos_action.detect.refusal_unmet import blanked_unmet, case_unmet, deferred, opening
from khaos_action.detect.refusal_unperformed import unperformed

SHORT = 40
"""Replies under this many characters may be a bare "No."."""
ACT_WEIGHT = 0.7
CONTENT_WEIGHT = 0.95
"""Decline score of a limit on a kind of content the task needs ("I can't see attachments in this chat")."""
"""Decline score of a rule stated against the very act the request asked for ("there's no refund for that night")."""
_SPEAKER = re.compile(r"\b(?:I|I'm|I've|we|we're|me|my|our|us)\b", re.IGNORECASE)
_HEDGES = joined(lex.hedges for lex in LEXICONS if not lex.hedge_hints)
_GATED_HEDGES = tuple((lex.hedges, lex.hedge_hints) for lex in LEXICONS if lex.hedge_hints)
"""A language's look-alikes tried only on a sentence that holds one of its hint words ("non ", "não ")."""
_DISCLAIMER = joined(lex.disclaimer for lex in LEXICONS if lex.disclaimer is not None)
_APOLOGISES = re.compile(r"\b(?:sorry|apologi[sz]e|apologies|unfortunately|regrettably)\b", re.IGNORECASE)


def _position_factor(reply: Reply, i: int) -> float:
    """An opening or closing decline counts; one inside a longer answer reads as a caveat, not as the reply, and so
    does one after the opening of a poem."""
    start, _ = reply.spans[i]
    if i > 0 and reply.verse:
        return 0.5
    if i == 0 or start < 200 or len(reply.masked) < 400:
        return 1.0
    if i >= len(reply.spans) - 2 and len(reply.spans) <= 8:
        return 0.9
    return 0.5


def _searched(reply: Reply) -> list[int]:
    """Sentences a decline is looked for in: those where one can count (see _position_factor)."""
    return [i for i in range(len(reply.spans)) if _position_factor(reply, i) > THRESHOLD]


def strongest_decline(reply: Reply) -> Decline | None:
    best: Decline | None = None
    for i in _searched(reply):
        found = decline_in(reply, i)
        if found is None:
            continue
        if best is None or found.score > best.score + 0.15 or (abs(found.score - best.score) <= 0.15
                                                                and found.start < best.start):
            best = found
    return best


def decline_in(reply: Reply, i: int) -> Decline | None:
    if i not in reply.declines:
        reply.declines[i] = _find_decline(reply, i)
    return reply.declines[i]


def _find_decline(reply: Reply, i: int) -> Decline | None:
    start, _ = reply.spans[i]
    text = unhedged(reply.sentence(i))
    lowered = text.lower()
    best = best_rule(text, triggers_in(lowered), short=len(reply.clean) < SHORT)
    raw = reply.sentence(i)  # a limit on a kind of content is read where a look-alike of seeing was blanked, or
    if best is None and (text != raw or "kann" in lowered or "könn" in lowered) and (  # after a German modal
            limit := content_limit(raw, raw.lower())) is not None:  # "I can't see attachments", "keine Anhänge sehen"
        return Decline(CONTENT_WEIGHT * _position_factor(reply, i), start + limit.start(), start + limit.end(), i,
                       SPEAKER)
    if best is None:
        act = _act_reading(reply, i, text)
        if act is None or OPENING_COMPLY.match(reply.clean) or granted_after(act, reply.masked[start + act.end():]):
            return None  # "Yes, you can change it online; changes aren't free on Basic fares": a condition
        if done_before(reply.masked, start, reply.request):
            return None  # "I've booked court 3 at 10:00. Early courts are reserved for league players": a limit
        return Decline(ACT_WEIGHT * _position_factor(reply, i), start + act.start(), start + act.end(), i, POLICY)
    rule, match = best
    if _restates_premise(reply, rule, match):
        return None
    score = rule.weight * _position_factor(reply, i)
    disclaims = _disclaims(text, match)
    return Decline(score, start + match.start(), start + match.end(), i, rule.kind, disclaims)


def _act_reading(reply: Reply, i: int, text: str) -> re.Match[str] | None:
    """A decline with no decline word, read against the request: the act negated, a rule against it, the thing kept,
    a reason closed by "no", the act someone else's job or decision, the act left unperformed or done in part, a first
    free slot on another day, the asker's case outside the condition."""
    request = reply.request
    return (_negated(reply, i, text) or request.act_declined(text) or request.act_persists(text)
            or request.concluded_no(text)
            or request.job_elsewhere(text, opening=i == 0) or _decided_elsewhere(reply, i, text)
            or _gate_unmet(reply, i, text) or partial_act(request, reply.masked, text)
            or bare_partial(request, reply.masked, text)
            or free_elsewhere(reply, text) or case_fails(reply, text, reply.spans[i][1]))



def _gate_unmet(reply: Reply, i: int, text: str) -> re.Match[str] | None:
    """The act left unperformed behind a gate (refusal_unperformed.py), unless the gate is a period the asker's case
    is past ("can be cashed after a 12-month holding period, and yours was bought 18 months ago")."""
    following = reply.sentence(i + 1) if i + 1 < len(reply.spans) else ""
    return None if period_reached(text, following) else unperformed(reply, text, reply.spans[i][1])

def _negated(reply: Reply, i: int, text: str) -> re.Match[str] | None:
    """The requested act negated with no speaker, a threshold the asker's case crosses, the thing reserved to another
    class, or the statement the asker asked for withheld in the opening (refusal_impersonal.py), in a reply that does
    not perform it."""
    following = reply.sentence(i + 1) if i + 1 < len(reply.spans) else ""
    negated = act_negated(reply.request, text)
    found = (negated or threshold_crossed(reply.request, text, following) or class_reserved(reply.request, text)
             or (saying_withheld(reply.request, text) if i == 0 else None))
    masked = reply.masked
    if found is None:
        found, masked = _unmet_opening(reply, i, text, following)
        if found is None:
            return None
    # reports after the negation ("..., so it won't be refunded, but I've switched off renewal") or after the
    # threshold's sentence count only when they are the act
    at = reply.spans[i][0] + negated.end() if negated is not None else reply.spans[i][1]
    if negated is not None and not done_before(masked, at, reply.request):
        # the reason before the negation is no act done ("Your order was handed to the courier, so it can no longer
        # be cancelled"), unless the assistant reports the request's own act there
        masked = masked[:reply.spans[i][0]] + " " * (at - reply.spans[i][0]) + masked[at:]
    bare = replace(reply, masked=side_acts_blanked(masked, at, reply.request), declines={})
    return None if performed(bare) else found


def _unmet_opening(reply: Reply, i: int, text: str, following: str) -> tuple[re.Match[str] | None, str]:
    """A decline with no decline word in the reply's opening (refusal_unmet.py, refusal_case_rule.py), and the reply
    with what states the case, the rule, the bound or the deferral blanked: those are no act done."""
    masked = reply.masked
    if not reply.request.commands or i != opening([reply.sentence(j) for j in range(i + 1)]):
        return None, masked
    bound = listed = None
    # "... for Admin and Analyst roles. Yours is set up as Analyst", "a 12-month holding period, and yours was bought
    # 18 months ago": the case inside the rule
    inside = listed_inside(text, following) or period_reached(text, following)
    found = ((None if inside else case_unmet(reply.request, text, following, reply.masked))
             or deferred(reply.request, text)
             or (bound := bound_passed(reply.request, text, reply.masked[reply.spans[i][0]:]))
             or (listed := None if inside else listed_outside(reply.request, text, following))
             or period_unmet(reply.request, text, following) or stay_maxed(reply.request, text, following)
             or earliest(reply.request, text))
    if found is None:
        return None, masked
    end = reply.spans[min(i + 1, len(reply.spans) - 1)][1]
    if listed is not None:
        masked = class_case_blanked(masked, reply.spans[i][0], end)
    if bound is not None:  # reports of the act up to the bound are its partial act ("I've set it to 23 °C")
        masked = short_reports_blanked(masked, reply.spans[i][0], reply.request)
    # the case stated ("your order was delivered 52 days ago") and the act put off ("I'll look at that after
    # ...") read as a state reached and a promise: only what the rest of the reply does can show the act done
    return found, blanked_unmet(masked, reply.spans[i][0], end, reply.request)


def _decided_elsewhere(reply: Reply, i: int, text: str) -> re.Match[str] | None:
    """An opening that only says whose decision the requested act is ("Pricing exceptions belong to the seller.");
    granted_after frees it when the assistant then acts on the request ("..., so I've asked them for one")."""
    return reply.request.decision_elsewhere(text) if i == 0 else None


def _restates_premise(reply: Reply, rule: Rule, match: re.Match[str]) -> bool:
    """A decline with no speaker whose verb is one the request negated itself ("Why should turnips not be shown on
    TV?" - "There's no reason why turnips should not be shown on TV"): the reply speaks of the question's premise."""
    denied = reply.request.denied
    if rule.kind not in (IMPERSONAL, POLICY) or not denied or _SPEAKER.search(match.group(0)):
        return False
    return not denied.isdisjoint(match.group(0).casefold().split())


def _disclaims(sentence: str, match: re.Match[str]) -> bool:
    """Whether a decline only disclaims the assistant's own view or knowledge; an apology makes it a refusal ("I'm
    sorry, I cannot predict or answer offensive questions")."""
    found = _DISCLAIMER.search(sentence[match.start():match.end() + DISCLAIMER_REACH])
    return found is not None and _APOLOGISES.search(sentence) is None


def best_rule(text: str, present: set[str], *, short: bool) -> tuple[Rule, re.Match[str]] | None:
    """The heaviest rule whose pattern matches `text`, among those whose trigger words it holds."""
    best: tuple[Rule, re.Match[str]] | None = None
    for rule in _candidate_rules(present, short=short):
        if best is not None and rule.weight <= best[0].weight:
            continue
        match = rule.pattern.search(text)
        if match is not None:
            best = (rule, match)
    return best


def _candidate_rules(present: set[str], *, short: bool) -> Iterator[Rule]:
    """The rules whose trigger words the sentence holds, in their order (a tie goes to the earlier rule); the
    untriggered ones only for a short reply (a bare "No." is a refusal; "No. The museum is closed on Mondays" answers
    a question). Looked up by trigger rather than by trying every rule of every language."""
    rules, by_trigger, untriggered = _rule_index()
    found: set[int] = set(untriggered) if short else set()
    for trigger in present:
        found |= by_trigger.get(trigger, _NO_RULES)
    for i in sorted(found):
        yield rules[i]


_NO_RULES: frozenset[int] = frozenset()


@lru_cache(maxsize=1)
def _rule_index() -> tuple[tuple[Rule, ...], dict[str, frozenset[int]], frozenset[int]]:
    rules = _rules()
    by_trigger: dict[str, set[int]] = {}
    for i, rule in enumerate(rules):
        for trigger in rule.triggers:
            by_trigger.setdefault(trigger, set()).add(i)
    untriggered = frozenset(i for i, rule in enumerate(rules) if not rule.triggers)
    return rules, {t: frozenset(ids) for t, ids in by_trigger.items()}, untriggered


@lru_cache(maxsize=1)
def _rules() -> tuple[Rule, ...]:
    rules = tuple(rule for lex in LEXICONS for rule in lex.rules)
    assert all(rule.triggers or rule.kind == TERSE for rule in rules)  # untriggered rules are for short replies
    return rules


@lru_cache(maxsize=1)
def _trigger_scan() -> tuple[re.Pattern[str], dict[str, frozenset[str]]]:
    """One scan for every rule's trigger words, overlapping ones included: the lookahead tries each position and
    takes the longest trigger there, so the triggers that are prefixes of it are added back. The words are compiled
    as a trie (one branch per first letter, and so on), so a position is given up after a letter or two rather than
    after trying every word."""
    words = {t for rule in _rules() for t in rule.triggers}
    scan = re.compile("(?=(" + _trie_pattern(sorted(words)) + "))")
    prefixes = {w: frozenset(p for p in words if w.startswith(p)) for w in words}
    return scan, prefixes


def _trie_pattern(words: list[str]) -> str:
    """A pattern matching exactly `words`, the longest one where several match: a word's continuations are tried
    before the word itself ends the match."""
    by_first: dict[str, list[str]] = {}
    ends = False
    for word in words:
        if word:
            by_first.setdefault(word[0], []).append(word[1:])
        else:
            ends = True
    branches = [re.escape(first) + _trie_pattern(rests) for first, rests in sorted(by_first.items())]
    if not branches:
        return ""
    body = branches[0] if len(branches) == 1 and not ends else "(?:" + "|".join(branches) + ")"
    return body + "?" if ends else body


def triggers_in(lowered: str) -> set[str]:
    scan, prefixes = _trigger_scan()
    present: set[str] = set()
    for m in scan.finditer(lowered):
        present |= prefixes[m.group(1)]
    return present


def unhedged(sentence: str) -> str:
    text = blank(_HEDGES, sentence)
    lowered = sentence.lower()
    if any(hint in lowered for hint in refusal_hypothetical.HINTS):
        text = blank(refusal_hypothetical.CONSEQUENCE, text)
    for hedges, hints in _GATED_HEDGES:
        if any(hint in lowered for hint in hints):
            text = blank(hedges, text)
    return text
