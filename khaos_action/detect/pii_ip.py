"""IP addresses: IPv4 dotted quads and IPv6 addresses that name a host.

A dotted quad is also how software releases, netmasks and networks are written, so the checks exist to tell those
apart: octets in range with no leading zero; loopback, unspecified and broadcast addresses and netmasks identify no
one; an address with a prefix and no host bits set is a network ("10.0.0.0/8"); a quad after a release's word, or in
a sentence that speaks of releases ("Kernel 6.8.0-31 ... 5.15.0.91"), is a version. IPv6 candidates go through
`ipaddress`, and a run with too few hex digits or none ("std::vector", "dead::beef") is code, not an address.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from khaos_action.detect.pii_phone_candidates import WORD

_IPV4 = re.compile(rf"(?<!{WORD})(?<!\.)((?:\d{{1,3}}\.){{3}}\d{{1,3}})(?!{WORD}|\.\w)")
"""Four octets, also ending a sentence ("... is at 81.2.69.160."), never part of a longer dotted run."""
_THREE_PART_VERSION = re.compile(
    r"(?<![\w.])v?(?:0|[1-9]\d{0,2})\.(?:0|[1-9]\d{0,2})\.(?:0|[1-9]\d{0,2})(?:-[\w.]+)?(?![\w]|\.\d)")
"""A release in three parts, none with a leading zero ("3.0.13", "6.8.0-31"); "12.06.25" is a date."""
_NETWORK = re.compile(r"/([0-9]|[12]\d|3[01])\b")
"""A prefix shorter than 32 bits after an address whose host bits are all zero makes it a network ("10.0.0.0/8"),
which is no host; with host bits set it is a host's address on its network ("My PC is 1.1.1.2/25")."""
_RELEASE = r"(?:version|release|build|firmware|patch|hotfix|update|upgrade|image|rollout|rc|beta)"
_RELEASE_BESIDE = re.compile(rf"(?i)\b{_RELEASE}\s+v?\d{{1,3}}(?:\.\d{{1,4}}){{3}}\b|"
                             rf"(?<![\w.])\d{{1,3}}(?:\.\d{{1,4}}){{3}}[ -]{_RELEASE}\b|"
                             r"(?<![\w.])\d{1,3}(?:\.\d{1,4}){3}\s+(?:is|was|are|were|gets|got)\s+(?:now\s+)?"
                             r"(?:deployed|installed|released|rolled out|shipped|pinned|tagged)\b")
"""A dotted quad with a release's word beside it ("the 4.3.2.1 hotfix", "build 10.1.2.15") or a release's verb
after it ("Agent 7.52.1.3 is deployed on 18 of 20 hosts")."""
_SENTENCE_END = re.compile(r"[.!?](?:\s+|$)|\n")
_VERSION_BEFORE = re.compile(
    r"(?i)(?:\bv|\b(?:version|versión|release|ver\.?|build|firmware|patch|driver|kernel|bios|revision|rev\.?|sdk)"
    r"(?:\s+(?:to|auf|à|a|is|was))?|\b(?:up|down)grad(?:e|ed|ing)\s+(?:[\w-]+\s+){0,3}?to)\s*:?\s*$"
    r"|(?:版本|バージョン|버전)[^\d]{0,3}$")
"""A dotted quad a software release's word introduces is a version: "firmware 1.0.3.14", "upgrade the app to"."""
_IPV6 = re.compile(rf"(?<!{WORD})(?<![:.])\[?(?:[0-9A-Fa-f]{{1,4}}:){{1,7}}(?::|(?::?[0-9A-Fa-f]{{1,4}}){{1,7}})"
                   rf"(?:%\w+)?\]?(?!{WORD}|(?<!\]):|\.\d)")
"""Never the head of a longer run: "2001:db8::256.1.1.1" is no address; in brackets a port may follow
("[2001:db8::1]:443")."""


def ips(text: str) -> Iterator[tuple[str, int, int]]:
    """(kind, start, end) of every IPv4 and IPv6 address in `text` that names a host: "ipv4" or "ipv6"."""
    yield from _ipv4s(text)
    if ":" in text:
        for m in _IPV6.finditer(text):
            if _valid_ipv6(m.group(0), short=_ip_word_near(text, m.start(), m.end())):
                yield "ipv6", m.start(), m.end()


_SENTENCE_REACH = 200
"""How far around a dotted quad its sentence is read: a text of one endless sentence holding thousands of them would
be read whole for each."""


def _ipv4s(text: str) -> Iterator[tuple[str, int, int]]:
    releases: bool | None = None  # whether the text speaks of releases anywhere: looked at once, at the first quad
    for m in _IPV4.finditer(text):
        if not _an_address(text, m) or _a_network(text, m):
            continue
        if releases is None:
            releases = bool(_THREE_PART_VERSION.search(text) or _RELEASE_BESIDE.search(text))
        if not _a_version(text, m.start(), m.end(), releases=releases):
            yield "ipv4", m.start(), m.end()


def _a_network(text: str, m: re.Match[str]) -> bool:
    prefix = _NETWORK.match(text, m.end())
    if prefix is None:
        return False
    value = int.from_bytes(bytes(int(octet) for octet in m.group(1).split(".")), "big")
    return value & ((1 << (32 - int(prefix.group(1)))) - 1) == 0


def _a_version(text: str, start: int, end: int, *, releases: bool) -> bool:
    """A dotted quad is a version after a release's word ("firmware 1.0.3.14") or in a sentence that gives other
    versions in three parts ("Kernel 6.8.0-31 fixes the bug we saw on 5.15.0.91") or a dotted quad with a release's
    word beside it ("The 4.3.2.1 hotfix is on staging; prod stays on 4.3.2.0"): the sentence speaks of releases."""
    if _VERSION_BEFORE.search(text, max(0, start - 40), start):
        return True
    if not releases:
        return False  # no version or release's word in the whole text, so none in this sentence
    low, high = max(0, start - _SENTENCE_REACH), min(len(text), end + _SENTENCE_REACH)
    sentence_start = max((m.end() for m in _SENTENCE_END.finditer(text, low, start)), default=low)
    stop = _SENTENCE_END.search(text, end, high)
    sentence = text[sentence_start:stop.start() if stop else high]
    return bool(_THREE_PART_VERSION.search(sentence) or _RELEASE_BESIDE.search(sentence))


def _valid_ipv6(raw: str, *, short: bool) -> bool:
    """`short`: an IP's word stands near, so a compressed address of few digits is one ("IPv6 address is 12::1")."""
    import ipaddress

    value = raw.strip("[]").split("%")[0]
    hex_digits = sum(c.isdigit() or c.lower() in "abcdef" for c in value)
    if value.count(":") < 2 or (hex_digits < 5 and not short) or not any(c.isdigit() for c in value):
        return False  # "a::b", "std::vector", "dead::beef": too little of an address to be one; "fe80::1" is one
    try:
        address = ipaddress.IPv6Address(value)
    except ValueError:
        return False
    return not (address.is_loopback or address.is_unspecified)


def _an_address(text: str, m: re.Match[str]) -> bool:
    """Four octets in range that name a host. Loopback and unspecified addresses and netmasks ("255.255.255.0")
    identify no one; the broadcast address is written as an address ("Broadcast 255.255.255.255") unless a mask's
    word names it. Octets padded with zeros ("08.008.08.08") are an address only where an IP's word stands near:
    without one they are a phone number or a code written with dots ("02.123.45.67")."""
    octets = m.group(1).split(".")
    values = [int(o) for o in octets]
    if any(v > 255 for v in values) or values[0] in (0, 127):
        return False
    if values == _BROADCAST:
        return not _MASK_BEFORE.search(text, max(0, m.start() - 30), m.start())
    if _netmask(values):
        return False
    if any(len(o) > 1 and o.startswith("0") for o in octets):
        return _ip_word_near(text, m.start(), m.end())
    return True


_BROADCAST = [255, 255, 255, 255]
_MASK_BEFORE = re.compile(r"(?i)\bmask(?:\s+(?:is|of|to|=))?\s*[:=]?\s*$")
_IP_WORD = re.compile(r"(?i)(?<![a-z])(?:ip(?:v[46])?|v6)(?![a-z])")
_IP_WORD_REACH = 40


def _ip_word_near(text: str, start: int, end: int) -> bool:
    return bool(_IP_WORD.search(text, max(0, start - _IP_WORD_REACH), start)
                or _IP_WORD.search(text[end:end + _IP_WORD_REACH]))


def _netmask(values: list[int]) -> bool:
    bits = "".join(f"{v:08b}" for v in values)
    return bits.startswith("1") and "01" not in bits
