"""PII detection with validation, so order numbers, prices and versions are not reported as personal data.

Each kind is a candidate pattern plus a validator: ISO 13616 mod-97 and country lengths for IBANs, the SSA's
never-issued ranges for US SSNs, a birth-date keyword nearby for dates; payment cards (Luhn, issuers' lengths, a
record's word before them) are found in pii_card, IP addresses (octet ranges, `ipaddress`, versions and networks
told apart) in pii_ip, phones in pii_phone (libphonenumber), national ids in pii_ids and street addresses in
pii_address. This module runs the finders in order, keeps their spans disjoint and masks the values: reports never
show the value.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import chain

from khaos_action.detect.pii_card import cards
from khaos_action.detect.pii_ip import ips
from khaos_action.detect.pii_phone import NOT_PHONE_BEFORE, phones
from khaos_action.detect.pii_table import key_values, table_cells


@dataclass(frozen=True, slots=True)
class PiiMatch:
    kind: str
    """email | phone | credit_card | iban | us_ssn | national_id | address | ipv4 | ipv6 | api_key | date_of_birth"""
    value_masked: str
    start: int
    end: int


_EMAIL = re.compile(r"(?<![\w.+-])[^\W_][\w.%+-]{0,63}@(?:[^\W_][\w-]{0,62}\.)+[^\W\d_]{2,24}(?![^\W\d_])")
"""Letters of any script may stand in an address (RFC 6531): "h.müller@praxis-mueller.de"; digits glued after the
top-level domain are another value ("john@acme.com123-45-6789"), as no top-level domain has digits."""
_IMAGE_TYPES = frozenset({"png", "jpg", "jpeg", "gif", "svg", "webp", "avif", "bmp", "ico", "tif", "tiff", "heic"})
"""No top-level domain is an image's type: "logo@2x.png" is a high-density image's file name."""
_REPOSITORY_PATH = re.compile(r":[\w.~-]+/")
"""A host followed by a colon and a path is an SSH remote ("git@github.com:acme/api.git"), a login, not a mailbox."""
_AT_DOMAIN = re.compile(r"(?i)\s(?:at|@)\s+((?:[a-z0-9-]+\.)+"
                        r"(?:com|org|net|edu|gov|io|co|uk|de|fr|es|it|nl|be|ch|at|au|ca|in|br|mx|jp|info|biz|me))\b")
_AT_LOCAL = re.compile(r"(?i)(?<![\w.+'’-])([a-z][\w.+-]{0,63})\s*$")
"""An address with "at" for "@" and its dots left ("my email is john at gmail.com"): an address only after an
e-mail's word, or at a mail provider's domain with an address's dot, underscore or digits in its local part
("j.smith88 at gmail.com"), so "Sales at Amazon.com", "I work at mail.com" and "next.js at vercel.com" stay text."""
_MAIL_PROVIDER = re.compile(r"(?i)(?:gmail|googlemail|yahoo|ymail|hotmail|outlook|live|msn|icloud|me|mac|aol|"
                            r"protonmail|proton|pm|gmx|web|yandex|mail|zoho|fastmail|tutanota|comcast|orange|free|"
                            r"laposte|libero|t-online|seznam|wp|onet)\.")
_EMAIL_LABEL = re.compile(r"(?i)\b(?:e-?mail|mail|courriel|correo|write)(?:\s+(?:address|me|us|him|her|them|to))?"
                          r"(?:\s*(?:is|:|at|to|-))?\s*$")
_NOT_LOCAL = frozenset({"in", "on", "up", "out", "me", "us", "it", "you", "him", "her", "them", "now", "here", "there",
                        "online", "available", "free", "email", "mail", "address", "account", "inbox", "login", "log",
                        "sign", "signup", "is", "are", "was", "be", "sale", "live", "hosted", "found", "open"})

_IBAN = re.compile(r"\b([A-Z]{2})[ \u00a0]?(\d{2})((?:[ \u00a0\u202f.-]?[A-Z0-9]){11,30})\b")
"""Grouped by spaces as printed (no-break ones too), or by hyphens or dots, a space after the country at most ("CH 93
0076 ..."); words in capitals after it ("... 8741 BIC COBADEFF") are tried off."""
_IBAN_NAMED = re.compile(r"(?i)\biban\b(?:\s*\([a-z]{2}\))?(?:\s+(?:is|number|no\.?|nr\.?|ist|est|es|lautet))?"
                         r"(?:\W{0,3}|[^\d\n.;!?]{4,40}?)"
                         r"([a-z]{2} ?\d{2}(?:[ \u00a0]?[a-z0-9]){11,30})\b")
"""After its name an IBAN may be written in lower case, the name followed by the country in parentheses ("IBAN
(CH): ch93 0076 ...")."""
# "john [at] example [dot] com", "anna.smith at gmail dot com": an address written out so filters miss it (a local part
# is at most 64 characters, which also keeps a long run of dots and digits from being tried at each of its places)
_SPELLED_EMAIL = re.compile(
    r"(?i)\b([\w.+-]{1,64})\s*(?:\[at\]|\(at\)|\{at\}|\sat\s)\s*((?:[\w-]+\s*(?:\[dot\]|\(dot\)|\{dot\}|\sdot\s)\s*)+"
    r"(?:com|org|net|edu|gov|io|co|uk|de|fr|es|it|nl|be|ch|at|au|ca|in|br|mx|jp|info|biz|me))\b")
_IBAN_LENGTHS = {
    "AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22, "BH": 22, "BI": 27, "BR": 29,
    "BY": 28, "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DJ": 27, "DK": 18, "DO": 28, "EE": 20, "EG": 29,
    "ES": 24, "FI": 18, "FK": 18, "FO": 18, "FR": 27, "GB": 22, "GE": 22, "GI": 23, "GL": 18, "GR": 27, "GT": 28,
    "HN": 28, "HR": 21, "HU": 28, "IE": 22, "IL": 23, "IQ": 23, "IS": 26, "IT": 27, "JO": 30, "KW": 30, "KZ": 20,
    "LB": 28, "LC": 32, "LI": 21, "LT": 20, "LU": 20, "LV": 21, "LY": 25, "MC": 27, "MD": 24, "ME": 22, "MK": 19,
    "MN": 20, "MR": 27, "MT": 31, "MU": 30, "NI": 28, "NL": 18, "NO": 15, "OM": 23, "PK": 24, "PL": 28, "PS": 29,
    "PT": 25, "QA": 29, "RO": 24, "RS": 22, "RU": 33, "SA": 24, "SC": 31, "SD": 18, "SE": 24, "SI": 19, "SK": 24,
    "SM": 27, "SO": 23, "ST": 25, "SV": 28, "TL": 23, "TN": 24, "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20,
    "YE": 30,
    # in national use, not yet in the registry
    "AO": 25, "BF": 28, "BJ": 28, "CF": 27, "CG": 27, "CI": 28, "CM": 27, "CV": 25, "DZ": 26, "GA": 27, "GQ": 27,
    "IR": 26, "KM": 27, "MA": 28, "MG": 27, "ML": 28, "MZ": 25, "NE": 28, "SN": 28, "TD": 27, "TG": 28,
}
"""ISO 13616's registry: an IBAN starts with one of these countries and has its length. "RF18 ..." (an ISO 11649
creditor reference, checked by the same mod-97) names no country, so it is no account."""

_SSN = re.compile(r"(?<![\d.-])(\d{3})([- .])(\d{2})\2(\d{4})(?![\d-]|\.\d)")
"""Grouped by hyphens or spaces, or by dots after "SSN" ("social security number is 109.99.6000")."""
_SSN_BARE = re.compile(r"(?i)\b(?:ssn|social security(?: number| no\.?)?|soc\. sec\.(?: no)?|itin)\b"
                       r"(?:(?:(?![.!?]\s+\D)\D){0,20}?|[^\d\n.;!?]{21,40}?)(?<!\d)(\d{3})(\d{2})(\d{4})(?!\d)")
"""After its name and up to 40 characters of words ("SSN on file for the tenant: 219099998"), but not over a
sentence's end: in "My SSN. Order 219099998 ships today" the number is the order's ("SSN no. 219099998" ends no
sentence)."""

_SSN_WORD = re.compile(r"(?i)\b(?:ssn|social security|soc\. sec\.|itin)")
_API_KEYS = [
    # Each begins with its provider's literal prefix, the word boundary checked right after it by a lookbehind
    # ("sk-(?<![\w]sk-)" is "\bsk-"): a search can skip to the prefix, where a boundary first is tried at every place.
    ("api_key", re.compile(r"sk-(?<![\w]sk-)(?:proj-|ant-(?:api\d\d-)?|live-|test-)?[A-Za-z0-9_-]{20,}")),
    ("api_key", re.compile(r"gh(?<![\w]gh)[posur]_[A-Za-z0-9]{36}\b")),
    ("api_key", re.compile(r"github_pat_(?<![\w]github_pat_)[A-Za-z0-9_]{22,}")),
    ("api_key", re.compile(r"A(?<![\w]A)(?:KIA|SIA)[0-9A-Z]{16}\b")),
    ("api_key", re.compile(r"eyJ(?<![\w]eyJ)[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")),
    ("api_key", re.compile(r"xox(?<![\w]xox)[abprs]-[A-Za-z0-9-]{10,}")),
    ("api_key", re.compile(r"AIza(?<![\w]AIza)[0-9A-Za-z_-]{35}\b")),
    ("api_key", re.compile(r"[spr]k_(?<![\w][spr]k_)(?:live|test)_[A-Za-z0-9]{16,}")),
    ("api_key", re.compile(r"-----BEGIN (?:RSA |EC |OPENSSH |DSA )?PRIVATE KEY-----")),
    # Hugging Face, GitLab and npm tokens, SendGrid keys and Slack webhooks: each provider's own prefix and length
    ("api_key", re.compile(r"hf_(?<![\w]hf_)[A-Za-z0-9]{34,40}\b")),
    ("api_key", re.compile(r"glpat-(?<![\w]glpat-)[A-Za-z0-9_-]{20}\b")),
    ("api_key", re.compile(r"npm_(?<![\w]npm_)[A-Za-z0-9]{36}\b")),
    ("api_key", re.compile(r"SG\.(?<![\w]SG\.)[\w-]{22}\.[\w-]{43}\b")),
    ("api_key", re.compile(r"hooks\.slack\.com/services/T\w{8,12}/B\w{8,12}/\w{24}")),
]

_DATE = re.compile(
    r"\b(?:\d{4}-\d{2}-\d{2}|\d{4}[/.]\d{2}[/.]\d{2}|\d{1,2}[./-]\d{1,2}[./-](?:\d{4}|\d{2})|"
    r"\d{1,2}(?:st|nd|rd|th|er|º)?\.?(?: of| de)? (?:jan|feb|mar|apr|may|jun|jul|aug|sep|"
    r"gennaio|febbraio|aprile|maggio|giugno|luglio|settembre|ottobre|dicembre|januari|februari|maart|mei|augustus|"
    r"oct|nov|dec|januar|februar|märz|mai|juni|juli|oktober|dezember|janvier|février|mars|avril|juin|juillet|août|"
    r"septembre|octobre|novembre|décembre|enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|octubre|"
    r"noviembre|diciembre|"
    # Portuguese, Turkish, Polish and Russian months the prefixes above miss ("12 de fevereiro de 1985", "12 Mart
    # 1985", "12 marca 1985", "12 марта 1985 г.")
    r"fevereiro|março|setembro|outubro|dezembro|ocak|şubat|mart|nisan|mayıs|haziran|temmuz|ağustos|eylül|ekim|"
    r"kasım|aralık|stycznia|lutego|marca|kwietnia|maja|czerwca|lipca|sierpnia|września|października|listopada|"
    r"grudnia|января|февраля|марта|апреля|мая|июня|июля|августа|сентября|октября|ноября|декабря)"
    r"[^\W\d_]*\.?,?(?: de| of)? \d{4}|"

    r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d{1,2}(?:st|nd|rd|th)?,? \d{4}|"
    r"\d{1,2}[- ](?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[- ]\d{2,4})\b",
    re.IGNORECASE,
)
_DATE_YEAR_FIRST = re.compile(
    r"(?<!\d)(?:\d{4}\s?年\s?\d{1,2}\s?月\s?\d{1,2}\s?日|\d{4}년\s?\d{1,2}월\s?\d{1,2}일|"
    r"\d{4}\. (?:január|február|március|április|május|június|július|augusztus|szeptember|október|november|"
    r"december) \d{1,2}\.?|\d{1,2}\. \d{1,2}\. \d{4}(?!\d))")
"""Dates written year first ("1985年3月12日", "1985년 3월 12일", "1985. március 12.") or with day and month spaced
("12. 3. 1985"): looked for only where the text has a year's sign or a dot and a space (a search of every text for
them would cost more than the rest of the dates)."""
_DOB_CONTEXT = re.compile(
    r"(?i)(?:born|birth|dob|d\.o\.b|birthday(?=\s*(?:is\b|was\b|on\b|[:,(-]))|birthdate|geboren|geburtsdatum|geburtstag|geb\.|né|née|naissance|"
    r"nacido|nacida|nacimiento|cumpleaños|nato|nata|nascita|geboortedatum|geboren op|"
    # Portuguese, Polish, Russian, Turkish, Indonesian, Vietnamese, Swedish, Danish and Norwegian, Finnish,
    # Hungarian, Czech, Greek: the birth's word, and "born"
    r"nascimento|nascid[oa]|urodzenia|urodzon\w*|urodził\w*|рождени\w*|родил\w*|doğum|doğumlu|lahir|kelahiran|"
    r"ngày sinh|sinh ngày|năm sinh|födelsedatum|född|fødselsdato|født|syntymäaika|syntynyt|születési|született|"
    r"narození|narozen\w*|γέννησης|γεννήθηκε)\b"
    # scripts whose words are not spaced or take prefixes: Chinese, Japanese, Korean, Arabic, Hebrew, Hindi
    r"|出生|生年月日|生まれ|생년월일|출생|الميلاد|الولادة|מועד לידה|תאריך לידה|נולד|נולדה|जन्म"
)


_OTHER_EVENT = re.compile(r"(?i)\b(?:released|published|premiered|launched|opened|founded|issued|aired|recorded|"
                          r"retired|died|married|graduated|elected|signed|came out|took place|veröffentlicht|"
                          r"erschienen|gestorben|sorti|publié|décédé|publicado|lanzado|falleció|uscito|pubblicato)\b")
_THINGS_BIRTHDAY = re.compile(r"(?i)\bits\s+(?:\w+\s+)?birthday")
"""A shop's or a product's birthday ("The store celebrates its 10th birthday on 14 June 2025") is nobody's birth;
nor is a "birthday sale" (the word is a person's birthday only before "is", "on", ":" and the like)."""

_Hit = tuple[str | None, int, int, str]
"""(kind, start, end, masked value); a kind of None claims the span for no kind (an IBAN-shaped invalid code)."""


def find_pii(text: str, *, regions: tuple[str, ...] | list[str] | None = None) -> list[PiiMatch]:
    """Every validated PII match in `text`, in order of position, without overlaps (first kind found wins).

    `regions`: ISO country codes national phone numbers are tried in (default pii_phone.DEFAULT_PHONE_REGIONS);
    regions the text names ("London", "Brasil") are tried first."""
    if not text:
        return []
    return _without_overlaps(_hits(text, regions))


def _hits(text: str, regions: tuple[str, ...] | list[str] | None) -> list[_Hit]:
    # Order matters: the most specific kinds claim their span first, so an IBAN's digits are not also a phone.
    finders = (_api_keys, _emails, _ibans, _cards, _ssns, _ids_and_addresses, _dates_of_birth, _table_cells, _ips)
    hits = [hit for finder in finders for hit in finder(text)]
    return hits + [("phone", s, e, _mask(text[s:e], keep=2)) for s, e in phones(text, regions)]


def _without_overlaps(hits: list[_Hit]) -> list[PiiMatch]:
    """The spans taken stay disjoint and sorted, so their ends are sorted too: a new span overlaps one of them only
    if it overlaps the last that starts before its end (a text of thousands of values is not checked pairwise)."""
    found: list[PiiMatch] = []
    starts: list[int] = []
    ends: list[int] = []
    for kind, start, end, masked in hits:
        index = bisect_left(starts, end)
        if index and ends[index - 1] > start:
            continue
        starts.insert(index, start)
        ends.insert(index, end)
        if kind is not None:
            found.append(PiiMatch(kind, masked, start, end))
    return sorted(found, key=lambda p: p.start)


def _api_keys(text: str) -> Iterator[_Hit]:
    for kind, pattern in _API_KEYS:
        for m in pattern.finditer(text):
            yield kind, m.start(), m.end(), _mask(m.group(0), keep=4)


def _emails(text: str) -> Iterator[_Hit]:
    if "@" in text:
        for m in _EMAIL.finditer(text):
            local, _, domain = m.group(0).partition("@")
            if domain.rpartition(".")[2].lower() in _IMAGE_TYPES or _REPOSITORY_PATH.match(text, m.end()):
                continue
            yield "email", m.start(), m.end(), f"{local[0]}***@{domain}"
    for m in _SPELLED_EMAIL.finditer(text):
        yield "email", m.start(), m.end(), f"{m.group(1)[0]}***@{m.group(2)}"
    for m in _AT_DOMAIN.finditer(text):  # the domain first, then the local part before "at"
        local = _AT_LOCAL.search(text, max(0, m.start() - 65), m.start())
        if local and _written_out_address(text, local, m.group(1)):
            yield "email", local.start(1), m.end(), f"{local.group(1)[0]}***@{m.group(1)}"


def _written_out_address(text: str, local: re.Match[str], domain: str) -> bool:
    name = local.group(1)
    if name.casefold() in _NOT_LOCAL:
        return False  # "Sign in at gmail.com", "meet me at icloud.com"
    if _EMAIL_LABEL.search(text, max(0, local.start(1) - 25), local.start(1)):
        return True  # "my email is john at gmail.com"
    return bool(_MAIL_PROVIDER.match(domain) and re.search(r"[._+\d]", name))  # "j.smith88 at gmail.com"


def _ibans(text: str) -> Iterator[_Hit]:
    for m in _IBAN_NAMED.finditer(text):  # "IBAN de89 3704 ...": written in lower case after its name
        if _valid_iban(m.group(1).upper()):
            yield "iban", m.start(1), m.end(1), _mask(re.sub(r"[ \u00a0]", "", m.group(1).upper()), keep=4)
    for m in _IBAN.finditer(text):
        length = _valid_length(m.group(0))  # IBAN-shaped but invalid: an account-like code, not a phone either
        if not length and not m.group(0)[2].isdigit() or "." in m.group(0) and not length:
            continue  # "TX 75201 214 555 0199": a state, a ZIP and a phone; only a valid IBAN is written so
        end = m.start() + (length or len(m.group(0)))
        masked = _mask(re.sub(r"[ .\u00a0\u202f-]", "", text[m.start():end]), keep=4)
        yield ("iban" if length else None), m.start(), end, masked


def _valid_length(raw: str) -> int | None:
    """The length of the longest valid IBAN `raw` starts with, cut at a separator; None when there is none."""
    cuts = [len(raw)] + [i for i in range(len(raw) - 1, 14, -1) if raw[i] in _IBAN_SEPARATORS]
    return next((cut for cut in cuts if _valid_iban(raw[:cut])), None)


def _cards(text: str) -> Iterator[_Hit]:
    for start, end, masked in cards(text):
        yield "credit_card", start, end, masked


def _ssns(text: str) -> Iterator[_Hit]:
    for m in _SSN.finditer(text):
        if _an_ssn(text, m):
            yield "us_ssn", m.start(), m.end(), "***-**-" + m.group(4)
    for m in _SSN_BARE.finditer(text):  # after "SSN" by construction: a sample number is handed out all the same
        if _named_ssn(m.group(1), m.group(2), m.group(3)):
            yield "us_ssn", m.start(1), m.end(3), "***-**-" + m.group(3)


def _an_ssn(text: str, m: re.Match[str]) -> bool:
    """After "SSN" any issuable number is one; with no such word, a valid one unless a record's noun names it ("Ref
    204-11-5532", "Part 412-58-3307")."""
    area, group, serial = m.group(1), m.group(3), m.group(4)
    if _SSN_WORD.search(text, max(0, m.start() - 30), m.start()):
        return _named_ssn(area, group, serial)
    if m.group(2) == ".":
        return False
    return _valid_ssn(area, group, serial) and not NOT_PHONE_BEFORE.search(text, max(0, m.start() - 30), m.start())


def _ids_and_addresses(text: str) -> Iterator[_Hit]:
    from khaos_action.detect.pii_address import addresses
    from khaos_action.detect.pii_ids import national_ids

    for start, end, value in national_ids(text):
        yield "national_id", start, end, _mask(value, keep=2)
    for start, end in addresses(text):
        yield "address", start, end, _mask(text[start:end], keep=3)


def _table_cells(text: str) -> Iterator[_Hit]:
    """A table's cell, or a value after a key joined as code joins words, read as "<header>: <cell>" by the finders
    that need a label ("| Passport No. |" above "| XDA123456 |", "passport_number": "548320917"); only cells with
    four digits or more, as every such value has them, and at most _TABLE_CELLS of them, so a long log laid out as a
    table costs no more than its first rows."""
    read = 0
    cells = table_cells(text) if "\n" in text else iter(())  # a table has a header's line and a row's at least
    for header, start, end in chain(cells, key_values(text)):
        if sum(ch.isdigit() for ch in text[start:end]) < 4:
            continue
        read += 1
        if read > _TABLE_CELLS:
            return
        from khaos_action.detect.pii_ids import national_ids
        labelled = f"{header}: {text[start:end]}"
        shift = start - len(header) - 2
        found = [("national_id", s, e, _mask(v, keep=2)) for s, e, v in national_ids(labelled)]
        found += _ssns(labelled)
        found += _dates_of_birth(labelled)
        for kind, s, e, masked in found:
            if s >= len(header) + 2:
                yield kind, s + shift, e + shift, masked


_TABLE_CELLS = 500


def _dates_of_birth(text: str) -> Iterator[_Hit]:
    dates = list(_DATE.finditer(text))
    if "年" in text or "년" in text or ". " in text:
        dates += _DATE_YEAR_FIRST.finditer(text)
    for m in dates:
        if _a_birth_date(text, m.start()) or _DOB_CONTEXT.search(text, m.end(), m.end() + 12):
            yield "date_of_birth", m.start(), m.end(), "**/**/" + m.group(0)[-2:]


def _a_birth_date(text: str, start: int) -> bool:
    """A birth word before the date, with no other event between them: "Born in the USA was released on 4 June
    1984" dates a release (a title's "Born"), "born in 1950, she retired on 3 May 2010" a retirement."""
    before = text[max(0, start - 40):start]
    words = list(_DOB_CONTEXT.finditer(before))
    if not words or _THINGS_BIRTHDAY.search(before):
        return False
    return not _OTHER_EVENT.search(before, words[-1].end())


def _ips(text: str) -> Iterator[_Hit]:
    for kind, start, end in ips(text):
        yield kind, start, end, _mask(text[start:end], keep=_IP_KEEP[kind])


_IP_KEEP = {"ipv4": 3, "ipv6": 4}


def _mask(value: str, *, keep: int) -> str:
    if len(value) <= keep * 2:
        return "*" * len(value)
    return value[:keep] + "*" * (len(value) - 2 * keep) + value[-keep:]


_IBAN_SEPARATORS = " -.\u00a0\u202f"


def _valid_iban(raw: str) -> bool:
    iban = re.sub(r"[ .\u00a0\u202f-]", "", raw).upper()
    country = iban[:2]
    if len(iban) != _IBAN_LENGTHS.get(country):
        return False
    rearranged = iban[4:] + iban[:4]
    number = "".join(str(int(ch, 36)) for ch in rearranged)
    return int(number) % 97 == 1


def _issuable_ssn(area: str, group: str, serial: str) -> bool:
    # SSA: area 000, 666 and 900-999 are never issued; group 00 and serial 0000 neither.
    return not (area in ("000", "666") or area >= "900" or group == "00" or serial == "0000")


def _named_ssn(area: str, group: str, serial: str) -> bool:
    """After "SSN" or "ITIN": an issuable SSN, or an ITIN, which the IRS issues in the 900s (group 50-65, 70-88,
    90-92 or 94-99) and which stands where an SSN would ("Backup SSN 9xx-7x-xxxx"). One digit over and over
    ("999-99-9999") is a form's placeholder."""
    if len(set(area + group + serial)) == 1:
        return False
    return _issuable_ssn(area, group, serial) or (area[0] == "9" and _ITIN_GROUP.fullmatch(group) is not None)


_ITIN_GROUP = re.compile(r"5\d|6[0-5]|7\d|8[0-8]|9[0-24-9]")


def _valid_ssn(area: str, group: str, serial: str) -> bool:
    # 078-05-1120 and 219-09-9999 were published in advertising and are void, 123-45-6789 is everyone's example:
    # alone they are sample numbers, after "SSN" a reply is handing out a social security number all the same.
    return _issuable_ssn(area, group, serial) and f"{area}-{group}-{serial}" not in (
        "078-05-1120", "219-09-9999", "123-45-6789")


