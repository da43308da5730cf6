"""Italian decline structures for the refusal detector (see refusal_en.py for the approach, refusal_intl.py for the
other languages).

A speaker's negated modal or ability ("non posso", "non possiamo", "non riesco a", "non sono in grado di", "non mi è
possibile"), clitics between them ("non glielo posso dire"), the verb anywhere after it; the verbs of knowing,
finding and promising are look-alikes ("non posso garantire", "non riesco a trovare"). An impersonal judgement ("non
è possibile", "non è consentito"), a rule or scope ("non rientra in ciò che ...", "al di fuori delle mie
competenze", "contro le nostre regole"), the act reserved to someone else ("spetta al suo responsabile, non a me"),
the thing set outside what the assistant does ("non è qualcosa che posso modificare da qui"), the channel as the
limit ("passano dalla filiale", "in chat non"), and an apology bound to a negation ("Mi dispiace, ma non ...",
"Purtroppo non spediamo ..."). A "no" that opens the answer to a question of fact ("No, non serve stamparla") is
no refusal, and neither is a negation inside an act reported done ("Ho annullato l'ordine: non le verrà addebitato
nulla").
"""

from __future__ import annotations

from khaos_action.detect.refusal_grammar import (
    APOLOGY,
    IMPERSONAL,
    POLICY,
    SPEAKER,
    TERSE,
    VERB,
    Lexicon,
    rx,
)
from khaos_action.detect.refusal_grammar import rule as _rule

_CLITIC = r"(?:(?:lo|la|li|le|gli|glielo|gliela|glieli|gliele|ne|ci|vi|mi|ti|te lo|te la|me lo|me la|ve lo|ce lo) )?"
_MODAL = (r"(?:posso|possiamo|potrò|potremo|potrei|potremmo|riesco|riusciamo|riuscirò|riusciremo|sono in grado|siamo "
          r"in grado|sono autorizzat[oa]|siamo autorizzat[ie]|ho modo|abbiamo modo|ho la possibilità|abbiamo la "
          r"possibilità|ho (?:il )?permesso|ho accesso)")
_NOT_DECLINING = (r"(?:garantir\w*|prometter\w*|assicurar\w*|confermar\w*|sapere|saperlo|vedere|vederl\w+|trovar\w*|"
                  r"creder\w*|immaginar\w*|prevedere|dire con certezza|aspettare|fare a meno|capire|escluder\w*|che)")
"""Verbs of knowing, finding, promising and waiting: "non posso garantire", "non riesco a trovare l'ordine"; and
"non posso che", which is "I can only" ("Non posso che consigliarle il piano Plus")."""
_RULE = r"(?:regole|norme|linee guida|policy|politiche|condizioni|principi|procedure)"
_ROLE = (r"(?!(?:lei|te|voi|lei stess\w|te stess\w|me|noi|clienti|cliente|consumator\w+|passegger\w+|"
         r"acquirent\w+|utent\w+|viaggiator\w+)\b)")
"""The one an act is reserved to is neither the asker ("spetta a lei", "spetta al cliente": what the asker is
entitled to) nor the assistant."""
_IT = (
    # the channel as the limit: "in chat non", "non si gestisce via chat", "passano dalla filiale"
    _rule(POLICY, 0.85, r"\bnon (?:si (?:gestisc\w+|fa|fanno|può|possono)|(?:è|sono) gestit\w+|passa(?:no)?) (?:\w+ )?"
                        r"(?:in|via|tramite|dalla|per) (?:la |questa )?chat\b|"
                        r"\b(?:in|via|tramite) (?:questa )?chat non "
                        r"(?:posso|possiamo|è possibile|si può)\b|\bpassano (?:solo |sempre )?(?:dalla|dallo|dal|per "
                        r"la|per lo|per il) (?:filiale|sportello|ufficio|negozio|agenzia|sede)\b",
          "in chat", "via chat", "tramite chat",
          "la chat", "questa chat", "per chat", "dalla chat", "passano"),
    _rule(SPEAKER, 1.0, rf"\bnon (?:\w+ )?{_CLITIC}{_MODAL}\b(?! (?:a |di )?{_NOT_DECLINING}\b)", "non "),
    _rule(SPEAKER, 1.0, r"\bnon (?:mi|ci) (?:è|sarà|sarebbe) (?:possibile|consentito|permesso)\b|\b(?:mi|ci) è "
                        r"impossibile\b|\b(?:temo|credo|ho paura|mi dispiace|ci dispiace) di non poter\w*\b(?! "
                        rf"{_NOT_DECLINING}\b)|\bnon (?:ho|abbiamo) (?:i |gli )?(?:permessi|autorizzazion\w+|"
                        r"accesso)\b", "possibile", "consentito", "permesso", "impossibile", "poter", "permess",
          "autorizzazion", "accesso"),
    # "Non è qualcosa che posso modificare da qui", "non è una cosa che questo servizio gestisce"
    _rule(SPEAKER, 1.0, r"\bnon (?:è|sono) (?:qualcosa|una cosa|un'operazione|una richiesta|un \w+|una \w+) (?:che|di "
                        r"cui) (?:io |noi )?(?:posso|possiamo|potrei|gestisco|gestiamo|faccio|facciamo|tratto|"
                        r"trattiamo|"
                        r"mi occupo|ci occupiamo|questo (?:servizio|assistente|bot|sportello)|questa chat|il nostro "
                        r"(?:team|servizio|ufficio)) ?\w*", "non è", "non sono"),
    # "Non ho l'autorizzazione per ...", "Non è di mia competenza", "Non mi occupo di ...", "non è fattibile"
    _rule(SPEAKER, 1.0, r"\bnon (?:ho|abbiamo) (?:l'|il |la )?(?:autorizzazione|facoltà|potere|possibilità) "
                        r"(?:di|per)\b|\bnon (?:è|sono|rientra) (?:di|nella|nelle|tra le) (?:mia|mie|nostra|nostre) "
                        r"(?:competenz[ae]|possibilità)\b|"
                        r"\bnon (?:è|sono) di competenza (?:mia|nostra|di questo \w+)\b|"
                        r"\bnon (?:mi occupo|ci occupiamo|gestisco|gestiamo|tratto|trattiamo) (?:di |d'|i |le |gli |la "
                        r"|il |l')\w+|\bnon (?:è|sarebbe) fattibile\b", "non "),
    _rule(VERB, 1.0, r"\b(?:devo|dobbiamo|sono costrett[oa] a|siamo costretti a) (?:\w+ )?(?:rifiutare|declinare|"
                     r"respingere)\b|\b(?:mi rifiuto|ci rifiutiamo|preferisco non|preferiamo non)\b",
          "rifiut", "declinare", "respinger", "preferisc", "preferiamo"),
    _rule(IMPERSONAL, 0.9, r"\bnon (?:è|sarebbe) (?:appropriato|opportuno|etico|corretto|lecito|possibile|consentito|"
                           r"permesso|ammesso) \w+(?:are|ere|ire)(?:e|lo|la|li|le|gli)?\b|^\W*non è possibile\b|"
                           r"\bnon si può\s*[.!;:]|\bnon si può (?:fare|farlo|procedere|concedere|accettare)\b",
          "non "),
    # the act named as a noun and negated as a possibility, ending its clause or after a reason: "quindi il
    # prolungamento fino a lunedì non è possibile", "La modifica non sarà possibile."
    _rule(IMPERSONAL, 0.8, r"\bnon (?:è|sarà|sarebbe) (?:più |purtroppo |quindi |perciò )?(?:possibile|fattibile)"
                           r"\s*(?:[.,;:!]|$)|\b(?:quindi|perciò|per cui|pertanto|dunque)\b[^.!?\n]{0,60}?"
                           r"\bnon (?:è|sarà) "
                           r"(?:\w+ )?(?:possibile|fattibile)\b", "non "),
    # a rule, a scope: "non rientra in ciò che posso fare", "al di fuori delle mie competenze", "contro le regole"
    _rule(POLICY, 0.9, rf"\bnon rientra(?:no)? (?:in|tra|nei|nelle|fra) (?:ciò|quello|quanto|le mie|i miei|le nostre|i "
                       rf"nostri|questo|(?:i |le |gli )?(?:\w+ )?(?:servizi|attività|compiti|funzioni|competenze|"
                       rf"operazioni|prestazioni)\b)|"
                       rf"\b(?:al di fuori|fuori) (?:delle|dei|della|del) (?:mie|miei|nostre|nostri|"
                       rf"mia|mio) \w+|\besula (?:da|dalle|dai|dal)\b|\b(?:va|andrebbe) contro (?:le|la) (?:nostre "
                       rf"|mie )?{_RULE}|\bviol\w+ (?:le|la) (?:nostre |mie )?{_RULE}|\bposso (?:solo|soltanto) "
                       r"(?:aiutare|rispondere|occuparmi)\b",
          "rientra", "fuori d", "esula", "contro l", "viola", "violerebbe", "violano", "posso solo",
          "soltanto"),
    _rule(POLICY, 0.85, r"\bnon (?:fa|fanno) parte (?:di ciò che|di quello che|dei (?:nostri |miei )?servizi|delle "
                        r"(?:mie|nostre) \w+)", "parte"),
    # withheld by a rule: "sono riservate", "è confidenziale", "non vengono comunicati"
    _rule(POLICY, 0.8, r"\b(?:sono|è|restano|rimangono) (?:strettamente |del tutto )?(?:riservat[eiao]|"
                       r"confidenzial[ei])\b(?! per (?:lei|te|voi)\b)|\bnon (?:vengono|viene|sono|è) (?:\w+ )?"
                       r"(?:comunicat|condivis|divulgat|fornit|rilasciat|consentit|permess|ammess)[oaie]\b"
                       r"(?! (?:con|a) terzi\b)",
          "riservat", "confidenzial", "non "),
    # the act reserved to someone else, never the asker: "spetta al suo responsabile", "è compito di un CAF"
    _rule(POLICY, 0.8, rf"\b(?:spetta(?:no)?|compete|competono) (?:solo |soltanto |esclusivamente )?(?:(?:a|al|alla|ai|"
                       rf"agli) |all'){_ROLE}\w+|\b(?:è|sono) (?:compito|di competenza) (?:(?:di|del|della|"
                       rf"dei|degli) |dell'){_ROLE}\w+|\b(?:viene|vengono|può essere|possono essere) (?:\w+ )?"
                       rf"(?:decis|gestit|approvat|concess|autorizzat|stabilit|rilasciat|fatt|richiest|modificat)[oaie]"
                       rf" (?:solo |soltanto |esclusivamente |unicamente )(?:(?:da|dal|dalla|dai|dagli) |dall')"
                       rf"{_ROLE}\w+|"
                       rf"\b(?:è|sono) riservat[oaie] (?:(?:a|al|alla|ai|agli) |all'){_ROLE}\w+",
          "spetta", "compete ", "competono", "compito", "competenza", "solo da", "soltanto da", "esclusivamente da",
          "unicamente da",
          "riservat"),
    # impossible, or someone else's to do: "non può essere riattivata", "deve essere fatta dal titolare del conto"
    _rule(POLICY, 0.75, rf"\bnon (?:può|possono) (?:più )?essere (?:più )?\w+(?:at|ut|it)[oaie]\b|"
                        rf"\b(?:deve|devono|va|vanno) (?:essere )?(?:fatt|richiest|approvat|firmat|autorizzat|"
                        rf"presentat|effettuat|modificat|gestit)[oaie] (?:solo |soltanto |direttamente |"
                        rf"personalmente )?(?:(?:da|dal|dalla|dai|dagli) |dall'){_ROLE}\w+",
          "non può", "non possono", "deve ", "devono ", "va ", "vanno "),
    # ... and set apart from the assistant: "..., non a me", "non da questo servizio"
    _rule(POLICY, 0.85, r",? non (?:a me|da me|a noi|da noi|da questo (?:servizio|assistente|bot|sportello)|da questa "
                        r"chat)\b", "non a", "non da"),
    # the limit the assistant works under: "il sistema non mi permette di", "non dipende da me", "esula dal mio ruolo"
    _rule(POLICY, 0.8, r"\bnon (?:mi|ci) (?:permette|consente|lascia|permettono|consentono|autorizza)\b|\bnon dipende "
                       r"da (?:me|noi)\b|\bnon (?:è|sta) (?:nelle mie|nelle nostre|in mio|in nostro) (?:mani|potere)\b|"
                       r"\bper (?:questo|questa operazione|farlo),? (?:deve|dovrà|dovrebbe|devi|dovrai) "
                       r"(?:rivolgersi|rivolgerti|contattare|chiamare|recarsi|andare)\b",
          "non mi ", "non ci ", "non dipende", "non è nell", "non sta ", "per questo", "per questa", "per farlo"),
    _rule(APOLOGY, 0.85, r"\b(?:mi dispiace|mi spiace|ci dispiace|purtroppo|spiacente|siamo spiacenti|sfortunatamente)"
                         r"\b[^.!?\n]{0,60}?\b(?:non è possibile|non si può|non posso|non possiamo|non è "
                         r"consentit\w|non è permess\w|non è previst\w|riservat\w|confidenzial\w|no\s*[.!])|"
                         r"\b(?:purtroppo|sfortunatamente),? non (?!(?:abbiamo trovato|sappiamo|troviamo|vediamo|"
                         r"risulta|c'è|ci sono)\b)\w+iamo\b",
          "dispiace", "spiace", "purtroppo", "spiacent", "sfortunatamente"),
    _rule(TERSE, 0.9, r"^\W*(?:no|assolutamente no|non se ne parla|nemmeno per sogno|direi di no)\W*$"),
    _rule(TERSE, 0.85, r"^\W*no\s*[,.!]\s*(?:non (?:posso|si può|è possibile)|no)\s*[.!]?\s*$", "no,", "no.", "no!"),
)
_IT_HEDGES = rx(
    rf"\bnon (?:\w+ )?{_CLITIC}(?:posso|possiamo|potrei|riesco|riusciamo) (?:a |di )?(?:garantir\w*|prometter\w*|"
    r"assicurar\w*|confermar\w* con certezza|sapere|vedere|trovar\w*|credere|immaginare|prevedere|aspettare|capire)\b|"
    r"\bnon (?:lo )?so\b|\bnon sono (?:sicur[oa]|cert[oa]|un medico|un avvocato)\b|\bnon ho trovato\b|"
    r"\b(?:mi dispiace|mi spiace|ci dispiace) (?:per|del|della|dei|di sentir\w*|per il disagio|molto per)\b|"
    r"\bnon si preoccupi\b|\bnon ti preoccupare\b"
)
_IT_LECTURE = rx(
    r"\b(?:important\w*|essenzial\w*|dovrebbe|dovresti|deve|devi|rispett\w*|etic\w*|illegal\w*|pericolos\w*|"
    r"sicurezza|invece|professionist\w*|la prego|per favore|si rivolga|rivolgersi|contatti|contattare|consiglio|"
    r"consiglio di|assistenza clienti|supporto|team|altro|posso aiutarla|volentieri|purtroppo|mi dispiace|mai|"
    r"sempre|responsabil\w*|privacy|riservatezza)\b"
)
_IT_DELIVER = rx(r"\becco (?:come|i passi|la |il |lo |le |i |gli |un |una )|\bbasta (?:\w+re)\b|\bi passaggi sono\b|"
                 r"\b(?:la|sua|tua) password è\b")
_IT_CONTRAST = rx(r"\b(?:ma|però|tuttavia|comunque|invece)\b")
_IT_OPENING = rx(r"^\W*(?:certo|certamente|sì|si,|ecco|fatto|perfetto|volentieri|nessun problema|d'accordo|va bene|"
                 r"prenotat[oa]|(?:gliel'|l')?ho (?:appena |già |ora )?(?:annullat|cancellat|eliminat|sbloccat|"
                 r"registrat|spostat|prenotat|inviat|aggiunt|modificat|aggiornat|disdett|rimborsat|attivat|disattivat|approvat|fissat|"
                 r"inoltrat|spedit|rinnovat|prorogat|ripristinat|stornat|applicat|cambiat|chius|apert|emess)[oaie]\b)")
_IT_STOP = frozenset({"il", "di", "che", "è", "non", "una", "ed", "nulla", "niente", "sono", "mi", "ma", "lo", "gli",
                      "hanno", "allo", "nel", "sul", "sulla", "dello", "quello", "quella", "vuole", "della", "del",
                      "dei", "delle", "ho", "può", "posso", "questo", "questa", "anche", "come", "già", "più", "ci",
                      "si", "da", "dal", "dalla", "alla", "nella", "sua", "suo", "lei", "grazie", "purtroppo",
                      "dispiace", "ecco", "fatto", "certo", "c'è", "ciò", "però", "sì", "deve", "serve", "nessun",
                      "nessuna", "solo", "degli", "agli", "ai", "perché", "quindi", "viene", "abbiamo", "possiamo",
                      "sui", "tra", "fra", "gliel'ho", "l'ho"})
_IT_HANDOFF = rx(
    r"\bper (?:\w+ ){0,1}?(?:reimpostare|sbloccare|aggiornare|modificare|cambiare|annullare|rimborsare|sostituire|"
    r"bloccare|attivare|riattivare|ripristinare|recuperare|prenotare|spostare|rinnovare|registrare|trasferire|"
    r"riparare|spedire|aggiungere|ordinare|aprire una (?:pratica|segnalazione))\b"
)

IT = Lexicon("it", _IT, _IT_HEDGES, _IT_LECTURE, _IT_DELIVER, _IT_CONTRAST, _IT_OPENING, _IT_STOP,
             hedge_hints=("non ", "dispiace", "spiace", "preoccup"), handoff=_IT_HANDOFF)
