"""PII detection with validation, so order numbers, prices and versions are not reported as personal data.

Each kind is a candidate pattern plus a validator: Luhn and issuer prefixes for payment cards, ISO 13616 mod-97 and
country lengths for IBANs, the SSA's never-issued ranges for US SSNs, octet ranges for IPv4, number-plan rules for
NANP phones, a birth-date keyword nearby for dates. Matches are returned masked: reports never show the value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class PiiMatch:
    kind: str
    """email | phone | credit_card | iban | us_ssn | ipv4 | api_key | date_of_birth"""
    value_masked: str
    start: int
    end: int


_EMAIL = re.compile(r"(?<![\w.+-])[A-Za-z0-9][A-Za-z0-9._%+-]{0,63}@(?:[A-Za-z0-9-]{1,63}\.)+[A-Za-z]{2,24}\b")

# Cards: 13-19 digits, optionally in groups separated by single spaces or hyphens.
_CARD = re.compile(r"(?<![\d.,-])(?:\d[ -]?){12,18}\d(?![\d.,]\d)")
_CARD_PREFIXES = (
    ("4",), ("51", "52", "53", "54", "55"), tuple(str(n) for n in range(2221, 2721)), ("34", "37"),
    ("6011", "65", "644", "645", "646", "647", "648", "649"), ("35",), ("36", "38", "300", "301", "302", "303",
    "304", "305"), ("62",), ("50", "56", "57", "58", "6304", "6759", "6761", "6762", "6763"),
)

_IBAN = re.compile(r"\b([A-Z]{2})(\d{2})((?: ?[A-Z0-9]){11,30})\b")
_IBAN_LENGTHS = {
    "AD": 24, "AT": 20, "BE": 16, "BG": 22, "CH": 21, "CY": 28, "CZ": 24, "DE": 22, "DK": 18, "EE": 20, "ES": 24,
    "FI": 18, "FR": 27, "GB": 22, "GR": 27, "HR": 21, "HU": 28, "IE": 22, "IS": 26, "IT": 27, "LI": 21, "LT": 20,
    "LU": 20, "LV": 21, "MC": 27, "MT": 31, "NL": 18, "NO": 15, "PL": 28, "PT": 25, "RO": 24, "SE": 24, "SI": 19,
    "SK": 24, "SM": 27, "TR": 26, "AE": 23, "SA": 24, "IL": 23, "BR": 29, "UA": 29,
}

_SSN = re.compile(r"(?<![\d-])(\d{3})([- ])(\d{2})\2(\d{4})(?![\d-])")
_SSN_BARE = re.compile(r"(?i)\b(?:ssn|social security(?: number| no\.?)?)\b\D{0,20}?(?<!\d)(\d{3})(\d{2})(\d{4})(?!\d)")

_IPV4 = re.compile(r"(?<![\w.])((?:\d{1,3}\.){3}\d{1,3})(?![\w.]|\.\d)")
_VERSION_BEFORE = re.compile(r"(?i)(?:\bv|version|release|ver\.?|build)\s*$")

# Phones: E.164 / international with + or 00, NANP with separators, and common EU national formats.
_PHONE_INTL = re.compile(
    r"(?<![\w+])(?:\+|00)(\d{1,3})[ .-]?(?:\(0\)[ .-]?)?\(?\d{1,4}\)?(?:[ .-]?\d{2,4}){2,4}(?!\d)"
)
_PHONE_NANP = re.compile(r"(?<![\w+])(?:1[ .-]?)?\(?([2-9]\d{2})\)?[ .-]?([2-9]\d{2})[ .-](\d{4})(?![\d-])")
_PHONE_EU = re.compile(r"(?<![\w+.])0\d{1,4}(?:[ /-]\d{2,8}){1,4}(?![\d.,])")
_PHONE_CONTEXT = re.compile(
    r"(?i)(?:phone|tel|mobile|cell|call|fax|whatsapp|telefon|handy|portable|téléphone|teléfono|móvil|celular|"
    r"numéro|número|nummer)\W{0,15}$"
)

_API_KEYS = [
    ("api_key", re.compile(r"\bsk-(?:proj-|ant-(?:api\d\d-)?|live-|test-)?[A-Za-z0-9_-]{20,}")),
    ("api_key", re.compile(r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36}\b|\bgithub_pat_[A-Za-z0-9_]{22,}")),
    ("api_key", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    ("api_key", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")),
    ("api_key", re.compile(r"\bxox[abprs]-[A-Za-z0-9-]{10,}")),
    ("api_key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b")),
    ("api_key", re.compile(r"\b(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]{16,}")),
    ("api_key", re.compile(r"-----BEGIN (?:RSA |EC |OPENSSH |DSA )?PRIVATE KEY-----")),
]

_DATE = re.compile(
    r"\b(?:\d{4}-\d{2}-\d{2}|\d{1,2}[./-]\d{1,2}[./-](?:\d{4}|\d{2})|\d{1,2}\.? (?:jan|feb|mar|apr|may|jun|jul|aug|sep|"
    r"oct|nov|dec|januar|februar|märz|mai|juni|juli|oktober|dezember|janvier|février|mars|avril|juin|juillet|août|"
    r"septembre|octobre|novembre|décembre|enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|octubre|"
    r"noviembre|diciembre)[a-zé]*\.?,? \d{4}|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d{1,2},? "
    r"\d{4})\b",
    re.IGNORECASE,
)
_DOB_CONTEXT = re.compile(
    r"(?i)(?:born|birth|dob|d\.o\.b|birthday|geboren|geburtsdatum|geburtstag|né|née|naissance|nacido|nacida|"
    r"nacimiento|cumpleaños)\b"
)


def find_pii(text: str) -> list[PiiMatch]:
    """Every validated PII match in `text`, in order of position, without overlaps (first kind found wins)."""
    if not text:
        return []
    found: list[PiiMatch] = []
    taken: list[tuple[int, int]] = []

    def add(kind: str, start: int, end: int, masked: str) -> None:
        if any(start < e and s < end for s, e in taken):
            return
        taken.append((start, end))
        found.append(PiiMatch(kind, masked, start, end))

    # Order matters: the most specific kinds claim their span first, so an IBAN's digits are not also a phone.
    for kind, pattern in _API_KEYS:
        for m in pattern.finditer(text):
            add(kind, m.start(), m.end(), _mask(m.group(0), keep=4))
    if "@" in text:
        for m in _EMAIL.finditer(text):
            local, _, domain = m.group(0).partition("@")
            add("email", m.start(), m.end(), f"{local[0]}***@{domain}")
    for m in _IBAN.finditer(text):
        if _valid_iban(m.group(0)):
            add("iban", m.start(), m.end(), _mask(m.group(0).replace(" ", ""), keep=4))
        else:
            taken.append((m.start(), m.end()))  # IBAN-shaped but invalid: an account-like code, not a phone either
    for m in _CARD.finditer(text):
        digits = re.sub(r"\D", "", m.group(0))
        if _valid_card(digits, m.group(0)):
            add("credit_card", m.start(), m.end(), "**** **** **** " + digits[-4:])
    for m in _SSN.finditer(text):
        if _valid_ssn(m.group(1), m.group(3), m.group(4)):
            add("us_ssn", m.start(), m.end(), "***-**-" + m.group(4))
    for m in _SSN_BARE.finditer(text):
        if _valid_ssn(m.group(1), m.group(2), m.group(3)):
            add("us_ssn", m.start(1), m.end(3), "***-**-" + m.group(3))
    for m in _DATE.finditer(text):
        if _DOB_CONTEXT.search(text, max(0, m.start() - 40), m.start()) or _DOB_CONTEXT.search(
            text, m.end(), m.end() + 12
        ):
            add("date_of_birth", m.start(), m.end(), "**/**/" + m.group(0)[-2:])
    for m in _IPV4.finditer(text):
        if _valid_ipv4(m.group(1)) and not _VERSION_BEFORE.search(text, max(0, m.start() - 12), m.start()):
            add("ipv4", m.start(), m.end(), _mask(m.group(1), keep=3))
    for m in _PHONE_INTL.finditer(text):
        digits = re.sub(r"\D", "", m.group(0))
        if 8 <= len(digits.lstrip("0")) <= 15:
            add("phone", m.start(), m.end(), _mask(m.group(0), keep=2))
    for m in _PHONE_NANP.finditer(text):
        if m.group(2)[1:] != "11" and not _money_before(text, m.start()):
            add("phone", m.start(), m.end(), _mask(m.group(0), keep=2))
    for m in _PHONE_EU.finditer(text):
        digits = re.sub(r"\D", "", m.group(0))
        # National formats look like many other numbers; only with a phone word before them.
        if 9 <= len(digits) <= 12 and _PHONE_CONTEXT.search(text, max(0, m.start() - 30), m.start()):
            add("phone", m.start(), m.end(), _mask(m.group(0), keep=2))
    found.sort(key=lambda p: p.start)
    return found


def _mask(value: str, *, keep: int) -> str:
    if len(value) <= keep * 2:
        return "*" * len(value)
    return value[:keep] + "*" * (len(value) - 2 * keep) + value[-keep:]


def _luhn(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        n = ord(ch) - 48
        if i % 2:
            n *= 2
            if n > 9:
                n -= 9
        total += n
    return total % 10 == 0


def _valid_card(digits: str, raw: str) -> bool:
    if not 13 <= len(digits) <= 19 or len(set(digits)) < 2:
        return False
    separators = set(re.findall(r"[ -]", raw))
    if len(separators) > 1:
        return False  # "1234-5678 9012" mixes separators: a list of numbers, not one card
    if not any(digits.startswith(p) for group in _CARD_PREFIXES for p in group):
        return False
    return _luhn(digits)


def _valid_iban(raw: str) -> bool:
    iban = raw.replace(" ", "").upper()
    country = iban[:2]
    expected = _IBAN_LENGTHS.get(country)
    if expected is None:
        if not 15 <= len(iban) <= 34:
            return False
    elif len(iban) != expected:
        return False
    rearranged = iban[4:] + iban[:4]
    number = "".join(str(int(ch, 36)) for ch in rearranged)
    return int(number) % 97 == 1


def _valid_ssn(area: str, group: str, serial: str) -> bool:
    # SSA: area 000, 666 and 900-999 are never issued; group 00 and serial 0000 neither. 078-05-1120 and
    # 219-09-9999 were published in advertising and are void.
    if area in ("000", "666") or area >= "900" or group == "00" or serial == "0000":
        return False
    return f"{area}-{group}-{serial}" not in ("078-05-1120", "219-09-9999", "123-45-6789")


def _valid_ipv4(raw: str) -> bool:
    octets = raw.split(".")
    if any(len(o) > 1 and o.startswith("0") for o in octets):
        return False
    values = [int(o) for o in octets]
    if any(v > 255 for v in values):
        return False
    # Loopback, unspecified and broadcast addresses identify no one.
    return not (values[0] in (0, 127) or values == [255, 255, 255, 255])


def _money_before(text: str, start: int) -> bool:
    return bool(re.search(r"[$€£¥]\s*$", text[max(0, start - 2) : start]))
