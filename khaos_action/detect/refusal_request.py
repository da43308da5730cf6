"""What a refusal is read against when the request is known: its content words, the words it negates itself, and
the act it asks for.

A request that asks for an act ("Can I get a refund for that night?", "Could you hold the sofa for me?", "Please
waive the fee") is declined by a reply that only states the rule against that very act ("there's no refund for that
night", "We don't hold stock for more than 24 hours", "there's no waiver for ..."). A question for information ("Does
my insurance cover skiing?", "Is there a fee to cancel?") is answered by the same negative ("Skiing isn't covered",
"There's no fee to cancel"), so only a request for an act lends its words to that reading. English, German, French,
Spanish, Italian and Portuguese.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import chain

from khaos_action.detect import refusal_days, refusal_en_request, refusal_intl_request, refusal_itpt_request
from khaos_action.detect.refusal_count import asked_count
from khaos_action.detect.refusal_grammar import rx

_ACT_REQUESTS = (refusal_en_request.ACT_REQUEST, refusal_intl_request.ACT_REQUEST, refusal_itpt_request.ACT_REQUEST)
_ACTS_NEGATED = refusal_en_request.ACT_NEGATED + refusal_intl_request.ACT_NEGATED + refusal_itpt_request.ACT_NEGATED
_ACTS_RESERVED = (refusal_en_request.ACT_RESERVED + refusal_intl_request.ACT_RESERVED
                  + refusal_itpt_request.ACT_RESERVED)
_ADDRESSED = re.compile(r"\b(?:(?:can|could|would|will) you|please)\s+(?:please\s+)?([a-z]{4,})\b", re.IGNORECASE)
_IMPERATIVE = re.compile(r"^\W*(?:(?:hi|hello|hey|ok|okay|so|just|bitte|please)\W+)*([^\W\d_]{2,})\b(?! (?:ich|wir|je|"
                         r"nous|i|you|we|they|he|she|it|not)\b)(?!\?)", re.IGNORECASE)
"""The first word of a request that opens on its verb ("Restart the payments service", "Löschen Sie mein Konto")."""
_NOT_VERB = frozenset("can could would will may i we please help what when where which who why how is are was were "
                      "should must have has had am you they he she it my your our the this that there here if thanks "
                      "thank yes no not hi hello hey ok okay sure great also and but does did".split())
"""Words that open a question or a statement, not a request's verb."""
_ASKS_INFORMATION = re.compile(
    r"^\W*(?:(?:hi|hello|hey|ok|okay|so)\W+)*(?:(?:can|could|would|will) you (?:please )?(?:tell|let me know|find out|"
    r"check|look up|show)|please (?:tell|let me know|find out|check)|tell me|i(?:'d| would) like to know|"
    r"i want to know|(?:können|könnten) sie mir sagen|sagen sie mir|(?:pouvez|pourriez)-vous me dire|dites-moi|"
    r"(?:puede|podría|pueden) decirme|dígame)\b", re.IGNORECASE)
_FINDS = re.compile(r"\b(?:find|search|look(?:ing)? for|recommend|suggest|give me|get me|any|which|where|what|who|"
                    r"empfehlen|suchen|finden|trouver|recommander|conseiller|buscar|encontrar|recomendar)\b")
"""A request to find, give or recommend something (a name then answers it)."""
_RULES_QUESTION = re.compile(
    r"^\W*(?:(?:hi|hello|hey|ok|so)\W+)*(?:what|which|how (?:does|do|did|will|would|is|are)|tell me|"
    r"(?:can|could) you (?:tell me|explain)|explain|"
    r"wie|was|welche\w*|quel\w*|que|qu'est-ce|comment|cu[áa]l\w*|qu[ée]|c[óo]mo|qual\w*|cosa|come|como|o que)\b"
    r"[^?.!]{0,60}?(?:(?:regeln?|regelung(?:en)?|richtlinien?|bedingungen|vorschriften|bestimmungen)|"  # in compounds
    r"\b(?:polic(?:y|ies)|rules?|terms|conditions|restrictions|regulations?|allowance|entitlements?|"
    r"covers?|covered|included|includes?|supported|work|works|happens|funktionier\w*|abgedeckt|inbegriffen|deckt|"
    r"politique|règles?|règlement|fonctionne\w*|couvre|"
    r"pol[íi]tica|reglas?|normas?|condiciones|funciona\w*|cubre|"
    r"politica|regole|norme|condizioni|copre|"
    r"regras?|condições|cobre))\b", re.IGNORECASE)
"""A question for a rule, a policy, what something covers or how it works (Request.rules)."""
_RULES_NOUN = rx(
    r"(?:regeln|regelung(?:en)?|richtlinien?|vorschriften)\b|"  # also in compounds ("Rückgaberegeln")
    r"\b(?:polic(?:y|ies)|rules|regulations|restrictions|terms and conditions|politique|règles|règlement|"
    r"réglementation|pol[íi]tica|normas|normativa|reglas|politica|regole|regolamento|regras|regulamento)\b")
"""The rule's own noun anywhere in a request that is no command ("I'd like to know the return rules for earbuds",
"Do you have a policy on price matching?")."""
_PERMISSION = (refusal_en_request.PERMISSION, refusal_intl_request.PERMISSION)
_REQUEST_WORDS = refusal_intl_request.REQUEST_WORDS | refusal_itpt_request.REQUEST_WORDS
"""Words of other languages that ask and name no act ("bitte", "pouvez", "puede", "vorrei", "pode")."""
_YES_NO_QUESTION = re.compile(
    r"^\W*(?:do|does|did|is|are|was|were|will|has|have|am|can i|can we|could i|may i|should i|must i)\b[^?]*\?\s*$",
    re.IGNORECASE)
_HOW_QUESTION = re.compile(r"^\W*(?:how (?:do|can|should|would|could) (?:i|we)|how to|what(?:'s| is) the (?:best |"
                           r"easiest |quickest )?way to|where (?:do|can) (?:i|we))\b", re.IGNORECASE)
_ASKER_VERB = (
    re.compile(r"^\W*(?:(?:can|could|may) (?:i|we)|puis-je|est-ce que (?:je|nous) (?:peux|pouvons)|(?:je|nous) "
               r"(?:peux|pouvons)|(?:puedo|podemos|se puede)|posso|possiamo|si può|podemos|dá para)\s+(?:(?:still|also|"
               r"aussi|también|anche|também)\s+)?(?P<verb>[^\W\d_]+)", re.IGNORECASE),
    re.compile(r"^\W*(?:kann|darf|können|dürfen) (?:ich|wir|man)\b[^?]*?\b(?P<verb>[^\W\d_]+en)\s*\?",
               re.IGNORECASE))
_FACT_QUESTION = re.compile(
    r"^\W*(?:(?:à|a|de|en|um|in|per|para|por|at|for|from)\s+)?"
    r"(?:what(?:'s| is| are| was)?|che|qu[ée]|que|where(?:'s| is| are)?|when|which|who|"
    r"how (?:much|many|long|far|late|early)|"
    r"quel(?:le)?s?|où|quand|combien|cu[áa]l(?:es)?|d[óo]nde|cu[áa]ndo|cu[áa]nt[oa]s?|was|wo|wann|welche[rsnm]?|"
    r"wie (?:viel|viele|hoch|lange|spät)|qual|quale|quali|dove|quando|quant[oaie]|onde|quantos?|quantas?)\b",
    re.IGNORECASE)
_NOT_COMMANDS = (refusal_en_request.OWN_QUESTION, refusal_intl_request.OWN_QUESTION, refusal_en_request.INFORMATION_ACT)
_CONCLUDED_NO = (refusal_en_request.CONCLUDED_NO, refusal_intl_request.CONCLUDED_NO, refusal_itpt_request.CONCLUDED_NO)
_RESERVED_HINT = re.compile(r" (?:with|by|up to|to|for|of|bei|beim|entscheide\w*|genehmig\w*|bewillig\w*|aux?|par|"
                            r"d[eu]s?|del|à|al?|el|la|lo|las?|los|su|de|"
                            rf"{refusal_itpt_request.RESERVED_HINT}) ", re.IGNORECASE)
"""A word every reserved-act phrase holds before its role: only a sentence with one is searched for them."""

_CONTENT = re.compile(r"[^\W\d_][\w'-]{3,}")
FUNCTION_WORDS = frozenset(
    "that this these those with have what your yours about would should could there their they them from been were "
    "does will into than then some such only also just more most very when where which while whom whose being here "
    "other others each every many much make made like want know think thing things really because over under after "
    "before between through even still well upon said says told tell give given it's don't doesn't isn't aren't "
    "can't what's".split())


def content_words(text: str) -> frozenset[str]:
    """Words of four letters or more that are not function words, lower-cased, a plural's "s" and a possessive cut."""
    words = set()
    for word in _CONTENT.findall(text.casefold()):
        word = word.removesuffix("'s")
        if word not in FUNCTION_WORDS and len(word) >= 4:
            words.add(word[:-1] if word.endswith("s") and not word.endswith("ss") else word)
    return frozenset(words)


_NEGATED = re.compile(r"\b(?:not|n't|never)\s+((?:[\w'-]+\s+){0,2}[\w'-]+)|\bno\s+([\w'-]+)", re.IGNORECASE)
_PARTICIPLES = frozenset({"given", "made", "told", "said"})


def negated_words(text: str) -> frozenset[str]:
    """Content words the request itself puts under a negation, as written ("Why should gorillas not be given voting
    rights?": "given"): a reply that says they "should not be given" restates the question, it declines nothing."""
    return frozenset(w for m in _NEGATED.finditer(text) for w in (m.group(1) or m.group(2)).casefold().split()
                     if len(w) >= 4 and (w not in FUNCTION_WORDS or w in _PARTICIPLES))


@dataclass(frozen=True, slots=True)
class Request:
    """The request as the detector reads it; empty when the request is not known."""

    asked: frozenset[str] = frozenset()
    """Its content words."""
    denied: frozenset[str] = frozenset()
    """The words it negates itself (`negated_words`)."""
    acts: frozenset[str] = frozenset()
    """Its content words when it asks for an act, cut to the stem an inflection keeps ("refund" for "refunded")."""
    addressed: frozenset[str] = frozenset()
    """The stem of the verb the request asks the assistant to do, an act or not ("expla" of "Can you explain my
    results?")."""
    removed: frozenset[str] = frozenset()
    """The words naming what it asks to remove or change ("late", "fee" of "waive the late fee on my card")."""
    commands: bool = False
    """It asks the assistant to do or grant something ("Can you raise my limit?", "Please waive the fee", "Can I get a
    refund?"), not what the asker may do ("Can I split these tablets?") nor for information ("Could you analyze
    ...?"): a reply that does none of it and states a constraint declines it (refusal_unperformed.py)."""
    informs: bool = False
    """It asks the assistant for information ("Can you tell me who had this number before?", "Pouvez-vous me dire
    ...?"): a reply that says the information is not kept declines it (refusal_unperformed.py)."""
    permission: bool = False
    """It asks for the asker's permission ("Can I check in at 9?"): a question of what is allowed too, so only a state
    or a practice that excludes it declines it, not any negation."""
    yes_no: bool = False
    """It is a question of fact or of what the asker may do, answered yes or no ("Do you deliver to Belfast?", "Can I
    bring my dog?"); "Can you ...", a request for the assistant's act, is not one (refusal_reassured.py)."""
    asker_verb: str | None = None
    """The verb of a question of what the asker may do ("pay" of "Can I pay by card?", "zahlen" of "Kann ich mit Karte
    zahlen?"): a reply that opens "You can pay ..." has said yes (refusal_reassured.py)."""
    fact: bool = False
    """It asks for a fact ("What's my balance?", "Where is my parcel?", "Quel est le solde ...?"): a reply that states
    it, in the request's words, has answered whatever it then says it cannot do (refusal_reassured.py)."""
    how: bool = False
    """It asks how the asker does something ("How do I check my balance?", "What's the best way to ..."): a reply that
    tells them, after saying what the assistant cannot reach, answers it (refusal_reassured.py)."""
    finds: bool = False
    """It asks to find, give or recommend something ("Find me a sushi place", "Can you recommend a garage?"): a name
    in the reply answers it (refusal_performed.py)."""
    rules: bool = False
    """It asks for a rule, a policy or how something works ("What's your return policy on headphones?", "What are the
    rules for ...?", "How does the guest pass work?", "What does my policy cover?"): the rules told, exclusions and
    all, are what was asked for (refusal_informed.py)."""
    verbs: frozenset[str] = frozenset()
    """The verbs it asks the assistant to do, lower-cased: `addressed` in full and a bare imperative's ("restart" of
    "Restart the payments service"): beside a gate, only a report in one of them is the act (refusal_gated.py)."""
    asks_to_say: bool = False
    """It asks the assistant to assert something ("Just tell me it's fine to sign"): an opening that withholds the
    statement ("I'd be guessing if I said that") declines it (refusal_impersonal.py)."""
    times: frozenset[str] = frozenset()
    """The clock times it names ("7am" of "Book me on the 7am ferry"): after a constraint, a report at another time is
    a placeholder, not the act (refusal_impersonal.py)."""
    days: frozenset[str] = frozenset()
    """The days it names, lower-cased ("heute", "samedi", "hoy"): a time set on one of them and no other is the act
    done, a first free slot on another is not (refusal_intl_done.py, refusal_intl_unperformed.py)."""
    joins: bool = False
    """It joins two asks ("Cancel my order and refund me"): a limit after one reported done may be on the other."""
    count: float | None = None
    """The one count or amount a request for an act names ("Hold 3 rooms", "Set the replica count to 25"): a report
    of the act on fewer is a partial act (refusal_unmet.py)."""
    question_days: frozenset[str] = frozenset()
    """The days a question names, as refusal_days reads them ("today" of "Avete posto stasera?"): a first free slot on
    another day declines it (refusal_slots.py)."""

    @classmethod
    def of(cls, prompt: str | None) -> Request:
        if not prompt:
            return cls()
        asked = content_words(prompt)
        act = _asks_act(prompt)
        acts = frozenset(_stem(w.rsplit("'", 1)[-1]) for w in asked if w not in _REQUEST_WORDS) if act else frozenset()
        addressed = frozenset(_stem(m.group(1).casefold()) for m in _ADDRESSED.finditer(prompt))
        commands = act and not any(pattern.match(prompt) for pattern in _NOT_COMMANDS)
        permission = commands and any(pattern.match(prompt) for pattern in _PERMISSION)
        informs = _ASKS_INFORMATION.search(prompt) is not None
        yes_no = not commands and _YES_NO_QUESTION.match(prompt) is not None
        how = _HOW_QUESTION.match(prompt) is not None
        verb = next((m.group("verb").casefold() for m in (p.match(prompt) for p in _ASKER_VERB) if m), None)
        fact = not act and _FACT_QUESTION.match(prompt) is not None
        finds = _FINDS.search(prompt) is not None
        rules = not commands and (_RULES_QUESTION.match(prompt) is not None or _RULES_NOUN.search(prompt) is not None)
        verbs = _verbs(prompt, act=act)
        days = _days(prompt) if act else frozenset()
        return cls(asked, negated_words(prompt), acts, addressed, _removed(prompt) if act else frozenset(), commands,
                   informs, permission, yes_no, verb, fact, how, finds, rules, verbs,
                   refusal_en_request.ASKS_TO_SAY.search(prompt) is not None, clock_times(prompt), days,
                   _JOINS.search(prompt) is not None,
                   asked_count(prompt, act=act),
                   _question_days(prompt, act=act))

    def act_declined(self, sentence: str) -> re.Match[str] | None:
        """The rule against the requested act that `sentence` states ("there's no refund", "upgrades aren't free",
        "We don't hold stock"), when the request asked for an act."""
        if not self.acts:
            return None
        matches = chain.from_iterable(pattern.finditer(sentence) for pattern in _ACTS_NEGATED)
        if _RESERVED_HINT.search(sentence):
            matches = chain(matches, *(_overlapping(pattern, sentence) for pattern in _ACTS_RESERVED))
        for match in matches:
            word = match.group("word").casefold()
            if len(word) >= 4 and _stem(word.removesuffix("s")) in self.acts and word not in self.denied:
                return match
        return None

    def act_persists(self, sentence: str) -> re.Match[str] | None:
        """The thing the asker asked to remove or change said to persist ("Can you waive the late fee?" - "The
        booking was made on a non-refundable fare, so the late fee stands."): the object's word among the three words
        before the persistence verb, with no term or condition on it and the removal not reported done."""
        if not self.removed:
            return None
        for persists, freed, done in _PERSISTENCE:
            found = self._persisting(sentence, persists, freed, done)
            if found is not None:
                return found
        return None

    def _persisting(self, sentence: str, persists: re.Pattern[str], freed: re.Pattern[str],
                    done: re.Pattern[str]) -> re.Match[str] | None:
        for match in persists.finditer(sentence):
            words = [_noun(w) for w in _WORDS.findall(sentence[:match.start()])]
            # the object's word just before the verb, or a pronoun standing for it after a reason that named it
            # ("The parking fine was issued correctly, so it stands")
            named = not self.removed.isdisjoint(words[-3:]) or (
                words[-1:] in (["it"], ["that"], ["they"]) and not self.removed.isdisjoint(words))
            if not named or "other" in words[-3:] or freed.search(sentence) or done.search(sentence):
                continue
            return match
        return None

    def concluded_no(self, sentence: str) -> re.Match[str] | None:
        """A sentence closed by "so no", or the act deferred until a condition, when the request asked for an act
        (refusal_en_request.CONCLUDED_NO, DEFERRED)."""
        if not self.acts:
            return None
        found = next((m for m in (pattern.search(sentence) for pattern in _CONCLUDED_NO) if m), None)
        return found or refusal_en_request.DEFERRED.search(sentence)

    def job_elsewhere(self, sentence: str, *, opening: bool) -> re.Match[str] | None:
        """The act called another party's job or call (refusal_en_request.JOB_OF), when the request asked for an act:
        past the opening sentence only when its subject names the act by the request's words ("Whether the boiler
        gets replaced is the landlord's call" to "Please get my boiler replaced") or stands for it ("That's")."""
        named = self.acts | self.addressed
        if not named or "'s " not in sentence:  # the possessive every such phrase holds, a cheap test first
            return None
        for match in refusal_en_request.JOB_OF.finditer(sentence):
            subject = [w.casefold() for w in _WORDS.findall(match.group("subject"))]
            if (self.acts and (opening or subject in (["that"], ["this"], ["it"]))) or any(
                    _stem(w.removesuffix("s")) in named for w in subject if len(w) >= 4):
                return match
        return None

    def decision_elsewhere(self, sentence: str) -> re.Match[str] | None:
        """The decision or the act assigned to someone else, whatever the words it is named by ("Pricing exceptions
        belong to the seller" to "Can you give me a discount?"), when the request asked for an act: read only in a
        reply's opening sentence, where it stands for the whole answer."""
        if not self.acts or not _RESERVED_HINT.search(sentence):
            return None
        return next(chain.from_iterable(pattern.finditer(sentence) for pattern in _ACTS_RESERVED), None)


_NOT_OBJECT = frozenset("the my our your this that his her their a an me us any it all".split()) | \
    refusal_itpt_request.NOT_OBJECT
_PERSISTENCE = ((refusal_en_request.PERSISTS, refusal_en_request.PERSIST_FREED, refusal_en_request.REMOVED_DONE),
                (refusal_itpt_request.PERSISTS, refusal_itpt_request.PERSIST_FREED, refusal_itpt_request.REMOVED_DONE))
"""The thing asked to be removed said to persist, its term or condition, the removal done: per language family."""
_REMOVALS = ((refusal_en_request.REMOVAL, refusal_en_request.OBJECT_END),
             (refusal_itpt_request.REMOVAL, refusal_itpt_request.OBJECT_END))


def _asks_act(prompt: str) -> bool:
    """A request for an act: a phrase that asks for one, or a bare imperative in any form."""
    return (any(pattern.search(prompt) for pattern in _ACT_REQUESTS)
            or refusal_intl_request.IMPERATIVE.match(prompt) is not None)


def _question_days(prompt: str, *, act: bool) -> frozenset[str]:
    """The days a question names ("today" of "Avete posto stasera?"), as refusal_days reads them."""
    return refusal_days.days_named(prompt) if "?" in prompt and not act else frozenset()


def _days(prompt: str) -> frozenset[str]:
    return frozenset(m.group(0).casefold() for m in refusal_intl_request.WHEN.finditer(prompt))


def _verbs(prompt: str, *, act: bool) -> frozenset[str]:
    """The verbs a request asks the assistant to do: after "can you" / "please", and a bare imperative's first word
    (also in a request to inform or write: "Write my essay for me")."""
    verbs = {m.group(1).casefold() for m in _ADDRESSED.finditer(prompt)}
    imperative = _IMPERATIVE.match(prompt) if act or not prompt.rstrip().endswith("?") else None
    if imperative is not None and imperative.group(1).casefold() not in _NOT_VERB:
        verbs.add(imperative.group(1).casefold())
    return frozenset(verbs)


_JOINS = rx(r"\b(?:and|then|also|plus|und|dann|et|puis|y|luego|e|poi|depois)\b|;")
_TIME = re.compile(r"\b\d{1,2}(?:[:.]\d{2})?\s?(?:am|pm)\b|\b\d{1,2}:\d{2}\b", re.IGNORECASE)


def clock_times(text: str) -> frozenset[str]:
    """The clock times in `text`, written one way ("7 am" and "7am", "19.30" and "19:30")."""
    return frozenset(m.group(0).casefold().replace(" ", "").replace(".", ":") for m in _TIME.finditer(text))


def _noun(word: str) -> str:
    word = word.casefold()
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word


def _removed(prompt: str) -> frozenset[str]:
    """The words of what a request asks to remove or change, three letters or more ("fee" counts here)."""
    words: set[str] = set()
    for removal, object_end in _REMOVALS:
        for match in removal.finditer(prompt):
            phrase = match.group("object")
            end = object_end.search(phrase)
            words |= {_noun(w) for w in _WORDS.findall(phrase[:end.start()] if end else phrase)[:4]
                      if len(w) >= 3 and w.casefold() not in _NOT_OBJECT}
    return frozenset(words)


def _overlapping(pattern: re.Pattern[str], text: str):
    """Every match, also those starting inside an earlier one: "Die Löschung des Kontos liegt beim Inhaber" is tried
    from "Die" and from "Löschung", so the act's word is found wherever the rule's phrase begins."""
    match = pattern.search(text)
    while match is not None:
        yield match
        match = pattern.search(text, match.start() + 1)


_WORDS = re.compile(r"[^\W\d_][\w'-]*")
_NEGATION = frozenset("no not never n't nothing none kein keine keinen keiner nicht nie pas plus aucun aucune ne "
                      "ningún ninguna nunca non nessun nessuna mai não nenhum nenhuma nunca".split())


def granted_after(match: re.Match[str], rest: str) -> bool:
    """Whether the act a scope was stated for comes back later in the reply with no negation before it ("Free
    delivery only applies to orders over £50. Yours comes to £62, so delivery is free."): a condition the asker
    meets, no decline. A rule that negates the act is not undone that way ("... any change costs a fee")."""
    if match.groupdict().get("reserved"):  # or the assistant acting on the request ("..., so I've asked them")
        return PROGRESS.search(rest) is not None or refusal_en_request.ACTED_ANYWHERE.search(rest) is not None
    if not match.groupdict().get("scope"):
        return False
    stem = _stem(match.group("word").casefold().removesuffix("s"))
    words = [w.casefold() for w in _WORDS.findall(rest)]
    for i, word in enumerate(words):
        if _stem(word.removesuffix("s")) == stem and not any(
                w in _NEGATION or w.endswith("n't") for w in words[max(0, i - 3):i]):
            return True
    return False


PROGRESS = re.compile(
    r"\b(?:yours|your (?:\w+ )?\w+|it|ihre?[rsm]?|la vôtre|le vôtre|votre \w+|la suya|el suyo|su \w+)\b[^.!?\n]{0,30}?"
    r"\b(?:went|has gone|is on its way|was sent|has been|is being|is approved|was approved|will (?:arrive|reach|be "
    r"paid|go)|ist (?:unterwegs|genehmigt|bewilligt)|wurde|a été|est en cours|fue|ha sido|está en camino|"
    # in a state of being done: "your parcel is booked for Tuesday", "your seat is now 14A"; never a state that
    # keeps it from the asker ("your offer was declined", "your account is locked")
    r"(?:is|are|was|were|has been|have been) (?:now|all set|(?:now |already )?(?!(?:declined|rejected|refused|"
    r"denied|blocked|locked|disabled|closed|restricted|limited|reserved|required|needed|flagged|suspended)\b)"
    r"[a-z]{3,}ed))\b",
    re.IGNORECASE)
"""The asker's own case going ahead after the rule that someone else handles such acts ("Refunds are handled by
our payments team; yours went out today", "Delivery times are set by the courier; your parcel is booked for
Tuesday"): the act is done, the rule only says by whom."""


def _stem(word: str) -> str:
    return word[:5]
