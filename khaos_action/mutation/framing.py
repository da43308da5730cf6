"""Mutators that surround the prompt with other words: other languages, chatter, long context and tone.

The prompt itself stays verbatim inside the result, so every key word and id survives.
"""

from __future__ import annotations

import random

from khaos_action.mutation.text import is_protected, lower_first

# (prefix, suffix) pairs per language, as a bilingual user would mix them in.
_LANGUAGE_BITS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "de": (("Hallo! ", "Guten Tag, kurze Frage: ", "Entschuldigung, "),
           (" Danke!", " Vielen Dank im Voraus.", " Bitte schnell.")),
    "fr": (("Bonjour, ", "Salut ! ", "Excusez-moi, "), (" Merci beaucoup.", " Merci d'avance !", " C'est urgent.")),
    "es": (("Hola, ", "Buenos días, una pregunta: ", "Perdón, "),
           (" ¡Gracias!", " Muchas gracias.", " Es urgente, por favor.")),
}
_PLEASE = {"de": "bitte", "fr": "s'il vous plaît", "es": "por favor"}


def language_mix(text: str, rng: random.Random) -> str:
    """German, French or Spanish greetings and closings around the English request (code-switching)."""
    lang = rng.choice(sorted(_LANGUAGE_BITS))
    prefixes, suffixes = _LANGUAGE_BITS[lang]
    body = text.strip()
    if " please" in body.lower() and rng.random() < 0.5:
        at = body.lower().index(" please")
        body = body[:at] + " " + _PLEASE[lang] + body[at + len(" please"):]
    mode = rng.choice(["both", "prefix", "suffix"])
    prefix = rng.choice(prefixes) if mode in ("both", "prefix") else ""
    suffix = rng.choice(suffixes) if mode in ("both", "suffix") else ""
    if prefix.endswith((", ", ": ")):
        body = lower_first(body)
    return f"{prefix}{body}{suffix}"


_CHATTER_BEFORE = (
    "Hi there, I hope you're having a wonderful day! I've been a loyal customer for many years and I have always "
    "appreciated how helpful your team is. Anyway, the reason I'm writing is this: ",
    "Hello, sorry for the long message, I'm not very good with computers and my nephew usually helps me, but he is "
    "away this week, so I thought I'd just ask here directly. So basically, ",
    "Good morning. Before I start, I want to say that I already looked through the FAQ page and the help centre "
    "and searched my e-mails, but I couldn't find what I was looking for. My question: ",
)
_CHATTER_AFTER = (
    " Thanks so much in advance, I really appreciate any help you can give me!",
    " Let me know if you need any more information from me, I'm happy to provide whatever is needed.",
    " Sorry again for the trouble and thank you for your patience, have a lovely rest of your day.",
)


def verbose_padding(text: str, rng: random.Random) -> str:
    """Friendly, irrelevant chatter before and after the request (a few hundred characters)."""
    before = rng.choice(_CHATTER_BEFORE)
    after = rng.choice(_CHATTER_AFTER)
    return f"{before}{lower_first(text.strip())}{after}"


_CONTEXT = (
    "Some background: I placed several orders over the last few months, some for myself and some as gifts for "
    "family members, and most of them arrived on time without any problems at all.",
    "I usually shop on the mobile app, but this time I used the website on my laptop because the app kept logging "
    "me out whenever I switched to another app to check my banking details.",
    "Last year I had a similar question and your colleague on the phone was extremely helpful, although the call "
    "took quite a while because the line kept dropping in the middle of the conversation.",
    "My account is registered under my old e-mail address, which I still use from time to time, and my partner also "
    "sometimes orders things from the same account when we share the household shopping.",
    "The weather here has been terrible all week, with heavy rain every afternoon, which is why I would rather not "
    "go to the post office or a pickup point unless it is absolutely necessary.",
    "I read the terms and conditions page twice but I found the section about deliveries, returns and exchanges a "
    "little confusing, especially the parts that refer to other sections by number.",
    "For context, I work from home most days, so deliveries during business hours are usually fine, but on Tuesdays "
    "and Thursdays I am at the office and nobody is at home to receive anything.",
    "I also noticed that the confirmation e-mails sometimes end up in my spam folder, so it is possible that I missed "
    "some messages from you, in which case I apologise for asking again.",
)


def length_long(text: str, rng: random.Random) -> str:
    """Several KB of unrelated context with the request at the start, the middle or the end."""
    target = rng.randint(3000, 6000)
    paragraphs: list[str] = []
    size = 0
    while size < target:
        paragraph = " ".join(rng.sample(_CONTEXT, rng.randint(2, 4)))
        paragraphs.append(paragraph)
        size += len(paragraph) + 2
    where = rng.choice(["start", "middle", "end"])
    question = f"My actual question: {text.strip()}"
    if where == "start":
        parts = [question, *paragraphs]
    elif where == "end":
        parts = [*paragraphs, question]
    else:
        half = len(paragraphs) // 2
        parts = [*paragraphs[:half], question, *paragraphs[half:]]
    return "\n\n".join(parts)


_ANGRY = (
    ("This is RIDICULOUS. ", " I've asked three times already and I want an answer NOW!"),
    ("Are you kidding me?! ", " Fix this immediately or I'm cancelling everything."),
    ("Unbelievable. Your service is a joke. ", " Answer me properly this time."),
)
_POLITE = (
    ("Good day! I'm terribly sorry to bother you, but if it isn't too much trouble: ",
     " Thank you ever so much, you are truly wonderful."),
    ("Dear esteemed assistant, I hope this message finds you well. With the greatest respect, ",
     " I am eternally grateful for your kind attention."),
    ("Hello, and please forgive the intrusion! Whenever you have a spare moment, ",
     " No rush at all, and thank you, thank you, thank you!"),
)


def tone_shift(text: str, rng: random.Random) -> str:
    """The same request, angry (with shouting) or overly polite."""
    body = text.strip()
    if rng.random() < 0.5:
        before, after = rng.choice(_ANGRY)
        if rng.random() < 0.5:
            # Shout the ordinary words; ids and numbers are already upper-case-proof.
            body = " ".join(t if is_protected(t) else t.upper() for t in body.split(" "))
        return f"{before}{body}{after}"
    before, after = rng.choice(_POLITE)
    return f"{before}{lower_first(body)}{after}"
