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
