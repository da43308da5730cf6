"""The check digits and embedded birth dates of national identity numbers, as each issuer defines them.

Each function takes the number with its separators removed (digits, and letters in capitals) and says whether it is
one its issuer could have handed out: the right length, a real date where the number carries one, the check digit or
letter right. The algorithms are the issuers' published ones (python-stdnum documents them all; reimplemented here).
"""

from __future__ import annotations

from datetime import date


def real_date(year: int, month: int, day: int) -> bool:
    try:
        date(year, month, day)
    except ValueError:
        return False
    return True


def _weighted(digits: str, weights: tuple[int, ...]) -> int:
    return sum(int(d) * w for d, w in zip(digits, weights))


def luhn(digits: str) -> bool:
    total = 0
    for i, d in enumerate(reversed(digits)):
        n = int(d) * (2 if i % 2 else 1)
        total += n - 9 if n > 9 else n
    return total % 10 == 0


def bsn(n: str) -> bool:
    """The Netherlands: nine digits passing the 11-test (weights 9 to 2, and -1 for the last)."""
    if len(n) != 9 or not n.isdigit():
        return False
    return (_weighted(n, (9, 8, 7, 6, 5, 4, 3, 2)) - int(n[8])) % 11 == 0


def pesel(n: str) -> bool:
    """Poland: the month carries the century (+80 the 1800s, +20 the 2000s, +40, +60); weights 1-3-7-9."""
    if len(n) != 11 or not n.isdigit():
        return False
    century, month = divmod(int(n[2:4]), 20)
    year = {4: 1800, 0: 1900, 1: 2000, 2: 2100, 3: 2200}[century] + int(n[:2])
    return real_date(year, month, int(n[4:6])) and (10 - _weighted(n[:10], (1, 3, 7, 9) * 3) % 10) % 10 == int(n[10])


def personnummer_se(n: str) -> bool:
    """Sweden: YYMMDDNNNC (or with the century first), Luhn over the ten digits; a samordningsnummer adds 60 to
    the day."""
    if len(n) == 12:
        n = n[2:]
    if len(n) != 10 or not n.isdigit():
        return False
    day = int(n[4:6])
    return _any_century(int(n[:2]), int(n[2:4]), day - 60 if day > 60 else day) and luhn(n)


def hetu(n: str) -> bool:
    """Finland: DDMMYY, the century sign, NNN and a check character: the nine digits modulo 31."""
    if len(n) != 11 or not (n[:6] + n[7:10]).isdigit():
        return False
    century = {"+": 1800, "-": 1900, "A": 2000}.get(n[6], 1900 if n[6] in "UVWXY" else 2000 if n[6] in "BCDEF" else 0)
    return (century > 0 and real_date(century + int(n[4:6]), int(n[2:4]), int(n[:2]))
            and "0123456789ABCDEFHJKLMNPRSTUVWXY"[int(n[:6] + n[7:10]) % 31] == n[10])


def cpr(n: str) -> bool:
    """Denmark: DDMMYY-SSSS, the serial's first digit giving the century. Numbers issued since 2007 need not pass
    the old modulo-11 check, so only the date is checked; it counts only after its name."""
    if len(n) != 10 or not n.isdigit():
        return False
    yy, serial = int(n[4:6]), int(n[6])
    if serial <= 3:
        century = 1900
    elif serial in (4, 9):
        century = 2000 if yy <= 36 else 1900
    else:
        century = 2000 if yy <= 57 else 1800
    return real_date(century + yy, int(n[2:4]), int(n[:2]))


def fodselsnummer(n: str) -> bool:
    """Norway: DDMMYY, three digits, two modulo-11 check digits; a D-number adds 40 to the day, an H-number 40 to
    the month."""
    if len(n) != 11 or not n.isdigit():
        return False
    day, month = int(n[:2]) % 40, int(n[2:4]) % 40
    k1 = (11 - _weighted(n, (3, 7, 6, 1, 8, 9, 4, 5, 2)) % 11) % 11
    k2 = (11 - _weighted(n, (5, 4, 3, 2, 7, 6, 5, 4, 3, 2)) % 11) % 11
    return _any_century(int(n[4:6]), month, day) and k1 == int(n[9]) and k2 == int(n[10])


def belgian_nn(n: str) -> bool:
    """Belgium: YYMMDD, a serial, and 97 less the first nine digits modulo 97 (with a 2 before them for births
    from 2000). A month or day of 00 stands for one unknown."""
    if len(n) != 11 or not n.isdigit():
        return False
    check = int(n[9:])
    return check in (97 - int(n[:9]) % 97, 97 - int("2" + n[:9]) % 97) and int(n[2:4]) <= 12 and int(n[4:6]) <= 31


def nif_pt(n: str) -> bool:
    """Portugal: nine digits, the last a modulo-11 check (10 and 11 give 0)."""
    if len(n) != 9 or not n.isdigit() or n[0] not in "1235689":
        return False
    check = 11 - _weighted(n, (9, 8, 7, 6, 5, 4, 3, 2)) % 11
    return (0 if check >= 10 else check) == int(n[8])


def rut(n: str) -> bool:
    """Chile: the body's digits from the right weighted 2 to 7, 11 less the sum modulo 11 (10 is K)."""
    body, check = n[:-1], n[-1]
    if not 7 <= len(body) <= 8 or not body.isdigit():
        return False
    total = sum(int(d) * (2 + i % 6) for i, d in enumerate(reversed(body)))
    return "0123456789K0"[11 - total % 11] == check


_CURP_ALPHABET = "0123456789ABCDEFGHIJKLMNÑOPQRSTUVWXYZ"


def curp(n: str) -> bool:
    """Mexico: four letters, the birth date, sex, state, three consonants, a homonym character and a check digit."""
    if len(n) != 18 or not n[4:10].isdigit() or not all(ch in _CURP_ALPHABET for ch in n):
        return False
    total = sum(_CURP_ALPHABET.index(ch) * (18 - i) for i, ch in enumerate(n[:17]))
    year = (2000 if n[16].isalpha() else 1900) + int(n[4:6])
    return real_date(year, int(n[6:8]), int(n[8:10])) and str((10 - total % 10) % 10) == n[17]


def sa_id(n: str) -> bool:
    """South Africa: YYMMDD, four digits, citizenship (0-2), a digit, and a Luhn check."""
    return (len(n) == 13 and n.isdigit() and n[10] in "012" and _any_century(int(n[:2]), int(n[2:4]), int(n[4:6]))
            and luhn(n))


def tc_kimlik(n: str) -> bool:
    """Turkey: eleven digits, no leading zero, two check digits from the odd and even places."""
    if len(n) != 11 or not n.isdigit() or n[0] == "0":
        return False
    d = [int(ch) for ch in n]
    return (sum(d[0:9:2]) * 7 - sum(d[1:8:2])) % 10 == d[9] and sum(d[:10]) % 10 == d[10]


def resident_id_cn(n: str) -> bool:
    """China: a region, the birth date YYYYMMDD, a serial, and an ISO 7064 modulo 11-2 check (10 is X)."""
    if len(n) != 18 or not n[:17].isdigit():
        return False
    total = sum(int(d) * pow(2, 17 - i, 11) for i, d in enumerate(n[:17]))
    year = int(n[6:10])
    return (1900 <= year <= 2100 and real_date(year, int(n[10:12]), int(n[12:14]))
            and "0123456789X"[(12 - total % 11) % 11] == n[17])


def rrn(n: str) -> bool:
    """South Korea: YYMMDD, a sex and century digit, a serial and a modulo-11 check."""
    if len(n) != 13 or not n.isdigit():
        return False
    century = {"1": 1900, "2": 1900, "5": 1900, "6": 1900, "3": 2000, "4": 2000, "7": 2000, "8": 2000}.get(n[6])
    check = (11 - _weighted(n, (2, 3, 4, 5, 6, 7, 8, 9, 2, 3, 4, 5)) % 11) % 10
    return century is not None and real_date(century + int(n[:2]), int(n[2:4]), int(n[4:6])) and check == int(n[12])


def ahv(n: str) -> bool:
    """Switzerland: 756 and ten digits, the last an EAN-13 check."""
    return (len(n) == 13 and n.isdigit() and n.startswith("756")
            and (10 - _weighted(n, (1, 3) * 6) % 10) % 10 == int(n[12]))


def sv_nummer_at(n: str) -> bool:
    """Austria: a serial of three digits, a check digit, then the birth date DDMMYY."""
    if len(n) != 10 or not n.isdigit() or n[0] == "0":
        return False
    check = _weighted(n, (3, 7, 9, 0, 5, 8, 4, 2, 1, 6)) % 11
    return check == int(n[3]) and int(n[4:6]) <= 31 and int(n[6:8]) <= 12


_PPS_LETTERS = "WABCDEFGHIJKLMNOPQRSTUV"


def pps(n: str) -> bool:
    """Ireland: seven digits and a check letter modulo 23; since 2013 a second letter (A, B or H) weighs in."""
    if not 8 <= len(n) <= 9 or not n[:7].isdigit() or not n[7:].isalpha():
        return False
    second = n[8:] if n[8:] in ("A", "B", "H") else ""
    if n[8:] and n[8:] not in "ABHWTX":
        return False
    total = _weighted(n, (8, 7, 6, 5, 4, 3, 2)) + 9 * (_PPS_LETTERS.index(second) if second else 0)
    return _PPS_LETTERS[total % 23] == n[7]


def cnp(n: str) -> bool:
    """Romania: sex and century, YYMMDD, a county, a serial and a check weighted 2-7-9-1-4-6-3-5-8-2-7-9."""
    if len(n) != 13 or not n.isdigit() or n[0] == "0":
        return False
    century = {"1": 1900, "2": 1900, "3": 1800, "4": 1800, "5": 2000, "6": 2000}.get(n[0], 1900)
    check = _weighted(n, (2, 7, 9, 1, 4, 6, 3, 5, 8, 2, 7, 9)) % 11
    return real_date(century + int(n[1:3]), int(n[3:5]), int(n[5:7])) and (1 if check == 10 else check) == int(n[12])


def rodne_cislo(n: str) -> bool:
    """Czechia and Slovakia: YYMMDD (a woman's month +50, +20 when a day ran out) and four digits that make the
    whole divisible by 11 (or a remainder of 10 written 0)."""
    if len(n) != 10 or not n.isdigit():
        return False
    month = int(n[2:4]) % 50 % 20
    year = int(n[:2]) + (1900 if int(n[:2]) >= 54 else 2000)
    return real_date(year, month, int(n[4:6])) and int(n[:9]) % 11 % 10 == int(n[9])


def isikukood(n: str) -> bool:
    """Estonia (Lithuania alike): sex and century, YYMMDD, a serial and a two-pass modulo-11 check."""
    if len(n) != 11 or not n.isdigit() or n[0] not in "123456":
        return False
    check = _weighted(n, (1, 2, 3, 4, 5, 6, 7, 8, 9, 1)) % 11
    if check == 10:
        check = _weighted(n, (3, 4, 5, 6, 7, 8, 9, 1, 2, 3)) % 11 % 10
    year = (1800, 1900, 2000)[(int(n[0]) - 1) // 2] + int(n[1:3])
    return real_date(year, int(n[3:5]), int(n[5:7])) and check == int(n[10])


def amka(n: str) -> bool:
    """Greece: DDMMYY, a serial, a Luhn check."""
    return len(n) == 11 and n.isdigit() and _any_century(int(n[4:6]), int(n[2:4]), int(n[:2])) and luhn(n)


def tfn(n: str) -> bool:
    """Australia: eight or nine digits whose weighted sum is a multiple of 11."""
    weights = {8: (10, 7, 8, 4, 6, 3, 5, 1), 9: (1, 4, 3, 7, 5, 8, 6, 9, 10)}.get(len(n))
    return weights is not None and n.isdigit() and _weighted(n, weights) % 11 == 0


def cuit(n: str) -> bool:
    """Argentina: a type (20, 23, 24, 27 for persons), the DNI, a modulo-11 check."""
    if len(n) != 11 or not n.isdigit() or n[:2] not in ("20", "23", "24", "27"):
        return False
    return "012345678990"[11 - _weighted(n, (5, 4, 3, 2, 7, 6, 5, 4, 3, 2)) % 11] == n[10]


def teudat_zehut(n: str) -> bool:
    """Israel: up to nine digits, a Luhn check."""
    return 5 <= len(n) <= 9 and n.isdigit() and int(n) > 0 and luhn(n.zfill(9))


def nric(n: str) -> bool:
    """Singapore: S, T, F or G, seven digits, a check letter (T and G add 4)."""
    if len(n) != 9 or n[0] not in "STFG" or not n[1:8].isdigit():
        return False
    total = _weighted(n[1:8], (2, 7, 6, 5, 4, 3, 2)) + (4 if n[0] in "TG" else 0)
    return ("JZIHGFEDCBA" if n[0] in "ST" else "XWUTRQPNMLK")[total % 11] == n[8]


def my_number(n: str) -> bool:
    """Japan: eleven digits and a modulo-11 check."""
    return (len(n) == 12 and n.isdigit()
            and str(-_weighted(n, (6, 5, 4, 3, 2, 7, 6, 5, 4, 3, 2)) % 11 % 10) == n[11])


def thai_pin(n: str) -> bool:
    """Thailand: thirteen digits, no leading 0 or 9, a modulo-11 check."""
    if len(n) != 13 or not n.isdigit() or n[0] in "09":
        return False
    return str((1 - sum((2 - i) * int(d) for i, d in enumerate(n[:12])) % 11) % 10) == n[12]


_MY_PLACES = {*range(1, 17), *range(21, 69), 71, 72, *range(74, 80), *range(82, 94), 98, 99}


def mykad(n: str) -> bool:
    """Malaysia: YYMMDD, a place of birth (a state's code or a country's) and four digits; no check digit."""
    return (len(n) == 12 and n.isdigit() and int(n[6:8]) in _MY_PLACES
            and _any_century(int(n[:2]), int(n[2:4]), int(n[4:6])))


_ID_PROVINCES = {*range(11, 20), 21, *range(31, 37), *range(51, 54), *range(61, 66), *range(71, 77), 81, 82,
                 *range(91, 97)}


def nik(n: str) -> bool:
    """Indonesia: a province, regency and district, DDMMYY (a woman's day +40) and a serial."""
    return (len(n) == 16 and n.isdigit() and int(n[:2]) in _ID_PROVINCES
            and _any_century(int(n[10:12]), int(n[8:10]), int(n[6:8]) - (40 if int(n[6:8]) > 40 else 0))
            and n[12:] != "0000")


def emirates_id(n: str) -> bool:
    """The United Arab Emirates: 784, the year of birth, seven digits and a Luhn check."""
    return len(n) == 15 and n.isdigit() and n.startswith("784") and 1900 <= int(n[3:7]) <= 2100 and luhn(n)


def hkid(n: str) -> bool:
    """Hong Kong: one or two letters, six digits and a check (modulo 11, A for 10), often in parentheses."""
    n = n.replace("(", "").replace(")", "")
    if not 8 <= len(n) <= 9 or not n[-7:-1].isdigit() or not n[:-7].isalpha():
        return False
    prefix = n[:-7].rjust(2)
    values = [36 if ch == " " else ord(ch) - 55 for ch in prefix] + [int(d) for d in n[-7:-1]]
    check = -sum(v * w for v, w in zip(values, range(9, 1, -1))) % 11
    return "0123456789A"[check] == n[-1]


def _any_century(yy: int, month: int, day: int) -> bool:
    """A YYMMDD date real in some century (29 February needs a leap year: 2000 stands for 1900's 00 too)."""
    return real_date(2000 + yy, month, day) or real_date(1900 + yy, month, day)


def oib(n: str) -> bool:
    """Croatia: eleven digits, ISO 7064 MOD 11,10 (the German tax id's check, with no rule on repeated digits)."""
    if len(n) != 11 or not n.isdigit():
        return False
    product = 10
    for digit in n[:10]:
        total = (int(digit) + product) % 10 or 10
        product = total * 2 % 11
    return (11 - product) % 10 == int(n[10])


def egn(n: str) -> bool:
    """Bulgaria: YYMMDD (the month +20 for the 1800s, +40 for the 2000s), a serial, a weighted modulo-11 check."""
    if len(n) != 10 or not n.isdigit():
        return False
    year, month, day = int(n[:2]), int(n[2:4]), int(n[4:6])
    century = 1900
    if month > 40:
        century, month = 2000, month - 40
    elif month > 20:
        century, month = 1800, month - 20
    if not real_date(century + year, month, day):
        return False
    return _weighted(n, (2, 4, 8, 5, 10, 9, 7, 3, 6)) % 11 % 10 == int(n[9])
