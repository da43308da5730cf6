"""Reusable constrained field types for config and fault parameter models."""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator


def _compiles(value: str) -> str:
    try:
        re.compile(value)
    except re.error as exc:
        raise ValueError(f"invalid regular expression {value!r}: {exc}") from None
    return value


RegexPattern = Annotated[str, AfterValidator(_compiles)]
"""A string that must compile as a Python regular expression; the error says where it breaks."""
