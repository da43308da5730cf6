"""Task completion for pack inputs: a reply completes the task when every `expect` check holds."""

from __future__ import annotations

from typing import Any

from khaos_action import regexes
from khaos_action.config.models import Expect
from khaos_action.regexes import RegexTimeout


def check_expect(expect: Expect | None, text: str) -> tuple[bool, str]:
    """(passed, detail). Without `expect`, a non-empty reply counts as completing the task. `expect` is the model
    the pack or config loader validated (its regex already compiled once there)."""
    if expect is None:
        return (bool(text.strip()), "non-empty reply" if text.strip() else "empty reply")
    lowered = text.casefold()
    for needle in _as_list(expect.contains):
        if needle.casefold() not in lowered:
            return False, f"expected to contain {needle!r}"
    anys = _as_list(expect.contains_any)
    if anys and not any(n.casefold() in lowered for n in anys):
        return False, f"expected any of {anys!r}"
    for needle in _as_list(expect.not_contains):
        if needle.casefold() in lowered:
            return False, f"expected not to contain {needle!r}"
    if expect.regex:
        try:
            matched = regexes.search(expect.regex, text, ignore_case=True, multiline=True)
        except RegexTimeout as exc:
            return False, f"check error: {exc}"
        if not matched:
            return False, f"expected to match /{expect.regex}/"
    if expect.equals is not None and text.strip() != expect.equals.strip():
        return False, f"expected exactly {expect.equals!r}"
    return True, "expectations met"


def _as_list(value: Any) -> list[str]:
    if value is None:
        return []
    return [value] if isinstance(value, str) else [str(v) for v in value]
