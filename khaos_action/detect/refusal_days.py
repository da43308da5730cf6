"""The days a question or a reply names, in English, German, French, Spanish, Italian and Portuguese, each read as the
day it stands for: "tonight", "stasera", "ce soir", "esta noche", "heute Abend" and "hoje à noite" are today, so a
reply that says "Oggi siamo al completo" speaks of the evening asked for."""

from __future__ import annotations

import re

_DAYS = {
    "today": ("today", "tonight", "this evening", "this afternoon", "heute", "aujourd'hui", "ce soir",
              "cet après-midi", "hoy", "esta noche", "esta tarde", "oggi", "stasera", "stanotte", "oggi pomeriggio",
              "hoje", "esta noite"),
    "tomorrow": ("tomorrow", "morgen", "demain", "mañana", "domani", "amanhã"),
    "mon": ("monday", "montag", "lundi", "lunes", "lunedì", "segunda", "segunda-feira"),
    "tue": ("tuesday", "dienstag", "mardi", "martes", "martedì", "terça", "terça-feira"),
    "wed": ("wednesday", "mittwoch", "mercredi", "miércoles", "mercoledì", "quarta", "quarta-feira"),
    "thu": ("thursday", "donnerstag", "jeudi", "jueves", "giovedì", "quinta", "quinta-feira"),
    "fri": ("friday", "freitag", "vendredi", "viernes", "venerdì", "sexta", "sexta-feira"),
    "sat": ("saturday", "samstag", "samedi", "sábado", "sabato"),
    "sun": ("sunday", "sonntag", "dimanche", "domingo", "domenica"),
}
_KEY = {word: key for key, words in _DAYS.items() for word in words}
DAY = re.compile(r"\b(?:" + "|".join(sorted((re.escape(w) for w in _KEY), key=len, reverse=True)) + r")\b",
                 re.IGNORECASE)
"""A day named, the longest phrase first ("segunda-feira" before "segunda", "esta noche" before "noche")."""


_MORNING = re.compile(r"(?:\bla|\bheute|\bam|\bguten|\bjeden|\bmorgen)\s+$", re.IGNORECASE)
"""Before "mañana" or "Morgen", the morning, not the next day ("por la mañana", "heute Morgen", "am Morgen")."""


def days_named(text: str) -> frozenset[str]:
    """The days `text` names, each as its key ("today", "tomorrow", "mon" ... "sun")."""
    found = set()
    for m in DAY.finditer(text):
        key = _KEY[m.group(0).casefold()]
        if key == "tomorrow" and _MORNING.search(text, 0, m.start()):
            continue
        found.add(key)
    return frozenset(found)
