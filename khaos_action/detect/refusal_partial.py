"""A partial act (refusal_decline.py): the act asked for reported done on fewer than the one count the request names
("Set the replica count to 25" - "I've set it to 23 for now", "Hold 3 rooms" - "I've held one room"), the whole or a
rest done never named ("all 12", "the other 7 arrive tomorrow", "scheduled the remaining £200")."""

from __future__ import annotations

import re

from khaos_action.detect.refusal_count import NUMBER_WORDS, QUANTITY, count_of
from khaos_action.detect.refusal_grammar import rx
from khaos_action.detect.refusal_request import Request

PARTIAL_REPORT = rx(
    r"\b(?:I|we)(?:'ve| have)(?: just| now| already| only)? (?P<verb>[a-z]{2,}ed|set|held|made|put|sent|paid|bought|"
    r"taken|given|got|kept|built)\b(?P<object>[^.;:!?\n]{0,40})"
)
_NUMBERS = rf"(?:\d+|{'|'.join(list(NUMBER_WORDS)[1:])})"
_STILL_NEEDS = (r"need|needs|require|requires|have to|has to|must|can't|cannot|won't|aren't|are not|isn't|is not|"
                r"depend|depends|wait|waits")
_WHOLE = rx(rf"\b(?:all (?:{_NUMBERS}|of (?:them|those|these|the)|the|those|these)|every|each|both|"
            rf"(?:(?:the )?(?:other|remaining)|another) (?:[£$€]\s?)?{_NUMBERS}\b"
            rf"(?! [^.;!?\n]{{0,24}}?\b(?:{_STILL_NEEDS})\b))\b")
"""A report that names the whole or the rest ("all 12", "the other 7", "scheduled the remaining £200"): the act done
in parts, not in part; a rest that still needs something ("the other 3 need a plan upgrade") is not done."""


def partial_act(request: Request, reply_text: str, sentence: str) -> re.Match[str] | None:
    """The act reported done on fewer than the request's count, the whole never named."""
    asked = request.count
    if not request.commands or asked is None or asked < 2 or _WHOLE.search(reply_text):
        return None
    stems = {v[:4] for v in request.verbs if len(v) >= 3}
    for report in PARTIAL_REPORT.finditer(sentence):
        verb = report.group("verb").casefold()
        # in another verb than the request's, only a count that opens the object ("Reserve 4 tickets" - "I've held
        # 2 seats"); not a figure of another act ("I've submitted a request to raise your limit to $20,000")
        own = _IRREGULAR.get(verb, verb)[:4] in stems or _SET_TO.match(report.group("object"))
        reach = REACH if own else 1
        quantity = QUANTITY.search(sentence, report.start("object"))
        if (quantity is not None and quantity.start() - report.start("object") <= reach
                and (count := count_of(quantity)) is not None and 0 < count < asked):
            return report
    return None


_SET_TO = rx(r"\s+(?:it|them|that|this|those|these)(?: all)? (?:up |down |back )?(?:to|at)\b")
"""A report whose object is the request's thing and a new level ("I've bumped them to 6 GB"): a setting of it in any
verb."""
REACH = 40
"""Characters after the reported verb in which its count is read ("I've held one room", "I've set it to 23")."""
_IRREGULAR = {"held": "hold", "made": "make", "sent": "send", "paid": "pay", "bought": "buy", "kept": "keep",
              "built": "build", "got": "get"}
