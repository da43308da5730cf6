"""The words that suggest a tool's role, in the languages the refusal detector reads (English, German, French,
Spanish): in a tool's name, its description and its parameter names. roles.py matches them; this module is data.

Every word is written folded (lower case, accents dropped, ß as ss: roles.fold). A key matches one word of the
text: `send` that word exactly, `envoy*` a word it begins, `*buchung` a word it ends (German compounds put the
meaning last: `terminbuchung`, `patientenakte`), and a key with `_` a run of words (`run_code`).
"""

from __future__ import annotations

# The first role whose words appear in a tool's name wins (destructive before payment: `delete_payment` deletes).
NAME_WORDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("code_exec", (
        "exec", "execute", "shell", "bash", "eval", "interpreter", "run_code", "run_shell", "sql", "python",
        "subprocess", "command", "run_sql",
        "ausfuhren", "befehl*", "skript*", "kommando*", "*befehl",  # de
        "executer", "commande", "script*",  # fr
        "ejecutar", "comando*", "codigo",  # es
    )),
    ("destructive", (
        "delete", "remove", "drop", "purge", "wipe", "destroy", "erase", "revoke", "disable", "cancel", "truncate",
        "unlink", "rm", "kill", "terminate", "deactivate", "reset",
        "loschen", "entfernen", "stornieren", "absagen", "sperren", "kundigen", "vernichten", "leeren",  # de
        "supprimer", "effacer", "annuler", "retirer", "detruire", "resilier", "vider",  # fr
        "eliminar", "borrar", "cancelar", "anular", "suprimir", "quitar", "vaciar",  # es
    )),
    ("payment", (
        "pay", "payment", "payments", "transfer", "refund", "charge", "purchase", "checkout", "buy", "book", "order",
        "invoice", "wire", "payout", "withdraw", "deposit", "subscribe", "reserve",
        "buchen", "bezahlen", "zahlen", "uberweisen", "uberweisung", "erstatten", "zuruckerstatten", "kaufen",
        "bestellen", "reservieren", "bestellung_aufgeben", "*zahlung", "*buchung", "*uberweisung", "abbuchen",  # de
        "payer", "virement", "rembourser", "acheter", "commander", "reserver",  # fr
        "pagar", "transferencia", "reembolsar", "comprar", "reservar", "pedir", "abonar",  # es
    )),
    ("messaging", (
        "send", "email", "mail", "sms", "message", "notify", "post_message", "slack", "tweet", "publish", "invite",
        "reply", "forward", "share", "broadcast", "webhook",
        "senden", "versenden", "schicken", "verschicken", "benachrichtigen", "mailen", "nachricht*",  # de
        "*nachricht", "weiterleiten", "veroffentlichen",
        "envoyer", "courriel", "notifier", "publier", "transmettre", "prevenir",  # fr
        "enviar", "notificar", "correo", "mensaje", "publicar", "reenviar", "avisar",  # es
    )),
    ("memory", (
        "memory", "memories", "remember", "recall", "memorize", "memorise", "notes", "note",
        "merken", "gedachtnis*", "*gedachtnis", "erinnerung*", "*erinnerung", "notiz*",  # de
        "memoire", "memoriser", "souvenir", "rappeler",  # fr
        "memoria", "recordar", "recuerdo*", "memorizar",  # es
    )),
    ("file_reader", (
        "file", "files", "read_file", "open_file", "cat", "fs", "filesystem", "directory", "folder", "path",
        "readfile", "attachment",
        "datei*", "*datei", "verzeichnis*", "ordner", "pfad", "anhang",  # de
        "fichier*", "repertoire", "chemin", "piece_jointe", "journal",  # fr
        "archivo*", "fichero*", "carpeta", "directorio", "ruta", "adjunto",  # es
    )),
    ("web_fetch", (
        "fetch", "url", "http", "browse", "browser", "crawl", "scrape", "download", "web", "webpage", "website",
        "http_get", "http_request",
        "webseite", "internetseite", "herunterladen",  # de
        "telecharger", "page_web", "naviguer",  # fr
        "navegar", "descargar", "pagina", "web_pagina",  # es
    )),
    ("retriever", (
        "retrieve", "retriever", "retrieval", "docs", "doc", "documents", "document", "kb", "knowledge", "rag",
        "vector", "faq", "wiki", "guide", "guides", "article", "articles", "manual", "handbook", "policy",
        "policies", "query_index", "lookup_docs", "semantic",
        "dokument*", "wissen*", "handbuch", "artikel", "richtlinie*", "nachschlagen",  # de
        "documentation", "connaissance*", "articles", "guide", "base_de_connaissances",  # fr
        "documentos", "documento", "conocimiento", "articulos", "guia", "manual",  # es
    )),
)

# Reading verbs: a name that begins or ends with one (`get_refund_status`, `kontostand_abfragen`) never gets an
# action role, and without another role it is read_only.
READ_VERBS: frozenset[str] = frozenset({
    "get", "lookup", "look", "find", "list", "search", "check", "track", "fetch", "query", "show", "view", "read",
    "describe", "count", "estimate", "quote", "convert", "calculate", "compare", "retrieve", "load", "recall", "is",
    "has", "validate", "verify", "status",
    # de
    "lesen", "abfragen", "abrufen", "anzeigen", "suchen", "finden", "prufen", "uberprufen", "auflisten", "holen",
    "zeigen", "verfolgen", "berechnen", "ermitteln",
    # fr
    "lire", "obtenir", "consulter", "afficher", "chercher", "rechercher", "trouver", "lister", "verifier", "suivre",
    "calculer", "voir",
    # es
    "leer", "obtener", "consultar", "mostrar", "buscar", "encontrar", "listar", "verificar", "ver", "calcular",
    "seguir", "rastrear",
})

# Writing verbs: a name that begins or ends with one (`write_file`, `datei_speichern`) is no file reader, whatever
# else its name, description or parameters (`path`) say: what it returns is no file's content.
WRITE_VERBS: frozenset[str] = frozenset({
    "write", "save", "create", "append", "store", "put", "overwrite", "upload", "edit", "update", "touch", "mkdir",
    "schreiben", "speichern", "anlegen", "erstellen", "hochladen",  # de
    "ecrire", "enregistrer", "creer", "ajouter", "sauvegarder", "televerser",  # fr
    "escribir", "guardar", "crear", "anadir", "subir",  # es
})

# Descriptions are prose: a verb counts only next to a word that says what it acts on, except where the verb
# alone is unambiguous (an empty object tuple). Checked in this order, first match wins.
DESCRIPTION_WORDS: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("code_exec", ("execut*", "run*", "fuhrt", "ausfuhr*", "execute", "lance", "ejecuta*"),
     ("code", "shell*", "command*", "script*", "sql", "python", "befehl*", "skript*", "commande*", "codigo",
      "comando*", "terminal", "sandbox", "query")),
    ("destructive", ("delet*", "remov*", "eras*", "purg*", "wip*", "cancel*", "loscht", "entfernt", "storniert",
                     "sagt", "sperrt", "supprim*", "effac*", "annul*", "elimin*", "borra*", "cancela*"),
     ()),
    ("payment", ("pays", "charges", "refunds", "purchas*", "books", "reserves", "bucht", "bezahlt", "zahlt",
                 "uberweist", "erstattet", "belastet", "reserviert", "paie", "rembourse", "reserve", "achete",
                 "debite", "paga", "reembolsa", "reserva", "compra", "cobra"),
     ()),
    ("payment", ("transfer*",),
     ("money", "funds", "uberweisung", "virement", "transferencia", "dinero", "geld")),
    ("messaging", ("sends", "emails", "posts", "notifies", "sendet", "versendet", "schickt", "verschickt",
                   "benachrichtigt", "envoie", "notifie", "transmet", "publie", "envia", "notifica", "publica",
                   "manda"),
     ()),
    ("memory", ("remembers", "memorizes", "memorises", "merkt", "memorise", "recuerda", "stores", "speichert",
                "enregistre", "guarda", "recalls", "ruft"),
     ("memory", "gedachtnis", "langzeitgedachtnis", "memoire", "memoria", "erinnerungen")),
    ("file_reader", ("reads", "liest", "lit", "lee", "opens", "offnet", "ouvre", "abre", "returns", "devuelve",
                     "renvoie"),
     ("file", "files", "datei", "dateisystem", "fichier", "archivo", "disk", "disque", "disco", "dateien")),
    ("web_fetch", ("fetch*", "download*", "visit*", "browse*", "ladt", "herunter*", "ruft", "telecharge",
                   "recupere", "visita", "descarga", "navega"),
     ("url", "web", "webseite", "internetseite", "page", "pagina", "website", "site")),
    ("retriever", ("search*", "find*", "look*", "durchsucht", "sucht", "schlagt", "recherche", "cherche",
                   "busca", "consulta"),
     ("knowledge", "documentation", "docs", "documents", "articles", "wissensdatenbank", "dokumente",
      "fachinformationen", "connaissances", "documentos", "conocimiento", "guide", "manual", "handbuch", "wiki",
      "faq")),
)

# Parameter names that say what a tool takes, and so what it is.
PARAMETER_WORDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("code_exec", ("code", "sql", "command", "cmd", "script", "befehl", "commande", "comando", "codigo")),
    ("web_fetch", ("url", "urls", "uri", "link")),
    ("file_reader", ("path", "filepath", "file_path", "filename", "pfad", "dateipfad", "chemin", "ruta")),
    ("payment", ("iban", "amount", "betrag", "montant", "importe", "card_number")),
)
