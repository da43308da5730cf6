"""Payment card numbers: 12 to 19 digits, grouped by single spaces or hyphens or not at all, found where the
number is a card's and not a record's.

Luhn's checksum passes one number in ten, so a checksum alone would report order, invoice and tracking numbers as
cards. The checks narrow that down: the lengths each issuer issues for its prefixes (ISO/IEC 7812 as the networks
publish them), one kind of separator only (mixed ones are a list of numbers), a card's word before or right after
a number whose shape is rarer than 16 digits, and a record's word before it ("Order ...", "Invoice ...") taking it
out unless a card's word says otherwise. A card that pays for nothing ("gift card", "library card") vouches for
no number.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from khaos_action.detect.pii_phone import NOT_PHONE_BEFORE

# Cards: 12-19 digits, optionally in groups separated by single spaces or hyphens.
_CARD = re.compile(r"(?<![\d.,-])(?:\d[ -]?){11,18}\d(?![\d.,]\d)")
# Issuer prefixes and the lengths each issues (ISO/IEC 7812 as the networks publish them).
_CARD_RULES = (
    (("4",), (13, 16, 19)),                                                     # Visa
    (("51", "52", "53", "54", "55", *(str(n) for n in range(2221, 2721))), (16,)),  # Mastercard
    (("34", "37"), (15,)),                                                      # American Express
    (("6011", "644", "645", "646", "647", "648", "649", "65"), (16, 17, 18, 19)),  # Discover
    (tuple(str(n) for n in range(3528, 3590)), (16, 17, 18, 19)),               # JCB
    (("1800", "2131"), (15,)),                                                  # JCB (legacy)
    (("300", "301", "302", "303", "304", "305", "36", "38", "39"), (14, 15, 16, 17, 18, 19)),  # Diners
    (("50", "56", "57", "58", "639", "67", "6304", "6759", "6761", "6762", "6763"), tuple(range(12, 20))),  # Maestro
    (("62",), (16, 17, 18, 19)),                                                # UnionPay
    (("2200", "2201", "2202", "2203", "2204"), (16, 17, 18, 19)),               # Mir
)
_CARD_CONTEXT = re.compile(r"(?i)\b(?:card|visa|master\s?card|maestro|jcb|amex|american express|diners|discover|"
                           r"unionpay|credit|debit|cc|pan|karte|kreditkarte|carte|tarjeta|cartão|pay(?:ing)? with)\b")

# A card that pays for nothing: its number vouches for no payment card, whatever its checksum.
_OTHER_CARD = re.compile(r"(?i)\b(?:loyalty|gift|membership|member|library|id|identity|key|sim|rewards?|club|"
                         r"access|boarding|business|student|bonus|customer|health|insurance|discount|points)\s+card\b")

_TEST_NUMBER = re.compile(r"(?i)\b(?:test|testing|sandbox|dummy|sample|example|demo|fake)\s+(?:(?:credit|debit)\s+)?"
                          r"(?:card\s*)?(?:number|no\.?|#)?\s*[:=]?\s*$")
"""A number a test's or an example's word introduces is a processor's test card, published for sandboxes."""


def cards(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, masked value) of every payment card number in `text`."""
    for m in _CARD.finditer(text):
        digits = re.sub(r"\D", "", m.group(0))
        if _valid_card(digits, m.group(0)) and _card_context_ok(text, m.start(), m.end(), digits):
            yield m.start(), m.end(), "**** **** **** " + digits[-4:]


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
    if not 12 <= len(digits) <= 19 or len(set(digits)) < 2:
        return False
    separators = set(re.findall(r"[ -]", raw))
    if len(separators) > 1:
        return False  # "1234-5678 9012" mixes separators: a list of numbers, not one card
    return _luhn(digits)


def _issued_shape(digits: str) -> bool:
    return any(len(digits) in lengths and digits.startswith(prefixes) for prefixes, lengths in _CARD_RULES)


def _card_context_ok(text: str, start: int, end: int, digits: str) -> bool:
    """Luhn passes one number in ten: an id after "order"/"invoice" is not a card. The common shapes (16 digits,
    Amex 15) need no card word; rarer lengths (Maestro 12-15, JCB 1800/2131, Visa 13/19) do, or card grouping. A
    number a card word introduces, or one names right after it, needs only the checksum: issuers' prefix tables
    change and private-label cards follow none of them."""
    before, raw = text[max(0, start - 30) : start], text[start:end]
    if _TEST_NUMBER.search(before):
        return False  # "Use the test card 4242 4242 4242 4242 in sandbox": a payment processor's, nobody's
    named_before = bool(_CARD_CONTEXT.search(before)) and not _OTHER_CARD.search(before)
    if not named_before and _a_records_number(before, raw):
        return False  # "Order 30569309025904 was paid by card": the order's number
    named = named_before or _card_named_after(text[end:end + 25])
    if not _issued_shape(digits):
        return named
    if len(digits) == 16 or (len(digits) == 15 and digits.startswith(("34", "37"))):
        return True
    return named or bool(re.fullmatch(r"\d{4}(?:[ -]\d{4,6}){1,4}(?:[ -]\d{1,4})?", raw))


def _card_named_after(after: str) -> bool:
    """A card's word right after the number in the same clause ("30569309025904 (Diners Club)", "... is my Diners
    card"); never a card that pays for nothing ("gift card")."""
    after = _CLAUSE_END.split(after, maxsplit=1)[0]
    return bool(_CARD_CONTEXT.search(after)) and not _OTHER_CARD.search(after)


_CLAUSE_END = re.compile(r"[.;!?]\s|\n")


def _a_records_number(before: str, raw: str) -> bool:
    """After an order's or an invoice's word a number is the record's; after "account", one grouped as cards are
    printed ("account 4111 1111 1111 1111 was charged twice") is the card that pays for it."""
    if _ACCOUNT_WORD.search(before) and _CARD_GROUPS.fullmatch(raw):
        return False
    return bool(NOT_PHONE_BEFORE.search(before))


_ACCOUNT_WORD = re.compile(r"(?i)\b(?:account|acct)\W{0,3}$")
_CARD_GROUPS = re.compile(r"\d{4}([ -])\d{4}\1\d{4}\1\d{4}|\d{4}([ -])\d{6}\2\d{5}")
