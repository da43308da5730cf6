"""One national id as a table row (pii_ids_national, pii_ids_world): its country, the words that name it, its shape
as printed, its checksum and, where the printed form is distinctive, a form read with no label."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class NationalId:
    country: str
    labels: tuple[str, ...]
    """Regular expressions of the words that name it, matched whole and in any case."""
    shape: str
    """The value as written, separators included."""
    valid: Callable[[str], bool]
    """The checksum, on the value in capitals with its spaces, dots, slashes, hyphens and plus signs removed."""
    bare: str | None = None
    """A form read with no label word before it (checksum still checked), or None: only after a label."""
    keep_signs: bool = False
    """Pass hyphens and plus signs through to the checksum (a Finnish century sign)."""
    cased: tuple[str, ...] = ()
    """Labels that name the id only as written here, in capitals: "INN" (an English "inn" is a hotel), "NIN", "CI"
    (an Italian "ci", continuous integration's "ci")."""
