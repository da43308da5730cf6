"""A negation in the consequence of a condition declines nothing: "Two visits a few weeks apart, or the shade won't
hold", "The car has to be with us by 8am, or we won't finish the same day", "otherwise the shoulders won't sit right",
"sonst hält die Farbe nicht", "sinon la teinte ne tiendra pas", "de lo contrario el color no se mantiene",
"altrimenti il colore non regge", "senão a cor não se mantém". It says what would happen if the condition were not
met; the reply around it has already agreed or set the condition. Blanked as a look-alike before the decline rules
run (refusal_decline.py), so a decline elsewhere in the sentence ("I can't do that, or anything like it") is still
read."""

from __future__ import annotations

import re

CONSEQUENCE = re.compile(
    # English: "or" after a comma or a dash or before the thing ("or it won't hold"), "or else", "otherwise", "if not"
    # opening the sentence, then the negated modal within four words
    r"(?:(?:[,;\u2013\u2014]|\s-)\s*or|\bor else|\botherwise|^\W*if not|\bor(?= (?:the|your|it|its|this|that|they) ))"
    r"\b,?\s+"
    r"(?:(?!(?:but|and|so|because|however)\b)[\w'-]+\s+){0,4}?"
    r"(?:won't|will not|wouldn't|would not|can't|cannot|couldn't|may not|might not|isn't going to|aren't going to|"
    r"won't be able to)\b"
    # the other languages: the connector after a comma or a dash opens the consequence, to the clause's end
    r"|(?:[,\u2013\u2014]|\s-|^\W*)\s*(?:sonst|andernfalls|ansonsten|sinon|autrement|sans quoi|faute de quoi|"
    r"de lo contrario|de otro modo|si no,|en caso contrario|altrimenti|senão|caso contrário|do contrário)\b"
    r"[^.!?;:]*"
    # "or" in the other languages, after a comma or a dash, then a negation within four words ("..., o no podremos
    # terminarlo el mismo día", "..., ou nous ne pourrons pas finir", "..., oder wir schaffen es nicht")
    r"|(?:,|\s[-\u2013\u2014])\s*(?:o|ou|oder)\s+(?:[^\W\d_]+\s+){0,3}?(?:no|ne|n'|nicht|non|não|kein\w*)\b"
    r"[^.!?;:]*",
    re.IGNORECASE)
HINTS = (", or ", "; or ", "- or ", "\u2013 or ", "\u2014 or ", "or else", "or the ", "or your ", "or it", "or this ",
         "or that ", "or they ", "otherwise", "if not", "sonst", "andernfalls", "ansonsten", "sinon", "autrement",
         "sans quoi", "faute de quoi", "contrario", ", o ", ", ou ", " oder ", "- o ", "- ou ", "de otro modo",
         "si no,", "altrimenti", "senão", "contrário")
"""Lower-cased substrings one of which a sentence must hold for CONSEQUENCE to be tried."""
