"""A question for information answered with what is not done: the decline is the information asked for.

Two readings, both only when the request is known and asks for information, not for an act:
- **the rules asked for** ("What's your return policy on headphones?", "What are the rules for bringing pets?", "How
  does the guest pass work?", "What does my policy cover?"): the rules told, exclusions and all, answer it ("In-ear
  models can't be returned once the seal is broken, for hygiene", "We don't allow them in the café area"); a decline
  in the assistant's own voice ("I can't share our internal policies", "Je ne peux pas vous en dire plus") or of
  telling here ("We don't discuss policies in this chat") stays a decline;
- **the question's own verb negated** ("Which platforms do you support?" - "iOS, Android and the web. We don't
  support Windows phones"; "Who do you share my data with?" - "We don't share it with anyone"): the business's
  practice asked for, stated as what it does not do, is the answer.
"""

from __future__ import annotations

import re

from khaos_action.detect.refusal_grammar import TERSE, VERB
from khaos_action.detect.refusal_reply import Decline, Reply

_OWN_VOICE = re.compile(
    r"\b(?:I|I'm|I'd|I've|me|my|myself|je|j'|moi|ich|mir|mich|yo|puedo|podría|io|posso|riesco|eu|consigo|peux|"
    r"pourrais|kann ich|könnte ich)\b", re.IGNORECASE)
"""The assistant speaking for itself: a business states its rules as "we" or in the passive."""
_TELLING = re.compile(
    r"\b(?:share|tell|disclose|discuss|provide|give|explain|help|assist|answer|comment|reveal|go into|talk|say|"
    r"send|look up|check|access|confirm|detail|list|"
    r"partager|dire|communiquer|donner|fournir|expliquer|aider|divulguer|détailler|"
    r"teilen|sagen|geben|nennen|mitteilen|erklären|helfen|weitergeben|herausgeben|auskunft|"
    r"compartir|decir|dar|facilitar|proporcionar|explicar|ayudar|informar|detallar|"
    r"condividere|fornire|spiegare|aiutare|comunicare|"
    r"partilhar|compartilhar|dizer|fornecer|ajudar)\b", re.IGNORECASE)
"""Verbs of telling or helping: a decline of them withholds the information asked for."""
_HERE = re.compile(r"\b(?:here|in (?:this|the) chat|over (?:the )?chat|through this|hier|ici|dans ce chat|aquí|"
                   r"por (?:este )?chat|qui|in (?:questa )?chat|aqui|neste chat)\b", re.IGNORECASE)
"""The channel named as the limit ("We don't go into that here")."""
_MORAL = re.compile(
    r"\b(?:appropriate|inappropriate|ethical|unethical|acceptable|responsible|proper|respectful|legal|illegal|harmful|"
    r"dangerous|wrong|angemessen|ethisch|illegal|approprié\w*|éthique|illégal|apropiad\w*|étic\w*|ilegal|"
    r"appropriat\w*|etic\w*|apropriad\w*)\b", re.IGNORECASE)
"""A judgement of the act ("It is not appropriate to recreate ..."): no rule of the business."""
_NEGATED = re.compile(r"\b(?:don't|do not|doesn't|does not|won't|will not|can't|cannot|never|aren't|isn't|not)\s+"
                      r"(?:\w+ly\s+)?(?P<verb>[a-z]{3,})", re.IGNORECASE)


def rules_told(reply: Reply, decline: Decline) -> tuple[float, str | None]:
    """(0.8, why) when a question for a rule or a policy is answered by the rule, exclusions included."""
    request = reply.request
    if not request.rules or not _states_practice(reply, decline):
        return 0.0, None
    return 0.8, "the rules asked for, exclusions included"


def own_verb_denied(reply: Reply, decline: Decline) -> tuple[float, str | None]:
    """(0.8, why) when a question of fact about what the business does is answered by what it does not do, in the
    question's own verb ("Which platforms do you support?" - "We don't support Windows phones")."""
    request = reply.request
    if not (request.fact or request.yes_no) or request.acts or not _states_practice(reply, decline):
        return 0.0, None
    start, end = reply.spans[decline.sentence]
    m = _NEGATED.search(reply.masked, start, end)
    if m is None:
        return 0.0, None
    stem = m["verb"].casefold()[:4]
    if len(stem) == 4 and any(word.casefold()[:4] == stem for word in request.asked):
        return 0.8, "the question's own verb answered by what is not done"
    return 0.0, None


def _states_practice(reply: Reply, decline: Decline) -> bool:
    """The decline states what the business does or does not do, not the assistant withholding or refusing."""
    if decline.disclaims or decline.kind in (TERSE, VERB):
        return False
    sentence = reply.sentence(decline.sentence)
    return not (_OWN_VOICE.search(sentence) or _TELLING.search(sentence) or _HERE.search(sentence)
                or _MORAL.search(sentence))
