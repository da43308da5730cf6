"""Bounds on what a YAML file may cost to load: size, NUL bytes, nesting depth, alias expansion, number length.

Pure checks over the text and over the parser's event stream, so whichever loader builds the data (the
position-aware one here, or libyaml's CSafeLoader) runs the same limits first. The event pass is linear in the file:
an alias counts the expanded size of its anchor (remembered when the anchor closes), so a 552-byte "billion laughs"
is rejected after a few hundred events instead of being walked a billion times. Every limit is a ConfigIssue with
file:line:col (exit 2). README "Limits" lists them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import yaml

from khaos_action.config.errors import ConfigFileError, ConfigIssue

MAX_YAML_BYTES = 4 * 1024 * 1024
"""A khaos.yaml or pack file: real ones are a few KB; 4 MiB leaves room for long prompt lists (the 50k-prompt
contract of the scale benchmark, bench/scale.py, is 1.6 MB)."""
MAX_DEPTH = 64
"""Nested mappings/lists: the schema is at most ~8 deep; PyYAML's composer recurses per level."""
MAX_NODES = 200_000
"""Values after alias expansion (what validation and every later stage walk)."""
MAX_NUMBER_CHARS = 64
"""A plain scalar that looks like a number may be at most this long (Python refuses ints past 4300 digits)."""

_NON_PRINTABLE = yaml.reader.Reader.NON_PRINTABLE
"""Exactly what PyYAML's reader refuses (NUL, C0 controls other than tab/LF/CR, lone surrogates, U+FFFE/FFFF)."""
# YAML 1.1 int/float shapes (digits, signs, separators, exponents, base prefixes): long ones are refused outright.
_NUMBERISH = re.compile(r"[-+]?(0[box])?[0-9a-fA-F_.:]+([eE][-+]?[0-9]+)?|[-+]?\.(inf|Inf|INF|nan|NaN|NAN)")


def check_text(text: str, *, file: str) -> None:
    """Size, NUL bytes and other characters YAML forbids, before any parsing, with their line:col (PyYAML's
    reader would fail on them without a position)."""
    size = len(text.encode("utf-8", errors="surrogatepass"))
    if size > MAX_YAML_BYTES:
        raise ConfigFileError([ConfigIssue(
            file, None, None, (), f"is {size:,} bytes; the limit is {MAX_YAML_BYTES:,} bytes",
            "Split long prompt lists into replay sessions or packs, or remove generated content")])
    bad = _NON_PRINTABLE.search(text)
    if bad:
        at = bad.start()
        line = text.count("\n", 0, at) + 1
        column = at - (text.rfind("\n", 0, at) + 1) + 1
        what = "a NUL byte (\\0)" if bad.group() == "\x00" else f"the control character U+{ord(bad.group()):04X}"
        raise ConfigFileError([ConfigIssue(
            file, line, column, (), f"contains {what}, which YAML does not allow",
            "Save the file as plain UTF-8 text; write special characters as escapes in double quotes")])


def check_bytes(data: bytes, *, file: str) -> None:
    """The size limit on raw bytes, before decoding (a 50 MB file is refused without being decoded)."""
    if len(data) > MAX_YAML_BYTES:
        raise ConfigFileError([ConfigIssue(
            file, None, None, (), f"is {len(data):,} bytes or more; the limit is {MAX_YAML_BYTES:,} bytes",
            "Split long prompt lists into replay sessions or packs, or remove generated content")])


def check_events(events: Iterable[yaml.Event], *, file: str) -> None:
    """Depth, expanded size, recursive aliases and over-long numbers, in one linear pass over parser events."""
    budget = EventBudget(file)
    for event in events:
        budget.feed(event)


class EventBudget:
    """The limits as a running tally, fed one parser event at a time (a loader can feed it as it composes)."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.anchors: dict[str, int] = {}
        self.open_anchors: set[str] = set()
        self.stack: list[list] = [[0, None]]
        """One frame per open collection: [expanded size so far, its anchor]."""
        self.total = 0

    def feed(self, event: yaml.Event) -> None:
        if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            self._open(event)
        elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
            self._close()
        elif isinstance(event, yaml.ScalarEvent):
            self._scalar(event)
        elif isinstance(event, yaml.AliasEvent):
            self._alias(event)

    def _open(self, event: yaml.CollectionStartEvent) -> None:
        if len(self.stack) > MAX_DEPTH:
            _fail(self.file, event, f"nesting is deeper than {MAX_DEPTH} levels",
                  "Flatten the structure; no khaos-action setting nests this deep")
        if event.anchor:
            self.open_anchors.add(event.anchor)
        self.stack.append([0, event.anchor])
        self._count(1, event)

    def _close(self) -> None:
        size, anchor = self.stack.pop()
        if anchor:
            self.anchors[anchor] = size + 1
            self.open_anchors.discard(anchor)
        self.stack[-1][0] += size + 1

    def _scalar(self, event: yaml.ScalarEvent) -> None:
        # A plain scalar: style None from PyYAML's parser, '' from libyaml's.
        if not event.style and len(event.value) > MAX_NUMBER_CHARS and _NUMBERISH.fullmatch(event.value):
            _fail(self.file, event, f"a number {len(event.value):,} characters long",
                  f"Numbers may have at most {MAX_NUMBER_CHARS} characters; quote it if it is text")
        if event.anchor:
            self.anchors[event.anchor] = 1
        self.stack[-1][0] += 1
        self._count(1, event)

    def _alias(self, event: yaml.AliasEvent) -> None:
        if event.anchor in self.open_anchors:
            _fail(self.file, event, f"alias `*{event.anchor}` refers to its own anchor (a recursive structure)",
                  "Configs cannot be recursive; copy the values instead")
        # An undefined alias is the composer's error (reported with its own position).
        size = self.anchors.get(event.anchor, 1)
        self.stack[-1][0] += size
        self._count(size, event)

    def _count(self, size: int, event: yaml.Event) -> None:
        self.total += size
        if self.total > MAX_NODES:
            _fail(self.file, event, f"expands to more than {MAX_NODES:,} values (an alias `*name` repeats its "
                  "anchor's values)", "Do not nest aliases of aliases; write the values out or use fewer")


def _fail(file: str, event: yaml.Event, message: str, hint: str) -> None:
    mark = event.start_mark
    line, column = (mark.line + 1, mark.column + 1) if mark is not None else (None, None)
    raise ConfigFileError([ConfigIssue(file, line, column, (), message, hint)])
