"""The check digits and embedded dates of the Latin American, Asian, Middle Eastern, Russian and Balkan ids in
pii_ids_world, as each issuer defines them (python-stdnum documents most of them; reimplemented here).

Each function takes the number with its separators removed (digits, and letters in capitals). Ids with no check
digit at all (Colombia's cédula, Nigeria's NIN, the Philippines' PhilSys number) are checked for their length only,
and count only after their label.
"""

from __future__ import annotations

import re
from datetime import date

from khaos_action.detect.pii_ids_checksums import _any_century, luhn, real_date


def _weighted(digits: str, weights: tuple[int, ...]) -> int:
    return sum(int(d) * w for d, w in zip(digits, weights))


def digits_only(low: int, high: int):
    """An id with no check digit: its length only."""
    def valid(n: str) -> bool:
        return n.isdigit() and low <= len(n) <= high
    return valid


def cedula_ec(n: str) -> bool:
    """Ecuador: a province (01-24, 30 abroad), a third digit below 6 for a person, and the ten digits' weighted sum
    (2, 1, 2, 1, ...; a product over 9 less 9) a multiple of 10."""
    if len(n) != 10 or not n.isdigit() or not (1 <= int(n[:2]) <= 24 or n[:2] == "30") or n[2] > "5":
        return False
    total = sum((p - 9 if p > 9 else p) for p in (int(d) * (2 - i % 2) for i, d in enumerate(n)))
    return total % 10 == 0


def cedula_uy(n: str) -> bool:
    """Uruguay: six or seven digits and a check digit, weights 2-9-8-7-6-3-4."""
    if not n.isdigit() or len(n) not in (7, 8):
        return False
    body = n[:-1].rjust(7, "0")
    return (10 - _weighted(body, (2, 9, 8, 7, 6, 3, 4)) % 10) % 10 == int(n[-1])


def cedula_ve(n: str) -> bool:
    """Venezuela: V (a national) or E (a foreigner) and up to eight digits; no check digit."""
    return re.fullmatch(r"[VE]\d{6,8}", n) is not None


def cedula_do(n: str) -> bool:
    """The Dominican Republic: eleven digits, the last a Luhn check."""
    return len(n) == 11 and n.isdigit() and n[:3] != "000" and luhn(n)


def cedula_bo(n: str) -> bool:
    """Bolivia: five to eight digits and the department that issued it (LP, SC, CB, ...); no check digit."""
    return re.fullmatch(r"\d{5,8}(?:LP|SC|CB|OR|PT|TJ|CH|BE|PD)", n) is not None


def dni_pe_or_ar(n: str) -> bool:
    """Peru's DNI (eight digits, a check digit or letter after them when written) or Argentina's (seven or eight
    digits, no check)."""
    if n.isdigit() and len(n) in (7, 8):
        return True
    if len(n) != 9 or not n[:8].isdigit():
        return False
    c = _weighted(n[:8], (3, 2, 7, 6, 5, 4, 3, 2)) % 11
    return n[8] in ("65432110987"[c], "KJIHGFEDCBA"[c])


def cnic(n: str) -> bool:
    """Pakistan: a province (1-7), a district and a serial, the last digit odd for a man and even for a woman;
    no check digit."""
    return len(n) == 13 and n.isdigit() and n[0] in "1234567"


_TW_LETTERS = dict(zip("ABCDEFGHJKLMNPQRSTUVXYWZIO", range(10, 36)))


def taiwan_id(n: str) -> bool:
    """Taiwan: a letter for the place of registration (read as two digits), 1 or 2 (8 or 9 for a resident), eight
    digits; weights 1-9-8-7-6-5-4-3-2-1-1 sum to a multiple of 10."""
    if not re.fullmatch(r"[A-Z][1289]\d{8}", n):
        return False
    place = _TW_LETTERS[n[0]]
    digits = f"{place // 10}{place % 10}{n[1:]}"
    return _weighted(digits, (1, 9, 8, 7, 6, 5, 4, 3, 2, 1, 1)) % 10 == 0


def saudi_id(n: str) -> bool:
    """Saudi Arabia: 1 for a citizen or 2 for a resident (iqama), nine digits, a Luhn check."""
    return len(n) == 10 and n.isdigit() and n[0] in "12" and luhn(n)


def code_melli(n: str) -> bool:
    """Iran: ten digits, the last a check on the nine before it (weights 10 to 2, modulo 11); one digit repeated is
    a placeholder."""
    if len(n) != 10 or not n.isdigit() or len(set(n)) == 1:
        return False
    rest = _weighted(n[:9], tuple(range(10, 1, -1))) % 11
    return int(n[9]) == (rest if rest < 2 else 11 - rest)


_EG_GOVERNORATES = {1, 2, 3, 4, *range(11, 20), *range(21, 36), 88}


def egypt_id(n: str) -> bool:
    """Egypt: the century (2 the 1900s, 3 the 2000s), YYMMDD, a governorate, a serial and a check digit (whose
    algorithm is not published, so only the date and the governorate are checked). Written in Arabic-Indic digits
    as often as in Western ones ("٢٩٠٠١٠١١٢٣٤٥٦٧")."""
    n = n.translate(_ARABIC_INDIC)
    if len(n) != 14 or not n.isdigit() or n[0] not in "23":
        return False
    year = (1900 if n[0] == "2" else 2000) + int(n[1:3])
    # a holder is born after 1920 and not in the future: "20101231235959", a timestamp, would be born in 1901
    return (1920 <= year <= date.today().year and real_date(year, int(n[3:5]), int(n[5:7]))
            and int(n[7:9]) in _EG_GOVERNORATES)


def egypt_id_named(n: str) -> bool:
    """After a label that names Egypt's id ("الرقم القومي"): fourteen digits and the century's, as a made-up
    example's date or governorate need not be real for the reply to hand out a national number."""
    n = n.translate(_ARABIC_INDIC)
    return len(n) == 14 and n.isdigit() and n[0] in "23"


_ARABIC_INDIC = str.maketrans("٠١٢٣٤٥٦٧٨٩", "0123456789")


def cccd_vn(n: str) -> bool:
    """Vietnam: a province (001-096), the century and sex (0-3), the year of birth's last two digits and six
    digits; the old identity card (CMND) had nine digits."""
    if not n.isdigit():
        return False
    return len(n) == 9 or len(n) == 12 and 1 <= int(n[:3]) <= 96 and n[3] in "0123"


def iin_kz(n: str) -> bool:
    """Kazakhstan: YYMMDD, the century and sex (1-6), four digits and a check digit modulo 11 (weights 1-11, and
    3-11, 1, 2 when the first gives 10)."""
    if len(n) != 12 or not n.isdigit() or n[6] not in "123456":
        return False
    year = (1800, 1900, 2000)[(int(n[6]) - 1) // 2] + int(n[:2])
    if not real_date(year, int(n[2:4]), int(n[4:6])):
        return False
    check = _weighted(n[:11], tuple(range(1, 12))) % 11
    if check == 10:
        check = _weighted(n[:11], (3, 4, 5, 6, 7, 8, 9, 10, 11, 1, 2)) % 11
    return check != 10 and check == int(n[11])


def snils(n: str) -> bool:
    """Russia's SNILS: nine digits (above 001-001-998) and two check digits: their weighted sum (9 to 1) modulo
    101, 100 written 00."""
    if len(n) != 11 or not n.isdigit() or int(n[:9]) <= 1001998:
        return False
    return _weighted(n[:9], tuple(range(9, 0, -1))) % 101 % 100 == int(n[9:])


def inn_ru(n: str) -> bool:
    """Russia's INN: twelve digits for a person, two check digits (a company's has ten, one check)."""
    if not n.isdigit():
        return False
    if len(n) == 10:
        return _weighted(n, (2, 4, 10, 3, 5, 9, 4, 6, 8)) % 11 % 10 == int(n[9])
    first = _weighted(n, (7, 2, 4, 10, 3, 5, 9, 4, 6, 8)) % 11 % 10
    second = _weighted(n[:10] + str(first), (3, 7, 2, 4, 10, 3, 5, 9, 4, 6, 8)) % 11 % 10
    return len(n) == 12 and n[10:] == f"{first}{second}"


def jmbg(n: str) -> bool:
    """The former Yugoslavia's JMBG (Serbia, Bosnia, Montenegro, North Macedonia; Slovenia's EMŠO): DDMMYYY, a
    region, a serial and a check digit modulo 11."""
    if len(n) != 13 or not n.isdigit():
        return False
    year = int(n[4:7]) + (1000 if n[4] == "9" else 2000)
    if not real_date(year, int(n[2:4]), int(n[:2])):
        return False
    check = 11 - _weighted(n[:12], (7, 6, 5, 4, 3, 2) * 2) % 11
    return (0 if check > 9 else check) == int(n[12])


def kennitala(n: str) -> bool:
    """Iceland: DDMMYY (a company's day +40), two digits, a check digit (weights 3-2-7-6-5-4-3-2, modulo 11) and
    the century (9 the 1900s, 0 the 2000s, 8 the 1800s)."""
    if len(n) != 10 or not n.isdigit() or n[9] not in "980":
        return False
    year = {"9": 1900, "0": 2000, "8": 1800}[n[9]] + int(n[4:6])
    day = int(n[:2])
    return (real_date(year, int(n[2:4]), day - 40 if day > 40 else day)
            and _weighted(n, (3, 2, 7, 6, 5, 4, 3, 2, 1)) % 11 == 0)


_RFC_ALPHABET = "0123456789ABCDEFGHIJKLMN&OPQRSTUVWXYZ Ñ"


def rfc_mx(n: str) -> bool:
    """Mexico's RFC of a person: four letters of the name, YYMMDD, a two-character homoclave and a check character
    modulo 11."""
    if not re.fullmatch(r"[A-ZÑ&]{4}\d{6}[1-9A-Z][1-9A-Z][0-9A]", n) or not _any_century(
            int(n[4:6]), int(n[6:8]), int(n[8:10])):
        return False
    total = sum(_RFC_ALPHABET.index(ch) * (13 - i) for i, ch in enumerate(n[:12]))
    return _RFC_ALPHABET[(11 - total) % 11] == n[12]


def rnokpp_ua(n: str) -> bool:
    """Ukraine's taxpayer number (RNOKPP): ten digits, the last a check (weights -1, 5, 7, 9, 4, 6, 10, 5, 7,
    modulo 11, then 10)."""
    return (len(n) == 10 and n.isdigit()
            and _weighted(n, (-1, 5, 7, 9, 4, 6, 10, 5, 7)) % 11 % 10 == int(n[9]))


def personas_kods_lv(n: str) -> bool:
    """Latvia's personal code: DDMMYY, the century (0 the 1800s, 1 the 1900s, 2 the 2000s), a serial and a check
    digit; or, since 2017, 32 and nine digits with no date."""
    if len(n) != 11 or not n.isdigit():
        return False
    if not n.startswith("32") and not (n[6] in "012" and real_date(
            1800 + int(n[6]) * 100 + int(n[4:6]), int(n[2:4]), int(n[:2]))):
        return False
    return (1 + _weighted(n, (10, 5, 8, 4, 2, 1, 6, 3, 7, 9))) % 11 % 10 == int(n[10])


def taj_hu(n: str) -> bool:
    """Hungary's social insurance number (TAJ): nine digits, weights 3 and 7 in turn, modulo 10."""
    return len(n) == 9 and n.isdigit() and _weighted(n, (3, 7) * 4) % 10 == int(n[8])


def adoazonosito_hu(n: str) -> bool:
    """Hungary's tax identification mark: 8, the days since 1 January 1867, a serial and a check (weights 1 to 9,
    modulo 11)."""
    return (len(n) == 10 and n.isdigit() and n[0] == "8"
            and _weighted(n, tuple(range(1, 10))) % 11 == int(n[9]))


def rvnr_de(n: str) -> bool:
    """Germany's pension insurance number: an area, DDMMYY, the birth name's initial, a serial and a check digit:
    the letter as its two-digit place in the alphabet, weights 2-1-2-5-7-1-2-1-2-1-2-1, the products' digit sums
    modulo 10."""
    if not re.fullmatch(r"\d{8}[A-Z]\d{3}", n) or not _any_century(int(n[6:8]), int(n[4:6]), int(n[2:4]) % 50):
        return False
    digits = f"{n[:8]}{ord(n[8]) - 64:02d}{n[9:11]}"
    products = (int(d) * w for d, w in zip(digits, (2, 1, 2, 5, 7, 1, 2, 1, 2, 1, 2, 1)))
    return sum(p // 10 + p % 10 for p in products) % 10 == int(n[11])


def medicare_au(n: str) -> bool:
    """Australia's Medicare card number: ten digits (an eleventh for the person on the card), the first 2 to 6,
    the ninth a check (weights 1-3-7-9, modulo 10)."""
    return (len(n) in (10, 11) and n.isdigit() and n[0] in "23456"
            and _weighted(n, (1, 3, 7, 9) * 2) % 10 == int(n[8]))


def ird_nz(n: str) -> bool:
    """New Zealand's IRD number: eight or nine digits (from 10,000,001 to 149,999,999), the last a check modulo 11
    (a second set of weights when the first gives 10)."""
    if len(n) not in (8, 9) or not n.isdigit() or not 10000000 < int(n) < 150000000:
        return False
    body = n[:-1].zfill(8)
    check = -_weighted(body, (3, 2, 7, 6, 5, 4, 3, 2)) % 11
    if check == 10:
        check = -_weighted(body, (7, 4, 3, 2, 5, 2, 7, 6)) % 11
    return check < 10 and check == int(n[-1])


def nic_lk(n: str) -> bool:
    """Sri Lanka's NIC: YY, the day of the year (+500 for a woman), a serial and V or X (the old form), or YYYY,
    the day and seven digits (the new)."""
    if re.fullmatch(r"\d{9}[VX]", n):
        day = int(n[2:5])
    elif re.fullmatch(r"(?:19|20)\d{10}", n):
        day = int(n[4:7])
    else:
        return False
    return 1 <= day <= 366 or 501 <= day <= 866


def dpi_gt(n: str) -> bool:
    """Guatemala's DPI (CUI): eight digits, a check digit (weights 2 to 9, modulo 11) and the municipality's four
    digits, its department 01-22."""
    return (len(n) == 13 and n.isdigit() and 1 <= int(n[9:11]) <= 22
            and _weighted(n, tuple(range(2, 10))) % 11 == int(n[8]))


def dui_sv(n: str) -> bool:
    """El Salvador's DUI: eight digits and a check digit (weights 9 to 2, modulo 10)."""
    return (len(n) == 9 and n.isdigit() and n != "000000000"
            and (10 - _weighted(n, tuple(range(9, 1, -1))) % 10) % 10 == int(n[8]))


def carne_cu(n: str) -> bool:
    """Cuba's identity card number: YYMMDD, a digit giving the century (9 the 1800s, 0-5 the 1900s, 6-8 the
    2000s) and four more; no check digit."""
    if len(n) != 11 or not n.isdigit():
        return False
    year = int(n[:2]) + (1800 if n[6] == "9" else 1900 if n[6] <= "5" else 2000)
    return real_date(year, int(n[2:4]), int(n[4:6]))


def cedula_ni(n: str) -> bool:
    """Nicaragua's cédula: a municipality, DDMMYY, four digits and a letter."""
    return re.fullmatch(r"\d{13}[A-Z]", n) is not None and _any_century(int(n[7:9]), int(n[5:7]), int(n[3:5]))


def pattern(regex: str):
    """An id with no check at all, its characters only (after its label)."""
    compiled = re.compile(regex)

    def valid(n: str) -> bool:
        return compiled.fullmatch(n) is not None
    return valid


_BASE36 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def cartao_cidadao_pt(n: str) -> bool:
    """Portugal's Cartão de Cidadão: the civil id's eight digits and its check digit, two characters of the card's
    version and a check digit over all of them, Luhn's doubling applied to each character's value in base 36."""
    if not re.fullmatch(r"\d{9}[A-Z0-9]{2}\d", n):
        return False
    total = sum((v * 2 - 9 if v * 2 > 9 else v * 2) if i % 2 else v
                for i, v in enumerate(_BASE36.index(ch) for ch in reversed(n)))
    return total % 10 == 0
