"""National identity numbers read from a table: (country, label words, shape, checksum, a form that needs no label).

A digit run is one country's id only when its checksum (and the birth date most of them carry) holds, and, where its
shape is shared with order numbers and the like, only after one of its label words: "PESEL 44051401359", "Ihre
AHV-Nummer lautet 756.9217.0769.85", "fødselsnummeret ditt, 020975 73339". A few forms are distinctive enough to
stand alone, checksum and all: a Mexican CURP, a Swiss AHV number written in its dotted groups, a Belgian national
number in its "YY.MM.DD-NNN.CC" form, a Chilean RUT with its dots, a Finnish henkilötunnus with a letter for its
century or check, a Singapore NRIC; then a record's noun before them ("Batch ...", "Order ...") still makes them a
record's. The checksums are in pii_ids_checksums; the rows of Latin America, Asia, the Middle East, Russia and the
Balkans are in pii_ids_world, read here with these. A label may stand up to 40 characters before its value, over
words but no digit and no end of a sentence ("CPR-nummer on file for the tenant: ...", "PESEL, as given on the form,
..."); a label written in capitals only where its lower case is a common word ("INN", "NIN", "My Number").
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from khaos_action.detect import pii_ids_checksums as check
from khaos_action.detect.pii_ids_row import NationalId
from khaos_action.detect.pii_ids_world import WORLD
from khaos_action.detect.pii_phone import NOT_PHONE_BEFORE

_DDMMYY = r"(?:[0-6]\d)(?:[0-5]\d)\d{2}"
TABLE: tuple[NationalId, ...] = (
    NationalId("NL", (r"bsn", r"b\.s\.n\.", r"burgerservicenummer", r"burger service nummer", r"sofi-?nummer",
                      r"sociaal-fiscaal nummer", r"citizen service number", r"dutch social security number"),
               r"\d{4}\.?\d{2}\.?\d{3}|\d{3}[ .]?\d{3}[ .]?\d{3}|\d{2} \d{2} \d{2} \d{3}", check.bsn),
    NationalId("PL", (r"pesel", r"numer pesel", r"nr pesel", r"numerem pesel", r"numeru pesel"),
               r"\d{11}|\d{6} \d{5}", check.pesel),
    NationalId("SE", (r"personnummer", r"personnumret", r"personnr", r"pers\.? ?nr", r"samordningsnummer",
                      r"personal identity number", r"swedish personal number", r"p-nr"),
               r"(?:1[89]|20)?\d{6}[-+ ]?\d{4}", check.personnummer_se),
    NationalId("FI", (r"henkilötunnus\w*", r"hetu", r"henkilötunnukse\w*", r"personbeteckning", r"sotu",
                      r"personal identity code"),
               _DDMMYY + r"[-+A-FU-Ya-fu-y]\d{3}[0-9A-Ya-y]", check.hetu,
               bare=_DDMMYY + r"(?:[A-FU-Y]\d{3}[0-9A-Y]|[-+]\d{3}[A-Y])", keep_signs=True),
    NationalId("DK", (r"cpr", r"c\.p\.r\.", r"cpr-nummer\w*", r"cpr-nr", r"personnummer", r"personnummeret",
                      r"civil registration number"), _DDMMYY + r"[- ]?\d{4}", check.cpr),
    NationalId("NO", (r"fødselsnummer\w*", r"fødselsnr", r"f\.nr", r"d-nummer", r"personnummer",
                      r"national identity number", r"fnr", r"personnummeret", r"norwegian id(?: number)?"),
               _DDMMYY + r" ?\d{5}", check.fodselsnummer),
    NationalId("BE", (r"rijksregisternummer", r"rijksregister", r"numéro (?:de|du) registre national",
                      r"registre national", r"niss", r"n\.i\.s\.s\.", r"insz", r"national (?:register )?number",
                      r"numéro national", r"nationalregisternummer", r"rijksregisternr", r"nationaal nummer",
                      r"national registry number", r"n° de registre national", r"numéro niss"),
               r"\d{2}\.?\d{2}\.?\d{2}[- ]?\d{3}\.?\d{2}", check.belgian_nn,
               bare=r"\d{2}\.[01]\d\.[0-3]\d-\d{3}\.\d{2}"),
    NationalId("PT", (r"nif", r"n\.i\.f\.", r"número de contribuinte", r"n\.?º de contribuinte", r"contribuinte",
                      r"número de identificação fiscal", r"nipc", r"número fiscal",
                      r"n\.?º fiscal", r"nº de contribuinte", r"portuguese tax number"),
               r"\d{3} ?\d{3} ?\d{3}", check.nif_pt),
    NationalId("CL", (r"rut", r"r\.u\.t\.", r"run", r"r\.u\.n\.", r"rol único tributario", r"rol unico tributario",
                      r"rol único nacional", r"rol unico nacional"),
               r"\d{1,2}\.?\d{3}\.?\d{3}-?[\dkK]", check.rut, bare=r"\d{1,2}\.\d{3}\.\d{3}-[\dkK]",
               cased=("RUN",)),
    NationalId("MX", (r"curp", r"c\.u\.r\.p\.", r"clave única de registro de población",
                      r"clave unica de registro de poblacion"),
               r"[A-Z]{4}\d{6}[HMX][A-Z]{5}[0-9A-Z]\d", check.curp,
               bare=r"[A-Z]{4}\d{6}[HMX][A-Z]{5}[0-9A-Z]\d"),
    NationalId("ZA", (r"south african id(?: number)?", r"rsa id(?: number)?", r"sa id(?: number)?", r"identity number",
                      r"id-nommer", r"identiteitsnommer",
                      r"south african identity number"),
               r"\d{6} ?\d{4} ?\d{2} ?\d", check.sa_id),
    NationalId("TR", (r"t\.? ?c\.? kimlik(?: numaras\w*| no)?", r"kimlik numaras\w*", r"kimlik no", r"tckn",
                      r"turkish id(?: number)?", r"tc no",
                      r"t\.c\. no", r"t\.c\. kimlik numarası", r"kimlik no\.", r"türkiye cumhuriyeti kimlik numarası"),
               r"\d{11}", check.tc_kimlik),
    NationalId("CN", (r"身份证(?:号码|号)?", r"居民身份证(?:号码|号)?", r"公民身份(?:号码|证号)", r"身份号码",
                      r"chinese id(?: card)?(?: number)?", r"prc id(?: number)?",
                      r"resident id(?:entity card)?(?: number)?"),
               r"\d{6} ?\d{8} ?\d{3}[\dXx]", check.resident_id_cn),
    NationalId("KR", (r"주민등록번호", r"주민번호", r"외국인등록번호", r"rrn", r"resident registration number",
                      r"korean resident registration number"), r"\d{6}-?\d{7}", check.rrn),
    NationalId("CH", (r"ahv(?:-nr|-nummer)?", r"avs", r"ahv number", r"numéro avs", r"sozialversicherungsnummer",
                      r"social security number", r"ahvn13", r"numero avs",
                      r"n° avs", r"avs-nr", r"ahv-nr\.", r"avs number"),
               r"756\.?\d{4}\.?\d{4}\.?\d{2}", check.ahv, bare=r"756\.\d{4}\.\d{4}\.\d{2}"),
    NationalId("AT", (r"sozialversicherungsnummer", r"sv-nummer", r"sv-nr", r"svnr", r"versicherungsnummer",
                      r"sv-nr\.", r"austrian social security number"),
               r"\d{4} ?" + _DDMMYY, check.sv_nummer_at),
    NationalId("IE", (r"ppsn?", r"pps number", r"personal public service number", r"p\.p\.s\.",
                      r"personal public service no\.?", r"uimhir pps"), r"\d{7} ?[A-Wa-w][ABHWTXabhwtx]?",
               check.pps),
    NationalId("RO", (r"cnp(?:-ul)?", r"c\.n\.p\.", r"cod numeric personal", r"codul numeric personal",
                      r"codului numeric personal"), r"[1-8]\d{12}", check.cnp),
    NationalId("CZ", (r"rodné číslo", r"rodne cislo", r"r\.? ?č\.?", r"birth number", r"rodného čísla",
                      r"rodné č\.", r"rodného čísla", r"rodným číslem"), r"\d{6}/?\d{4}",
               check.rodne_cislo),
    NationalId("EE", (r"isikukood\w*", r"asmens kod\w*", r"personal identification code", r"personal code",
                      r"estonian id code"), r"[1-6]\d{10}",
               check.isikukood),
    NationalId("GR", (r"amka", r"a\.m\.k\.a\.", r"αμκα", r"α\.μ\.κ\.α\.", r"αριθμός μητρώου κοινωνικής ασφάλισης"),
               r"\d{11}", check.amka),
    NationalId("AU", (r"tfn", r"t\.f\.n\.", r"tax file number", r"tax file no\.?"), r"\d{3} ?\d{3} ?\d{2,3}",
               check.tfn),
    NationalId("AR", (r"cuit", r"cuil", r"c\.u\.i\.t\.", r"c\.u\.i\.l\.",
                      r"clave única de identificación tributaria"), r"\d{2}-?\d{8}-?\d", check.cuit),
    NationalId("IL", (r"teudat zehut", r"teudat zeut", r"ת\.?ז\.?", r"ת[\"״׳']ז", r"מספר זהות",
                      r"תעודת זהות", r"מספר תעודת זהות", r"מס' זהות", r"israeli id(?: number)?",
                      r"israeli identity (?:card )?number"), r"\d{8,9}",
               check.teudat_zehut),
    NationalId("SG", (r"nric", r"nric/fin", r"nric number", r"nric no\.?", r"fin number",
                      r"national registration identity card(?: number)?"), r"[STFGstfg]\d{7}[A-Za-z]", check.nric,
               bare=r"[STFG]\d{7}[A-Z]"),
    NationalId("TH", (r"thai id(?: card)?(?: number)?", r"เลขประจำตัวประชาชน", r"บัตรประชาชน", r"เลขบัตรประชาชน",
                      r"thai national id(?: number)?", r"thai citizen id(?: number)?"),
               r"\d[ -]?\d{4}[ -]?\d{5}[ -]?\d{2}[ -]?\d", check.thai_pin),
    NationalId("MY", (r"mykad", r"ic (?:number|no\.?)", r"i/c(?: no\.?)?", r"no\.? kad pengenalan", r"kad pengenalan",
                      r"nric", r"nombor kad pengenalan", r"no\.? k/p",
                      r"malaysian ic(?: number)?"),
               r"\d{6}-?\d{2}-?\d{4}", check.mykad),
    NationalId("ID", (r"nik", r"nomor induk kependudukan", r"no\.? ktp", r"ktp", r"nomor ktp", r"no\.? nik",
                      r"nomor nik", r"e-ktp"), r"\d{16}", check.nik),
    NationalId("AE", (r"emirates id", r"eid", r"emirates id number", r"رقم الهوية الإماراتية", r"الهوية الإماراتية"),
               r"784-?\d{4}-?\d{7}-?\d", check.emirates_id,
               bare=r"784-(?:19|20)\d{2}-\d{7}-\d"),
    NationalId("HK", (r"hkid(?: card)?", r"hong kong id(?: card)?", r"香港身份證", r"身份證(?:號碼)?",
                      r"hong kong identity card(?: number)?"),
               r"[A-Z]{1,2}\d{6} ?\(?[0-9A]\)?", check.hkid),
    NationalId("JP", (r"マイナンバー", r"個人番号", r"my number card", r"my number", r"マイナンバーカード",
                      r"個人番号カード"), r"\d{4} ?\d{4} ?\d{4}", check.my_number,
               cased=("My Number",)),
    NationalId("HR", (r"oib", r"o\.i\.b\.", r"osobni identifikacijski broj", r"osobnog identifikacijskog broja"),
               r"\d{11}", check.oib),
    NationalId("BG", (r"егн", r"egn", r"е\.г\.н\.", r"единен граждански номер", r"единния граждански номер"),
               r"\d{10}", check.egn),
)

_NUMBER_WORD = (r"(?:[\s-]*(?:number|numbers|no\.?|nr\.?|n[ºo°]\.?|nummer|numéro|número|numer|numero|numarası|"
                r"#|code))?")


def _by_first_letter(labels: set[str]) -> str:
    """One branch per first letter ("b(?:sn|urgerservicenummer)|p(?:esel|...)"), so a word is tried against the
    labels of its first letter only, not against a hundred."""
    firsts: dict[str, list[str]] = {}
    for label in sorted(labels, key=len, reverse=True):
        firsts.setdefault(label[0].lower(), []).append(label[1:])
    return "|".join(f"{re.escape(first)}(?:{'|'.join(rests)})" for first, rests in sorted(firsts.items()))


_LATIN = r"[0-9A-Za-zÀ-ɏͰ-ϿЀ-ӿ]"
"""Letters that continue a word (Latin, Greek, Cyrillic): "ИНН" is no label inside "ИННОВАЦИЯ"."""
ROWS = TABLE + WORLD
_ALL_LABELS = _by_first_letter({label for entry in ROWS for label in entry.labels})
_LABEL = re.compile(rf"(?i)(?<!{_LATIN})({_ALL_LABELS}){_NUMBER_WORD}(?!{_LATIN})(?:(?<=nr)\.)?")
"""A label is a whole word where words are spaced; in Chinese, Japanese or Thai it may stand between other characters
("香港身份證號碼：")."""
_BY_LABEL = [(re.compile(r"(?i)(?:" + "|".join(entry.labels) + r")"), entry,
              {label.casefold(): label for label in entry.cased}) for entry in ROWS]
_GAP = r"[^\d\n.;!?]{0,40}?"
"""What stands between a label and its value: "is", "lautet", ":", "(NO)", "of the tenant", but no digit and no end
of a sentence (a label's abbreviation keeps its dot: "CPR-nr. 260159-3595")."""
_VALUE = [re.compile(_GAP + r"(?<![0-9A-Za-zÀ-ɏ.-])(" + entry.shape + r")(?![\w]|[./-]\d)") for entry in ROWS]
_WITH_BARE = [entry for entry in ROWS if entry.bare]
_BARE = re.compile(r"(?<![\w.-])(?:" + "|".join(f"(?P<b{i}>{entry.bare})" for i, entry in enumerate(_WITH_BARE))
                   + r")(?![\w]|[./-]\d)")
_RUN = re.compile(r"\d(?:[ ./-]?\d){5,}")


def national_ids_by_table(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, value) of every id of the table in `text`: after a label word, or in a form that needs none.

    Every value holds a run of six digits at least (separators aside): the label words are looked for only in the
    90 characters before such a run, and the forms that need none only around it (most texts have none, and a
    search of the whole text for a hundred words costs)."""
    searched = 0
    for run in _RUN.finditer(text):
        for m in _LABEL.finditer(text, max(searched, run.start() - 90), run.start()):
            searched = m.end()
            found = _value_after(text, m)
            if found:
                yield found
        searched = max(searched, run.start())
        yield from _bare(text, max(0, run.start() - 4), min(len(text), run.end() + 10))


def _bare(text: str, start: int, end: int) -> Iterator[tuple[int, int, str]]:
    for value in _BARE.finditer(text, start, end):
        entry = _WITH_BARE[int((value.lastgroup or "b0")[1:])]
        if entry.valid(_compact(value.group(0), entry)) and not _a_records(text, value.start()):
            yield value.start(), value.end(), value.group(0)


def _value_after(text: str, m: re.Match[str]) -> tuple[int, int, str] | None:
    label = m.group(1)
    for (pattern, entry, cased), shape in zip(_BY_LABEL, _VALUE):
        if pattern.fullmatch(label) and cased.get(label.casefold(), label) == label:
            value = shape.match(text, m.end())
            if value and entry.valid(_compact(value.group(1), entry)):
                return value.start(1), value.end(1), value.group(1)
    return None


def _compact(value: str, entry: NationalId) -> str:
    return re.sub(r"[\s./]" if entry.keep_signs else r"[\s./+-]", "", value).upper()


def _a_records(text: str, start: int) -> bool:
    """"Batch GOMA910825HDFRRL01", "Order 756.1234.5678.97": a record's number, however it is shaped."""
    return bool(NOT_PHONE_BEFORE.search(text, max(0, start - 40), start))
