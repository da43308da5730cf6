"""Masking `agent.secrets` in everything we write: `Redactor.text` / `Redactor.data` and `redact_manifest`.

A planted secret that the agent leaked is the finding, not something to publish: manifest.json, the reports,
events.jsonl, the job summary, the PR comment and the log all go through `Redactor`. The forms masked are the ones
the judge detects (detect.encodings): verbatim, case-folded, base64 (any alignment), hex, reversed, ROT13,
URL-encoded and spaced out. The event log masks each event with `Redactor.data`; `redact_manifest` masks the
manifest once, before any report is rendered from it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import cached_property
from typing import Any, TypeVar
from urllib.parse import quote, quote_plus

from khaos_action.detect.encodings import MIN_SECRET_CHARS, _forms

MASK = "[secret masked]"
T = TypeVar("T")


class Redactor:
    """Masks every configured secret (and its encodings) in text. Empty when no secrets are configured."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self.secrets = tuple(dict.fromkeys(s for s in secrets if s and len(s) >= MIN_SECRET_CHARS))

    def __bool__(self) -> bool:
        return bool(self.secrets)

    @cached_property
    def _pattern(self) -> re.Pattern[str] | None:
        alternatives = [alternative for secret in self.secrets for alternative in _alternatives(secret)]
        if not alternatives:
            return None
        return re.compile("|".join(alternatives))

    def text(self, value: str) -> str:
        if not self.secrets or not value:
            return value
        pattern = self._pattern
        return pattern.sub(MASK, value) if pattern is not None else value

    def data(self, value: T) -> T:
        """Every string inside dicts, lists and tuples masked (keys too); other values unchanged."""
        if not self.secrets:
            return value
        return map_strings(value, self.text)

    def found(self, value: str) -> bool:
        pattern = self._pattern
        return bool(value) and pattern is not None and pattern.search(value) is not None


def map_strings(value: Any, fn: Callable[[str], str]) -> Any:
    """`value` with `fn` applied to every string in it, dict keys included (a JSON-like document: dicts, lists,
    tuples; anything else as it is)."""
    if isinstance(value, str):
        return fn(value)
    if isinstance(value, dict):
        return {map_strings(k, fn): map_strings(v, fn) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(map_strings(v, fn) for v in value)
    return value


def redact_manifest(manifest: T, redactor: Redactor) -> T:
    """A copy of a pydantic manifest with every string masked (the same model type; validated again)."""
    if not redactor:
        return manifest
    data = redactor.data(manifest.model_dump(mode="json"))  # type: ignore[attr-defined]
    return type(manifest).model_validate(data)  # type: ignore[attr-defined]


def _alternatives(secret: str) -> list[str]:
    """The regular expressions that find `secret` in any of its forms (quoted, base64, hex, reversed, rot13,
    spaced out)."""
    forms = _forms(secret)
    # The whole base64 run that holds a core: its edges would otherwise still decode to part of the secret.
    alternatives = [r"[A-Za-z0-9+/_-]*" + re.escape(core) + r"[A-Za-z0-9+/_-]*={0,2}" for core in forms.base64_cores]
    folded = [f for f in (forms.reversed_, forms.rot13) if f]
    alternatives += _literals(secret, forms.hex_)
    alternatives += [f"(?i:{re.escape(x)})" for x in folded]
    alternatives.append(f"(?i:{re.escape(secret)})")
    if len(forms.hex_) >= 8:
        alternatives.append(_hex_pairs(forms.hex_))
    if forms.separated is not None:  # spaced out or re-punctuated: the core characters, any case
        alternatives.append("(?i:" + forms.separated.pattern.replace("(", "(?:") + ")")
    return alternatives


def _hex_pairs(hex_: str) -> str:
    """The hex form written byte by byte: "4b 58 41", "4b:58:41", "\\x4b\\x58"."""
    pairs = [hex_[i:i + 2] for i in range(0, len(hex_), 2)]
    return "(?i:" + r"(?:\\x|0x)?" + r"[\s:,]?(?:\\x|0x)?".join(pairs) + ")"


def _literals(secret: str, hex_: str) -> list[str]:
    """The secret as written, URL-quoted and (long enough) in hex, the longest first."""
    literal = {secret, quote(secret, safe=""), quote_plus(secret)}
    if len(hex_) >= 8:
        literal.add(hex_)
    return [re.escape(x) for x in sorted(literal, key=len, reverse=True) if x]
