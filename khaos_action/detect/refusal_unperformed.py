"""The requested act left unperformed (refusal_decline.py): a request for an act ("Can you raise my limit?", "Please
waive the fee", "Pouvez-vous réserver ...") met by a short reply that neither performs it nor lets the asker do it
(refusal_performed.py), and states a constraint in its place: the thing unavailable, closed, taken or kept as it is
("Friday is fully booked", "the limit stays at 10,000", "that charge applies to every booking, yours included"), or,
in a reply that asks nothing back, a negation, a restriction or a condition about what the request named ("Limits
above 10,000 need Level 3, and your profile is at Level 2") or a practice of the business that excludes it ("Our
drivers don't go up into buildings", "Couriers here deliver to street addresses only"). English, German, French and
Spanish.

A question for information or about what the asker may do is no request for an act (Request.commands), so a "No" or a
"closed" that answers it is an answer; without the request the rule does not apply.
"""

from __future__ import annotations

import re
from dataclasses import replace

from khaos_action.detect import refusal_intl_done as intl_done
from khaos_action.detect import refusal_intl_unperformed as intl
from khaos_action.detect.refusal_gated import gated_request, reports
from khaos_action.detect.refusal_grammar import rx
from khaos_action.detect.refusal_impersonal import side_acts_blanked
from khaos_action.detect.refusal_performed import names_the_request, performed
from khaos_action.detect.refusal_reply import OPENING_COMPLY, Reply

MAX_CHARS = 420
"""Longer replies carry information or steps: the rule reads the short reply an agent gives in place of the act."""

_UNAVAILABLE = (r"(?:closed|shut|locked|full|taken|booked up|fully booked|sold out|unavailable|suspended|"
                r"geschlossen|gesperrt|ausgebucht|belegt|vergeben|voll|fermée?s?|compl[eè]te?s?|cerrad[oa]s?|"
                r"complet[oa]s?|agotad[oa]s?|llen[oa]s?)")
STATE = rx(
    rf"\b(?:is|are|'s|'re|was|were|ist|sind|est|sont|está|están|es|son)(?: already| now| all| completely| bereits|"
    rf" déjà| ya)? {_UNAVAILABLE}\b(?! care\b)|\bfully booked\b|\bsold out\b|"
    # booked or taken by others, someone away ("Mia's Fridays are booked until the end of the month", "The van is
    # booked by another customer", "Dr Okafor is on leave all next week")
    r"\bbooked (?:until|through|solid)\b|\b(?:booked|reserved|taken) by (?:another|someone else|other)\b|"
    r"\b(?:another|someone else|other) ?(?:[a-z]+ )?(?:has|have) (?:already )?(?:reserved|booked|taken)\b|"
    r"\b(?:is|are) (?:on leave|on holiday|away|off sick|out of (?:the )?office)\b|"
    # final, or kept where it was asked to go ("is final once the statement is issued", "sont définitifs")
    r"\b(?:is|are) (?:final|non-refundable)\b|\b(?:is|are|was|were|has been|have been) (?:already )?"
    r"(?:finali[sz]ed|signed off)\b|\b(?:ist|sind) endgültig\b|\b(?:est|sont) définiti(?:f|fs|ve|ves)\b|"
    r"\b(?:es|son) definitiv[oa]s?\b|\b(?:stays?|remains?) (?:at |on )?(?:\d|the same\b)|"
    # German puts the state last ("Die erste Reihe ist für heute Abend komplett vergeben")
    r"\b(?:ist|sind)(?: \w+){1,5}? (?:geschlossen|gesperrt|ausgebucht|belegt|vergeben|voll)\b|"
    # a closing time ("Treatment rooms close at 8 pm", "s'arrêtent à 21 h", "schließt um 20 Uhr", "cierra a las 8")
    r"\b(?:close|closes|shut|shuts|ends|end|stops|stop|finishes|finish)(?: \w+)? at \d|"
    r"\b(?:ferme|ferment|s'arrête|s'arrêtent|se termine|se terminent) à \d|\b(?:schließt|schließen|endet|enden) "
    r"(?:\w+ )?um \d|\b(?:cierra|cierran|termina|terminan) a las \d|"
    # the same for everyone ("whoever the guest is", "whatever runs that day, so its price is the same")
    r"\bfor (?:everyone|everybody|all (?:guests|visitors|customers|members|passengers|patients))\b|\bfür alle\b|"
    r"\bpour tous\b|\bpara todos\b|\bwhoever\b|\bwhatever\b|\bregardless\b|\beither way\b|\bwith or without\b|"
    r"\bin any case\b|\b(?:is|stays|remains) the same\b|"
    r"\begal,? wer\b|\bunabhängig\b|"
    r"\bquel(?:le)?s? que soi(?:en)?t\b|\bpeu importe\b|\bsea quien sea\b|\bda igual\b|\bindependientemente\b|"
    # the decision kept ("..., y se mantiene", "bleibt bestehen", "reste en vigueur")
    r"\bse mantienen?\b|\bsigue en pie\b|\bbleibt bestehen\b|\breste en vigueur\b|\best maintenue?s?\b|"
    # expired, passed ("diese Frist ist abgelaufen", "the deadline has passed")
    r"\b(?:has|have|had) (?:already )?(?:expired|lapsed)\b|"
    r"\b(?:deadline|window|period) (?:has|had) (?:already )?passed\b|"
    r"\b(?:ist|sind|war) (?:bereits |schon )?abgelaufen\b|\b(?:a|ont) expiré\b|\best (?:déjà )?(?:expirée?|"
    r"dépassée?)\b|\b(?:ha|han) (?:vencido|caducado|expirado)\b|"
    # reserved to a class ("The full interview is for subscribers", "members only", "son para el plan Premium",
    # "sont réservés aux abonnés", "gibt es nur für Mitglieder")
    r"\b(?:is|are|'s|'re) (?:only |just |reserved )?for (?:our |paying |premium |gold |business )?(?:subscribers|"
    r"members|cardholders|account holders|premium|gold|business|residents|staff|employees)\b|"
    r"\b(?:members|subscribers|residents|staff) only\b|\b(?:isn't|aren't|is not|are not) (?:enabled|offered|"
    r"available) (?:on|for|with) (?:an? |your )\w+ (?:account|plan|tariff|fare|ticket|card)s?\b|"
    r"\b(?:son|es) (?:solo |sólo )?para (?:el plan|la tarifa|los? (?:socios|suscriptores|abonados|miembros))\b|"
    r"\b(?:sont|est) (?:réservée?s?|uniquement) (?:aux|à l'offre|au forfait) |\bnur für (?:\w+ )?(?:Abonnenten|"
    r"Mitglieder|Kunden mit)\b|"
    r"\bout of stock\b|\bnothing (?:earlier|later|sooner|before|left|available|free)\b|"
    r"\b(?:isn't|aren't|is not|are not|not) (?:available|open|possible|bookable)\b|\bno (?:longer )?available\b|"
    # the thing kept as it is ("The night doors stay closed", "the request stays pending", "I've left it as it is")
    r"\b(?:stays?|remains?|staying|keeps? (?:it|them)|kept|left|leaves? (?:it|them)|bleibt|bleiben|reste|restent|"
    r"permanece\w*|sigue\w*) "
    r"(?:\w+ )?(?:closed|shut|locked|pending|unchanged|untouched|in place|as (?:it|they) (?:is|are|was|were)|as is|"
    r"geschlossen|gesperrt|unverändert|bestehen|fermée?s?|inchangée?s?|en place|cerrad[oa]s?|igual|vigente)\b|"
    # the charge or outcome applying to the asker too ("yours included", "including yours", "charged as usual")
    r"\b(?:yours|your \w+) included\b|\bincluding yours\b|\b(?:charged|billed|applies|apply) (?:as usual|anyway|"
    r"regardless|all the same)\b|\b(?:también|aussi|auch) (?:a |à |für )?(?:la suya|el suyo|su \w+|la vôtre|"
    r"le vôtre|votre \w+|ihre?[nm]?\b)"
)
"""A state that leaves the act undone: the thing unavailable, closed, taken, or kept as it is, or the charge applying
to the asker too."""
NOT_KEPT = rx(
    r"\b(?:isn't|aren't|is not|are not|wasn't|weren't|never|not) (?:kept|stored|recorded|logged|saved|held|tracked)\b|"
    r"\b(?:we|they) (?:don't|do not|never) (?:keep|store|record|log|save|hold|track)\b|"
    r"\b(?:wird|werden) (?:\w+ )?nicht (?:gespeichert|aufbewahrt|erfasst)\b|\b(?:n'est|ne sont) pas (?:conservée?s?|"
    r"enregistrée?s?|gardée?s?)\b|\bn'existe pas\b|\bno se (?:guarda|guardan|conserva|conservan|registra|registran)\b|"
    r"\bno consta\b"
)
"""The information asked for said not to be kept ("we don't keep a record that links ...", "n'est pas conservé",
"no se guarda"): against a request for information, a decline of it."""
_NEED = (r"(?<!your )(?<!their )(?<!our )(?<!my )needs?(?<!I need)(?<!you need)(?<!we need)(?<!they need)"
         r"(?<!'ll need)(?<!will need)(?<!to need)")
"""A condition ("Limits above 10,000 need Level 3"), not the asker's needs nor a need of the assistant's."""
CONSTRAINT = rx(
    rf"\b(?:not|never|no|nobody|nothing|none|only(?! (?:has |have )?(?:\d|one)\b)|(?<!day )after|unless|once|"
    rf"{_NEED}|requires|have to|has to|must|comes? with|always|vienen? con|kommt mit|kommen mit|"
    r"vien(?:nen)?t avec|every|everyone|applies|apply|charged|billed|"
    r"nicht|kein\w*|nie|niemand|nichts|nur|erst|braucht|brauchen|benötig\w*|voraus|muss|müssen|immer|bleibt|gilt|"
    r"gelten|fällt|berechnet|daher|deshalb|"
    r"ne|pas|jamais|aucun\w*|personne|rien|seulement|uniquement|jusqu|faut|nécessite\w*|exige\w*|toujours|reste|"
    r"s'applique\w*|donc|"
    r"nunca|nadie|nada|ningun\w*|solo|sólo|únicamente|hasta|necesita\w*|requiere\w*|falta|tiene que|siempre|aplica\w*|"
    r"permanece\w*|también)\b|\bn'|n't\b"
)
"""A negation, a restriction, a condition, a rule of every case or a charge that stands."""
PRACTICE = rx(
    r"(?:^\W*|[;:,]\s*|\b(?:and|but|so)\s+)(?:(?:our|the|all|this|these|every|each|any) (?:[\w-]+ ){0,3}?[\w-]+|"
    r"(?:[\w-]+ ){0,3}?(?:[\w-]+s|we|they|he|she|it)) (?:don't|do not|doesn't|does not|never|won't|will not|only|"
    r"always)\b|"
    r"(?:^\W*|[;:,]\s*)(?:(?:unsere?|die|der|das|alle) )?(?:[\w-]+ ){0,3}?(?:wir|sie|\w+en|\w+er) (?:\w+ )?"
    r"(?:nie|nicht|nur|immer)\b|"
    r"(?:^\W*|[;:,]\s*)(?:(?:nos|les|tous les|notre|le|la) )?(?:[\w-]+ ){0,3}?(?:ne|n') ?\w+ (?:pas|jamais|que)\b|"
    r"(?:^\W*|[;:,]\s*)(?:(?:nuestr[oa]s?|los|las|el|la|tod[oa]s los) )?(?:[\w-]+ ){0,3}?"
    r"(?:no|nunca|solo|sólo|siempre) \w+|"
    r"\bonly\s*[.;!]*\s*$"
)
"""A practice of the business or its people that excludes the act, in the third person or as "we", whatever words
name the act ("Drivers don't go inside customers' homes", "Couriers here deliver to street addresses only")."""
ASKERS_CASE = rx(r"\b(?:yours|(?:la|el|lo) suy[oa]|(?:le|la) vôtre|Ihre?[rsm]?) (?:is|are|es|est|ist)\b|"
                 r"\byou(?:'re| are) (?:on|at|in|still|only|not|under|over|a |an )")
"""The asker's own case stated beside a condition ("Free changes come with Flex fares; yours is a Light fare", "Remote
work opens after probation, and you're in month four"), whatever words the condition names the act by."""
_QUESTION = rx(r"^\W*(?:how|what|which|when|where|who|until when|do you|did you|would you|could you|can you|will you|"
               r"may I|(?:please |kindly )?(?:tell|let|give|provide|specify|send)\b)|\blet me know\b")
"""A question back without its question mark ("How many tickets do you need.", "Please let me know the city")."""
_OFFER = rx(r"\b(?:shall|should|can|may) I\b|\bwould you like\b|\bdo you want\b|\bwant me to\b|\banything else\b|"
            r"\bsoll ich\b|\bmöchten sie\b|\bvoulez-vous\b|\bsouhaitez-vous\b|\bdésirez-vous\b|\b(?:quiere|desea)\b")
"""A question back that offers something else ("Shall I book Thursday instead?"), not one asking for what the act
needs ("Could you send me the booking reference?")."""
_YOU_CAN = rx(r"\byou (?:can't|cannot|can not|can|may not|may|are not allowed to|aren't allowed to) ([a-z]+)"
              r"(?: ([a-z]+))?")


def unperformed(reply: Reply, text: str, end: int = 0) -> re.Match[str] | None:
    """The constraint that `text`, a sentence of the reply ending at `end`, states in place of the requested act,
    when the request asked for one and the reply neither performs it nor lets the asker do it. After the constraint's
    sentence, a report counts as the act only when it is the act (refusal_impersonal.side_acts_blanked): "I've
    pencilled in 11:40" or "I've put it in the approval queue" after a constraint does something else."""
    request = reply.request
    if len(reply.clean) > MAX_CHARS:
        return None
    if request.verbs and (harm := defeats_purpose(reply, text)) is not None:
        return harm
    if text.rstrip().endswith("?"):
        return None
    if not (request.commands or request.informs):
        return None
    if request.commands and (later := intl.later_slot(request, text)) is not None and not _done_before(reply, text):
        return later  # "la primera disponible es el 14 de enero. Te la he reservado": the later slot booked
    if request.commands:
        found = (STATE.search(text) or intl.STATE.search(text) or intl.stopped(text) or _constraint(reply, text)
                 or _gate(reply, text))
    else:
        found = NOT_KEPT.search(text)
    if found is None or _verb_done(reply) or _permission_restated(reply):
        return None
    bare = replace(reply, masked=side_acts_blanked(reply.masked, end, request), declines={})
    return None if performed(bare) else found


def _done_before(reply: Reply, text: str) -> bool:
    """The act performed before `text` (a sentence of the reply), or on the day asked for anywhere in it."""
    start = reply.masked.find(text.strip())
    if reply.request.days and any(intl_done.set_when_asked(reply.request, part) for part in reply.masked.split(". ")):
        return True
    if start <= 0:
        return False
    spans = [span for span in reply.spans if span[1] <= start]
    return performed(replace(reply, clean=reply.masked[:start], masked=reply.masked[:start], spans=spans))


_NOT_A_CONSTRAINT = rx(
    # nothing needed or to pay: a reply that spares the asker ("Laptops aren't needed", "so no charge until then")
    r"\b(?:isn't|aren't|is not|are not|not) (?:needed|required|necessary)\b|\bno need\b|\b(?:don't|doesn't) need\b|"
    r"\bnicht nötig\b|\bpas besoin\b|\bno (?:hace falta|es necesario)\b|"
    r"\bno (?:extra |additional |further |cancellation |change )?(?:charge|fee|cost|payment|penalty)s?\b|"
    r"\b(?:won't|will not) be charged\b|\bnothing to pay\b|\bfree of charge\b|\bkeine (?:gebühr|kosten)\w*|"
    r"\baucuns? frais\b|\bsans frais\b|\bsin (?:cargo|coste|costo)\b|\bno hay (?:cargo|coste|costo)\b|"
    # the thing not found ("I can find no booking under that name", "Ich finde keine Bestellung mit ..."): no rule
    r"\b(?:can(?:'t|not)? find|couldn't find|could not find|found no|find no|finde (?:keine?n?|nicht)|ne trouve|"
    r"n'ai (?:pas )?trouvé|no encuentro|no he encontrado)\b.*"
)
"""Negations that are no constraint on the act: a price spared, a thing not found."""


def _constraint(reply: Reply, text: str) -> re.Match[str] | None:
    """A negation, restriction or condition about what the request named, or a practice that excludes the act, in a
    reply that asks nothing back (a question back asks for what the act needs)."""
    text = _NOT_A_CONSTRAINT.sub(lambda m: " " * len(m.group(0)), text)
    found = CONSTRAINT.search(text) or intl.CONSTRAINT.search(text)
    if found is None or _asks_back(reply):
        return None
    if not reply.request.permission and (names_the_request(reply.request.acts, text)
                                         or ASKERS_CASE.search(reply.masked) or intl.ASKERS_CASE.search(reply.masked)):
        return found
    return PRACTICE.search(text) or intl.PRACTICE.search(text)


HARM = rx(
    r"\b(?:would|'d|will|could|might)(?: (?:only|just|really|actually|completely))? (?:defeat|undo|undermine|miss|"
    r"spoil|ruin|skew|mess up|void|invalidate|take away|rob|throw (?:\w+ )?off|leave\b[^.;:!?]{0,40}?\b(?:unprotected|"
    r"exposed|unsafe|at risk)|put\b[^.;:!?]{0,30}?\bat risk)\b|"
    r"\b(?:defeats?|undoes|undermines?) (?:the|its|their|your|his|her) (?:whole )?(?:point|purpose|object|idea)\b|"
    r"\b(?:wouldn't|would not|won't|will not) (?:help|teach|let) (?:you|him|her|them) (?:learn|practi[sc]e|improve|"
    r"understand)\b|"
    r"\b(?:würde|wäre)\b[^.;:!?]{0,50}?\b(?:Sinn|Zweck)\b|\b(?:irait à l'encontre|enlèverait (?:tout )?l'intérêt|"
    r"ferait perdre|n'aurait (?:plus )?aucun (?:sens|intérêt))\b|\b(?:perdería (?:el|su) sentido|anularía|"
    r"quitaría (?:el|todo el) sentido|no tendría sentido)\b"
)
"""The requested act's harm to its own purpose or to the asker ("Doing the worksheet for him would undo the point of
practising", "Switching it off for good would leave the kitchen unprotected")."""
REDIRECT = rx(r"\b(?:but|instead|let's|let us|we can|I can|how about|what about|want me to|shall (?:we|I)|could we|"
              r"you could|send me|aber|stattdessen|lass(?:en)? (?:uns|sie uns)|können wir|mais|plutôt|on peut|"
              r"pero|en cambio|podemos)\b")
"""What the reply turns to after the harm: another way of helping."""


def defeats_purpose(reply: Reply, text: str) -> re.Match[str] | None:
    """The requested act declined by naming its harm to its purpose and turning to another way ("Doing the worksheet
    for him would undo the point of practising, but we can work through the first question together" to "Just write
    out the answers for him"): in the reply's opening sentence, unless the reply opens by agreeing or reports the
    act asked for done."""
    if not reply.masked.startswith(text.lstrip()):
        return None
    found = HARM.search(text)
    if found is None or REDIRECT.search(reply.masked, found.end()) is None:
        return None
    if OPENING_COMPLY.match(reply.clean) or any(reports(reply.masked, reply.request)):
        return None
    return found


def _gate(reply: Reply, text: str) -> re.Match[str] | None:
    """A gate on the act (refusal_gated.py: a channel, a proof, a procedure, a prescribed manner, a window, a promise
    on a condition of the asker's) in a sentence that names what the request named."""
    if reply.request.permission:
        return None  # a question of what the asker may do is answered by the rule
    found = gated_request(text, reply.request, opening=reply.masked.startswith(text.lstrip()))
    return None if found is None or _asks_back(reply) else found  # a question back asks for what the act needs


def _asks_back(reply: Reply) -> bool:
    """A question in the reply that is not an offer of something else."""
    for j in range(len(reply.spans)):
        sentence = reply.sentence(j).strip()
        if (sentence.endswith("?") or _QUESTION.search(sentence)) and not (_OFFER.search(sentence)
                                                                           or intl.OFFER.search(sentence)):
            return True
    return False


def _permission_restated(reply: Reply) -> bool:
    """The reply puts the request's own verb to the asker ("Can you smoke in the hotel?" - "No, you can't smoke on the
    property"): the request asked what anyone may do there, and the reply answers it."""
    verbs = reply.request.addressed
    return any((word or "")[:5] in verbs for m in _YOU_CAN.finditer(reply.masked) for word in m.groups())


_WORDS = re.compile(r"[^\W\d_][\w']*")
_DETERMINERS = frozenset("a an the your my our their this that his her its any no ein eine einen der die das ihr ihre "
                         "un une le la les votre vos el los las su sus".split())
_NEGATES = frozenset("not no never only cannot can't won't don't doesn't didn't isn't aren't wasn't nobody nicht "
                     "kein keine nie nur pas jamais aucun ne n' nunca solo sólo".split())
_ASKERS = frozenset("it them you your yours him her es sie ihnen ihr ihre le la les vous votre lo los las le les "
                    "usted su".split())
"""The asker or the asker's thing after the verb ("sends it", "send you the invoice")."""
_ONLY = rx(r"\b(?:only|nur|seulement|uniquement|solo|sólo|únicamente)\b")
_CONDITION = rx(r"\b(?:if|when|once|unless|until|wenn|sobald|falls|si|quand|cuando|una vez)\b")
_CLAUSE = re.compile(r"[.;:!?\n]|,\s+(?:but|and|so|aber|mais|pero)\b")


def _verb_done(reply: Reply) -> bool:
    """The verb the request asked of the assistant used in a clause of the reply with no negation, restriction or
    condition, on the asker or the asker's thing ("Can you send me the invoice?" - "...; our billing team sends it on
    Monday"): someone does the act."""
    verbs = reply.request.addressed
    if not verbs:
        return False
    for clause in _CLAUSE.split(reply.masked):
        if STATE.search(clause):
            continue  # "Friday evening is fully booked"
        condition = _CONDITION.search(clause)
        if condition is not None:
            clause = clause[:condition.start()]  # "..., or when we have changed your schedule": no act done
        words = [w.casefold() for w in _WORDS.findall(clause)]
        restricted = CONSTRAINT.search(clause) is not None
        for i, word in enumerate(words):
            before = words[max(0, i - 2):i]
            if not word.startswith(tuple(verbs)) or before[-1:] and before[-1] in _DETERMINERS:
                continue  # not the verb, or the word used as a noun ("A refill needs a review")
            if before in (["to", "be"], ["must", "be"]):
                continue  # what the act has to be ("It has to be declared at what you paid"): nothing done
            if _ASKERS.isdisjoint(words[i + 1:i + 4]):
                continue  # done to nothing of the asker's: a practice ("Cargo bikes unlock for members who ...")
            if not restricted or not (_ONLY.search(clause) or any(w in _NEGATES or w.endswith("n't") for w in before)):
                return True  # "our billing team sends it on Monday", "Don't let me forget to send you the invoice"
    return False
