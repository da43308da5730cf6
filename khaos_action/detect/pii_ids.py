"""National identity numbers, each validated the way its issuer defines it, so order numbers are not reported.

Written as their issuers print them, with their check digit or letter verified: the UK National Insurance number
(prefix rules), the Spanish DNI and NIE (mod-23 letter), the Italian codice fiscale (odd/even check letter), the
French NIR (mod-97 key), the Brazilian CPF (two mod-11 digits). Bare digit strings that only a checksum tells apart
(the Dutch BSN, the German tax id, the Canadian SIN, the Indian Aadhaar, the UK NHS number, a passport number) count
only after their name ("BSN", "Steuer-ID", "SIN", "Aadhaar", "NHS number", "passport no.") and still must pass their
checksum where one exists. The ids of other countries, each with its label words, shape and checksum, are a table in
pii_ids_national (and pii_ids_world, with the Indian PAN).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from khaos_action.detect.pii_ids_checksums import bsn
from khaos_action.detect.pii_ids_national import national_ids_by_table
from khaos_action.detect.pii_ids_world import pans
from khaos_action.detect.pii_phone import NOT_PHONE_BEFORE

_NINO = re.compile(r"\b(?!BG|GB|NK|KN|TN|NT|ZZ)[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?"
                   r"(?:\d{2} ?\d{2} ?\d{2}|\d{3} ?\d{3}) ?[A-D]\b")
"""HMRC's rules: no D, F, I, Q, U or V first, nor O second, no BG, GB, NK, KN, TN, NT or ZZ; the digits in pairs or
in threes ("AZ 123 456 A")."""
_NINO_LOWER = re.compile(r"(?<![\w-])(?!bg|gb|nk|kn|tn|nt|zz)[a-ceghj-pr-tw-z][a-ceghj-npr-tw-z] "
                         r"(?:\d{2} \d{2} \d{2}|\d{3} \d{3}) [a-d](?![\w-])")
"""In lower case only as printed, in spaced pairs or threes ("hh 01 02 03 d"): run together ("tw987654a") it is as
likely a code, and counts only after the number's name."""
# A check letter makes a DNI or NIE written in lower case ("x9613851n") as sure as one in capitals.
_DNI = re.compile(r"(?<![\w-])(\d{8})[ -]?([A-Za-z])\b")
_NIE = re.compile(r"(?<![\w-])([XYZxyz])[ -]?(\d{7})[ -]?([A-Za-z])\b")
_CF = re.compile(r"\b[A-Z]{6}\d{2}[A-EHLMPRST]\d{2}[A-Z]\d{3}[A-Z]\b")
_NIR = re.compile(r"\b([12]) ?(\d{2}) ?(0[1-9]|1[0-2]|[2-9]\d) ?(\d{2}|2[AB]) ?(\d{3}) ?(\d{3}) ?(\d{2})\b")
_CPF = re.compile(r"\b(\d{3})\.(\d{3})\.(\d{3})-(\d{2})\b")
_NAMED = re.compile(
    r"(?i)\b(?P<name>bsn|burgerservicenummer|nhs|steuer-?id|steuer-?identifikationsnummer|identifikationsnummer|idnr\.?|"
    r"social insurance number|sin|aadhaa?r|passport|reisepass|passeport|pasaporte|passaporto|personalausweis|"
    r"paspoort(?:nummer)?|paszport\w*|pasaport|passaporte|dow[oó]d(?:u)? osobist\w*|паспорт\w*|"
    r"旅券(?:番号)?|护照(?:号码|号)?|護照(?:號碼)?|여권(?:번호)?|جواز (?:ال)?سفر|"
    r"ausweis|id card|identity card|national id|carte d'identité|cni|cpf|nino|ni number|national insurance|"
    r"driver'?s? licen[cs]e|driving licen[cs]e|licen[cs]e number|führerschein|permis de conduire|"
    r"licencia de conducir|licencia de manejo|carteira de motorista|patente di guida|rijbewijs(?:nummer)?|"
    r"prawo jazdy|körkort(?:snummer)?|ehliyet|id number|id no|identity number|"
    r"identification number|número de identidad|numéro d'identité|dni|d\.n\.i\.|nif|documento nacional de identidad|"
    r"आधार(?: संख्या| नंबर| कार्ड)?|"
    r"nas|"
    r"numéro d'assurance sociale|pass(?=-?\s?(?:nr\b|nummer)))"
    r"(?:,?[\s_-]*(?:number|no\.?|nr\.?|n[°º]\.?|nummer|numéro|número|numaras[ıi]|#))?(?P<gap>[^\d\n.;!?]{0,40}?)(?<![\w'-])"
    r"(?P<value>(?-i:(?=[A-Z0-9]|[a-z]{1,3}\d)(?=[A-Za-z]{0,5} ?\d)"
    r"[A-Za-z0-9](?:[A-Za-z0-9.-]|\s(?=\d)){4,18}[A-Za-z0-9]))\b")
"""A document's name, then its number: "NAS" is the SIN's French name only after a French determiner ("mon NAS :",
see _not_a_persons), never a storage box; "Pass" is a passport's only before "Nr." or "nummer" ("Pass-Nr.:
F12345671"). The value may be written in lower case when a digit comes within its first four characters ("NINO
tw987654a"), so a word after the name ("on the booking") is never taken for it. Between the name and its number
any words may stand ("Aadhaar on file for the tenant: ...", "The NHS number we have for you is ..."), but where the
number has no checksum only a place or an owner's phrase ("passport of the guest is ...", see _NEAR)."""
_NEAR = re.compile(r"(?i)(?:\s+(?:on|in|for|from|of|des|der|von|van|du|de|del|della|do|da)(?:\s+[\w']+){1,3}?,?){0,2}"
                   r"[\"']?\s*(?:is|est|es|ist|é|è|är|er|:|：|#|=)?\s*[\"']?"
                   r"(?:(?:has|hat|ha|tiene|a)\s+(?:the\s+|die\s+|el\s+|le\s+|il\s+)?"
                   r"(?:number|nummer|número|numéro|numero)\s*:?\s*)?")
"""What may stand between a document's name and a number no checksum vouches for (a passport's, a licence's); a
key's quotes in JSON or code ("passport_number": "548320917"); a full-width colon; "has the number" ("Mein Reisepass
hat die Nummer C01X00T47")."""
_DATE_VALUE = re.compile(r"\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}")

_FRENCH_DETERMINER = re.compile(r"(?i)\b(?:mon|votre|son|ton|le|du)\s+$")
_NOT_PERSONAL = re.compile(r"(?i)\b(?:order|ticket|transaction|customer|booking|reference|tracking|meeting|session|"
                           r"user|account|employee|invoice|case|request|product|device|app|client|job|batch)\W*$")
_DNI_LETTERS = "TRWAGMYFPDXBNJZSQVHLCKE"
_CF_ODD = {**dict(zip("0123456789", (1, 0, 5, 7, 9, 13, 15, 17, 19, 21))),
           **dict(zip("ABCDEFGHIJKLMNOPQRSTUVWXYZ", (1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 2, 4, 18, 20, 11, 3, 6, 8, 12,
                                                      14, 16, 10, 22, 25, 24, 23)))}


def national_ids(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, value) of every validated national identity number in `text`."""
    for pattern, valid in _SHAPED:
        for m in pattern.finditer(text):
            if valid(m):
                yield m.start(), m.end(), m.group(0)
    for m in _NAMED.finditer(text):
        if _not_a_persons(text, m):
            continue
        value = m.group("value").strip()
        check = _BY_NAME.get(m.group("name").casefold().replace("-", "").rstrip("."), _passport_like)
        if check is _passport_like and _a_date(value):
            continue  # "Geburtsdatum laut Ausweis: 07.09.1979": a date, which no document's number is written as
        if _gap_allowed(text, m, check) and check(re.sub(r"[ .-]", "", value.upper())):
            yield m.start("value"), m.end("value"), value
    yield from national_ids_by_table(text)
    yield from pans(text)


def _a_date(value: str) -> bool:
    """Three parts a day, a month and a year make in some order ("07.09.1979", "1979-09-07"); "2270-66-1551", a
    licence's number, has no month."""
    if not _DATE_VALUE.fullmatch(value):
        return False
    parts = [int(part) for part in re.split(r"[-/.]", value)]
    orders = ((parts[0], parts[1], parts[2]), (parts[1], parts[0], parts[2]), (parts[2], parts[1], parts[0]))
    return any(1 <= day <= 31 and 1 <= month <= 12 and (year < 100 or 1900 <= year <= 2099)
               for day, month, year in orders)


def _gap_allowed(text: str, m: re.Match[str], check: Callable[[str], bool]) -> bool:
    """A number after a place or an owner's phrase ("NHS number of the patient: ...") is the document's; after
    other words only when its checksum vouches for it, it is no date, and no record's noun comes between ("Aadhaar
    linked to order 5533 7406 8124")."""
    if _NEAR.fullmatch(m.group("gap")):
        return True
    return (check is not _passport_like and not _DATE_VALUE.fullmatch(m.group("value"))
            and not NOT_PHONE_BEFORE.search(text, m.start("gap"), m.start("value")))


def _not_a_persons(text: str, m: re.Match[str]) -> bool:
    """"ticket ID number 556677", "order ID no. 8812": a record's id; "NAS backup job 130692544": a storage box
    ("mon NAS : ..." is the SIN's French name)."""
    name = m.group("name").casefold()
    if name.startswith(("id ", "identification")):
        return bool(_NOT_PERSONAL.search(text, max(0, m.start() - 25), m.start()))
    return name == "nas" and not _FRENCH_DETERMINER.search(text, max(0, m.start() - 7), m.start())


def _nino(m: re.Match[str]) -> bool:
    return True  # the prefix rules and the letter suffix are the pattern


def _named_nino(value: str) -> bool:
    """A value after "National Insurance number" is one only by HMRC's rules ("UV 98 76 54 B" is not), or HMRC's
    specimen prefix QQ, handed out all the same; the suffix letter may be left off."""
    return bool(re.fullmatch(r"(?:QQ|(?!BG|GB|NK|KN|TN|NT|ZZ)[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z])\d{6}[A-D]?", value))


def _dni(m: re.Match[str]) -> bool:
    return _DNI_LETTERS[int(m.group(1)) % 23] == m.group(2).upper()


def _named_dni(value: str) -> bool:
    """After its name a DNI may be written with seven digits (an old one without its leading zero: "DNI
    1111111G"); its check letter still has to be right. Bare, seven digits and a letter are as often a code."""
    return bool(re.fullmatch(r"\d{7,8}[A-Z]", value)) and _DNI_LETTERS[int(value[:-1]) % 23] == value[-1]


def _nie(m: re.Match[str]) -> bool:
    number = int("XYZ".index(m.group(1).upper()).__str__() + m.group(2))
    return _DNI_LETTERS[number % 23] == m.group(3).upper()


def _cf(m: re.Match[str]) -> bool:
    code = m.group(0)
    total = sum(_CF_ODD[ch] if i % 2 == 0 else (int(ch) if ch.isdigit() else ord(ch) - 65)
                for i, ch in enumerate(code[:15]))
    return chr(65 + total % 26) == code[15]


def _nir(m: re.Match[str]) -> bool:
    body = "".join(m.groups()[:6]).replace("2A", "19").replace("2B", "18")
    return 97 - int(body) % 97 == int(m.group(7))


def _cpf_digits(digits: str) -> bool:
    if len(digits) != 11 or not digits.isdigit() or len(set(digits)) == 1:
        return False
    for size in (9, 10):
        total = sum(int(d) * (size + 1 - i) for i, d in enumerate(digits[:size]))
        if (total * 10 % 11) % 10 != int(digits[size]):
            return False
    return True


def _cpf(m: re.Match[str]) -> bool:
    return _cpf_digits("".join(m.groups()))


def _steuer_id(value: str) -> bool:
    if len(value) != 11 or not value.isdigit() or value[0] == "0":
        return False
    product = 10
    for digit in value[:10]:
        total = (int(digit) + product) % 10 or 10
        product = total * 2 % 11
    return (11 - product) % 10 == int(value[10])


def _luhn9(value: str) -> bool:
    if len(value) != 9 or not value.isdigit():
        return False
    total = 0
    for i, d in enumerate(reversed(value)):
        n = int(d) * (2 if i % 2 else 1)
        total += n - 9 if n > 9 else n
    return total % 10 == 0


def _verhoeff(value: str) -> bool:
    d = [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 2, 3, 4, 0, 6, 7, 8, 9, 5], [2, 3, 4, 0, 1, 7, 8, 9, 5, 6],
         [3, 4, 0, 1, 2, 8, 9, 5, 6, 7], [4, 0, 1, 2, 3, 9, 5, 6, 7, 8], [5, 9, 8, 7, 6, 0, 4, 3, 2, 1],
         [6, 5, 9, 8, 7, 1, 0, 4, 3, 2], [7, 6, 5, 9, 8, 2, 1, 0, 4, 3], [8, 7, 6, 5, 9, 3, 2, 1, 0, 4],
         [9, 8, 7, 6, 5, 4, 3, 2, 1, 0]]
    p = [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 5, 7, 6, 2, 8, 3, 0, 9, 4], [5, 8, 0, 3, 7, 9, 6, 1, 4, 2],
         [8, 9, 1, 6, 0, 4, 3, 5, 2, 7], [9, 4, 5, 3, 1, 2, 6, 8, 7, 0], [4, 2, 8, 6, 5, 7, 3, 9, 0, 1],
         [2, 7, 9, 3, 8, 0, 6, 4, 1, 5], [7, 0, 4, 6, 9, 1, 3, 2, 5, 8]]
    check = 0
    for i, digit in enumerate(reversed(value)):
        check = d[check][p[i % 8][int(digit)]]
    return check == 0


def _aadhaar(value: str) -> bool:
    return len(value) == 12 and value.isdigit() and value[0] not in "01" and _verhoeff(value)


def _nhs(value: str) -> bool:
    """The UK NHS number: ten digits, the last a mod-11 check on the nine before it."""
    if len(value) != 10 or not value.isdigit():
        return False
    check = 11 - sum(int(d) * w for d, w in zip(value[:9], range(10, 1, -1))) % 11
    return check != 10 and check % 11 == int(value[9])


def _passport_like(value: str) -> bool:
    """A document number after its name: 6 to 18 letters and digits, at least 4 of them digits."""
    return 6 <= len(value) <= 18 and value.isalnum() and sum(ch.isdigit() for ch in value) >= 4


_SHAPED: tuple[tuple[re.Pattern[str], Callable[[re.Match[str]], bool]], ...] = (
    (_NINO, _nino), (_NINO_LOWER, _nino), (_DNI, _dni), (_NIE, _nie), (_CF, _cf), (_NIR, _nir), (_CPF, _cpf))
_BY_NAME: dict[str, Callable[[str], bool]] = {
    "bsn": bsn, "burgerservicenummer": bsn, "steuerid": _steuer_id, "steueridentifikationsnummer": _steuer_id,
    "identifikationsnummer": _steuer_id, "social insurance number": _luhn9, "sin": _luhn9, "aadhaar": _aadhaar,
    "aadhar": _aadhaar, "cpf": _cpf_digits, "nhs": _nhs, "idnr": _steuer_id, "nino": _named_nino,
    "ni number": _named_nino, "national insurance": _named_nino, "dni": _named_dni, "nif": _named_dni,
    "documento nacional de identidad": _named_dni, "d.n.i": _named_dni,
    "आधार": _aadhaar, "आधार संख्या": _aadhaar, "आधार नंबर": _aadhaar, "आधार कार्ड": _aadhaar, "nas": _luhn9,
    "numéro d'assurance sociale": _luhn9,
}
