"""The requested act negated impersonally (refusal_decline.py): a request for an act ("Please cancel my order", "Start
the deploy job", "Close ticket INC-4471") met by a sentence that says, with no speaker, that the act cannot or will not
happen to the thing: in the passive or with the thing as subject ("..., so it can no longer be cancelled", "so the
deploy job can't start while they are skipped", "it won't be closed until the problem record is resolved", "the
booking won't be transferred to another passenger").

The negated verb must be the request's own verb; or, after "so" or a reason, the subject must be the request's thing
(or "it" / "they" standing for it) and the verb one of doing, not a reassurance ("your card won't be charged", "the
booking won't be affected"). The same words inside an answer to a question of fact or of policy ("What's your return
policy?" - "opened software can no longer be returned") are no decline: only a request for an act lends its verb.
"""

from __future__ import annotations

import re

from khaos_action.detect.refusal_gated import is_request_verb
from khaos_action.detect.refusal_grammar import rx
from khaos_action.detect.refusal_request import Request, clock_times, content_words

NEGATED = rx(
    r"\b(?P<subject>[\w'-]+) (?:can't|cannot|can not|can no longer|could not|couldn't|won't|will not|is not|isn't|"
    r"are not|aren't|is no longer|are no longer|won't ever|will never|can never)(?: (?:yet|now|currently|be able to))?"
    r"(?P<passive> be)?(?: (?:\w+ly))? (?P<verb>[a-z]{3,})\b"
)
"""A negated modal or copula with no speaker before its verb ("it can no longer be cancelled", "the job can't
start")."""
_SPEAKERS = frozenset("i we you i'm we're you're".split())
_PRONOUNS = frozenset("it they this that these those".split())
_REASON = rx(r"\b(?:so|because|since|as|which means|therefore|until|while|and)\b|[,;:]")
"""A reason before the negation, or a condition after it: "..., so it can no longer be cancelled"."""
_REASSURED = frozenset(
    "charged billed affected lost deleted touched changed penalised penalized shared sold disclosed visible "
    "exposed harmed impacted delayed interrupted cut reset wiped needed required asked".split())
"""Verbs of what will not happen to the asker's thing: a reassurance, no decline ("your data won't be deleted")."""
_NOT_AN_ACT = frozenset("the a an any only just able allowed sure going possible".split())


def act_negated(request: Request, sentence: str) -> re.Match[str] | None:
    """The negation in `sentence` of the act `request` asks for, stated with no speaker, when it asks for one."""
    if not request.commands or request.permission:
        return None
    for match in NEGATED.finditer(sentence):
        subject = match.group("subject").casefold()
        verb = match.group("verb").casefold()
        if subject in _SPEAKERS or verb in _NOT_AN_ACT:
            continue
        if is_request_verb(verb, request) and (match.group("passive") or _is_thing(subject, request)
                                               or subject in _PRONOUNS):
            return match
        if (match.group("passive") and verb.endswith("ed") and verb not in _REASSURED
                and _is_thing(subject, request) and _REASON.search(sentence, 0, match.start())):
            return match
    return None


def _is_thing(word: str, request: Request) -> bool:
    """The request's thing: one of its content words (its first five letters), or a pronoun standing for it."""
    return word in _PRONOUNS or word.removesuffix("s")[:5] in request.acts


REPORTED = rx(r"\b(?:I|we)(?:'ve| have)(?: just| now| already| also)? (?P<verb>re-?\w+|[a-z]{2,}ed|[a-z]+en|sent|put|"
              r"set|made|done|paid|held|built|let|found|bought)\b"
              r"(?P<object>(?:[^.;:!?\n]|(?<=\d)[:.](?=\d)){0,80})")
"""What the assistant reports having done, with the words after it."""
_OBJECT_END = rx(r"\b(?:to|for|from|with|at|on|in|into|as|by|so|and|but|because|since|if|when|once|until|that|"
                 r"which)\b")
_FOR_APPROVAL = rx(r"\b(?:review|approval|approve|approver|sign-off|queue|confirmation|reminder|note)\b")
"""The request's thing put up for someone's approval or noted for later: a step of the procedure, not the act."""


def side_acts_blanked(masked: str, start: int, request: Request) -> str:
    """`masked` with every report after `start` that is not the requested act blanked out: after the act negated,
    "I've added a £5 credit to your account for the delay" or "I've re-run the whole pipeline" is a goodwill gesture
    or a different job, no act done. A report is the act when its verb is the request's or its direct object (up to
    the first preposition) names the request's thing, it puts nothing up for approval and names no other time than
    the request's (`Request.times`: "I've booked you on the 7:30" to "Book me on the 7am ferry" is a placeholder). A
    promise behind a step the asker must take ("Reply 'confirm' and I'll book it") is blanked too."""
    stems = {w[:4] for w in request.asked}
    for match in REPORTED.finditer(masked, start):
        obj = match.group("object")
        end = _OBJECT_END.search(obj)
        named = any(w[:4] in stems for w in content_words(obj[:end.start()] if end else obj))
        elsewhen = bool(request.times) and not clock_times(obj) <= request.times
        if (is_request_verb(match.group("verb"), request) or named) and not (_FOR_APPROVAL.search(obj) or elsewhen):
            continue
        masked = _blank(masked, match)
    for match in ASKERS_STEP.finditer(masked, start):
        masked = _blank(masked, match)
    return masked


ASKERS_STEP = rx(r"(?:^|(?<=[.!?\n]))\s*(?:just |simply |please )?(?:reply|respond|send|confirm|text|upload|pay|"
                 r"sign|let me know|tell me)\b[^.!?\n]*?\band (?:I|we)(?:'ll| will)\b[^.!?\n]*")
"""A promise behind a step the asker must take first ("Reply 'confirm' and I'll book it"): nothing done yet."""


def done_before(masked: str, end: int, request: Request) -> bool:
    """The assistant reports the request's own act done before `end` ("I've booked court 3 at 10:00. Early courts are
    reserved for league players"): a rule stated after it is a limit beside the act, no decline."""
    return any(is_request_verb(m.group("verb"), request) for m in REPORTED.finditer(masked, 0, end))


def _blank(masked: str, match: re.Match[str]) -> str:
    return masked[:match.start()] + " " * (match.end() - match.start()) + masked[match.end():]


_NUMBER = r"(?:[£$€]\s?)?\d[\d,.]*|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|fifty|a hundred"
THRESHOLD = rx(
    rf"\b(?:above|over|more than|exceeding|beyond|in excess of|larger than|greater than|bigger than|upwards of) "
    rf"(?:{_NUMBER})\b[^.;:!?\n]{{0,80}}?\b(?:needs?|requires?|(?:is|are) held|(?:is|are) subject to|(?:has|have|must) "
    r"(?:to )?(?:go|be)|go(?:es)? (?:to|through)|(?:is|are) (?:only )?(?:approved|signed off|reviewed|checked))\b"
)
"""A threshold and what a case above it needs ("Meals above £150 need your director's sign-off", "Bulk sends to more
than 50 recipients are held for an admin's approval")."""
CROSSED = rx(
    rf"\b(?:this one|yours|your (?:[\w-]+ ){{0,2}}?[\w-]+|it|the total|the amount) (?:is|has|comes to|totals|runs to|"
    rf"contains|counts|includes|'s) (?:(?:about|around|nearly|almost|over|above|already) )?(?:{_NUMBER})\b"
)
"""The asker's own case stated with its figure ("and this one is £212", "your list has 214")."""


def threshold_crossed(request: Request, sentence: str, following: str = "") -> re.Match[str] | None:
    """A threshold the requested act needs someone's approval or confirmation above, with the asker's case stated
    over it in the same sentence or the next (`following`), when the request asks for an act: what follows ("I've
    sent it to Priya for approval", "Reply 'confirm' and I'll book it") is a step the asker's case must take, not the
    act done."""
    if not request.commands:
        return None
    found = THRESHOLD.search(sentence)
    if found is None or not (CROSSED.search(sentence, found.end()) or CROSSED.search(following)):
        return None
    return found


CLASS_RESERVED = rx(
    r"\b(?:is|are|'s|'re) (?:only |strictly |just )?(?:reserved |kept |meant |intended |set aside )?(?:only )?for "
    r"(?!(?:you|yours|your)\b)(?:[\w'-]+ ){0,3}?[\w'-]+[^.;:!?\n]{0,40}?"
    r"(?:[;:]|,? (?:while|whereas|but|and)) (?!(?:you|I|we)\b)(?:[\w'-]+ ){0,3}?[\w'-]+ (?:can|may|are|is|get|gets) "
    r"(?:only )?(?:cleared|allowed|permitted|welcome|limited|restricted|eligible|play|book|use|join|come|enter|board|"
    r"dive|go|start|take|ride|sit|attend|stay|apply)\b"
)
"""The thing reserved to a class, then what another class may do ("reserved for members' competitions; guests can
play from 11:30", "which is for Advanced certified divers; Open Water is cleared to 18 m"): the asker's class named
beside the one the thing is kept for."""


def class_reserved(request: Request, sentence: str) -> re.Match[str] | None:
    """A thing reserved to one class beside what another class may do, against a request for an act."""
    if not request.commands or request.permission:
        return None
    return CLASS_RESERVED.search(sentence)


SAYING_WITHHELD = rx(
    r"^\W*(?:(?:honestly|frankly|sorry|look|well),? )?(?:I(?:'d| would)(?: only)? be (?:guessing|lying|misleading you|"
    r"making (?:it|that) up|doing you a disservice)|I (?:wouldn't|would not|couldn't|could not) be (?:honest|truthful|"
    r"straight with you)|I(?:'d| would)(?:n't| not) (?:feel right|be comfortable))\b[^.;:!?\n]{0,20}?\bif I "
    r"(?:said|told you|say|confirmed|promised|agreed)(?: (?:that|so|it|this))?\b(?! (?:was|is|were|would)\b)|"
    r"^\W*I (?:can't|cannot|can not|couldn't) (?:honestly |truthfully |in good conscience )?(?:say|tell you|"
    r"confirm|promise|agree) (?:that|so|it|this)\s*(?:[-\u2013\u2014,:;.!]|$)"
)
"""The asked-for statement withheld in the opening ("I'd be guessing if I said that", "I wouldn't be honest if I told
you that", "I can't honestly say that"): a decline of what the user asked the assistant to say, its reasons after."""


def saying_withheld(request: Request, sentence: str) -> re.Match[str] | None:
    """The opening sentence's refusal to assert what the request asked the assistant to say."""
    return SAYING_WITHHELD.search(sentence) if request.asks_to_say else None
