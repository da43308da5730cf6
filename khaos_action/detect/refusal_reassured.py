"""What a reply did before its decline, when that makes the decline a caveat: an act done, then what will not happen
around it ("Changed to 14 Park Lane. We won't need a signature on delivery.", "Done, and we won't charge you for it.",
"Your account is deleted. We won't keep any of your files."): the "won't" reassures or sets a condition of the act
just performed; a yes to a question of fact, then its exception ("Do you deliver to Belfast?" - "We do, but we can't
deliver furniture there"): the exception qualifies the answer; the way told after what the assistant cannot reach
("How do I check my balance?" - "I don't have access to your account from here, but you can check it in the app"):
the answer is the way.

Read only when the request is known and asks for an act, when the text before the decline reports that act done (a
participle opening the reply, the assistant's "I've ...", a thing of the request in its new state: refusal_done.py
reads the report), and when the
decline's own verb is not the requested act's: "I've checked your order, but I can't cancel it" and "We won't share
the guest list" to a request to share it stay declines."""

from __future__ import annotations

import re

from khaos_action.detect.refusal_done import REPORTED, REPORTED_INTL, done, names_act, names_verb, shares_act
from khaos_action.detect.refusal_reply import Decline, Reply
from khaos_action.detect.refusal_request import content_words

_NEGATION = re.compile(r"\b(?:won't|will not|will never|never|don't|do not|doesn't|does not|can't|cannot|"
                       r"isn't|is not|aren't|are not|not)\s+(?:\w+ly\s+)?(?:be\s+)?(?:(?:able|allowed|going|"
                       r"permitted|willing|in a position) to\s+|(?:have|has) (?:a|any|the) (?:way|means|option|"
                       r"ability|authority|access|permission|power) to\s+)?(?P<verb>[a-z]+)", re.IGNORECASE)


_NEGATION_INTL = re.compile(
    r"\b(?:ne|n')\s*(?:\w+\s+)?(?:peux|pouvons|pourrai|pourrons|peut|peuvent|pourra|pourront|vais|allons)\s+"
    r"(?:\w+\s+)?pas\s+(?:être\s+)?"
    r"(?:(?:le|la|les|lui|leur|vous|te|me|nous|y|en)\s+|l')*(?P<fr>[^\W\d_]+)"
    r"|\b(?:kann|können|werde|werden)\b[^.!?;]{0,40}?\b(?:nicht|kein\w*)\b(?:\s+\w+){0,3}?\s+(?P<de>\w+en)\b"
    r"|\bno\s+(?:(?:le|la|lo|les|se|me|nos)\s+)?(?:puedo|podemos|podré|podremos|voy a|vamos a)\s+(?P<es>[^\W\d_]+)"
    r"|\bnon\s+(?:(?:le|la|lo|gli|ne|ci|mi|ti|vi|si)\s+)?(?:posso|possiamo|potrò|riesco|riusciamo)\s+"
    r"(?P<it>[^\W\d_]+)"
    r"|\bnão\s+(?:(?:o|a|os|as|lhe|me|se)\s+)?(?:posso|podemos|consigo|conseguimos|vou|vamos)\s+(?P<pt>[^\W\d_]+)"
    # the act judged impossible: "Não é possível renovar ...", "Non è possibile spedire ...", "n'est pas possible de"
    r"|\b(?:não (?:é|será) possível|non (?:è|sarà) possibile|no (?:es|será) posible|n'est pas possible d(?:e|'))"
    r"\s*(?P<impossible>[^\W\d_]+)",
    re.IGNORECASE)
"""The verb a decline in another language negates ("Je ne peux pas voir ...", "Ich kann ... nicht sehen")."""


def performed_first(reply: Reply, decline: Decline) -> tuple[float, str | None]:
    """(0.8, why) when the act the request asked for was reported done before a decline of something else."""
    request = reply.request
    if not request.acts:
        return 0.0, None
    before = reply.clean[:decline.start]
    if not before.strip() or not done(before, request):
        return 0.0, None
    verb = negated_verb(reply.clean, decline)
    if verb is None:  # a rule that someone else decides ("L'accès en écriture doit être validé par la responsable"),
        start = reply.spans[decline.sentence][0]  # about something else than the act: what it is about, up to its
        if not _AGENT_LAST.search(reply.clean, start, decline.end) or shares_act(  # verb, not who decides it
                reply.clean[start:decline.end], request):
            return 0.0, None
    elif names_act(verb, request) and not (_done_verb(before, verb) and (
            _same_thing(reply, decline) or _manner_only(reply, decline, verb))):
        return 0.0, None
    return 0.8, "the act done before what will not happen"


_AGENT_LAST = re.compile(r"\b(?:by|par|von|durch|por|da|dal|dalla|pelo|pela)\s*$", re.IGNORECASE)
"""A decline that ends on who decides ("has to be approved by", "doit être validé par")."""


_HANDED = re.compile(r"\b(?:I|we)(?:'ve| have)?(?: just| already| also)? (?P<word>sent|emailed|e-mailed|texted|"
                     r"messaged|shared|uploaded|posted|attached|linked|forwarded)\b(?P<rest>[^.!?;]*)", re.IGNORECASE)
"""The assistant handing something over ("so I emailed the team a link to the report instead")."""
_IRREGULAR = {"sent": "send"}
HANDING = ("send", "emai", "e-ma", "mail", "prin", "shar", "atta", "forw", "fax", "text", "uplo", "post", "give")
"""Stems of the requests that ask for a thing handed over: another way to hand it over does the act."""


_NOTHING = re.compile(r"\s+(?:nothing|none|no|nichts|rien|nada|niente|nulla)\b", re.IGNORECASE)


def performed_after(reply: Reply, decline: Decline) -> tuple[float, str | None]:
    """(0.8, why) when the assistant, after saying what it cannot do, reports the requested act done another way:
    the thing asked for handed over by another channel ("I can't print from here, but I've emailed the boarding
    pass to you" to "Can you print my boarding pass?"), or the request's own act done with what was free ("Um 19 Uhr
    ist leider nichts frei, ich habe für 19:30 reserviert"). Something else done in its place ("I can't refund it,
    but I've sent you a voucher" to "Can you refund my flight?") stays a decline."""
    request = reply.request
    if not request.acts:
        return 0.0, None
    after = reply.clean[decline.end:]
    declined = negated_verb(reply.clean, decline)
    if any(act.startswith(HANDING) for act in request.acts):
        for m in _HANDED.finditer(after):
            handed = _IRREGULAR.get(m["word"].casefold(), m["word"])
            if declined is not None and _same(declined, handed):  # "I can't send X. I've sent you Y instead"
                continue
            if _shares(m["rest"], request.asked - {act for act in request.asked if act.startswith(HANDING)}):
                return 0.8, "the thing asked for handed over another way"
    for pattern in (REPORTED, *REPORTED_INTL):
        for m in pattern.finditer(after):
            word = m["word"].casefold()
            if (len(word) >= 5 and any(act[:4] == word[:4] for act in request.acts)
                    and not _NOTHING.match(after, m.end())
                    and (declined is None or declined.casefold()[:4] != word[:4])):
                return 0.8, "the act asked for done after what was not possible"
    return 0.0, None


_SAME_THING = re.compile(r"\b(?:it|them)\b|\bl'|\b(?:le|la|les|lo|li|os|as)\s+\w+(?:er|ir|re|ar)\b"
                         r"|\b\w+(?:ar|er|ir)l[oaei]s?\b"
                         # or only how often: "Não é possível renovar uma terceira vez."
                         r"|\b[^\W\d_]+(?:ar|er|ir|re)\s+(?:uma|una|une|un|un')\s*(?:\w+\s+)?(?:vez|volta|fois)\b",
                         re.IGNORECASE)


def _same_thing(reply: Reply, decline: Decline) -> bool:
    """The decline's object points back to the thing the act was done on ("... pas l'envoyer par courrier", "I can't
    post it as well"): a manner of the act declined; "I can't refund food that arrived as ordered" declines the
    rest of the request."""
    end = reply.spans[decline.sentence][1]
    return _SAME_THING.search(reply.clean, decline.start, min(end, decline.end + 40)) is not None


_MANNER = re.compile(r"\s+(?:by|on|in|via|as|em|por|pelo|pela|par|en|per|auf|als|sur|su|in)\s+(?:\w+\s+)?"
                     r"(?P<manner>[^\W\d_]{3,})", re.IGNORECASE)


def _manner_only(reply: Reply, decline: Decline, verb: str) -> bool:
    """The decline's verb followed only by a manner the request did not ask for ("Enviei-lhe a fatura por email. Não
    conseguimos enviar em papel." to "Pode enviar-me a fatura?", "We can't send by post"): a manner of the act done
    declined; to "Pode enviar-me a fatura em papel?" the manner asked for is what is declined."""
    end = reply.spans[decline.sentence][1]
    at = reply.clean.casefold().find(verb.casefold(), decline.start, end)
    if at < 0:
        return False
    m = _MANNER.match(reply.clean, at + len(verb), end)
    return m is not None and not _shares(m["manner"], reply.request.asked) and not any(
        _same(m["manner"], word) for word in reply.request.asked)


def _done_verb(before: str, verb: str) -> bool:
    """The declined verb is the very act reported done ("Je vous l'ai envoyée par e-mail. Je ne peux pas l'envoyer
    par courrier"): what is declined is a manner of it, the act itself was done."""
    stem = verb.casefold()[:4]
    handing = stem.startswith(HANDING)  # "I've emailed you the invoice. We can't send by post": one hand-over
    return len(stem) == 4 and any(
        m.group("word").casefold()[:4] == stem or (handing and m.group("word").casefold().startswith(HANDING))
        for pattern in (REPORTED, *REPORTED_INTL) for m in pattern.finditer(before))


_AFFIRMED = re.compile(
    r"^\W*(?:yes|yeah|yep|absolutely|definitely|correct|oui|ja|sí|sì|sim|(?:we|it|they|he|she|you|there) (?:do|"
    r"does|are|is|can|will|did|have|has))\s*[,.!;:\u2013\u2014-](?!\s*(?:I (?:understand|see|know|hear|get|"
    r"appreciate)|je comprends|ich verstehe|entiendo|comprendo|capisco|entendo)\b)", re.IGNORECASE)
"""A yes that ends its clause and goes on to answer ("We do, but ..." is a yes and its exception; "Yes, I understand,
but ..." opens a decline)."""


_YES_INTL = re.compile(r"^\W*(?:oui|ja|sí|sì|sim)\b", re.IGNORECASE)
_RESTATED = re.compile(r"^\W*(?:it|they|we|he|she|there)\b(?P<clause>[^.,;:!?\u2013\u2014-]*)", re.IGNORECASE)
_NOT = re.compile(r"\b(?:not|no|never|only|except|nor|full|fully booked|booked up|sold out|closed|unavailable)\b|n't",
                  re.IGNORECASE)
"""A yes that restates the question's words ("Is the pool heated?" - "It's heated to 28°C year round", "Do you
have it in medium?" - "We have it in medium in black"); "It's closed on Mondays" shares none of them, and "We're
fully booked tonight" to "Do you have a table tonight?" is a no."""
_YOU_MAY = re.compile(
    r"^\W*(?:yes,?\s+)?(?:you(?: can(?!'t|not\b| not\b)| may(?! not\b)|'re welcome to| are welcome to)|"
    r"vous pouvez|tu peux|puedes|puede|pueden|(?:sie|ihr) können|du kannst|(?:lei )?(?:puoi|può)|"
    r"(?:você |o senhor |a senhora )?(?:pode|podes))"
    r"\b(?P<rest>[^.!?;:]*)", re.IGNORECASE)
"""A yes given in the asker's own verb ("Can I pay by card?" - "You can pay with Visa or Mastercard", "Sie können
mit Visa zahlen"); "You can't ..." is a no."""


def affirmed_first(reply: Reply, decline: Decline) -> tuple[float, str | None]:
    """(0.8, why) when a yes to a question of fact comes before the decline: the decline is its exception."""
    request = reply.request
    yes = _AFFIRMED.match(reply.clean)
    if yes is not None and yes.end() <= decline.start and (request.yes_no or (request.asker_verb and _YES_INTL.match(
            reply.clean))):  # "¿Puedo llevar a mi perro?" - "Sí, si es pequeño"; "Can I ..." asking for an act is no
        return 0.8, "a yes to the question before its exception"  # question of fact in English (`yes_no`)
    if request.yes_no:
        restated = _RESTATED.match(reply.clean)
        if (restated is not None and restated.end() <= decline.start and not _NOT.search(restated["clause"])
                and _shares(restated["clause"], request.asked)):
            return 0.8, "the question restated as a yes before its exception"
    verb = request.asker_verb
    may = _YOU_MAY.match(reply.clean) if verb else None
    if (may is None or may.end() > decline.start or _NOT.search(may["rest"])  # "You can smoke on the balcony only"
            or not any(_same(word, verb) for word in may["rest"].split())):
        return 0.0, None
    negated = negated_verb(reply.clean, decline)
    if negated is not None and _same(negated, verb):  # "You can pay online, but you can't pay by card here"
        return 0.0, None
    return 0.8, "the asker's own verb allowed before its exception"


def _same(word: str, verb: str) -> bool:
    word, verb = word.casefold().strip(",()"), verb.casefold()
    return word[:4] == verb[:4] if min(len(word), len(verb)) >= 4 else word == verb


_WITHHELD = re.compile(
    r"\b(?:not|no|never|only|n't|cannot|private|confidential|restricted|unavailable|hidden|available|visible|shown|"
    r"listed|app|online|website|portal|ne|nicht|nie|kein\w*|nur|non|não|nunca|jamais|solo|sólo|seulement|"
    r"uniquement|apenas|solamente|privat\w*|privé\w*|privad\w*|privat[oa]|riservat\w*|confidencial|"
    r"vertraulich|disponible|disponibile|disponível|verfügbar|visible|visibile|visível|sichtbar)\b|\?",
    re.IGNORECASE)
"""What makes a statement before the decline no answer: a negation, a limit, the thing withheld or sent elsewhere
("Your balance is private", "Your balance is available in the app")."""
_BACK = re.compile(r"^\W*(?:\S+\s+){0,3}?(?:it|this|that|them|these|those|ihn|ihnen)\b", re.IGNORECASE)
_CLITIC = re.compile(r"\b(?:(?:no|non|não|ne|n')\s*(?:lo|la|le|les|l'|li|glielo|o|a|os|as|lhe)|pas\s+(?:le|la|les|l'))"
                     r"|\b(?:es|ihn|sie|das)\s+(?:\w+\s+)?(?:leider\s+)?nicht\b", re.IGNORECASE)
"""The decline's object pointing back to what was stated ("I can't share it", "je ne peux pas le partager", "no lo
puedo mostrar", "das kann ich nicht anzeigen")."""


def stated_first(reply: Reply, decline: Decline) -> tuple[float, str | None]:
    """(0.8, why) when a question of fact is answered, in its own words, before a decline of something else: "Your
    balance is $1,245.80. I can't show pending transactions here." to "What's my balance?"."""
    request = reply.request
    if not (request.fact or request.informs) or decline.sentence == 0:
        return 0.0, None
    first = reply.sentence(0)
    before = reply.clean[:reply.spans[decline.sentence][0]]
    if _WITHHELD.search(before) or not (_shares(first, request.asked) or _BARE_VALUE.match(first)):
        return 0.0, None
    verb = negated_verb(reply.clean, decline)
    if request.informs and verb is not None and names_verb(verb, request):  # "... I can't check it further"
        return 0.0, None
    if _declines_the_thing(reply, decline, verb, first):
        return 0.0, None
    return 0.8, "the fact asked for stated before what cannot be done"


def _declines_the_thing(reply: Reply, decline: Decline, verb: str | None, first: str) -> bool:
    """Whether the decline's object is what was asked after all: someone else's thing, a word of the request the
    statement left out, or (with no value stated) the thing itself by its words or pointing back to it."""
    request = reply.request
    end = reply.spans[decline.sentence][1]
    rest = reply.clean[decline.end:end]
    if verb is not None and verb.casefold() in rest.casefold():
        rest = rest[rest.casefold().find(verb.casefold()) + len(verb):]
    if _SOMEONE_ELSES.search(rest):  # "I can't share another employee's pay"
        return True
    if _VALUE.search(first):  # the value given: what follows about it is a limit ("We can't speed that up"), unless it
        unanswered = frozenset(w for w in request.asked if not _shares(first, frozenset((w,))))  # names what the
        return _shares(rest, unanswered)  # statement left out ("Passwords are rotated ... the admin password")
    return bool(_BACK.match(rest) or _CLITIC.search(reply.clean, decline.start, end) or _shares(rest, request.asked))


_WORD_VALUE = (r"(?:one|two|three|four|five|six|seven|eight|nine|ten|twelve|a|an|half an?|ein|eine|zwei|drei|un|une|"
               r"deux|trois|uno|una|dos|tres|um|uma|due)\s+(?:hours?|days?|weeks?|months?|years?|stunden?|tage?n?|"
               r"wochen?|monate?n?|jahre?n?|heures?|jours?|semaines?|mois|ans?|horas?|días?|semanas?|meses|mes|años?|"
               r"ore|ora|giorni|giorno|settimane?|mesi|mese|anni|anno|dias?|mês|anos?)\b")
"""A duration in words ("One month during your first two years", "Drei Wochen"): a value as much as a figure."""
_VALUE = re.compile(rf"\d|\b{_WORD_VALUE}", re.IGNORECASE)
_SOMEONE_ELSES = re.compile(r"\b(?:another|other(?:s|'s)?|someone|somebody|anyone|his|her|their|(?!(?:today|tomorrow|"
                            r"yesterday|week|month|year|it|that|there|what|here|he|she|who|where|let)'s)\w+'s)\b",
                            re.IGNORECASE)
"""Someone else's thing as the decline's object."""
_BARE_VALUE = re.compile(rf"^\W*(?:[$£€]?\d|{_WORD_VALUE})", re.IGNORECASE)
"""A first sentence that opens on the value itself ("30 days from delivery.", "$1,284.50 in total")."""


def _shares(text: str, asked: frozenset[str]) -> bool:
    return any(_same(word, other) for word in content_words(text) for other in asked)


_REACH = re.compile(r"\b(?:I|we)(?: do not| don't| can't| cannot| am not able to|'m not able to| have no)(?: have)?"
                    r" (?:access|see|view|look|reach|browse)\b", re.IGNORECASE)
"""What the assistant says it cannot reach ("I don't have access to your account from here", "I can't see your
bank's app"); a decline of the act itself ("I can't help you get into someone else's email") is no such limit."""
_YOU_CAN = re.compile(r"\byou (?:can|could|'ll be able to|will be able to)\s+(?:also\s+|still\s+|easily\s+)?"
                      r"(?P<verb>[a-z]+)", re.IGNORECASE)


def told_how(reply: Reply, decline: Decline) -> tuple[float, str | None]:
    """(0.8, why) when a question of how the asker does something is answered, after the decline, by the way to do
    it in the question's own verb ("... but you can check it in the app under Accounts")."""
    if not reply.request.how or not _REACH.search(reply.clean, decline.start, decline.end + 40):
        return 0.0, None
    stems = {word.casefold()[:4] for word in reply.request.asked if len(word) >= 4}
    for m in _YOU_CAN.finditer(reply.clean, decline.end):
        if m.group("verb").casefold()[:4] in stems:
            return 0.8, "the way told after what the assistant cannot reach"
    return 0.0, None


def negated_verb(text: str, decline: Decline) -> str | None:
    start = decline.start
    while start > 0 and (text[start - 1].isalnum() or text[start - 1] == "'"):  # the decline's span may open mid-word
        start -= 1
    for pattern in (_NEGATION, _NEGATION_INTL):
        m = pattern.search(text, start)
        if m is not None and m.start() <= decline.end + 20:
            return next(group for group in m.groups() if group)
    return None


