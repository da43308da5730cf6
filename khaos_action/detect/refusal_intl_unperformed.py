"""The German, French, Spanish, Italian and Portuguese words of the unperformed request (refusal_unperformed.py reads
them beside its English ones, refusal_performed.py beside its own): a request for an act met by a reply that does not
perform it and states a constraint in its place.

The constraint: the thing taken by someone else ("von einem anderen Team gebucht", "prenotata da un altro cliente"),
the window for the act closed ("lief am 12. März ab", "s'est terminé hier", "terminou a 2 de maio"), the charge that
goes on or applies anyway ("wird weiter abgebucht", "se te cobrará igualmente", "continua a ser cobrada"), a record
kept as it was ("resta così com'è"); or, about what the request named, a negation, "only", "until", a requirement
or a charge in Italian and Portuguese ("só produz efeito nessa data", "solo con due revisori"). The act is not
performed when the reply's only promise or state is inside a condition not yet met ("Sobald beides vorliegt, schalte
ich den Zugang frei", "Dès que votre compte est validé, j'ajoute les droits", "Assim que o notebook estiver
cadastrado, eu libero o acesso"), and a question back that proposes another thing ("Wäre Raum B eine Option?", "Le
andrebbe bene giovedì?") is an offer, not a question about what the act needs.
"""

from __future__ import annotations

import re

from khaos_action.detect.refusal_grammar import rx
from khaos_action.detect.refusal_intl_request import WHEN

STATE = rx(
    # taken by someone else: "von einem anderen Team gebucht", "réservé par un autre client", "reservado por otro
    # cliente", "prenotata da un altro cliente", "reservada por outro hóspede"
    r"\bvon (?:einem|einer) anderen\b|\bhat\b(?![^.;!?]*\bfür (?:sie|dich|euch|ihren|ihre)\b)[^.;!?]{0,60}?"
    r"\b(?:gebucht|reserviert|belegt|gemietet)\b|\b(?:attribuíd|atribuíd|vendid|reservad)[oa]s? (?:\w+ )?a outr[oa]s\b|"
    r"\b(?:ein|eine) andere[rs]? (?:\w+ )?(?:hat|haben) (?:\w+ ){0,3}?(?:gebucht|reserviert)\b|"
    r"\b(?:réservée?s?|louée?s?|prise?s?|occupée?s?) par (?:un|une) autre\b|\b(?:un|une) autre \w+ (?:a|l'a) "
    r"(?:déjà )?(?:réservée?|louée?|pris)\b|"
    r"\b(?:reservad|ocupad|alquilad|cogid)[oa]s? (?:por|para) otr[oa]s?\b|\botr[oa] \w+ (?:ya )?(?:lo |la )?(?:ha|han) "
    r"(?:reservado|alquilado|cogido)\b|"
    r"\b(?:prenotat|riservat|occupat|noleggiat)[oaie] (?:da|per) (?:un|una|un') ?altr[oa]\b|\b(?:un|un') ?altr[oa] "
    r"\w+ (?:l'|la |lo )?ha (?:già )?(?:prenotat|riservat|noleggiat)[oa]\b|"
    r"\b(?:reservad|ocupad|alugad|marcad)[oa]s? (?:por|para) (?:um[a]? )?outr[oa]\b|\boutr[oa] \w+ (?:já )?"
    r"(?:a |o )?(?:reservou|alugou|marcou)\b|"
    # reserved to a higher plan: "Mehr Speicher gibt es ab dem Tarif Pro", "à partir de l'offre Premium", "a partir del
    # plan Pro", "a partire dal piano Business", "a partir do plano Plus"
    r"\b(?:erst ab|nur ab|ab|à partir d[eu]|dès|a partir del?|a partire dal(?:la)?|a partir d[oa])\s+(?:dem |der |l'|"
    r"la |le |el |il |o |a )?(?:tarif|tarifa|tariffa|paket|plan|plano|piano|abo|abonnement|offre|forfait|formule|"
    r"stufe|level|nivel|livello|nível)\b|"
    # taken, blocked or tied to its holder: "sind alle Räume durch eine Schulung blockiert", "están todas ocupadas",
    # "sono nominativi", "são nominais", "nicht übertragbar"
    r"\b(?:ist|sind) (?:[\w-]+ ){0,6}?(?:blockiert|besetzt|vergeben)\b|\b(?:están|está|sont|est|sono|è|estão|está) "
    r"(?:tod[oa]s |toutes |tous |tutt[ie] |já |già |déjà |ya )?(?:ocupad[oa]s?|occupée?s?|occupat[oaie]|"
    r"bloquead[oa]s?|bloquée?s?|bloccat[oaie])\b|"
    r"\b(?:é|são|sind|ist|sont|est|es|son|è|sono) (?:\w+ )?(?:nominais|nominal|nominativ[oie]|nominatif|nominatives?|"
    r"nominatifs|intransferíve(?:l|is)|intransferibles?|non cedibil[ei]|nicht übertragbar|personengebunden)\b|"
    # the thing kept undone or pending: "sigue sin confirmar", "resta in sospeso", "fica retido", "bleibt ohne
    # Versandfreigabe", "reste en attente"
    r"\b(?:fica|ficam|resta|restano|rimane|rimangono|reste|restent|sigue|siguen|queda|quedan|bleibt|bleiben) "
    r"(?:\w+ )?(?:retid[oa]s?|bloquead[oa]s?|bloccat[oaie]|bloquée?s?|pendiente|in sospeso|in attesa|em espera|"
    r"en attente|en suspens|ausstehend|offen|sin|sem|senza|sans|ohne)\b|"
    # full or closed (Italian, Portuguese; the other languages are in refusal_unperformed.STATE)
    r"\b(?:è|sono) (?:già |ormai )?(?:al completo|esaurit[oaie]|chius[oaie]|pien[oaie])\b|"
    r"\b(?:está|estão|fica|ficam) (?:já )?(?:esgotad|lotad|fechad|complet|ocupad|cheia)[oa]?s?\b|"
    # the window for the act closed: "lief am 12. März ab", "endete am 3. Mai", "s'est terminé hier", "terminó hoy",
    # "era possibile fino a ieri", "è scaduto", "terminou a 2 de maio"
    r"\b(?:lief|liefen)\b[^.;!?]{0,30}?\bab\b|\b(?:endete|endeten|verstrich|ist verstrichen|ist vorbei)\b|"
    r"\b(?:s'est|se sont) (?:terminée?s?|achevée?s?|clôturée?s?)\b|\b(?:a|ont) été (?:\w+ )?(?:clôturée?s?|"
    r"fermée?s?)\b|\b(?:reste|restent|demeure|demeurent) (?:\w+ )?à (?:votre|ta|sa|leur) charge\b|\ba pris fin\b|"
    r"\best (?:déjà )?(?:passée?|écoulée?|close)\b|"
    r"\b(?:terminó|finalizó|venció|caducó|expiró|se cerró|ya pasó)\b|"
    r"\b(?:è|sono) (?:già )?(?:scadut|terminat|passat)[oaie]\b|\bera possibile (?:solo )?(?:fino|entro)\b|"
    r"\b(?:terminou|expirou|venceu|acabou|encerrou|já passou)\b|"
    # the charge going on or applying anyway: "wird weiter abgebucht", "bleibt die Gebühr fällig", "reste dû", "se
    # sigue cobrando", "se te cobrará igualmente", "viene addebitata comunque", "continua a ser cobrada", "na mesma"
    r"\b(?:weiter|weiterhin|trotzdem|dennoch)\b[^.;!?]{0,30}?\b(?:berechnet|abgebucht|belastet|fällig)\b|"
    r"\b(?:bleibt|bleiben)\b[^.;!?]{0,30}?\bfällig\b|"
    r"\b(?:reste|restent|demeure|demeurent) dûe?s?\b|\bcontinuer(?:a|ont)? (?:d'être|à être) (?:facturée?s?|"
    r"prélevée?s?|débitée?s?)\b|\b(?:factur|prélev|débit)ée?s? (?:\w+ )?(?:quand même|tout de même|malgré tout)\b|"
    r"\b(?:sigue|siguen|seguirá|seguirán) (?:cobrándose|cobrando|facturándose|facturando)\b|\bse (?:\w+ )?(?:sigue|"
    r"siguen|seguirá) cobrando\b|\b(?:cobr|factur)\w+ (?:\w+ )?(?:igualmente|igual|de todos modos|de todas formas)\b|"
    r"\b(?:resta|restano|rimane|rimangono) dovut[oaie]\b|\bcontinu\w+ a essere (?:addebitat|fatturat)[oaie]\b|"
    r"\b(?:addebitat|fatturat)[oaie] (?:\w+ )?(?:comunque|lo stesso|ugualmente)\b|"
    r"\bcontinua(?:m|rá|rão)? (?:a ser|sendo|a ficar) (?:cobrad|debitad|faturad)[oa]s?\b|\b(?:cobrad|debitad|faturad)"
    r"[oa]s? (?:\w+ )?(?:na mesma|mesmo assim|de qualquer forma|de qualquer maneira|igualmente)\b|"
    r"\b(?:continua|continuam|fica|ficam) (?:devid|em dívida)[oa]?s?\b|"
    # the thing kept as it is until a later date: "Bis dahin bleibt sie auf dem Kautionskonto", "Fino ad allora la
    # linea resta in rame", "Até lá a mensalidade continua a ser cobrada"
    r"\b(?:bis dahin|bis zu diesem (?:datum|zeitpunkt|termin)|d'ici là|jusque-là|jusqu'à cette (?:date|échéance)|"
    r"hasta entonces|hasta esa fecha|fino ad allora|fino a quel(?:la)? (?:momento|data|giorno)|até lá|até então|"
    r"até essa data)\b[^.;!?]{0,40}?\b(?:bleibt|bleiben|läuft|laufen|reste|restent|continue\w*|sigue|siguen|"
    r"seguirá\w*|resta|restano|rimane|rimangono|continua\w*|fica|ficam|mantém|mantêm|permanece\w*)\b|"
    # a record kept as it was: "bleiben so, wie sie unterzeichnet wurden", "reste tel quel", "queda como está",
    # "resta così com'è", "fica como está"
    r"\b(?:bleibt|bleiben) (?:\w+ )?so,? wie\b|\b(?:reste|restent|demeure|demeurent) (?:tel(?:le)?s? qu(?:e|'elle|'il)"
    r"|en l'état)\b|\b(?:queda|quedan|sigue|siguen|se queda|se quedan) (?:tal )?(?:como está|como están|así|igual)\b|"
    r"\b(?:resta|restano|rimane|rimangono) (?:così )?(?:com'è|come sono|come è|invariat[oaie]|immutat[oaie])\b|"
    r"\b(?:fica|ficam|permanece|permanecem) (?:tal )?(?:como está|como estão|assim|inalterad[oa]s?)\b"
)
"""A state that leaves the requested act undone, in any reply to a request for an act that does not perform it."""
STOPPED = rx(
    r"\b(?:é|são|sind|ist|sont|est|es|son|è|sono) \w+ (?:e|y|et|und|ed) (?:nominais|nominativ[oie]|nominatif|"
    r"nominatives?|intransferíve(?:l|is)|intransferibles?|non cedibil[ei]|nicht übertragbar|personengebunden|"
    r"incessibles?)\b|"
    # the thing does not allow the act: "no admiten cambio de titular", "ne permettent pas de cession", "non
    # ammettono il cambio", "não permitem a troca", "erlauben keinen Wechsel"
    r"\b(?:no (?:admiten?|permiten?)|ne (?:permettent|permet|admettent|admet) pas|non (?:ammett\w+|consent\w+|"
    r"permett\w+)|não (?:admitem|admite|permitem|permite)|erlaub\w* kein\w*|lass\w* kein\w*)\b|"
    # the service paused over the time asked: "Nos livraisons s'arrêtent le samedi à 14 h et ne reprennent que le
    # lundi", "Le consegne si fermano il sabato e ripartono il lunedì", "sind von Samstag 13 Uhr bis Montag nicht
    # unterwegs"
    r"\b(?:s'arrêtent|s'arrête|cessent|cesse|ferment|ferme|paran|para|se detienen|cierran|cierra|se suspenden|"
    r"si fermano|si ferma|chiudono|chiude|si interrompono|param|fecham|fecha|são suspensas|ruhen|ruht|pausieren|"
    r"enden|endet)\b[^.;!?]{0,60}?\b(?:reprennent|reprend|rouvrent|rouvre|se reanudan|reanudan|vuelven|reabren|"
    r"retoman|ripartono|riparte|riprendono|riprende|riaprono|riapre|recomeçam|recomeça|retomam|reabrem|wieder)\b|"
    r"\bvon \w+\b[^.;!?]{0,30}?\bbis \w+\b[^.;!?]{0,30}?\bnicht\b|"
    # a procedure decides it: "wird von der Eigentümerversammlung beschlossen", "se vote en assemblée générale", "se
    # decide en la junta", "si vota in assemblea", "é votada na reunião de condomínio"
    r"\b(?:wird|werden) (?:von|in|auf|durch) (?:der|dem|den|einer|einem) (?:[\w-]+ ){1,2}?(?:beschlossen|"
    r"entschieden|abgestimmt)\b|\bse (?:décide|décident|vote|votent) (?:en|par|lors)\b|\b(?:est|sont) (?:votée?s?|"
    r"décidée?s?) (?:en|par|lors)\b|\bse (?:decide|deciden|vota|votan|aprueba|aprueban) en\b|\b(?:es|son) "
    r"(?:votad|decidid|aprobad)[oa]s? en\b|\bsi (?:decide|decidono|vota|votano|delibera|deliberano) in\b|"
    r"\b(?:è|sono|viene|vengono) (?:votat|decis|deliberat)[oaie] (?:in|dall'|dalla|dal)\b|\b(?:é|são) "
    r"(?:votad|decidid|deliberad)[oa]s? (?:em|na|no|pel[oa])\b|\bse (?:vota|votam|decide|decidem) (?:em|na|no)\b|"
    # the asker's case not meeting the condition, said so: "ce qui n'est pas votre cas", "o que não é o seu caso"
    r"\bce qui n'est pas (?:votre|ton) cas\b|\b(?:o )?que (?:ainda )?não (?:é o (?:seu|teu) caso|se aplica a (?:si|"
    r"você|ti))\b|\blo que no es (?:su|tu) caso\b|\bil che non è il (?:suo|tuo) caso\b|\bwas bei (?:ihnen|dir) "
    r"(?:\w+ )?nicht (?:der fall ist|zutrifft)\b|"
    # the time asked all taken: "Tenemos la semana completa", "Nous avons la journée complète"
    r"\b(?:tenemos|tengo|avons|ai|haben|habe|abbiamo|ho|temos|tenho) (?:la|le|el|die|den|das|a|o|il|l') (?:\w+ ){0,2}?"
    r"(?:complet[oa]s?|complète|voll|pien[oa]|cheia|chei[oa]|lotad[oa]|ausgebucht)\b|"
    # all planned or booked: "Heute sind alle Techniker verplant"
    r"\b(?:ist|sind) (?:[\w-]+ ){0,4}?(?:verplant|ausgebucht)\b"
)
"""More states that leave the act undone: the service paused over the time asked, a procedure that decides it, the
asker's case said not to meet the condition, the time asked all taken, the thing that does not allow the act."""
_STOPPED_WORDS = (
    "s'arrêt", "cess", "ferm", "paran", "param", "detien", "cierra", "suspend", "chiud", "interromp", "fecham",
    "ruh", "pausier", "endet", "enden", "von", "beschlossen", "entschieden", "abgestimmt", "décid", "vot", "decid",
    "aprueba", "aprobad", "delibera", "cas", "caso", "fall", "zutrifft", "verplant", "ausgebucht", "complet", "voll",
    "pien", "chei", "lotad", "nominati", "nominais", "intransfer", "cedibil", "übertragbar", "personengebunden",
    "incessib", "admit", "admet", "permit", "permet", "ammett", "consent", "erlaub", "lass",
)
"""First letters of a word one of STOPPED's readings needs: a sentence with none is not searched."""
_WORD = re.compile(r"[^\W\d_][\w']*")


def stopped(text: str) -> re.Match[str] | None:
    """STOPPED in `text`, searched only when a word it needs is there."""
    if not any(w.startswith(_STOPPED_WORDS) for w in _WORD.findall(text.casefold())):
        return None
    return STOPPED.search(text)


CONSTRAINT = rx(
    r"\b(?:non|mai|nessun\w*|niente|nulla|solo|soltanto|unicamente|esclusivamente|fino|finché|serve|servono|occorre|"
    r"occorrono|richied\w*|richiede\w*|richiest\w*|bisogna|deve|devono|sempre|resta|restano|rimane|"
    r"rimangono|quindi|perciò|pertanto|comunque|"
    r"addebit\w*|applica\w*|dovut\w*|"
    r"não|nunca|nenhum\w*|nada|ninguém|só|apenas|somente|até|precis\w*|exig\w*|requer\w*|tem de|tem que|"
    r"continua\w*|mantém|mantêm|permanece\w*|portanto|por isso|cobrad\w*|cobra|debitad\w*|devid\w*|"
    r"abgebucht|fällig|factur(?:ée?s?|era|eront|ada|ado|adas|ados)|dûe?s?|prélev\w+|cobr\w+|igualmente|"
    # a limit or a condition: "ist auf 500 GB begrenzt", "una vez revisado el piso", "une fois le dossier validé"
    r"begrenzt|beschränkt|limitée?s?|limitad[oa]s?|limitat[oaie]|una vez|tras|después|une fois|après|nachdem|dopo|"
    r"una volta|depois|após)\b"
)
"""A negation, a restriction, a term, a requirement or a charge that stands, in Italian and Portuguese (and the
charge words refusal_unperformed.CONSTRAINT lacks in German, French and Spanish)."""
PRACTICE = rx(
    r"(?:^\W*|[;:,]\s*)(?:(?:i|gli|le|il|la|lo|l'|nostr[oaie]|tutt[ie] (?:i|le|gli)) ?)?(?:[\w'-]+ ){0,3}?"
    r"(?:non|mai|solo|soltanto|sempre) \w+|"
    r"(?:^\W*|[;:,]\s*)(?:(?:os|as|o|a|nossos?|nossas?|tod[oa]s (?:os|as)) )?(?:[\w-]+ ){0,3}?"
    r"(?:não|nunca|só|apenas|somente|sempre) \w+"
)
"""A practice of the business that excludes the act, in Italian and Portuguese ("I corrieri non salgono ai piani",
"Os técnicos só atendem de manhã")."""
ASKERS_CASE = rx(
    r"\b(?:votre|vos|su|tu|Ihr|Ihre|il suo|la sua|il tuo|la tua|(?:o|a) (?:sua|seu|tua|teu)) (?:[\w-]+ ){1,2}?"
    r"(?:est|sont|es|son|ist|sind|è|sono|é|são|está)\b|"
    r"\b(?:Ihr|Ihre|votre|su|tu|il suo|la sua|il tuo|la tua|seu|sua|o seu|a sua) [\w-]+ (?:läuft|liegt|steht|est|está|"
    r"è|é) (?:im|in|auf|sur|en|sous|no|na|nel|nella|sul|sulla)\b"
)
"""The asker's own case stated beside a condition ("Votre compte est un Livret Jeune", "A sua conta é pré-paga")."""
CONDITIONAL = rx(
    r"(?:^|(?<=[.!?;]))\s*(?:sobald|sowie|wenn|falls|dès que|dès qu'|quand|lorsque|une fois que|en cuanto|cuando|"
    r"tan pronto como|una vez que|appena|non appena|quando|una volta che|assim que|logo que|caso|uma vez que|"
    # "si" and "se" only before what opens a condition: Spanish "Se la hemos cambiado" reports the act
    r"si (?:vous|tu|votre|c'est|quieres|quiere|prefieres|prefiere|usted|nos|me)|se (?:vuole|vuoi|preferisce|"
    r"preferisci|desidera|il|gli|i|mi|ci|quiser|preferir|desejar|você|o|os))\b[^.!?\n]*"
)
"""A sentence that opens on a condition: what it promises or reports waits for that condition ("Sobald beides
vorliegt, schalte ich den Zugang frei", "En cuanto me llegue la aprobación, te doy de alta")."""
OFFER = rx(
    r"^\W*(?:wäre|würde|würden|passt|passen|käme|soll|sollen|möchten|wollen|darf ich|hätten sie)\b|"
    r"\b(?:voulez|souhaitez|désirez|préférez)-vous\b|\b(?:vous )?(?:conviendrait|convient|irait)\b|"
    r"\b(?:te|le|os|les) (?:vendría|viene bien|va bien|iría bien|sirve|serviría|interesa|parece bien)\b|"
    r"\b(?:quieres|quiere|prefieres|prefiere|desea|deseas)\b|"
    r"\b(?:le|ti|vi|gli) (?:andrebbe|va bene|interessa|servirebbe|farebbe comodo|starebbe bene)\b|\bandrebbe bene\b|"
    r"\b(?:vuole|vuoi|preferisce|preferisci|desidera)\b|"
    r"\b(?:lhe|te) (?:dá jeito|daria jeito|serve|serviria|interessa|convém)\b|\bpode ser\b|"
    r"\b(?:quer|quere|prefere|deseja|gostaria)\b|"
    # the speaker proposing to book another thing: "Le prenoto una visita per mercoledì?", "Glielo fisso?", "¿Se la
    # apunto?", "Posso marcar para segunda?", "Je vous la réserve ?"
    r"^\W*(?:(?:le|te|ti|gli|glie\w*|ve|vi|ce|ci|se|me|lo|la|lhe)\s+)*(?:l[oa]\s+)?[a-zàèéìòùáíóúñ]{3,}o\b[^.!?]*\?|"
    r"^\W*(?:posso|possiamo|puedo|podemos)\b[^.!?]*\?|^\W*je (?:vous |te )?(?:l'|la |le |les )?\w+ ?\?"
)
"""A question back that proposes another thing ("Wäre Raum B ab 16 Uhr eine Option?", "Le andrebbe bene giovedì?",
"Quer que marque para sexta?"), not one that asks for what the act needs."""
REDIRECTED = rx(
    r"\b(?:wenden|kontaktieren|rufen|melden|schreiben|contacte[rz]?|appele[rz]|adresse[rz]|écrive[zs]|llame|llama|"
    r"contacte|contacta|escriba|acuda|diríjase|contatti|contatta|chiami|chiama|scriva|rivolg\w+|contacte|contate|"
    r"ligue|liga|procure|dirija|fale)\b"
)
"""A sentence that sends the asker to someone: a German, French, Spanish, Italian or Portuguese hand-off counts as
the act answered only in one ("Veuillez contacter le support pour annuler"; "Le délai pour annuler est passé" sends
nobody anywhere)."""
FIRST_FREE = rx(
    r"\b(?:früheste|nächste|erste)[nrs]? (?:freie[nr]? )?(?:termin|einsatz|slot|zeitfenster|möglichkeit)\b|"
    r"\bdie nächste (?:tagt|ist|findet)\b|\b(?:premier|prochain) créneau\b|\b(?:première|prochaine) "
    r"(?:disponibilité|date|place|séance)\b|\bla prochaine (?:a lieu|se tient|est)\b|"
    r"\b(?:primer|próximo) (?:hueco|turno|día)\b|\b(?:primer|primera|próxima|próximo) (?:\w+ )?(?:libre|disponible)"
    r"\b|\bla próxima es\b|\bprima disponibilità\b|\bprimo (?:\w+ )?(?:libero|disponibile)\b|\bprossim[oa] "
    r"(?:\w+ )?(?:libera|libero|disponibile|è)\b|\b(?:primeira|próxima) (?:vaga|data|disponibilidade|marcação)\b|"
    r"\bprimeiro (?:\w+ )?(?:livre|disponível)\b|\ba próxima é\b|"
    # the asker's turn put later: "la tuya entraría el jueves", "la vôtre passerait jeudi", "il suo entrerebbe giovedì"
    r"\b(?:la tuya|la suya|el tuyo|el suyo|la vôtre|le vôtre|la tienne|le tien|la vostra|la sua|il suo|la tua|il tuo|"
    r"a sua|o seu|a tua|o teu|ihre?r?|deine?r?) (?:entraría|iría|sería|tocaría|entrerait|passerait|serait|"
    r"entrerebbe|sarebbe|toccherebbe|entraria|seria|ficaria|käme|wäre)\b"
)
"""The first free slot or the next sitting named ("der früheste freie Einsatz ist Freitag", "la primera disponible es
el 14 de enero", "la prima disponibilità è giovedì", "la prochaine a lieu le 12 mars")."""
_FIRST_WORDS = ("früh", "nächst", "erst", "premi", "proch", "prim", "próxim", "prossim", "tuy", "suy", "vôtre", "tien",
                "vostr", "sua", "suo", "tua", "tuo", "seu", "teu", "ihr", "dein")
"""First letters of a word FIRST_FREE needs."""
_DIGIT = re.compile(r"\d")
DATE = rx(r"\b\d{1,2}\.?\s+(?:de\s+)?(?:jan|ene|gen|feb|fév|fev|mär|mar|apr|avr|abr|mai|may|mag|jun|juin|giu|jul|"
          r"juil|lug|aug|août|ago|sep|set|okt|oct|ott|out|nov|dez|déc|dic)\w*")
"""A date with its month ("am 4. April", "le 18 mai", "el 14 de enero", "a 20 de fevereiro")."""


def later_slot(request, sentence: str) -> re.Match[str] | None:
    """The first free slot, or the next sitting of what decides it, on a day the request did not ask for, when it asked
    for one ("Schick mir den Techniker heute" - "der früheste freie Einsatz ist Freitag um 8 Uhr"): booking that slot
    is not the act."""
    if not request.days and _DIGIT.search(sentence) is None:
        return None  # a later day needs a day asked for, a date needs its figure
    if not any(w.startswith(_FIRST_WORDS) for w in _WORD.findall(sentence.casefold())):
        return None
    found = FIRST_FREE.search(sentence)
    if found is None:
        return None
    asked = request.days
    rest = sentence[found.end():]
    later = {m.group(0).casefold() for m in WHEN.finditer(rest)} - asked
    return found if later or DATE.search(rest) else None
