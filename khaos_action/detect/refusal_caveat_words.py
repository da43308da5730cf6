"""The words refusal_caveat.py reads in German, French, Spanish, Italian and Portuguese beside English: a participle
reporting an act, what makes an opening no plain report, the words before a verb that use it, a repetition or a
threshold that sets other cases apart, and the parts of a hedge on certainty."""

from __future__ import annotations

import re

from khaos_action.detect.refusal_grammar import rx

PARTICIPLE = re.compile(
    r"[a-z]{3,}(?:ed|en)|"  # English "archived", "frozen"
    r"(?:ge)?[a-zäöüß]{2,}(?:iert|t)|"  # German "archiviert", "reserviert", "gebucht"
    r"[a-zàâçéèêëîïôûùüÿœ]{3,}(?:é|ée|és|ées|i|ie|is|ies|u|ue|us|ues)|"  # French "prolongés", "coupée"
    r"[a-záéíóúñãõâêôç]{2,}(?:ad|id)(?:o|a|os|as)|"  # Spanish and Portuguese "archivado", "bloqueado", "enviada"
    r"[a-zàèéìòù]{2,}(?:at|it|ut|es|s)(?:o|a|i|e)"  # Italian "prolungato", "sospeso"
)
"""A word shaped as a participle in one of the six languages (the whole word)."""
UNSURE = rx(
    r"\b(?:not|n't|no|never|only|cannot|unable|but|though|however|if|once|when|unless|will|would|could|should|must|"
    r"need|needs|can|(?-i:may)|might|pending|yet|tried|attempted|failed|"
    r"nicht|kein\w*|nur|erst|aber|wenn|falls|sobald|kann|können|muss|müssen|soll|würde|wäre|wären|noch nicht|"
    r"ne|n'|pas|plus|seulement|uniquement|mais|si|quand|dès|peut|peuvent|doit|doivent|pourrait|serait|"
    r"non|solo|sólo|pero|cuando|puede|pueden|debe|deben|todavía|aún|sería|"
    r"ma|però|quando|può|possono|deve|devono|ancora|sarebbe|"
    r"não|só|apenas|mas|se|quando|pode|podem|deve|devem|ainda|seria)\b|\?"
)
"""What makes an opening no plain report: a negation, a limit, a condition, a modal (not the month "May"), a
conditional ("wäre", "serait"), a question."""
ASKING_MODALS = frozenset(
    "pouvez pourriez peux pourrais puede pueden podría podrían puedes podrías podéis "
    "può potete potrebbe potreste puoi potresti pode podem poderia poderiam podes".split())
"""The modal a request opens on ("Pouvez-vous prolonger ...?", "¿Puede renovar ...?"): its verb is the request's
infinitive (German, where nouns end as infinitives do, is read by the other readings)."""
INFINITIVE = re.compile(r"[a-zàâçéèêëîïôûùüÿœáíóúñãõ]{3,}(?:er|ir|re|ar|are|ere|ire)(?:lo|la|los|las|le|les|li|gli|"
                        r"ne|ci)?")
"""A French, Spanish, Italian or Portuguese infinitive, a pronoun attached or not ("prolonger", "renovarlos")."""
LIMITING = frozenset(
    "cannot can't won't not never only don't doesn't isn't aren't nobody "
    "nicht nie nur kein keine keinen niemand "
    "pas plus ne jamais seulement uniquement personne "
    "nunca solo sólo nadie "
    "non mai soltanto nessuno "
    "não nunca só apenas ninguém".split())
"""A negation or a restriction: the request's verb among the three words after one is the act limited ("can't be
renewed", "Only members can book", "ne pourront plus être prolongés"); after a plain modal it is not ("it will stay
quiet"), and "no" is left out ("has no smart lock" names a thing)."""
OTHER_CASES = rx(
    r"\b(?:again|twice|a second time|any more|anymore|further|over|above|more than|beyond|longer than|"
    r"erneut|nochmal|noch einmal|wieder|über|mehr als|encore|ensuite|de nouveau|à nouveau|plus de|au-delà|"
    r"otra vez|de nuevo|más de|por encima|di nuovo|ancora|più di|oltre|outra vez|novamente|mais de|acima|"
    r"but (?:this one|yours|hers|his|theirs) (?:is|was|has|had))\b"
)
"""A repetition, a threshold or the asker's case set apart: the act's verb limited for other cases than the one just
done ("They can't be renewed again", "Claims over £500 can't be approved by team leads", "Non si può sospendere più
di due volte", "External addresses can't be added to that list, but hers is internal")."""
TELLING = rx(
    r"\b(?:say|tell|give|promise|guarantee|confirm|predict|be|"
    r"sagen|nennen|versprechen|garantieren|bestätigen|zusagen|behaupten|"
    r"dire|donner|garantir|promettre|confirmer|assurer|préciser|affirmer|"
    r"(?:decir|dar|asegurar|garantizar|prometer|confirmar|precisar|afirmar|"
    r"dare|garantire|promettere|confermare|assicurare|affermare|"
    r"dizer|garantir|assegurar)(?:lo|la|los|las|le|les|me|te|se|lo|li|gli|ti|ci|vi)*)\b"
)
"""The assistant's own saying or telling (with its pronouns attached: "confirmarlo", "garantirlo")."""
DONE_OPENING = rx(
    r"^\W*(?:(?:you're |you are |we're |it's )?all set|done|that's done|sorted|c'est fait|erledigt|ist "
    r"erledigt|hecho|listo|ya está|fatto|feito|pronto)\b(?=\s*[.,:;!\u2013\u2014-])"
)
"""The act reported done by a word of getting it done, whatever its verb ("All set:", "Done -", "Hecho,"); "C'est
noté" only acknowledges the request."""
CERTAINTY = rx(
    r"\b(?:for (?:sure|certain)|(?:an?|the) (?:exact|precise|definite|definitive|firm|final)|exactly|precisely|"
    r"definitely|with certainty|how long|when exactly|for every|completely|entirely|sure|certain|"
    r"mit sicherheit|sicher|genaue?[nrs]?|exakte?[nrs]?|hundertprozentig|"
    r"précise?s?|exacte?s?|avec certitude|à coup sûr|"
    r"con (?:seguridad|certeza)|exact[oa]s?|precis[oa]s?|al cien por cien|seguro|"
    r"con certezza|sicur[oa]|esatt[oa]|al cento per cento|"
    r"com certeza|exat[oa]s?|cem por cento|ao certo)\b|100\s?%"
)
"""What qualifies the telling by certainty or precision."""
BUT = rx(r"[,;]?\s*\b(?:but|though|however|aber|doch|jedoch|mais|cependant|pero|sin embargo|ma|però|tuttavia|mas|"
         r"porém|contudo)\b[,\s]*")
DIRECTS = rx(
    r"\b(?:you (?:can|could|should|may|might|'ll|will|need|must)|you'd|I can|I could|I'd|I'll|I will|we can|let me|"
    r"please|contact|call|ask|check with|try|recommend|suggest|can't|cannot|won't|don't|unable|"
    r"sie können|können sie|bitte|wenden sie|rufen sie|kann ich|können wir|"
    r"vous pouvez|veuillez|contactez|appelez|je ne peux|nous ne pouvons|"
    r"puede|llame|contacte|por favor|no puedo|no podemos|"
    r"può|chiami|contatti|per favore|non posso|non possiamo|"
    r"pode|ligue|não posso|não consigo|não podemos)\b|\?"
)
"""What makes the rest a redirect, an offer or another decline rather than information."""
YES_NO = rx(r"^\W*(?:yes|no|yeah|nope|ja|nein|oui|non|sí|si|sì|sim|não)\b")
