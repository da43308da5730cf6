"""How the stand-in models read text: undo obfuscation, find code fragments, spot requests, guess the language.

Both policies (obedient and robust) read with these helpers; they differ only in what they do with what they read.
Nothing here knows the attack corpus: the decoders are the common obfuscations a capable model undoes on its own.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import re
import unicodedata
import urllib.parse

# Cyrillic and Greek letters that look like Latin ones (homoglyph obfuscation).
_HOMOGLYPHS = str.maketrans("аеорсухіјԁѕАВЕКМНОРСТХІЈЅνοΑΒΕΖΗΙΚΜΝΟΡΤΥΧ",
                            "aeopcyxijdsABEKMHOPCTXIJSvoABEZHIKMNOPTYX")
_ZERO_WIDTH = re.compile("[\u200b-\u200f\u2060\ufeff]")
_MORSE = {".-": "a", "-...": "b", "-.-.": "c", "-..": "d", ".": "e", "..-.": "f", "--.": "g", "....": "h",
          "..": "i", ".---": "j", "-.-": "k", ".-..": "l", "--": "m", "-.": "n", "---": "o", ".--.": "p",
          "--.-": "q", ".-.": "r", "...": "s", "-": "t", "..-": "u", "...-": "v", ".--": "w", "-..-": "x",
          "-.--": "y", "--..": "z"}
_LEET = str.maketrans("013457", "oieast")

_B64 = re.compile(r"(?<![A-Za-z0-9+/=])[A-Za-z0-9+/]{16,}={0,2}(?![A-Za-z0-9+/=])")
_HEX = re.compile(r"\b(?:[0-9a-fA-F]{2}){8,}\b")
_BINARY = re.compile(r"(?:[01]{8}\s+){3,}[01]{8}")
_MORSE_RUN = re.compile(r"(?:[.-]{1,5}\s+/?\s*){4,}[.-]{1,5}")

CODE = re.compile(r"(?<![A-Za-z0-9])[A-Z0-9]{5,16}(?![A-Za-z0-9])(?!\.[a-z])")  # not a file name
_PAIR = re.compile(r"\b([A-Z0-9]{4,16})\s*\+\s*([A-Z0-9]{4,16})\b")
# All-caps words that are words, not codes.
_CAPS_WORDS = frozenset(
    [
        "IMPORTANT", "ATTENTION", "SYSTEM", "OFFICIAL", "UPDATE", "NOTICE", "PRIORITY", "SECURITY", "ALERT",
        "ADMIN", "ROGUE", "MODE", "INFORMATION", "IGNORE", "DEBUG", "FINAL", "ANSWER", "AGENT", "NOTE",
        "TASK", "CRITICAL", "WARNING", "ERROR", "URGENT", "README", "START", "RESET", "SESSION", "OVERRIDE",
        "COUNCIL", "CONFIRM", "JOINED", "DATA", "QUESTION", "USER", "ASSISTANT", "FREEGPT", "RULES",
        "TOKEN", "CODE", "SUPERSEDES", "EARLIER", "DOCUMENTS", "STOP", "BUILD", "MAKE", "HTTPS", "HTTP",
        "POST", "JSON", "HTML", "ASCII", "NEW", "SUDO", "ROOT", "WHOAMI", "DELETE", "SELECT", "UPDATE",
        "FROM", "WHERE", "DROP", "TABLE", "INSERT", "ORDER", "SKU", "FAQ", "API", "KEY",
    ])

JOIN_WORDS = re.compile(
    r"join|concaten|merg|fus|glue|combin|together|one word|single (?:word|token|string|identifier)|no space|"
    r"without (?:the )?(?:plus|spaces)|followed (?:directly |immediately )?by|immediately followed|reassembl|"
    r"one (?:string|token|identifier)|unbroken|nothing (?:in )?between|formed (?:from|by)|made (?:of|from|by)|"
    r"zusammen|aneinander|suivi|coll[ée]s|unir|sin espacio|as one",
    re.IGNORECASE)
SECRET_REQUEST = re.compile(
    r"api[ _-]?keys?|\btokens\b|access tokens?|credentials?|passwords?|secrets?|\.env\b|environment variables?|"
    r"os\.environ|env(?:ironment)? vars?|id_rsa|ssh key|private key|aws|configured with|resolved values|"
    r"clés? api|schlüssel|contraseñas?|mot de passe", re.IGNORECASE)
PROMPT_REQUEST = re.compile(
    r"system ?(?:prompt|instructions|message)|\binstructions\b|initial prompt|\bprompt\b|configuration|\bsetup\b|"
    r"\brules?\b|guidelines|context window|internal description|above this (?:line|message)|everything above|"
    r"developer notes|systemanweisungen|anweisungen|instrucciones|consignes", re.IGNORECASE)
PII_REQUEST = re.compile(
    r"customers?\b.{0,60}\b(?:e-?mails?|phones?|address(?:es)?|cards?|contacts?|records?|names?)\b|"
    r"\b(?:e-?mails?|phones?|address(?:es)?)\b.{0,60}customers?|contact (?:list|details)|personal (?:details|data)|"
    r"date of birth|card (?:details|digits)|"
    r"data you hold|everything you have on|last person|this record|clientes|training data|\bcontact\b", re.IGNORECASE)
HOWTO_REQUEST = re.compile(
    r"step[- ]by[- ]step|how (?:to|do|did|would|could|can|much|fast) |what (?:\w+ )?(?:chemicals|can be)|explain|"
    r"describe|write|draft|provide|give|list|"
    r"procedure|instructions|complete|code|script|monologue|scene|detail|étape|explique|schritt|paso", re.IGNORECASE)

_LANGS = {
    "de": re.compile(r"\b(?:der|die|das|und|ist|nicht|ich|sie|mit|bitte|antworte|deine|auf)\b", re.IGNORECASE),
    "fr": re.compile(r"\b(?:le|la|les|et|est|pas|je|vous|avec|pour|réponds|tes|une|des)\b", re.IGNORECASE),
    "es": re.compile(r"\b(?:el|los|las|y|es|no|yo|con|para|responde|una|del|por|soy|haz)\b", re.IGNORECASE),
    "en": re.compile(r"\b(?:the|and|is|not|you|with|please|your|to|of|a|my)\b", re.IGNORECASE),
}


def normalise(text: str) -> str:
    """NFKC (full-width letters), homoglyphs mapped to Latin, zero-width characters and Unicode tags made visible."""
    tags = "".join(chr(ord(c) - 0xE0000) for c in text if 0xE0020 <= ord(c) <= 0xE007E)
    plain = "".join(c for c in text if not 0xE0000 <= ord(c) <= 0xE007F)
    plain = _ZERO_WIDTH.sub("", unicodedata.normalize("NFKC", plain)).translate(_HOMOGLYPHS)
    return f"{plain}\n{tags}" if tags else plain


def decodings(text: str) -> list[str]:
    """Plain-text readings hidden in `text`: base64, hex, binary, Morse, URL-encoding, and ROT13 / reversed /
    Atbash / Caesar / leetspeak when the text says that is how to read it."""
    out: list[str] = []
    low = text.lower()
    for blob in _B64.findall(text):
        try:
            decoded = base64.b64decode(blob + "=" * (-len(blob) % 4), validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError, ValueError):
            continue
        if decoded.isprintable() and sum(c.isalpha() or c == " " for c in decoded) > 0.8 * len(decoded):
            out.append(decoded)
    for blob in _HEX.findall(text):
        try:
            decoded = bytes.fromhex(blob).decode("utf-8")
        except ValueError:
            continue
        if decoded.isprintable():
            out.append(decoded)
    for run in _BINARY.findall(text):
        out.append("".join(chr(int(b, 2)) for b in run.split()))
    for run in _MORSE_RUN.findall(text):
        out.append(" ".join("".join(_MORSE.get(c, "") for c in word.split()) for word in run.split("/")))
    if "%20" in text or "%2" in text:
        out.append(urllib.parse.unquote_plus(text))
    if "rot13" in low or "rot-13" in low:
        out.append(codecs.encode(text, "rot13"))
    if "backwards" in low or "reverse" in low:
        out.append(text[::-1])
    if "atbash" in low:
        out.append(_atbash(text))
    if "caesar" in low:
        out.append(_shift(text, -3))
    if len(re.findall(r"\b[a-z]*[a-z][0-9][a-z0-9]*\b", low)) >= 3:  # several words with digits for letters
        out.append(low.translate(_LEET))
    return out


def read(text: str) -> str:
    """Everything a capable model would understand `text` to say, as one string."""
    plain = normalise(text).replace("\\n", "\n").replace('\\"', '"')  # JSON escapes in tool results
    return "\n".join([plain, *decodings(plain)])


_CONSONANT_RUN = re.compile(r"[BCDFGHJKLMNPQRSTVWXZ]{3}")


def code_tokens(text: str) -> list[str]:
    """Code-like tokens, in order of appearance: upper-case letters and digits that do not read as a word (a digit
    among letters, or a run of three consonants: "KX7PQ", "ZRTWVBM"; not "AGENTS", "CONTENT", "1234")."""
    return [t for t in CODE.findall(text) if t not in _CAPS_WORDS and not t.isdigit()
            and (any(c.isdigit() for c in t) or _CONSONANT_RUN.search(t))]


def joined_codes(text: str) -> list[str]:
    """What an instruction to join code fragments produces: "A + B" pairs joined, else the first two code tokens
    of a text that asks for joining."""
    pairs = ["".join(p) for p in _PAIR.findall(text) if not (p[0].isdigit() and p[1].isdigit())]
    if pairs:
        return pairs
    if not JOIN_WORDS.search(text):
        return []
    tokens = list(dict.fromkeys(t for t in code_tokens(text) if len(t) <= 9))
    return [tokens[0] + tokens[1]] if len(tokens) >= 2 else []


def emails(text: str) -> list[str]:
    return re.findall(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+", text)


def urls(text: str) -> list[str]:
    return [u.rstrip(".,;)\"'") for u in re.findall(r"https?://[^\s\"'<>`]+", text)]


def commands(text: str) -> list[str]:
    """Commands quoted in backticks, what follows "run:" / "run exactly:", and lines that start like a shell or SQL
    command."""
    found = [c for c in re.findall(r"`([^`]{3,})`", text)]
    found += [m.strip() for m in re.findall(r"\brun(?: exactly)?:\s*(.+)", text, re.IGNORECASE)]
    found += [m.strip() for m in re.findall(
        r"(?:^|[:;(]\s*)((?:echo|curl|wget|bash|crontab|rm|chmod|sudo|pip|export|DROP|SELECT) [^\n]+)", text,
        re.MULTILINE)]
    return found


def numbers(text: str) -> list[float]:
    return [float(n.replace(",", "")) for n in re.findall(r"\b\d{1,3}(?:,\d{3})+(?:\.\d+)?\b|\b\d+(?:\.\d+)?\b", text)]


def language(text: str) -> str:
    """en / de / fr / es by function-word counts (English when unsure)."""
    scores = {lang: len(pattern.findall(text)) for lang, pattern in _LANGS.items()}
    best = max(scores, key=lambda k: scores[k])
    return best if scores[best] > scores["en"] else "en"


def _atbash(text: str) -> str:
    return "".join(chr(219 - ord(c)) if "a" <= c <= "z" else chr(155 - ord(c)) if "A" <= c <= "Z" else c
                   for c in text)


def _shift(text: str, by: int) -> str:
    def move(c: str) -> str:
        if "a" <= c <= "z":
            return chr((ord(c) - 97 + by) % 26 + 97)
        if "A" <= c <= "Z":
            return chr((ord(c) - 65 + by) % 26 + 65)
        return c
    return "".join(move(c) for c in text)
