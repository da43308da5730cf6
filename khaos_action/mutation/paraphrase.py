"""Rule-based rewording: paraphrase (synonyms, clause order, question <-> request) and length_short (key words only).

No LLM: the rules are small and seeded, so the same prompt gives the same paraphrase on every machine. Domain nouns
(order, refund, invoice, ...) and anything protected (numbers, ids, e-mails) are never replaced: the meaning the
golden-prompt invariants check must survive.
"""

from __future__ import annotations

import random
import re

from khaos_action.mutation.text import is_protected, lower_first

# Phrase-level synonyms; longest first so "could you please" wins over "please". Keys are lower case.
SYNONYMS: dict[str, tuple[str, ...]] = {
    "can you please": ("could you kindly", "would you please"),
    "could you please": ("can you kindly", "would you mind to"),
    "can you": ("could you", "would you"),
    "could you": ("can you", "would you be able to"),
    "would you": ("could you", "can you"),
    "i want to": ("i'd like to", "i wish to"),
    "i would like to": ("i want to", "i'd like to"),
    "i'd like to": ("i would like to", "i want to"),
    "i need to": ("i have to", "i must"),
    "i need": ("i require", "i'm looking for"),
    "i want": ("i'd like", "i would like"),
    "tell me": ("let me know", "inform me"),
    "let me know": ("tell me", "advise me"),
    "help me": ("assist me", "give me a hand to"),
    "please": ("kindly", "pls"),
    "help": ("assist", "support"),
    "find": ("locate", "look up"),
    "check": ("verify", "look into"),
    "show": ("display", "give me"),
    "change": ("modify", "update"),
    "cancel": ("call off", "stop"),
    "get": ("obtain", "receive"),
    "buy": ("purchase", "order"),
    "send": ("ship", "mail"),
    "quickly": ("fast", "asap"),
    "problem": ("issue", "trouble"),
    "issue": ("problem", "trouble"),
    "explain": ("describe", "clarify"),
    "summarize": ("sum up", "give a summary of"),
    "summarise": ("sum up", "give a summary of"),
    "what's": ("what is",),
    "where's": ("where is",),
    "don't": ("do not",),
    "can't": ("cannot",),
    "hasn't": ("has not",),
    "isn't": ("is not",),
    "big": ("large",),
    "small": ("little",),
    "now": ("right now", "at the moment"),
    "status": ("state", "current status"),
    "thanks": ("thank you", "cheers"),
    "hi": ("hello", "hey"),
    "hello": ("hi", "hey there"),
}
_SYNONYM_RE = re.compile(
    r"(?<![\w'])(" + "|".join(re.escape(k) for k in sorted(SYNONYMS, key=len, reverse=True)) + r")(?![\w'])",
    re.IGNORECASE,
)

_WH = r"(what|where|when|why|how|who|which)"
_QUESTION_RULES: list[tuple[re.Pattern[str], str]] = [
    # "Where is my order 1234?" -> "Tell me where my order 1234 is."
    (re.compile(rf"^{_WH} (is|are|was|were) (.+?)\s*\?$", re.I), "{lead} {w} {rest} {verb}."),
    # "Can you cancel order 5521?" -> "Please cancel order 5521."
    (re.compile(r"^(?:can|could|would|will) you(?: please)? (.+?)\s*\?$", re.I), "Please {rest}."),
    # "How do I reset my password?" -> "Explain how to reset my password."
    (re.compile(r"^how (?:do|can|should) i (.+?)\s*\?$", re.I), "Explain how to {rest}."),
]
_IMPERATIVE = re.compile(
    r"^(?:please )?(show|tell|give|find|check|cancel|summari[sz]e|explain|list|send|update|change|track|book|"
    r"refund|help|reset|look up|describe|translate|write|create|delete|remove)\b(.*?)[.!]?$",
    re.I,
)
_SUBORDINATE = re.compile(r"^(.+?),\s*(because|since|so that|if|when|unless|although)\s+(.+?)([.?!]?)$", re.I)
_LEADING_SUB = re.compile(r"^(because|since|if|when|unless|although)\s+(.+?),\s*(.+?)([.?!]?)$", re.I)
_SENTENCE = re.compile(r"(?<=[.?!])\s+(?=[A-Z])")


def _match_case(original: str, new: str) -> str:
    if original.isupper() and len(original) > 1:
        return new.upper()
    if original[:1].isupper():
        return new[:1].upper() + new[1:]
    return new


def _swap_synonyms(text: str, rng: random.Random) -> str:
    matches = list(_SYNONYM_RE.finditer(text))
    if not matches:
        return text
    chosen = rng.sample(matches, max(1, min(len(matches), round(len(matches) * rng.uniform(0.4, 1.0)))))
    for m in sorted(chosen, key=lambda m: m.start(), reverse=True):
        new = rng.choice(SYNONYMS[m.group().lower()])
        if m.group().lower().startswith("i") and new.startswith("i"):
            new = "I" + new[1:]  # keep the pronoun capitalised
        text = text[: m.start()] + _match_case(m.group(), new) + text[m.end():]
    return text


def _question_to_request(text: str, rng: random.Random) -> str:
    stripped = text.strip()
    for pattern, template in _QUESTION_RULES:
        m = pattern.match(stripped)
        if not m:
            continue
        if "{verb}" in template:
            lead = rng.choice(["Tell me", "I'd like to know", "Please tell me"])
            return template.format(lead=lead, w=m.group(1).lower(), rest=m.group(3), verb=m.group(2).lower())
        return template.format(rest=m.group(1))
    return text


def _request_to_question(text: str, rng: random.Random) -> str:
    m = _IMPERATIVE.match(text.strip())
    if not m or text.strip().endswith("?"):
        return text
    lead = rng.choice(["Could you", "Can you", "Would you"])
    return f"{lead} {m.group(1).lower()}{m.group(2)}?"


def _reorder_clauses(text: str, rng: random.Random) -> str:
    stripped = text.strip()
    sentences = _SENTENCE.split(stripped)
    if len(sentences) > 1:
        shift = rng.randrange(1, len(sentences))
        return " ".join(sentences[shift:] + sentences[:shift])
    m = _SUBORDINATE.match(stripped)
    if m:
        main, conj, sub, end = m.groups()
        return f"{conj[:1].upper()}{conj[1:].lower()} {sub}, {lower_first(main)}{end}"
    m = _LEADING_SUB.match(stripped)
    if m:
        conj, sub, main, end = m.groups()
        return f"{main[:1].upper()}{main[1:]}, {conj.lower()} {sub}{end}"
    return text


_FRAMES = ("Quick question: {t}", "I was wondering: {t}", "So, {t}", "Question for you: {t}")


def paraphrase(text: str, rng: random.Random) -> str:
    """Reword with one or two rules (synonyms, clause order, question <-> request); a frame if none applies."""
    rules = [_swap_synonyms, _question_to_request, _request_to_question, _reorder_clauses]
    rng.shuffle(rules)
    out = text
    applied = 0
    for rule in rules:
        candidate = rule(out, rng)
        if candidate != out:
            out = candidate
            applied += 1
            if applied == 2 or rng.random() < 0.5:
                break
    if out == text:
        out = rng.choice(_FRAMES).format(t=lower_first(text.strip()) if text.strip() else text)
    return out


# ---- length_short --------------------------------------------------------------------------------

STOPWORDS = frozenset(
    "a an the is are was were be been am i me my mine you your yours we our us it its this that these those "
    "to of for in on at by with from about as into and or but so do does did can could would will should shall "
    "may might must please kindly hi hello hey thanks thank just really very some any there here have has had "
    "want like need know tell let get oh well also too yet still".split()
)


_QUESTION_WORDS = frozenset({"what", "where", "when", "why", "how", "who", "which"})


def _terse(token: str) -> str | None:
    """A token as the hurried user types it: a protected one bare of punctuation, a word in lower case, a stop
    word or punctuation left out (None)."""
    if is_protected(token):
        return token.strip(".,;:!?\"'()")
    word = re.sub(r"[^\w'-]", "", token).strip("'-")
    return word.lower() if word and word.lower() not in STOPWORDS else None


def _clipped(kept: list[str], limit: int) -> list[str]:
    """Very long prompts keep their first key words (and every protected token): the point is an extreme length."""
    if len(kept) <= limit:
        return kept
    return kept[:limit] + [t for t in kept[limit:] if is_protected(t)]


def length_short(text: str, rng: random.Random) -> str:
    """The terse version a hurried user types: stop words and punctuation dropped, key words and ids kept."""
    kept = [word for word in map(_terse, text.split()) if word is not None]
    kept = _clipped(kept, rng.randint(5, 9))
    if len(kept) > 2 and kept[0] in _QUESTION_WORDS and rng.random() < 0.5:
        kept = kept[1:]
    short = " ".join(kept)
    if short:
        short += rng.choice(["", "", "?", "??", " pls", " asap", " ?"])
    return short or text
