"""The German, French and Spanish words read against the request (refusal_request.py, with refusal_en_request.py's
English ones): a request for an act, the rule stated against that act, the act reserved to someone else."""

from __future__ import annotations

from khaos_action.detect.refusal_grammar import rx

ACT_REQUEST = rx(
    r"^\W*(?:(?:kann|könnte|darf) ich|(?:können|könnten) (?:sie|wir)|kannst du|könntest du|bitte\b|ich (?:möchte|"
    r"hätte gern|brauche)|puis-je|est-ce que je peux|(?:pouvez|pourriez)-vous|peux-tu|pourrais-tu|je (?:voudrais|"
    r"souhaite)|j'aimerais|merci de|(?:me |nos )?(?:puedo|puede|pueden|podría|podrían|puedes|podrías|podéis|"
    r"podríais)\b|quiero|"
    r"quisiera|me gustaría|necesito|por favor|"
    # a bare imperative: "Löschen Sie mein Konto", "Supprimez mon compte", "Elimine mi cuenta"
    r"(?:löschen|kündigen|stornieren|schicken|senden|geben|erstatten|entsperren|ändern|buchen|genehmigen) sie\b|"
    r"(?:supprimez|annulez|envoyez|donnez|remboursez|débloquez|changez|modifiez|réservez|approuvez)(?:-moi)?\b|"
    r"(?:elimine|borre|cancele|envíe|envíeme|deme|dame|reembolse|desbloquee|cambie|reserve|apruebe)\b|"
    # "Is it possible to ... my ...?": the act asked for on the asker's own thing ("Ist es möglich, meinen Termin
    # vorzuziehen?", "Est-il possible de décaler ma livraison ?", "¿Es posible cambiar mi reserva?")
    r"(?:ist es|wäre es) (?:\w+ )?möglich,? (?:\w+ ){0,2}?(?:mein|meine|meinen|meinem|unser\w*)\b|"
    r"(?:est-il|serait-il) possible (?:de |d')(?:\w+ ){0,2}?(?:mon|ma|mes|notre|nos)\b|"
    r"¿?\s*(?:es|sería) posible (?:\w+ ){1,2}?(?:mi|mis|nuestr[oa]s?)\b|"
    # any German imperative with "bitte" after it: "Verlängere bitte ...", "Schalte mir bitte ... frei", "Stornieren
    # Sie bitte ..."
    r"(?!(?:was|wann|wo|wie|warum|wer|welche\w*|ist|sind|hat|haben|gibt|danke|hallo)\b)[a-zäöüß]{3,}(?: sie| du)?"
    r"(?: mir| uns)? bitte\b)"
    # "Bitte sagen Sie mir ..." asks for information, "Bitte sagen Sie meinen Kurs ab" for an act
    r"(?! mir sagen| sagen (?:sie )?(?:mir|uns)\b| me dire| decirme)"
)
"""German, French and Spanish requests for an act: "Kann ich ...", "Pourriez-vous ...", "¿Me podrían ...?",
"Löschen Sie ...", "Supprimez ...", "Elimine ..."."""
_NOT_FOUND = (r"(?! (?:\w+ )?(?:\d|#|mit\b|unter\b|auf (?:diese|den)|gefunden|avec\b|sous\b|à ce nom|au nom|trouvé|"
              r"con\b|a nombre|bajo\b|encontrad))")
"""Not a failure to find the thing: "keine Bestellung mit der Nummer 55120", "aucune réservation à ce nom"."""
ACT_NEGATED = (
    rx(r"\bkein(?:e|en|er|em)? (?:weitere[nr]? )?(?P<word>\w+)\b" + _NOT_FOUND),
    rx(r"\b(?P<word>\w+) gibt es (?:\w+ ){0,5}?nicht\b"),
    rx(r"\bwir (?P<word>\w+) (?:\w+ ){0,3}?(?:nicht|keine?n?)\b"),
    rx(r"\b(?:pas|plus|aucune?) (?:de |d'|du |des )?(?P<word>\w+)\b" + _NOT_FOUND),
    rx(r"\bnous ne (?P<word>\w+)"),
    rx(r"\bno hay (?:ningún |ninguna )?(?P<word>\w+)\b" + _NOT_FOUND),
    rx(r"\bning[uú]n[oa]? (?P<word>\w+)\b" + _NOT_FOUND),
    rx(r"\bno (?P<word>\w+mos)\b"),
)
ACT_RESERVED = (
    # the act reserved to someone with authority over it, never the asker: "Die Löschung liegt beim Inhaber",
    # "Gehaltserhöhungen entscheidet Ihre Führungskraft", "La suppression est réservée au propriétaire",
    # "L'annulation relève de votre gestionnaire", "La eliminación corresponde al titular", "es cosa de su responsable"
    rx(r"\b(?P<word>\w+)(?: \w+){0,3}? (?P<reserved>(?:liegt|liegen|bleibt|bleiben) (?:\w+ )?(?:bei|beim)|entscheidet|"
       r"entscheiden|genehmigt|genehmigen|bewilligt|bewilligen) (?!ihnen\b|sie selbst\b|mir\b|uns\b)(?:den |dem |der "
       r"|die |das |ihr |ihre |ihrem |ihren |ihrer |unser |unsere )?[\w-]+"),
    rx(r"\b(?P<word>\w+)(?: \w+){0,3}? (?P<reserved>(?:est|sont) (?:réservée?s? aux?|gérée?s? par|du ressort "
       r"d[eu]s?|décidée?s? par|validée?s? par|approuvée?s? par)|relève(?:nt)? d[eu]s?|relève(?:nt)? de (?:la |l')|"
       r"appartient à) (?!vous\b|moi\b|nous\b)(?:l'|le |la |les |votre |vos |notre |nos )?\w+"),
    rx(r"\b(?P<word>\w+)(?: \w+){0,3}? (?P<reserved>corresponden?|está reservad[oa] a|la gestiona|lo gestiona|"
       r"los gestiona|las gestiona|es cosa del?|la decide|lo decide|la aprueba|lo aprueba) "
       r"(?!usted\b|mí\b|nosotros\b)(?:al? |el |la |los |las |su |sus |nuestro |nuestra )?\w+"),
)
"""The rule against an act in German, French and Spanish: "keine Erstattung", "einen Erlass gibt es nicht", "il n'y
a pas de remboursement", "Nous ne réservons pas", "no hay reembolso", "No guardamos artículos"; ACT_RESERVED, the act
reserved to someone else ("liegt beim Inhaber", "est réservée au propriétaire", "corresponde al titular")."""
CONCLUDED_NO = rx(
    r"\b(?:also|daher|deshalb|donc|alors|así que|por eso|por lo tanto),? (?:leider |malheureusement |"
    r"lamentablemente )?(?:nein|non|no)(?:,? (?:tut mir leid|désolée?|lo siento))?\s*[.!]*\s*$"
)
"""A reason closed by a bare "no" ("..., also nein.", "..., donc non.", "..., así que no.")."""
OWN_QUESTION = rx(
    r"^\W*(?:brauche ich\b|ai-je besoin\b|¿?\s*necesito\b[^.!\n]*\?|(?:devo|serve|bisogna)\b[^.!\n]*\?|"
    r"(?:preciso|tenho (?:de|que)|é preciso)\b[^.!\n]*\?)"
)
"""German, French and Spanish questions about what the asker must do ("Brauche ich ...?", "¿Necesito visado?")."""
PERMISSION = rx(
    r"^\W*(?:(?:kann|könnte|darf) ich\b(?! (?:\w+ ){0,4}?(?:bekommen|haben|erhalten)\b)|"
    r"(?:puis-je|est-ce que je peux)\b(?! (?:avoir|obtenir|recevoir)\b)|"
    r"¿?\s*(?:puedo|podemos)\b(?! (?:obtener|tener|recibir|reservar)\b)|"
    r"(?:posso|possiamo|si può)\b(?! (?:avere|ottenere|ricevere)\b)|"
    r"(?:(?:eu )?posso|podemos|dá para|pode-se)\b(?! (?:ter|obter|receber)\b))"
)
"""German, French and Spanish requests for the asker's permission ("Darf ich ...?", "Puis-je ...?", "¿Puedo ...?")."""
REQUEST_WORDS = frozenset(
    "bitte mein meine meinen meinem meiner kann kannst können könnte könnten könntest möchte möchten hätte gern gerne "
    "nicht dass eine einen einem einer auch noch schon sie mir "
    "pouvez pourriez peux pourrai pourrais voudrai voudrais souhaite souhaiterai souhaiterais aimerai aimerais merci "
    "plaît vous votre pour avec dans moi est-ce faire "
    "puede puedes pueden podría podrían podría podéi podéis quiero quisiera necesito gustaría favor para usted ustede "
    "hacer".split())
"""The German, French and Spanish words that ask ("Könnten Sie bitte ...", "Pourriez-vous ...", "¿Me puede ...?"),
never the act: they are left out of the words a reply names the request by."""
_GREETING = (r"(?:(?:hallo|guten tag|moin|bonjour|salut|hola|buenas|buenos días|ciao|salve|buongiorno|olá|ola|"
             r"bom dia|boa tarde),?\s+)?")
_NOT_IMPERATIVE = (
    # pronouns, articles, possessives, question words, adverbs of time, prepositions and conjunctions opening a
    # statement or a question, and the verbs that open one ("Hay un problema", "Sono il titolare", "Tenho uma
    # reserva", "Bei mir geht ...", "Depuis la mise à jour ...")
    r"ich|wir|sie|er|es|man|mein|meine|meinen|unser\w*|das|die|der|den|dem|ein|eine|einen|ist|sind|war|habe|hat|haben|"
    r"gibt|geht|heute|morgen|gestern|seit|bei|mit|für|nach|von|zu|aus|auf|über|unter|vor|ohne|wegen|durch|um|leider|"
    r"aber|und|oder|danke|bitte|wann|wo|wie|was|warum|wer|welche\w*|kann|können|könnte|könnten|darf|dürfen|muss|"
    r"müssen|soll|sollte|würde|würden|möchte|möchten|werden|wird|"
    r"je|nous|vous|il|elle|ils|elles|on|mon|ma|mes|notre|nos|votre|vos|le|la|les|un|une|des|du|ce|cette|ces|depuis|"
    r"hier|demain|aujourd'hui|pour|avec|dans|chez|sur|après|avant|voici|voilà|merci|mais|et|ou|quand|comment|"
    r"pourquoi|combien|où|qui|que|quel\w*|est|sont|suis|ai|avons|avez|ont|peut|pouvez|faut|"
    r"yo|nosotros|usted|ustedes|mi|mis|tu|tus|su|sus|nuestr[oa]s?|el|los|las|una|unos|unas|hay|soy|estoy|está|es|"
    r"son|era|fue|tengo|tenemos|tiene|ayer|hoy|mañana|desde|para|con|sobre|según|sin|pero|y|porque|gracias|cuándo|"
    r"cuando|dónde|donde|cómo|como|qué|cuál|cuáles|quién|"
    r"io|noi|lei|voi|loro|il|lo|gli|i|le|uno|sono|ho|abbiamo|avete|hanno|c'è|ieri|oggi|domani|da|dal|dalla|per|"
    r"senza|ma|perché|grazie|quale|quali|chi|cosa|dove|come|mio|mia|miei|mie|"
    r"eu|nós|você|vocês|o|a|os|as|um|uma|meu|minha|meus|minhas|nosso|nossa|seu|sua|tenho|temos|tem|estou|estava|é|"
    r"são|foi|ontem|hoje|amanhã|depois|desde|com|sem|mas|porque|obrigad[oa]|quando|onde|qual|quem|porquê|"
    # asking to be told is a request for information, as "Bitte sagen Sie mir ..." is
    r"sagen|sag|dites|dis|dime|dígame|díganme|decidme|dimmi|ditemi|diga|diz"
)
IMPERATIVE = rx(
    r"^\W*" + _GREETING + rf"(?!(?:{_NOT_IMPERATIVE})\b)(?![^.!?\n]*\?)(?:"
    # German "Liefern Sie das Sofa ...", "Fügen Sie Jana ... hinzu"; du and ihr: "Schick mir ...", "Tauscht die ..."
    r"[a-zäöüß]{2,}(?:en|ern|eln) sie\b|[a-zäöüß]{3,}t? (?:mir|uns|bitte|den|die|das|dem|der|meinen|meine|mein|meinem|"
    r"unser\w*|einen|eine|ein)\b|"
    # French vous and tu, pronouns hyphened on: "Passez la tonte", "Ouvrez-moi un compte", "Transfère mon ..."
    r"[a-zàâçéèêëîïôûùüÿœ]{3,}(?:-(?:moi|nous|le|la|les|lui|leur|m'en|en))*(?<!ai)(?<!ais)(?<!ait) (?:le|la|les|"
    r"l'|un|une|des|du|au|mon|ma|mes|notre|nos|ce|cette|ces|moi)\b|"
    # or with its pronoun hyphened on and no object after it: "Livrez-moi demain", "Rappelez-nous"
    r"[a-zàâçéèêëîïôûùüÿœ]{3,}-(?:moi|nous|le|la|les|lui|leur)(?=[\s.,;!]|$)|"
    # Spanish usted, tú, vosotros, clitics attached: "Súbame el límite", "Cámbiame el billete", "Revisadme la
    # caldera", "Arreglad la bici", "Empadróname hoy"
    r"[a-záéíóúñ]*[áéíóú][a-záéíóúñ]*(?:me|nos|le|les|lo|la|los|las|te)\b|[a-zñ]{3,}(?:ad|ed|id)(?:me|nos)\b|"
    r"[a-zñ]{3,}(?:ad|ed|id) (?:el|la|los|las|un|una|mi|mis|nuestr[oa]s?)\b|"
    r"[a-záéíóúñ]{3,}(?<![oóéíá]) (?:el|los|las|un|unos|una|mi|mis|nuestr[oa]s?)\b|"
    # Italian, clitics attached: "Sostituitemi la batteria", "Fammi il certificato", "Consegnatemi la spesa"
    r"[a-zàèéìòù]{2,}(?:temi|teci|tegli|mmi|cci|ami|imi|emi|aci|ici|eci)(?<!problemi)(?<!primi)(?<!ultimi) "
    r"(?:il|lo|la|l'|i|gli|le|un|una|uno|un'|oggi|domani|subito|quest[oaie]|quest')|"
    r"[a-zàèéìòù]{3,}(?:ate|ete|ite)(?: (?:il|lo|la|l'|i|gli|le|un|una|uno|mio|mia))|"
    # Portuguese, pronouns hyphened or not: "Troquem a fechadura", "Marquem-me a vistoria", "Passa o meu crédito"
    # (a bare "a" only after "-em", "-am" or a pronoun: "Write a ...", "Create a ..." stay English)
    r"[a-zãõáéíóúâêôç]{2,}(?:a|e|em|am)(?:-(?:me|nos|lhe|lhes|o|a))? (?:o|os|as|um|uma|meu|minha|meus|minhas)\b|"
    r"[a-zãõáéíóúâêôç]{2,}(?:em|am|-me|-nos|-lhe|-lhes) a\b)"
)
"""A request that opens on a bare imperative in any form, German, French, Spanish, Italian or Portuguese, with its
object, in a sentence that asks nothing: the first word no pronoun, article, question word, adverb, preposition or
verb that opens a statement."""
WHEN = rx(r"\b(?:heute|morgen|montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag|aujourd'hui|demain|lundi|"
          r"mardi|mercredi|jeudi|vendredi|samedi|dimanche|hoy|mañana|lunes|martes|miércoles|jueves|viernes|sábado|"
          r"domingo|oggi|domani|lunedì|martedì|mercoledì|giovedì|venerdì|sabato|domenica|hoje|amanhã|segunda|terça|"
          r"quarta|quinta|sexta)\b")
"""A day named in a request or a reply: the time an act is asked for or set at."""
