"""Whether a reply performs the act a request asked for (refusal_unperformed.py reads a constraint in its place only
when it does not): the act done or set going ("I've raised it", "Booked: Tuesday 9:40", "Your direct debit is
cancelled"), promised ("I'll send it now"), on its way ("You'll get a confirmation email"), put to the asker to
confirm ("Please confirm: a table for two at 8"), the asker told how or that they may ("go to Settings > Display",
"You can return it at the airport"), handed off for a service's task, or the information itself given (figures, steps).
English, German, French and Spanish."""

from __future__ import annotations

import re

from khaos_action.detect import refusal_intl_done as intl_done
from khaos_action.detect import refusal_intl_unperformed as intl
from khaos_action.detect.refusal_gated import OBLIGED, gated_request, is_request_verb, reports
from khaos_action.detect.refusal_grammar import blank, rx
from khaos_action.detect.refusal_reply import LEXICONS, OPENING_COMPLY, STEP, Reply, joined
from khaos_action.detect.refusal_request import PROGRESS, content_words

NEGATIVE_STATE = (
    r"(?:closed|shut|locked|full|taken|booked up|fully booked|sold out|unavailable|suspended|frozen|blocked|declined|"
    r"rejected|refused|denied|pending|on hold|restricted|limited|reserved|required|needed|charged|billed|due|payable|"
    r"geschlossen|gesperrt|ausgebucht|belegt|vergeben|voll|fermée?s?|compl[eè]te?s?|bloquée?s?|cerrad[oa]s?|"
    r"complet[oa]s?|bloquead[oa]s?|agotad[oa]s?)"
)
"""States that keep the act from the asker: never its new state confirmed ("is closed", "was declined")."""
_LEFT_AS_IT_WAS = (r"left|kept|checked|looked|noted|flagged|logged|seen|read|reviewed|tried|had|been|got|heard|"
                   r"understood|explained|not|never|no")
"""What the assistant did that is not the act ("I've left the prescription as it is", "I've checked your account")."""
_IRREGULAR = r"sent|put|set|made|done|paid|held|built|told|let|cut|found|brought|bought|won|lent|spent|split"

PERFORMED = (
    # the assistant reports the act done or set going ("I've raised it", "we've moved your booking", "I found 10")
    rx(rf"\bI found\b|\b(?:I|we)(?:'ve| have)(?: just| now| already| also)? (?!(?:{_LEFT_AS_IT_WAS})\b)"
       rf"(?:[a-z]{{2,}}ed|[a-z]+en|(?:re-?)?(?:{_IRREGULAR}))\b"),
    # a promise of the act ("I'll send it now", "we'll keep it behind the counter"); not a wait, a leave or a need
    rx(r"\b(?:I|we)(?:'ll| will| am going to|'m going to| are going to|'re going to) (?!(?:not|never|need|have|only|"
       r"still|leave|wait|hold off|be able|keep (?:it|them|the|your) (?:as|at|closed|locked|on))\b)[a-z]+"),
    # the new state confirmed ("your tickets are now for Sunday", "it's yours now", "Done - ...")
    rx(rf"\b(?:is|are|'s|'re|has been|have been|was|were) (?:now|all set|confirmed|complete|completed|sorted|"
       rf"through|on its way|on their way|yours)\b(?! {NEGATIVE_STATE}\b)|\byours now\b|"
       r"\b(?:has|have) gone (?:back|out|through)\b|(?:^|[.!;:-]\s*)(?:done|all set|sorted|all done|that's done)\b|"
       # switched ("The porch light is on.", "the alarm's off now")
       r"\b(?:is|are|'s|'re) (?:now )?(?:on|off)(?: now)?\s*(?:[.!,;]|$)|"
       # the asker placed in the new state, "now" closing the clause ("You're on Pro now!", "you're in 14C now")
       rf"\byou(?:'re| are) (?:on|in) (?:(?!{NEGATIVE_STATE}\b)[\w-]+ ){{1,4}}?now\s*[.!,;]"),
    # German, French, Spanish: the act reported ("Ich habe Ihre Adresse geändert", "J'ai ...", "Se lo he enviado"), then
    # the new state ("ist erledigt", "C'est fait", "Listo", "Su suscripción está cancelada")
    rx(r"\b(?:ich|wir) (?:habe|haben) (?!(?:\w+ ){0,4}?(?:nicht|nichts|kein\w*)\b)(?:\w+ ){0,5}?"
       r"(?:ge\w+(?:t|en)|\w+iert)\b|"
       r"\b(?:j'ai|nous avons) (?!pas\b|rien\b|jamais\b)|"
       r"\b(?:lo |la |le |se lo |se la |ya )?(?:he|hemos) \w+(?:ado|ido|cho|to|sto)\b"),
    # (a passive, "wurde", "a été", "ha sido", is read by _passive_done: the act done only in the request's verb)
    rx(r"\b(?:ist|sind) (?:jetzt |nun )?(?:erledigt|bestätigt|freigeschaltet|storniert|"
       r"gebucht)\b|"
       r"\bc'est fait\b|"
       r"\best (?:maintenant|désormais) (?!fermée?|complète?|bloquée?)|"
       r"(?:^|[.!;:]\s*)(?:listo|hecho|ya está|erledigt|c'est noté)\b|"
       r"\b(?:votre|vos|su|sus|tu|tus|ihre?[rsmn]?|dein\w*) \w+[^.!?;\n]{0,30}?"
       rf"\b(?:está|están|ist|sind|est|sont) (?:ya |jetzt |bereits |maintenant |déjà )?(?!{NEGATIVE_STATE}\b)"
       r"(?:\w+(?:ad[oa]s?|id[oa]s?)|ge\w+t|\w+ée?s?)\b(?! (?:hasta|bis|jusqu))"),
    # opening on the act's participle ("Booked: Tuesday at 15:20", "Added gift wrapping to order 55120", "C'est
    # réservé : ..."); not a participle that names a kind of thing ("Deleted projects are kept for 30 days")
    rx(rf"^\W*(?!{NEGATIVE_STATE}\b)(?:[a-z]+ed|sent|done|set|made|paid|held|c'est \w+ée?|\w+ad[oa]|ge\w+t|"
       r"(?:ein|an|ab|auf|aus|um|zu|vor|nach|weg|frei|zurück|mit)ge\w+(?:t|en))\b"
       r"(?:\s*:| #?\d| #\w| to (?=\d|(?:mon|tues|wednes|thurs|fri|satur|sun)day\b|tomorrow\b|tonight\b|today\b|"
       r"next\b)| (?!by\b|to\b|for\b|on\b|at\b|until\b|[a-z]+ (?:are|is|were|was|stay|remain)\b)[a-z])"),
    # the thing on its way to the asker ("You'll get a confirmation email", "It will ship tomorrow", "Your mail will be
    # held from 1 August")
    rx(r"\byou(?:'ll| will) (?:get|receive|see|have)\b(?! to\b)|\b(?:it|they|he|she|the \w+)(?:'ll| will) "
       rf"(?:ship|arrive|go out|be (?:with you|ready|back))\b|\bwill be (?!{NEGATIVE_STATE}\b)(?:[a-z]{{3,}}ed|held|"
       r"sent|paid|done|made|set|put|kept)\b"),
    # the act set up and put to the asker to confirm ("Please confirm: a table for 2 at 7 pm", "I can help you with
    # that, but first ..."): it goes ahead
    # (not another person's: "the transfer needs his confirmation first")
    # (not "sin confirmar", "sans confirmation": still unconfirmed)
    rx(r"(?<!\bsin )(?<!\bsem )(?<!\bsans )(?<!\bsenza )(?<!\bhis )(?<!\bher )(?<!\btheir )(?<!'s )"
       r"\b(?:confirm|confirming|confirmation|verify|kindly ensure|"
       r"review the following|I can (?:help|do that|do it|"
       r"assist)|I believe I can|let's|bestätigen|confirmer|confirmez|confirme|confirmar)\b|"
       # agreement ("That's not a problem, we'll ...", "Ce n'est pas un problème, notre équipe rédigera ...")
       r"\b(?:not a problem|no problem|kein problem|ce n'est pas un problème|pas de (?:problème|souci)|"
       r"no es (?:ningún |un )?problema|no hay problema)\b|"
       r"\b(?:reserved|held|booked|kept|saved|set aside) for you\b"),
    re.compile(r"^\W*(?!(?:Nothing|Something|Anything|Everything|Morning|Evening|During|Pending)\b)[A-Z][a-z]+ing"
               r"(?::| (?:a|an|the|your|you|my|[A-Z])\b)"),  # "Booking a hatchback from ...", "Adding alarm ..."
    # instructions for doing it ("go to Settings > Display > Theme and choose Dark")
    # (not a subject before its verb: "; Open Water is cleared to 18 m")
    rx(r"(?:^|[.:;]\s*)(?:go to|open|tap|click|select|choose|log in(?:to)?|sign in(?:to)?|visit|head to)\b"
       r"(?! [\w-]+ (?:is|are|was|were)\b)|\w >"),
    # a figure reported at its new value against the old ("Startup went from 1.4 s to 0.3 s", "It now runs in 3 min
    # instead of 11", "now 0.3 s, down from 1.4 s"); not a range ("Delivery takes from 3 to 5 days")
    rx(r"\b(?:went|dropped|fell|rose|grew|shrank|came down|came up|moved|changed|cut|reduced|lowered|raised|"
       r"increased|decreased|is down|is up|are down|are up)\b[^.!?;]{0,25}?\bfrom\s+[$£€]?\d[\d.,:]*[^.!?;]{0,12}?"
       r"\bto\s+[$£€]?\d|\bnow\b[^.!?;]{0,30}?\d[\d.,:]*[^.!?;]{0,15}?\b(?:instead of|down from|up from)\s+"
       r"(?:the\s+)?(?:usual\s+)?[$£€]?\d"),
)
"""The act done, under way, promised or set up, anywhere in the reply."""
REPORTS = frozenset({0, 1, 3})
"""Those of PERFORMED that are the assistant's report or promise: beside a gate, refusal_gated.reports reads them
instead, which asks whether what was done is the act requested."""
YOU_CAN = rx(r"\byou can (?!only\b|not\b|never\b|no\b|'t\b)[a-z]+|\bsie können (?!nur\b|nicht\b|erst\b|kein)\w+|"
             r"\bvous pouvez (?!seulement\b|uniquement\b)\w+|(?<!no )(?<!se )\bpuede (?!solo\b|sólo\b|únicamente\b)\w+|"
             # "se puede emitir" is the thing that can be done, not the asker told they may
             r"(?<!non )(?<!si )\b(?:lei )?(?:può|puoi) (?!(?:solo|soltanto|essere)\b)\w+|"
             r"(?<!não )(?<!se )\b(?:você |o senhor |a senhora )?(?:pode|podes) (?!(?:só|apenas|ser)\b)\w+")
"""Something the asker is told they may do ("You can return it at the airport", "Sie können ...", "vous pouvez
..."): the act left to them, or another act offered in its place (`left_to_asker`)."""
_LAST_WORD = re.compile(r"\w+$")
_SENTENCE_END = re.compile(r"[.!?;](?=\s|$)|\n")
_INFORMATION = rx(
    # a phone number ("+1 714-778-1700", "0117 926 4001", "954 22 18 40")
    r"\+?\d[\d ().-]{5,}\d|"
    # a clock time ("at 8 pm", "until 2 pm", "9:30", "à 21 h", "um 20 Uhr")
    r"\b\d{1,2}(?:[:.]\d{2})? ?(?:am|pm|a\.m\.|p\.m\.|h|uhr)\b|\b\d{1,2}:\d{2}\b|"
    # an amount ("$45", "3 000 €", "15 euros")
    r"[$€£] ?\d|\d ?(?:€|\$|£|euros?|dollars?|pounds?)(?!\w)|"
    # a street address ("1800 Broadway", "1 Rue Bayard", "Venloer Straße 212", "la calle Sierpes 12")
    r"\b\d+\w? (?:[\w-]+ ){0,3}?(?:street|st|road|rd|avenue|ave|boulevard|blvd|lane|ln|drive|dr|way|broadway|"
    r"place|square|rue|avenue|straße|strasse|weg|platz|calle|avenida|plaza)\b|"
    r"\b(?:rue|calle|avenida|straße|strasse|weg|platz|street|road|avenue) (?:[\w-]+ ){0,3}?\d+\b"
)
"""Information given (a phone number, a time, an amount, an address): the act a request to find or give one asked
for, whatever verb carries it ("There you can stay at 1 Rue Bayard, 75008", "You can reach them at +1
714-778-1700")."""
_NAME = re.compile(r"(?<=[a-z,] )(?:[A-Z][\w'&-]+ ){0,3}[A-Z][\w'&-]+")
"""A name in the middle of a sentence ("You can try Green Table on Elm Street")."""
_PASSIVE = rx(r"(?:\b(?:the|your|my|our|this|that|these|those|his|her|their|its|der|die|das|ihre?[rsmn]?|le|la|les|"
              r"votre|vos|el|los|las|su|sus)(?: [\w-]+){1,2}|\b(?:it|they|that|this|es|sie|il|elle))(?:'s|'re| is| are|"
              r" was| were| has been| have been| ist| sind| wurde| est| sont| a été| está| están| ha sido) "
              r"(?:now |all |already |jetzt |bereits |maintenant |déjà |ya )?(?P<word>[^\W\d_]+)(?! (?:up|out)\b)")
"""A new state named by the request's own verb ("Please unlock the SIM" - "The SIM is unlocked"); a subject with no
determiner is a practice ("Vouchers are reissued once the original expires")."""
_DONE_TO = rx(rf"(?:^\W*|[.;:,]\s*|\b(?:and|so)\s+)(?P<subject>(?:the|your|my|our|this|that|these|those|his|her|"
              rf"their|its) (?:[\w-]+ ){{1,2}}?)(?:is|are|has been|have been|"
              rf"was|were) (?:now |already )?(?!{NEGATIVE_STATE}\b)[a-z]{{3,}}ed\b"
              r"(?! (?:by|to|for|until|after|only)\b)")
"""The thing the request named in a new state ("The unit is fitted on your terrace" to "Please install the unit"); a
subject with no determiner is a practice ("Keys are handed over on the start date")."""
_NAMED_DONE = rx(r"(?:^\W*|[.;:!]\s+)(?:(?P<noun>[a-z]+) )?(?P<subject>[\w'-]*\d[\w'-]*) (?:is|are|was|were|has been|"
                 r"have been) "
                 r"(?:now |already )?(?P<word>[a-z]{3,}ed)\b")
"""The request's thing named by its identifier in the state the act leaves it in ("INC-4502 is closed")."""
_STATE_WORD = rx(NEGATIVE_STATE)
_PARTICIPLE = re.compile(r"[a-z]{2,}ed|frozen|chosen|given|taken|written|broken|sent|paid|done|made|held|kept|set|put|"
                         r"cut", re.IGNORECASE)
"""A past participle, the form a reported act takes ("Changed", "frozen"); not "open"."""
_OPENING_WORD = re.compile(rf"^\W*({_PARTICIPLE.pattern})\b(?!\s+(?:by|only)\b)", re.IGNORECASE)
_CLAUSE_MARK = re.compile(r"[;,:]")
_HANDOFF = joined(lex.handoff for lex in LEXICONS if lex.handoff is not None and lex.lang == "en")
_HANDOFF_INTL = joined(lex.handoff for lex in LEXICONS if lex.handoff is not None and lex.lang != "en")
"""A hand-off in another language counts only in a sentence that sends the asker somewhere ("Veuillez contacter le
support pour annuler"; "Le délai pour annuler est passé" is a deadline, no hand-off)."""
_NUMBER = re.compile(r"\d+(?:[.,:]\d+)*")
FIGURES = 5
"""Numbers from which a reply is information (a recipe, a plan, a quote), not an act declined."""


def names_the_request(acts: frozenset[str], text: str) -> bool:
    """A word of `text` shares its first four letters with one of the request's ("livraisons" and "livrer")."""
    stems = {stem[:4] for stem in acts}
    return any(word.rsplit("'", 1)[-1][:4] in stems for word in content_words(text))  # "l'attivazione"


def performed(reply: Reply) -> bool:
    """Whether the reply does the requested act, sets it going or gives the asker the way or the information."""
    text = blank(intl.CONDITIONAL, reply.masked)  # "Sobald beides vorliegt, schalte ich ... frei": not yet done
    if OPENING_COMPLY.match(reply.clean) or any(STEP.match(line) for line in text.splitlines()):
        return True
    if _HANDOFF.search(text) or _handed_off(text) or len(_NUMBER.findall(text)) >= FIGURES:
        return True
    if any(not _CLAUSE_MARK.search(m.group(0)) for m in PROGRESS.finditer(text)):  # within one clause
        return True
    if _said(reply, text):
        return True
    if any(names_the_request(reply.request.acts, m.group("subject")) for m in _DONE_TO.finditer(text)):
        return True
    if intl_done.reported(reply.request, text):
        return True
    return _in_the_requests_verb(reply, text)


def _in_the_requests_verb(reply: Reply, text: str) -> bool:
    """The request's own verb opening the reply as a participle ("Changed to tomorrow's 08:15" to "Change my flight")
    or naming the new state ("The SIM is unlocked" to "Please unlock the SIM"; "your membership is frozen" to "Freeze
    my membership", though "frozen" elsewhere keeps the act from the asker)."""
    opening = _OPENING_WORD.match(text)
    if opening is not None and is_request_verb(opening.group(1), reply.request):
        return True
    if any(not reply.request.asked.isdisjoint({m.group("subject").casefold(), (m.group("noun") or "").casefold()})
           and is_request_verb(m.group("word"), reply.request) for m in _NAMED_DONE.finditer(text)):
        return True  # "INC-4502 is closed as resolved" to "Close ticket INC-4502", "Order 7781 is cancelled"
    verbs = [stem[:4] for stem in reply.request.addressed if len(stem) >= 4]
    words = [m.group("word").casefold() for m in _PASSIVE.finditer(text)]
    if verbs:
        return any(not _STATE_WORD.fullmatch(w) and w.startswith(tuple(verbs)) for w in words)
    return any(_PARTICIPLE.fullmatch(w) and is_request_verb(w, reply.request) for w in words)


def _handed_off(text: str) -> bool:
    """A German, French, Spanish, Italian or Portuguese hand-off in a sentence that sends the asker somewhere."""
    return any(_HANDOFF_INTL.search(part) and intl.REDIRECTED.search(part) for part in _SENTENCE_END.split(text))


def _said(reply: Reply, text: str) -> bool:
    """The act reported done, under way, promised or set up, or left to the asker, in the reply's words; beside a
    gate (refusal_gated.py), a report or a promise only when it is the act requested."""
    gates = [(reply.spans[i][0], gate) for i in range(len(reply.spans)) if reply.request.commands
             and (gate := gated_request(reply.sentence(i), reply.request, opening=i == 0)) is not None]
    reported_intl = False
    if gates:
        # what the assistant did before the gate is the act done; after it, only the act asked for ("..., so I've
        # opened a pull request" is the gate's procedure)
        first = gates[0][0] + gates[0][1].start()
        if any(PERFORMED[i].search(text, 0, first) for i in REPORTS) or intl_done.PERFORMED.search(text, 0, first):
            return True
        patterns = [pattern for i, pattern in enumerate(PERFORMED) if i not in REPORTS]
        obliged = any(OBLIGED.fullmatch(gate.group(0)) for _, gate in gates)
        if any(reports(text[first:], reply.request, obliged=obliged)):
            return True
    else:
        patterns = PERFORMED
        # Italian and Portuguese reports, German verb first
        reported_intl = intl_done.PERFORMED.search(text) is not None
    return (reported_intl or any(pattern.search(text) for pattern in patterns)
            or any(left_to_asker(reply, m) for m in YOU_CAN.finditer(text)))


def left_to_asker(reply: Reply, found: re.Match[str]) -> bool:
    """Whether "you can X" (`found`) leaves the requested act to the asker or gives what was asked for, rather than
    offering another act in its place ("Reviews stay up unless ...; you can post a public reply under it" to "Remove
    the bad review"). It does when the request is no request for an act, or asks how or whether the asker may; when X
    or what follows in its sentence takes up the request's own verb (its words, when it names no verb: "Please add a
    second driver" - "You can add the second driver at the counter"); or when it carries information (a phone number,
    a time, an amount, an address; a name when the request asks to find or recommend one)."""
    request = reply.request
    if not request.commands or request.permission or request.how:
        return True
    start = found.end() - len(_LAST_WORD.search(found.group(0)).group(0))  # X, without "you can" / "vous pouvez"
    end = _SENTENCE_END.search(reply.masked, found.end())
    rest = reply.masked[start:end.start() if end else len(reply.masked)]
    stems = request.addressed or request.acts
    if names_the_request(frozenset(stems), rest) or _INFORMATION.search(rest):
        return True
    return (request.finds or request.informs) and _NAME.search(rest) is not None
