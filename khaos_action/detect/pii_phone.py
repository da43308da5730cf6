"""Phone numbers: candidates are digit runs with phone punctuation (pii_phone_candidates); libphonenumber (the
`phonenumbers` port) decides whether one is a number. A number written internationally must be possible for its
country; a national one must be valid in a region named in the text or in the default list, and be introduced by a
phone word or look like a phone number, never sit after an order/invoice/ISBN/version-like word. A label ("Phone:",
"-Office") vouches for a number no numbering plan knows; "number" alone is a phone word only when it is someone's
("his number", "contact number"), not a record's ("PO number", "loyalty number").
"""

from __future__ import annotations

import re

from khaos_action.detect.pii_phone_candidates import Candidate, candidates

_PHONE_CONTEXT = re.compile(
    r"(?i)\b(?:phone|tel|telephone|mobile|mob|cell|call|fax|whats\s?app|sms|text me|ring|reach|contact|dial|hotline|"
    r"helpline|freephone|toll[- ]free|"
    r"number|nummer|telefon\w*|handy|festnetz|rufnummer|portable|téléphone|tél|numéro|teléfono|móvil|celular|"
    r"llámame|llama|telefone|cellulare|chiamami|numero|número|bel|gsm|ph|answering|messages?|"
    # verbs of calling and reaching in their persons and tenses: "llamará al", "appelez le", "rufen Sie ... an"
    r"llam[a-záéíó]+|lláme\w*|appel\w*|rappel\w*|anruf\w*|rufen|erreichbar|erreichen|chiam\w*|joindre|joignable|"
    r"contact\w*|"
    # Portuguese, Polish, Czech and Russian calling: "Ligue para o", "dzwonić pod", "Volejte", "позвонит по номеру"
    r"ligue\w*|ligar|liga-me|telem[óo]vel|contato|dzwo[nń]\w*|zadzwo[nń]\w*|kom[óo]rk\w*|volejte|zavolejte|"
    r"телефон\w*|позвон\w*|звон\w*|мобильн\w*)(?![\w])"
    # the same words in scripts that do not space them: phone, mobile, fax, dial, phone number, call (Chinese,
    # Japanese, Korean), phone and mobile (Hindi); and in Arabic script, where "al-" is written onto the word:
    # phone, mobile, call, WhatsApp
    r"|电话|電話|手机|手機|传真|傳真|拨打|撥打|致電|致电|携帯|ケータイ|전화|휴대폰|팩스|फोन|फ़ोन|मोबाइल|टेलीफोन"
    r"|هاتف|جوال|اتصل|اتصال|واتساب|موبايل")
# A label written right before the number ("Phone: 467 3395", "Mobile:\n0490 39 07 81", "Fax 9498777106") or
# right after it ("085 175 7641-Office"): the text says what the digits are, so no numbering plan has to.
_PHONE_LABEL = re.compile(
    r"(?i)\b(?:phone|tel|telephone|mobile|mob|cell(?:phone)?|fax|whats\s?app|sms|hotline|desk|direct line|"
    r"telefon\w*|handy|festnetz|rufnummer|portable|téléphone|tél|teléfono|móvil|celular|telefone|cellulare|gsm)"
    r"(?:\s*(?:number|no\.?|nr\.?|#))?\s*[:.]?\s*$")
_PHONE_CONTEXT_AFTER = re.compile(
    r"(?i)^\W{0,3}(?:fax|tel|phone|mobile|cell|ext\b|toll[- ]free|\(?(?:home|work|office)\)?)")
NOT_PHONE_BEFORE = re.compile(
    r"(?i)(?:\b(?:order|invoice|inv|ref|reference|quote|quoting|ticket|tracking|parcel|isbn(?:[- ]?1[03])?|issn|"
    r"sku|serial|id|account|acct|gtin|ean|upc|asin|imei|"
    r"version|ver|build|part|lot|batch|case|model|item|zip|postcode|postal|code|room|flight|table|score|total|"
    r"amount|price|qty|quantity|population|pr|commit|product|article|art\.?|style|catalog(?:ue)?|asset|voucher|"
    r"coupon|booking|reservation|confirmation|shipment|consignment|transaction|payment|receipt|policy|claim|contract|"
    r"membership|pallet|container|waybill|awb|job|request|incident|session|meeting|appointment|prescription|"
    r"loyalty|store|branch|application|loan|mortgage|bestellung|auftrag|rechnung|sendung|"
    r"buchung|vertrag|commande|facture|colis|réservation|dossier|pedido|factura|envío|reserva|expediente|ordine|"
    r"seguimiento|suivi|rastreio|rastreamento|tracciamento|référence(?:\s+client)?|réf\.?|referencia|riferimento|"
    r"referência|referentie|kundennummer|kunden-?nr\.?|"
    r"fattura|prenotazione|encomenda|fatura|sipariş|kargo|takip|resi|pesanan|faktur\w*|tagihan|zamówieni\w*|"
    r"przesyłk\w*|objednávk\w*|zásilk\w*|đơn hàng|vận đơn|hóa đơn|заказ\w*|сч[её]т\w*|накладн\w*|no\.?\s*of)|#)"
    r"(?:\s*(?:number|no\.?|nr\.?|num|#|id))?(?:\s+(?:for|of|on|from)(?:\s+[\w']+){1,3}?)?"
    r"(?:\s+(?:is|was|will be|es|era|é|est|ist|è|là)(?:\s+(?:le|la|el|il|lo|o|a))?)?"
    r"\W{0,6}$"
    # the same records in scripts that do not space their words: order, order or tracking number, serial number,
    # model, invoice, version (Chinese, Japanese, Korean), with a word or two ("是", "は") before the number
    r"|(?:订单|訂單|单号|單號|编号|編號|型号|型號|发票|發票|注文|伝票|주문|송장|版本|バージョン|버전)[^\d]{0,4}$")
"""A record's number, not a phone: "order 4821-33971", "case number is 2024-123456", "part no. 781-618-4959",
"your reference for this call is 8841-2290-5531", "订单号是0176-12345678"; and in the languages of the local
forms MORE_PHONE_REGIONS reads ("número de factura es ...", "Nomor resi ...", "Mã đơn hàng ...", "sipariş ..."),
an article perhaps after the copula ("Votre numéro de commande est le 06 45 78 12 90")."""
_DATE_LIKE = re.compile(r"^\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}$|^\d{4}-\d{2}-\d{2}")
_TIME_RANGE = re.compile(r"^(?:[01]\d|2[0-3])[0-5]\d\s?[-–]\s?(?:[01]\d|2[0-3])[0-5]\d$")
"""Opening hours in 24-hour time ("0900-1730", "0800 - 2000"), not a number."""
DEFAULT_PHONE_REGIONS = ("US", "GB", "DE", "FR", "ES", "IT", "NL", "BR", "IN", "AU", "MX", "CA", "AT", "CH", "BE",
                         "IE", "PT", "PL", "SE")
"""Regions a national-format number is tried in (after regions the text names): configurable per run."""
MORE_PHONE_REGIONS = ("AR", "CO", "NG", "ID", "TR", "EG", "VN", "PK", "PH", "RU", "SA", "HK", "CZ")
"""Regions tried last when the run names none (no `regions`), where a number must be valid there (merely possible
is not enough, whatever introduces it): big countries whose numbers agents relay written the local way ("011
15-4567-8901", "300 456 7890", "0803 456 7890", "0812-3456-7890", "0532 456 78 90", "010 1234 5678", "0300-1234567",
"0912 345 678", "0917 123 4567", "8 (916) 123-45-67", "0501234567", "9123 4567", "601 123 456")."""
_WRITTEN_WITH_ZERO = frozenset({"GB", "DE", "FR", "NL", "AT", "CH", "BE", "IE", "SE", "AU", "AR", "NG", "ID", "TR",
                                "EG", "VN", "PK", "PH", "SA"})
"""Regions whose national numbers are always written with their trunk 0: "401-023-2138" is no German number (it
would be "040 10232138"). Brazil and India are not among them: "(11) 98456-5666", "98765 43210" are written so."""
_REGION_WORDS = {
    "US": r"usa|united states|america|new york|california", "GB": r"uk|united kingdom|england|london|britain",
    "DE": r"germany|deutschland|berlin|münchen|munich", "FR": r"france|paris|lyon", "ES": r"spain|españa|madrid",
    "IT": r"italy|italia|roma|rome|milano|milan", "NL": r"netherlands|nederland|amsterdam|holland",
    "BR": r"brazil|brasil|são paulo|sao paulo|rio", "IN": r"india|mumbai|delhi|bangalore", "AU": r"australia|sydney",
    "MX": r"mexico|méxico", "JP": r"japan|tokyo|日本", "CN": r"china|beijing|shanghai", "ZA": r"south africa",
    "NG": r"nigeria|lagos", "AR": r"argentina|buenos aires", "CO": r"colombia|bogotá",
}
_REGION_PATTERNS = {code: re.compile(rf"(?i)\b(?:{words})\b") for code, words in _REGION_WORDS.items()}


_CODE_BEFORE = re.compile(r"\b(?=[A-Za-z]*\d)(?=\d*[A-Za-z])[A-Za-z0-9]{2,}[ -]$")
"""A token of letters and digits right before the digits: they continue a code ("1Z 999 AA1 01 2345 6784")."""
_ACCOUNT_BEFORE = re.compile(r"\b[A-Z]{2}\d{2}(?:[ -][A-Za-z0-9]{1,4})+[ -]$")
"""A country and two check digits, then groups: the digits after continue an account number ("GI75 aWBK 0000 0000
7099 453", an IBAN with a wrong letter), not a phone."""
_NUMBER_WORD = re.compile(r"(?i)^(?:number|nummer|numéro|número|numero)$")
_OWNER_BEFORE = re.compile(
    r"(?i)\b(?:my|your|his|her|our|their|the|a|this|that|same|new|main|private|personal|direct|best|home|work|office|"
    r"business|contact|phone|mobile|cell|callback|call-back|emergency|whats\s?app|fax|tel|meine?|ihre?|seine?|deine?|"
    r"mon|ma|votre|son|sa|mi|su|tu|il|el|le|la|o|do|da|landline|its|[\w-]+'s)\s+$")
_NUMBERED_RECORD = re.compile(
    r"(?i)((?:[\w'-]+\s+){0,2}[\w'-]+)\s+(?:number|nummer|numéro|número|numero|(?-i:No|NO)\.?|no\.|nr\.?)\s*"
    r"(?:is|was|:)?\s*$")
"""A noun's number ("Member number 0044 1290 8812", "PO number 4500123456"): a record's, unless a word of the
three before it says whose phone it is ("contact number", "her Dutch number", "the driver's number"). A lower-case
"no" with no dot is the Portuguese "in the" ("atende no (11) 91234-5678"), not the number's abbreviation."""
_OWNER = re.compile(
    r"(?i)\b(?:my|your|his|her|our|their|private|personal|direct|home|work|office|business|contact|phone|mobile|"
    r"cell|callback|call-back|emergency|whats\s?app|fax|tel|telephone|telefon\w*|téléphone|teléfono|telefone|"
    r"landline|meine?|ihre?|seine?|deine?|mon|ma|votre|son|sa|mi|su|tu|its|[\w-]+'s)(?!\w)")


def phones(text: str, regions: tuple[str, ...] | list[str] | None) -> list[tuple[int, int]]:
    """Spans of phone numbers in `text` (see the module docstring)."""
    if not text.isascii():
        text = text.translate(_FULL_WIDTH)
    found = list(candidates(text))
    if not found:
        return []
    tried, named = _regions_to_try(text, regions)
    more = not regions
    records = _record_shapes(found)
    ranged = _ranges(found)
    return [(c.start, c.end) for c in found
            if c.start not in ranged and _is_phone(c, tried, named, more) and not _like_a_record(c, records)]


def _regions_to_try(text: str, regions: tuple[str, ...] | list[str] | None) -> tuple[list[str], bool]:
    """The regions a national number is tried in, those the text names first; and whether it names one."""
    named = [code for code, pattern in _REGION_PATTERNS.items() if pattern.search(text)]
    chinese = ["CN"] if _CHINESE.search(text) and not _KANA_OR_HANGUL.search(text) else []
    return list(dict.fromkeys([*named, *chinese, *(regions or DEFAULT_PHONE_REGIONS)])), bool(named)


_CHINESE = re.compile("[\u3400-\u4dbf\u4e00-\u9fff]")
_KANA_OR_HANGUL = re.compile("[\u3040-\u30ff\uac00-\ud7af]")
"""A text in Chinese (Han ideographs with no kana, which is Japanese, or hangul, which is Korean) has its numbers
tried as China's, but names no region: a 7-digit run stays no phone there."""
_CN_MOBILE = re.compile(r"1[3-9]\d{9}")
"""A mainland Chinese mobile number, eleven digits written in one run as they are in China ("13604779660"): shaped
like a phone where China's numbers are tried."""


_FULL_WIDTH = {**{code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F)}, 0x3000: 0x20}
"""Full-width signs, digits and the ideographic space as their ASCII forms ("＋１ （６５０） ３３３－６０００", as
East Asian text writes them): one character for one, so the spans stay those of the text."""


_RANGE_JOIN = re.compile(r"\s*(?:to|through|until|-|–|—|bis|à|a|al)\s*$")


def _ranges(candidates: list[Candidate]) -> set[int]:
    """Starts of numbers that bound a range ("07700 900000 to 07700 900999": a block of numbers, nobody's phone):
    two numbers of one shape and the same leading digits, joined by "to" or a dash."""
    starts: set[int] = set()
    for first, second in zip(candidates, candidates[1:]):
        joined = _RANGE_JOIN.match(first.text[first.end:second.start])
        digits = re.sub(r"\D", "", first.raw), re.sub(r"\D", "", second.raw)
        if joined and _shape(first.raw) == _shape(second.raw) and digits[0][:-3] == digits[1][:-3]:
            starts.update((first.start, second.start))
    return starts


def _record_shapes(candidates: list[Candidate]) -> set[str]:
    return {_shape(c.raw) for c in candidates if _ruled_out(c)}


def _like_a_record(c: Candidate, records: set[str]) -> bool:
    """A number written as a record's in the same text is one more of them ("Item 0161-4471 is discontinued; the
    replacement is 0161-4480") unless a phone word introduces it."""
    return _shape(c.raw) in records and not _introduced(c.before)


def _shape(raw: str) -> str:
    """How a number is written: "0161-4471" is "dddd-dddd"."""
    return re.sub(r"\d", "d", raw)


def _is_phone(c: Candidate, tried: list[str], named: bool, more: bool) -> bool:
    if _ruled_out(c):
        return False
    labelled = bool(_PHONE_LABEL.search(c.before) or _PHONE_CONTEXT_AFTER.search(c.after))
    if labelled and _grouped_like_a_phone(c.raw):
        return True
    context = labelled or _introduced(c.before)
    international = _international(c.raw)
    shaped = _phone_shaped(c.raw) or ("CN" in tried and _CN_MOBILE.fullmatch(c.raw) is not None)
    if not _plausible(c.raw, context=context, international=international, named=named, shaped=shaped):
        return False
    # Leniency by evidence: a number a phone word introduces (or written internationally) must only be
    # possible (a plausible length for the region); one that merely looks like a phone must be valid.
    return _dialable(c.raw, tried, more, lenient=context or international)


def _international(raw: str) -> bool:
    """"+" or the "00" exit code with a whole number after it: "00492211" is a record's eight digits, "0049 30
    901820" a German number."""
    raw = raw.lstrip("(")
    if raw.startswith(("+", "0~0")):
        return True
    # no country's code starts with 0: "00012345678905" is a GTIN's leading zeros, not an exit code
    return raw.startswith("00") and raw[2:3] != "0" and sum(ch.isdigit() for ch in raw) >= 11


_NANP_LOCAL = re.compile(r"[2-9]\d{2}[-. ]\d{4}")
"""A North American number without its area code: an exchange that does not start with 0 or 1, four digits."""
_FICTIONAL = ("555-01", "555.01", "555 01")
"""555-0100 to 555-0199: reserved for fiction and demonstrations, nobody's number."""


def _nanp_local(raw: str) -> bool:
    return _NANP_LOCAL.fullmatch(raw) is not None and not raw.startswith(_FICTIONAL)


def _plausible(raw: str, *, context: bool, international: bool, named: bool, shaped: bool) -> bool:
    """Worth asking libphonenumber about: 8 digits or more unless the text says which country (a 7-digit run is a
    local number only there) or a phone word introduces a North American local number ("My phone number is
    223-4567"), and introduced, international or shaped like a phone number."""
    local = context and _nanp_local(raw)
    if not (international or sum(ch.isdigit() for ch in raw) >= 8 or named or local):
        return False
    return context or international or shaped


def _ruled_out(c: Candidate) -> bool:
    """A date, opening hours, an amount, a percentage, a decimal, or a record's number."""
    return bool(_DATE_LIKE.match(c.raw.strip()) or _TIME_RANGE.match(c.raw) or _money_before(c.text, c.start)
                or _AMOUNT_AFTER.match(c.after)
                or re.match(r"^\d[.,]\d", c.raw) or NOT_PHONE_BEFORE.search(c.before) or _CODE_BEFORE.search(c.before)
                or _ACCOUNT_BEFORE.search(c.before) or _a_record(c.before) or _a_chinese_record(c.before)
                or _CEP.match(c.raw.strip()))


_CEP = re.compile(r"^\d{5}-\d{3}$")
"""Five digits, a hyphen, three: a Brazilian postcode (CEP, "01310-200"), a grouping no numbering plan gives a phone."""


_AMOUNT_AFTER = re.compile(r"\s?(?:[%$€£¥元円块]|[件人个個次位台张張本天岁歲])")
"""A percent, a currency's sign or a measure word right after the digits: a share, an amount or a count
("415-666-7777%", "13812345678元", "共13812345678人")."""
_CHINESE_RECORD = re.compile(
    r"(?:卡|账|帳|户|戶|学|學|工|证|證|验证|驗證|流水|序列|批|票|运单|運單|会员|會員|保单|保單|合同|房间|房間|座位|车牌|車牌|身份|密)"
    r"(?:号码|號碼|号|號|码|碼)[^\d\u4e00-\u9fff]{0,3}(?:是|为|為)?[^\d\u4e00-\u9fff]{0,3}$"
    r"|(?:价格|價格|金额|金額|数量|數量|总计|總計|合计|合計|余额|餘額|页码|頁碼)[^\d\u4e00-\u9fff]{0,3}(?:是|为|為)?"
    r"[^\d\u4e00-\u9fff]{0,3}$")


def _a_chinese_record(before: str) -> bool:
    """A record's number named in Chinese: a card's, an account's, a student's or a staff member's, an id's, a
    verification code, a serial, a batch, a ticket, a waybill, a membership, a policy, a contract, a room, a seat, a
    plate, a password ("会员卡号", "账号", "验证码是"); a phone's ("电话号码", "手机号", "首选号码") stays one. A
    price, an amount, a quantity, a total, a balance or a page ("价格", "数量") is no phone either."""
    return bool(_CHINESE_RECORD.search(before))


def _a_record(before: str) -> bool:
    found = _NUMBERED_RECORD.search(before)
    if not found:
        return False
    words = _PARTICIPLE.sub(" ", found.group(1) + " ")
    return not (_OWNER.search(words) or _OWNER_BEFORE.search(words) or any(map(_misspelt_owner, words.split())))


_PARTICIPLE = re.compile(r"\s+[a-z]+ed\s+$")
"""A participle between the owner and "number" qualifies the phone ("the listed number is", "your registered
number"); it names no record."""
_TYPO_TARGETS = ("their", "phone", "contact", "mobile", "telephone", "personal", "business", "office", "direct")


def _one_slip(word: str) -> set[str]:
    """What one slip of the keys makes of `word`: a letter dropped, or two letters swapped."""
    dropped = {word[:i] + word[i + 1:] for i in range(len(word))}
    swapped = {word[:i] + word[i + 1] + word[i] + word[i + 2:] for i in range(len(word) - 1)}
    return (dropped | swapped) - {word}


_CALL_TARGETS = ("phone", "contact", "mobile", "telephone")
_SLIPS = {slip for target in _TYPO_TARGETS for slip in _one_slip(target) if len(slip) >= 4}
_CALL_SLIPS = {slip for target in _CALL_TARGETS for slip in _one_slip(target) if len(slip) >= 5}


def _misspelt_owner(word: str) -> bool:
    """"Thier number is", "phoen number": an owner's or a phone's word with one letter dropped, added or swapped;
    never a record's word ("contract" is "contact" with a letter added)."""
    return _misspelt(word, _TYPO_TARGETS, _SLIPS)


def _misspelt(word: str, targets: tuple[str, ...], slips: set[str]) -> bool:
    word = word.casefold().strip(".,:;'\"")
    if len(word) < 4 or word in targets or NOT_PHONE_BEFORE.search(word):
        return False
    return word in slips or any(word[:i] + word[i + 1:] in targets for i in range(len(word)))


def _misspelt_call(before: str) -> bool:
    """A phone's word with one slip of the keys introduces the number as the word would ("You can contacgt them at
    ...", "Their telphone is ..."): the nearest such word, with no number between it and the digits."""
    for m in reversed(list(re.finditer(r"[^\W\d_]{5,}", before))):
        if _misspelt(m.group(0), _CALL_TARGETS, _CALL_SLIPS):
            return not re.search(r"\d", before[m.end():])
    return False


def _introduced(before: str) -> bool:
    """The phone word nearest the number introduces it (no other number in between); "number" only as someone's."""
    word = next(reversed(list(_PHONE_CONTEXT.finditer(before))), None)
    if word is None:
        return _misspelt_call(before)
    if re.search(r"\d", before[word.end():]):
        return False
    return not _NUMBER_WORD.match(word.group(0)) or bool(_OWNER_BEFORE.search(before[:word.start()]))


def _dialable(raw: str, tried: list[str], more: bool, *, lenient: bool) -> bool:
    """Valid in a region tried (or only possible there, when `lenient`); failing that, and when `more`, valid in one
    of MORE_PHONE_REGIONS."""
    national_without_zero = not raw.lstrip("(").startswith(("+", "0"))
    regions = ([None] if raw.startswith("+") else []) + tried
    if any(_accepted(_parsed(raw, region, national_without_zero), lenient) for region in regions):
        return True
    return more and any(_accepted(_parsed(raw, region, national_without_zero), False)
                        for region in MORE_PHONE_REGIONS if region not in tried)


def _accepted(number, lenient: bool) -> bool:
    import phonenumbers

    return number is not None and (phonenumbers.is_valid_number(number)
                                   or lenient and phonenumbers.is_possible_number(number))


def _parsed(raw: str, region: str | None, national_without_zero: bool):
    """`raw` read as a number of `region`, or None where it cannot be one: a number written without its trunk 0 in
    a region that always writes it, a Russian number without its trunk 8 ("8 (401) 023-21-38"; or with +7)."""
    import phonenumbers

    if national_without_zero and region in _WRITTEN_WITH_ZERO or region == "RU" and not raw.startswith("8"):
        return None
    try:
        return phonenumbers.parse(raw, region)
    except phonenumbers.NumberParseException:
        return None


def _grouped_like_a_phone(raw: str) -> bool:
    """7 to 15 digits in at most six groups, none longer than 10: what a label may vouch for."""
    groups = re.findall(r"\d+", raw)
    return 7 <= sum(map(len, groups)) <= 15 and len(groups) <= 6 and max(map(len, groups)) <= 10


def _phone_shaped(raw: str) -> bool:
    """Written the way people write phone numbers: an area code in parentheses, a trunk 0 and groups, or NANP's
    3-3-4; a bare digit run or one with a single separator is some other number unless a phone word says so."""
    if re.match(r"^\(\d{1,4}\)\s?\d", raw):
        return True
    if re.fullmatch(r"(?:1[-. ])?\d{3}[-. ]\d{3}[-. ]\d{4}", raw):  # with its trunk 1: "1-650-333-6000"
        return True
    if _PAIRS.fullmatch(raw):
        return False  # "04 11 23 35 42 47": six numbers drawn; national numbers in pairs have four or five
    return raw.startswith("0") and len(re.findall(r"[\s.\-/]", raw)) >= 1 and not re.search(r"\d\.\d{1,2}$", raw)


_PAIRS = re.compile(r"\d\d(?: \d\d){5,}")


def _money_before(text: str, start: int) -> bool:
    return bool(re.search(r"[$€£¥]\s*$", text[max(0, start - 2) : start]))
