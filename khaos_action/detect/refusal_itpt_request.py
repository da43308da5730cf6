"""The Italian and Portuguese words read against the request (refusal_request.py, beside refusal_en_request.py's
and refusal_intl_request.py's): a request for an act, the rule stated against that act, the act reserved to someone
else, a reason closed by a bare "no", and the thing asked to be removed said to persist."""

from __future__ import annotations

from khaos_action.detect.refusal_grammar import rx

ACT_REQUEST = rx(
    r"^\W*(?:(?:mi |ci )?(?:può|puoi|potete|potrebbe|potresti|potreste|posso|possiamo)\b|vorrei|voglio|ho bisogno|"
    r"per favore|per piacere|la prego|"
    r"(?:(?:você|vocês|o senhor|a senhora|tu) )?(?:(?:me|nos) )?(?:pode|podem|poderia|poderiam|podes|consegue|"
    r"conseguem|posso|podemos)\b|d[áa] (?:para|pra)\b|quero\b|queria\b|gostaria\b|preciso de\b|por favor\b|"
    # a bare imperative: "Annullate il mio ordine", "Mi congelate l'abbonamento", "Aumentem o limite", "Cancele ..."
    r"(?:mi |ci )?(?:annull|cancell|elimin|sblocc|rimbors|approv|prenot|spost|congel|mand|invi|aument|togli|"
    r"storn|disdic|cambi|sped|aggiung|blocc|rinnov|proroga|rilasc|conced|applic|attiv|disattiv|chiud|apr)\w*"
    r"(?:te|temi|ami|imi)\b|(?:dammi|datemi|mi dia|mi date)\b|"
    # "È possibile spostare il mio appuntamento?", "É possível transferir o meu bilhete?": the asker's own thing
    r"(?:è|sarebbe) possibile (?:\w+ ){1,2}?(?:il mio|la mia|i miei|le mie|il nostro|la nostra)\b|"
    r"(?:é|seria) possível (?:\w+ ){1,2}?(?:o meu|a minha|os meus|as minhas|meu|minha|o nosso|a nossa)\b|"
    # with "mi" or "ci" before it, any form: "Mi annulli la prenotazione?", "Ci spostate la consegna?"
    r"(?:mi|ci) (?:annull|cancell|elimin|sblocc|rimbors|approv|prenot|spost|congel|mand|invi|aument|togli|storn|"
    r"disdic|cambi|sped|aggiung|blocc|rinnov|proroga|rilasc|conced|applic|attiv|disattiv|chiud|apr|prolung|"
    r"anticip|abilit|correg)\w*\b|"
    r"(?:cancel|aument|envi|mand|apag|desbloqu|reembols|aprov|reserv|remarqu|mud|alter|tir|liber|suspend|"
    r"estorn|renov|emit|exclu|inclu|adicion|transfir)(?:e|em|a|ei-me|em-me)\b)"
    r"(?! (?:mi )?dir\w*| sapere| spiegar\w*| (?:me )?dizer| informar\w*| explicar\w*)"
)
"""Italian and Portuguese requests for an act: "Può stornare ...?", "Mi cambiate ...?", "Você pode ...?", "Dá para
...?", "Aumentem ...", not "Può dirmi ...?" nor "Pode me dizer ...?"."""
_NOT_FOUND = (r"(?! (?:\w+ )?(?:\d|#|con\b|com\b|a nome|em nome|intestat|sotto\b|trovat|encontrad|cadastrad|"
              r"associad|registad|registrad))")
"""Not a failure to find the thing: "nessun ordine con il numero 55120", "nenhuma reserva em nome de ..."."""
_NOT_PRICE = (r"(?!(?:cost|spes|commission|tariff|addebit|supplement|sovrapprezz|penal|multa|multe|custo|taxa|"
              r"encargo|cobrança|juro|franquia|pagament)\w*\b)")
"""Not a price: "nessun costo", "nenhuma taxa" say the thing is free, they decline nothing."""
ACT_NEGATED = (
    rx(r"\bnon (?:c'è|ci sono|è previst[oa]|sono previst[ei]|offriamo|facciamo|effettuiamo|accettiamo|concediamo|"
       r"diamo|emettiamo) (?:nessun[oa]? |alcun[oa]? |un[oa]? |il |la |i |le |gli )?" + _NOT_PRICE
       + r"(?P<word>\w+)\b" + _NOT_FOUND),
    rx(r"\bnessun[oa]? " + _NOT_PRICE + r"(?P<word>\w+)\b" + _NOT_FOUND),
    rx(r"\bnon (?P<word>\w+iamo)\b"),
    rx(r"\b(?P<word>\w+) (?:\w+ )?non (?:è|sono) (?:\w+ )?(?:previst|consentit|permess|ammess|possibil|gratuit|inclus|"
       r"disponibil|rimborsabil)\w*\b"),
    rx(r"\bnão (?:há|tem|existe|existem|temos|fazemos|oferecemos|aceitamos|damos|realizamos|efetuamos|efectuamos|"
       r"emitimos|concedemos) (?:nenhum[a]? |qualquer |um[a]? |o |a |os |as )?" + _NOT_PRICE
       + r"(?P<word>\w+)\b" + _NOT_FOUND),
    rx(r"\bnenhum[a]? " + _NOT_PRICE + r"(?P<word>\w+)\b" + _NOT_FOUND),
    rx(r"\bnão (?P<word>\w+mos)\b"),
    rx(r"\b(?P<word>\w+) (?:\w+ )?não (?:é|são|está|estão) (?:\w+ )?(?:previst|permitid|possíve|possível|autorizad|"
       r"incluíd|disponíve|disponível|gratuit|reembolsáve)\w*\b"),
    # a scope: "il reso è accettato solo entro 30 giorni", "a troca só vale até 30 dias"
    rx(r"\b(?P<word>\w+) (?P<scope>(?:è|sono) (?:accettat|valid|possibil|consentit)\w* (?:solo|soltanto|"
       r"unicamente)|vale solo|valgono solo|só (?:vale|valem|é válid\w*|se aplica|é aceit\w*)|(?:é|são) "
       r"(?:válid|aceit|possíve)\w* (?:só|apenas|somente))\b"),
)
ACT_RESERVED = (
    # the act reserved to someone with authority over it, never the asker nor the assistant: "L'approvazione delle
    # ferie spetta al responsabile", "I voti vengono decisi dal docente", "A aprovação cabe ao chefe", "Acesso de
    # administrador é concedido apenas pelos donos"
    rx(r"\b(?P<word>\w+)(?: [\w']+){0,3}? (?P<reserved>spetta(?:no)? (?:a|al|alla|ai|agli|all')|compete (?:a|al|alla|"
       r"ai)|(?:è|sono) (?:compito|di competenza) (?:di|del|della|dei)|(?:è|sono) riservat[oaie] (?:a|al|alla|ai|agli|"
       r"all')|(?:viene|vengono|è|sono) (?:decis|gestit|approvat|concess|autorizzat|stabilit|rilasciat|fissat)[oaie] "
       r"(?:solo |soltanto |esclusivamente )?(?:da|dal|dalla|dai|dagli|dall'))\s*(?!lei\b|te\b|voi\b|me\b|noi\b)"
       r"(?:il |la |i |le |gli |l'|un |una |suo |sua |tuo |tua |vostro |vostra )?[\w']+"),
    rx(r"\b(?P<word>\w+)(?: \w+){0,3}? (?P<reserved>cabe(?:m)? (?:a|ao|à|aos|às)|compete(?:m)? (?:a|ao|à|aos|às)|"
       r"(?:é|são) (?:da )?(?:competência|responsabilidade) d[oae]s?|(?:é|são) (?:reservad|concedid|decidid|aprovad|"
       r"autorizad|tratad|emitid|definid)[oa]s? (?:apenas |só |somente |exclusivamente )?(?:por|pel[oa]s?|no|na|nos|"
       r"nas)|fica(?:m)? a cargo d[oae]s?) (?!você\b|vocês\b|si\b|mim\b|nós\b)(?:o |a |os |as |seu |sua |teu |tua |"
       r"um |uma )?\w+"),
)
"""The rule against an act in Italian and Portuguese: "non spediamo", "nessun rimborso", "il congelamento non è
previsto", "não fazemos envios", "não há reembolso", "upgrades gratuitos não estão disponíveis"; ACT_RESERVED, the
act reserved to someone else ("spetta al responsabile", "cabe ao chefe de equipa")."""
RESERVED_HINT = (r"spetta\w*|compet\w*|compito|riservat\w*|decis\w*|gestit\w*|approvat\w*|concess\w*|autorizzat\w*|"
                 r"stabilit\w*|rilasciat\w*|fissat\w*|cabe\w*|reservad\w*|concedid\w*|decidid\w*|aprovad\w*|"
                 r"autorizad\w*|tratad\w*|emitid\w*|definid\w*|cargo|responsabilidade")
"""A word every reserved phrase holds (its verb or noun), added to refusal_request.py's cheap test: never a short
preposition, which English sentences hold too ("a", "do")."""
CONCLUDED_NO = rx(
    r"\b(?:quindi|perciò|dunque|per cui|então|portanto|por isso|logo),? (?:purtroppo |infelizmente )?(?:no|não)"
    r"(?:,? (?:mi dispiace|mi spiace|desculpe|lamento|sinto muito))?\s*[.!]*\s*$"
)
"""A reason closed by a bare "no" ("..., quindi no.", "..., então não.")."""
REMOVAL = rx(
    r"\b(?:annull|togli|storn|rimuov|cancell|elimin|rimbors|abbuon|condon|ridur|riduc|modific|cambi|anul|tir|retir|"
    r"remov|estorn|isent|perdo|reduz|reembols|alter|mud)\w*\s+(?P<object>[^.!?,;:\n]{1,60})"
)
"""A request to remove or change a thing ("Potete togliere la penale di recesso?", "Podem tirar a multa?"): its
object is the words after the verb up to the first preposition."""
OBJECT_END = rx(r"\b(?:di|del|della|dal|dalla|per|su|in|da|con|perché|de|do|dos|das|para|por|em|no|na|com|porque|"
                r"sobre)\b")
PERSISTS = rx(
    r"(?<!non )(?<!não )\b(?:rimane|rimangono|resta|restano|continua(?:no)? a valere|resta(?:no)? dovut[aoie]|"
    r"rimane dovut[ao]|"
    r"mantém-se|mantêm-se|se mantém|se mantêm|permanece|permanecem|continua(?:m)? (?:valendo|a valer|em vigor|"
    r"devid[oa]s?))\b"
)
"""The thing asked to be removed persisting ("la penale rimane", "a multa continua valendo", "mantém-se")."""
PERSIST_FREED = rx(r"\b(?:fino a|finché|até)\b|^\W*(?:se|quando|qualora|caso)\b")
"""With a term ("l'abbonamento resta attivo fino al 3 giugno") or under a condition: no decline."""
REMOVED_DONE = rx(
    r"\b(?:ho|abbiamo) (?:già |appena )?(?:tolto|annullat\w|stornat\w|rimoss\w|cancellat\w|eliminat\w|rimborsat\w|"
    r"ridott\w|abbuonat\w|condonat\w)|\b(?:tirei|retirei|anulei|cancelei|estornei|removi|isentei|reduzi|reembolsei|"
    r"tiramos|retiramos|anulamos|cancelamos|estornamos|removemos|isentamos|reduzimos|reembolsamos)\b"
)
"""The removal reported done ("ho tolto la penale; il resto della bolletta rimane", "já estornei a tarifa")."""
NOT_OBJECT = frozenset("il lo la i gli le l un una uno mio mia miei mie suo sua tuo tua o a os as um uma meu minha "
                       "seu teu tua este esta esse essa".split())
"""Articles and possessives left out of the thing's words."""
REQUEST_WORDS = frozenset(
    "può puoi potete potrebbe potresti potreste vorrei voglio bisogno favore piacere prego mio mia miei della dello "
    "degli delle alla sono questo questa "
    "pode podem poderia poderiam podes consegue quero queria gostaria preciso favor você vocês voce minha meu meus "
    "minhas para pelo pela isso este esta".split())
"""The Italian and Portuguese words that ask ("Può ...?", "Vorrei ...", "Você pode ...?"), never the act: they are
left out of the words a reply names the request by."""
