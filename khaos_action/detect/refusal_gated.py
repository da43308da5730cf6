"""The requested act gated (refusal_performed.py, refusal_unperformed.py): a reply that says the act happens only
through a channel or a proof ("The lock only opens from the owner's app", "Prizes are paid only on presentation of
the original ticket"), goes through a procedure ("Restarts go through a change ticket"), has to be done some other
way ("Imports have to be declared at the price paid") or only in a window ("during open enrolment or within 30 days
of a marriage"). Beside such a gate, what the assistant reports doing performs the request only when it is the act
asked for: its verb is the request's, or its object is the request's thing ("I've resent the pickup code" to "Send
the code again"); a code resent, a ticket drafted, a pull request opened or a form filled in some other way is the
gate's procedure or an alternative, not the act ("Push my fix straight to main" - "..., so I've opened a pull request
and requested a review"). A promise made on a condition the asker has yet to show ("If you married recently, send me
the certificate and I'll add him") performs nothing either. English, German, French and Spanish.
"""

from __future__ import annotations

import re
from functools import lru_cache

from khaos_action.detect.refusal_grammar import rx
from khaos_action.detect.refusal_request import Request, content_words

_PROCEDURE = (r"(?:review|reviews|approval|approvals|gate|gates|inspection|ticket|tickets|request|requests|queue|"
              r"process|procedure|check|checks|committee|board|sign-off|workflow|pipeline|audit|verification|"
              r"pull request|merge request|CAB|"
              r"Freigabe|Prüfung|Antrag|Ticket|Genehmigung|validation|revue|demande|ticket|vérification|commission|"
              r"revisión|aprobación|solicitud|ticket|comité|verificación)")
_NOT_ASKER = (r"(?<!\byou )(?<!\byou'll )(?<!\bwill )(?<!\bI )(?<!\bwe )(?<!\bthey )(?<!\bjust )(?<!\bonly )"
              r"(?<!\balso )(?<!\bstill )")
"""Not the asker's or the speaker's own need or duty ("you just have to answer a few questions", "I need 1 ticket")."""
_PROCEDURE_WORD = rx(rf"{_PROCEDURE}|review|approv|ticket|request")
_OBLIGATION = (
    rf"{_NOT_ASKER}(?:has to|have to|must|needs? to|"
    r"are required to|is required to) (?:be (?:[a-z]+(?:ed|en)|done|made|paid|kept|held|sent|set|put)\b|"
    r"(?!be\b|get\b|go\b)[a-z]+\b)|"
    r"\b(?:muss|müssen) (?:\w+ ){0,3}?(?:ge\w+t|\w+iert) werden\b|"
    r"\b(?:doit|doivent) être \w+(?:é|ée|és|ées)\b|\b(?:tiene|tienen) que (?:ser |estar )?\w+(?:ad|id)[oa]s?\b|"
    r"\b(?:debe|deben) ser \w+(?:ad|id)[oa]s?\b"
)
"""The act's manner prescribed ("have to be declared at the price paid", "need to show the hours worked"): a report
beside it that is not the act asked for is the act done the prescribed way."""
OBLIGED = rx(_OBLIGATION)
GATE = rx(
    # only through a channel, a credential or a proof ("only opens from the owner's app", "released only against the
    # QR code", "are paid only on presentation of", "can only be moved by phoning the practice", "only go out once
    # you approve them")
    r"\bonly\b(?: (?-i:[a-z'-]+)){0,4}? (?:from|with|through|via|against|using|on presentation of|on production of|by "
    r"(?:phon|call|email|writ|visit|post)\w*|once you|after you|when you|in person|at the (?:counter|desk|branch|"
    r"office|practice|clinic))\b|"
    r"\bnur (?:\w+ )?(?:mit|über|gegen|per|persönlich)\b|\bne (?:\w+ ){0,3}?(?:qu'avec|qu'en|que par|que sur|que "
    r"contre|qu'à)\b|\b(?:solo|sólo|únicamente) (?:\w+ ){0,3}?(?:con|contra|mediante|desde|por teléfono|en persona)\b|"
    # a procedure ("Restarts go through a change ticket", "is subject to approval", "laufen über ein Change-Ticket",
    # "passent par une validation", "pasan por revisión")
    rf"\b(?:goes|go|has to go|have to go|must go|needs? to go|runs?|pass(?:es)?|(?:is|are) (?:handled|processed|done|"
    rf"managed|routed|made|approved|decided)) (?:through|via) (?:an? |the |our |your )?"
    rf"(?:[\w-]+ ){{0,2}}?{_PROCEDURE}\b|\b(?:is|are) subject to (?:an? |the )?(?:[\w-]+ ){{0,2}}?{_PROCEDURE}\b|"
    rf"{_NOT_ASKER}\b(?:needs?|requires?|calls? for) (?:an? |the |two |a second )?(?:[a-z-]+ ){{0,2}}?{_PROCEDURE}\b|"
    # a requirement ("Rate limits above 5k need an enterprise plan", "Deliveries to flats need a signature")
    rf"{_NOT_ASKER}\b(?:needs?|requires?) (?:an?|the|your|their|his|her|at least|a second|two) (?!(?:few|bit|little|"
    r"moment|minute|second|day|while)\b)|"
    r"\b(?:is|are) gated (?:on|by|behind)\b|"
    rf"\b(?:läuft|laufen|geht|gehen) (?:\w+ )?über (?:ein|eine|einen|den|die|das) (?:[\w-]+ )?(?:\w+-)?{_PROCEDURE}|"
    rf"\b(?:passe|passent) par (?:une?|la|le|les) (?:[\w-]+ )?{_PROCEDURE}|"
    rf"\b(?:pasa|pasan) por (?:una? |la |el )?(?:[\w-]+ )?{_PROCEDURE}|"
    rf"{_OBLIGATION}|"
    # a window the act is open in ("during open enrolment", "within 30 days of a marriage", "in the final month of a
    # contract", "in the first two weeks of term")
    r"\bduring\b|\bwithin (?:\d+|one|two|three|seven|ten|fourteen|thirty|sixty|ninety) (?:\w+ )?(?:days?|weeks?|"
    r"months?|hours?) (?:of|after|from)\b|\bonly (?:[a-z]+ ){0,3}?(?:before|after|between|until|by) (?:the )?\d|"
    # the act done once a condition is met ("Deposits are released once the check-out inspection is signed")
    r"\b(?:is|are) (?:only )?[a-z]+ed (?:once|after|when|as soon as) (?!you(?:'ve| have)? (?:asked|requested)\b)|"
    r"\bin the (?:first|last|final|opening) (?:\w+ )?(?:days?|weeks?|months?|"
    r"hours?) of\b|\b(?:während|innerhalb von \d+ (?:Tagen|Wochen|Monaten))\b|\bpendant (?:la|le|les)\b|"
    r"\bdans les \d+ jours\b|\bdurante\b|\bdentro de los \d+ días\b"
)
"""The act gated by a channel, a proof, a procedure, a prescribed manner or a window."""

CONDITIONAL_PROMISE = rx(
    r"(?:^|[.!?;]\s+)(?:if|wenn|falls|si)\b(?! (?:you )?(?:tell|let me know|give|send|confirm|choose|pick|share|"
    r"provide|reply|want|wish|'d like|would like|like|prefer|need|have any|change your mind)\b)[^.!?\n]{0,120}?"
    r"\b(?:I|we)(?:'ll| will)\b"
)
"""A promise of the act made on a condition of the asker's eligibility ("If you married recently, send me the
certificate and I'll add him", "If either applies, tell me and I'll rebook you"); not one that waits for a detail
of the act ("If you tell me the date, I'll move it") or an offer ("If you'd like, I'll ...")."""
_REPORT = rx(
    r"\b(?:I|we)(?:'ve| have)(?: just| now| already| also)? (?P<verb>[a-z]{2,}ed|[a-z]+en|re-?sent|sent|put|set|made|"
    r"done|paid|held|built|told|let|cut|found|brought|bought|spent|split)\b(?P<object>[^.;:!?\n]{0,80})|"
    r"\b(?:I|we)(?:'ll| will) (?P<promised>[a-z]+)\b(?P<promised_object>[^.;:!?\n]{0,50})|"
    r"\b(?:ich|wir) (?:habe|haben) (?P<de_object>(?:\w+ ){0,5}?)(?P<de_verb>ge\w+(?:t|en)|\w+iert|an\w*gelegt)\b|"
    r"\b(?:j'ai|nous avons|je (?:(?:vous|te|lui|leur|les) |l')+ai|nous (?:(?:vous|te|lui|leur|les) |l')+avons)"
    r"(?: (?:donc|bien|déjà|aussi|alors))? (?P<fr_verb>\w+[ée]s?)\b(?P<fr_object>[^.;:!?\n]{0,50})|"
    r"\b(?:he|hemos) (?P<es_verb>\w+(?:ado|ido|cho|to|sto))\b(?P<es_object>[^.;:!?\n]{0,50})"
)
"""What the assistant reports doing or promises, with its verb and the words after it."""
_OBJECT_END = rx(r"\b(?:to|for|from|with|at|on|in|under|into|as|by|so|and|but|because|since|if|when|once|until|"
                 r"that|which|à|pour|avec|de|du|des|par|para|con|por|en|a|für|mit|an|auf|zu)\b")
_CONDITIONAL = rx(r"^\W*(?:if|once|when|as soon as|wenn|sobald|falls|si|dès que|una vez|cuando)\b")
"""A sentence that opens on a condition: its promise waits for the asker ("If that applies, send X and I'll ...")."""
_CONDITION = rx(r"\b(?:if|when|once|unless|until|wenn|sobald|falls|si|quand|cuando|una vez)\b")
_CLAUSES = re.compile(r"[;:]\s+|,\s+(?=(?:but|and|so|while|whereas|aber|mais|pero)\b)")
_SENTENCES = re.compile(r"[^.!?\n]+[.!?]*")


_HINTS = ("only", "through", "via", "subject", "need", "requir", "gated", "has to", "have to", "must", "during",
          "within", "in the ", "once", "after", "when", "as soon", "before", "until", " by ", "nur", "über",
          "qu'", "solo", "sólo", "únicamente", "läuft", "laufen", "geht", "gehen", "passe", "pasa", "muss", "müssen",
          "doit", "doivent", "tiene", "debe", "während", "innerhalb", "pendant", "dans les", "durante", "dentro de",
          "wenn", "falls", "si ", "if")
"""Words one of which every gate holds: a sentence with none is not searched (the gate patterns are long)."""


def gated_request(text: str, request: Request, *, opening: bool) -> re.Match[str] | None:
    """See `_gated_request`; a sentence without a gate's words is passed over at once, and a sentence is read once
    per request however often its reply asks."""
    lowered = text.casefold()
    if not any(hint in lowered for hint in _HINTS):
        return None
    return _gated_request(text, request.acts, opening)


@lru_cache(maxsize=256)
def _gated_request(text: str, acts: frozenset[str], opening: bool) -> re.Match[str] | None:
    """A gate in `text` on the requested act (a channel, a proof, a procedure, a prescribed manner, a window, or the
    act promised on a condition of the asker's): in a clause that names what the request named (a word sharing its first
    four letters with one of the request's) or that opens the reply (`opening`), whatever words name the act there;
    "I've unlocked the lobby door; the lift only works with a resident fob" gates something else."""
    start = 0
    for i, end in enumerate([*(m.start() for m in _CLAUSES.finditer(text)), len(text)]):
        clause = text[start:end]
        found = GATE.search(text, start, end) or CONDITIONAL_PROMISE.search(text, start, end)
        if found is not None and ((opening and i == 0) or _names(clause, acts)):
            return found
        start = end
    return None


def _names(text: str, acts: frozenset[str]) -> bool:
    stems = {stem[:4] for stem in acts}
    return any(word[:4] in stems for word in content_words(text))


def reports(text: str, request: Request, *, obliged: bool = True) -> list[bool]:
    """For each act the reply reports done or promises: whether it is the act the request asked for (`_is_the_act`;
    `obliged`: the gate prescribes the act's manner). A promise in a sentence that opens on a condition counts as no
    act."""
    found = []
    for sentence in _SENTENCES.finditer(text):
        conditional = _CONDITIONAL.match(sentence.group(0)) is not None
        for match in _REPORT.finditer(sentence.group(0)):
            if _CONDITION.search(sentence.group(0), 0, match.start()):
                found.append(False)  # "... or when we have changed your schedule": a condition, no act done
                continue
            groups = {k: v for k, v in match.groupdict().items() if v is not None}
            verb = next(groups[k] for k in ("verb", "promised", "de_verb", "fr_verb", "es_verb") if k in groups)
            obj = next((groups[k] for k in ("object", "promised_object", "de_object", "fr_object", "es_object")
                        if k in groups), "")
            if conditional and "promised" in groups:
                found.append(False)
                continue
            found.append(_is_the_act(verb, obj, request, obliged=obliged))
    return found


_ALTERNATIVE = rx(
    r"^(?:drafted|filed|raised|opened|submitted|requested|paged|pinged|notified|escalated|flagged|logged|queued|routed|"
    r"forwarded|created|assigned|tagged|started|reminded|referred|angelegt|informiert|eingereicht|weitergeleitet|"
    r"ouvert|soumis|transmis|créé|abierto|enviado|pedido|solicitado|creado|remitido)\b|"
    rf"\b(?:{_PROCEDURE}|codes?|links?|pin|otp|one-time|passcode|form|forms|reminder|reminders|case|application|"
    r"checklist|copy|note|message|approver|approvers|reviewer|reviewers|PR|instead|formulaire|rappel|lien|código|enlace|recordatorio|"
    r"formulario|Erinnerung|Formular|Link)\b|\b[A-Z]{2,5}-\d+\b"
)
"""A report of the procedure itself, or of a credential, a link or a reminder handed over in place of the act."""
_FOR_APPROVAL = rx(r"\b(?:review|approval|sign-off|pull request|merge request|PR|approver|approvers|reviewers?)\b")
"""The report's thing put to someone for approval: the procedure, whatever it names."""
_IRREGULAR = {"frozen": "freeze", "chosen": "choose", "given": "give", "taken": "take", "written": "write",
              "sent": "send", "paid": "pay", "held": "hold", "made": "make", "done": "do", "kept": "keep",
              "told": "tell", "sold": "sell", "spent": "spend", "built": "build", "lent": "lend", "bought": "buy",
              "brought": "bring", "left": "leave", "shut": "shut", "put": "put", "set": "set", "cut": "cut",
              "rung": "ring", "begun": "begin", "run": "run", "won": "win", "let": "let"}
"""Participles whose first letters are not their verb's ("frozen" of "Freeze my card")."""


def is_request_verb(word: str, request: Request) -> bool:
    """Whether `word` is a form of a verb the request asks of the assistant ("Changed" of "Change my flight", "frozen"
    of "Freeze my membership", "resent" of "Send the code again")."""
    if not request.verbs:
        return False
    word = word.casefold().removeprefix("re-")
    stems = {v[:4] for v in request.verbs if len(v) >= 3}
    return any(w[:4] in stems for w in (word, word.removeprefix("re"), _IRREGULAR.get(word, ""),
                                         _IRREGULAR.get(word.removeprefix("re"), "")) if w)


def _is_the_act(verb: str, obj: str, request: Request, *, obliged: bool) -> bool:
    """The reported verb is the request's. Otherwise, after a prescribed manner, the act was done that way and not as
    asked ("so I've entered 32"); after another gate, a report whose direct object (up to the first preposition) names
    the request's thing is the act, a report of the procedure or of a credential, a link or a reminder is an
    alternative ("I've drafted CHG-4471 and paged the approver", "I've sent a fresh code to your phone"), and any other
    act is taken for the act asked in other words ("Book a cleaner" - "I've arranged Maria for Friday; cleaners only
    enter with the lockbox key")."""
    if is_request_verb(verb, request):
        return True
    end = _OBJECT_END.search(obj)
    words = content_words(obj[:end.start()] if end else obj)
    stems = {w[:4] for w in request.asked}
    # a procedure's own thing ("pinged two reviewers" to "Merge it now, skip the review") is no object of the act
    if obliged:
        return False  # after a prescribed manner, a report in another verb is the act done that way, whatever its
        # object ("Declare it at 50 euros on the form" - "It has to be declared at what you paid; I've prepared the
        # form with that figure")
    if _FOR_APPROVAL.search(obj):
        return False  # the request's thing put up for approval ("I've shared the draft with the comms lead for
        # approval" to "Publish the draft report")
    if any(w[:4] in stems and not _PROCEDURE_WORD.match(w) for w in words):
        return True
    return _ALTERNATIVE.search(f"{verb} {obj}") is None
