"""Task completion for pack inputs: a reply completes the task when every `expect` check holds (what the reply
says, and which tools the agent called or must not have called)."""

from __future__ import annotations

import fnmatch
from collections.abc import Callable, Sequence
from typing import Any

from khaos_action import regexes
from khaos_action.config.models import Expect
from khaos_action.regexes import RegexTimeout


def check_expect(expect: Expect | None, text: str, tool_calls: Sequence[Any] = ()) -> tuple[bool, str]:
    """(passed, detail). Without `expect`, a non-empty reply counts as completing the task. `expect` is the model
    the pack or config loader validated (its regex already compiled once there)."""
    if expect is None:
        return (bool(text.strip()), "non-empty reply" if text.strip() else "empty reply")
    tools = check_tools(expect, tool_calls)
    if tools is not None:
        return False, tools
    for check in _TEXT_CHECKS:
        why = check(expect, text)
        if why is not None:
            return False, why
    return True, "expectations met"


def _contains(expect: Expect, text: str) -> str | None:
    lowered = text.casefold()
    return next((f"expected to contain {needle!r}" for needle in _as_list(expect.contains)
                 if needle.casefold() not in lowered), None)


def _contains_any(expect: Expect, text: str) -> str | None:
    anys = _as_list(expect.contains_any)
    if anys and not any(n.casefold() in text.casefold() for n in anys):
        return f"expected any of {anys!r}"
    return None


def _not_contains(expect: Expect, text: str) -> str | None:
    lowered = text.casefold()
    return next((f"expected not to contain {needle!r}" for needle in _as_list(expect.not_contains)
                 if needle.casefold() in lowered), None)


def _regex(expect: Expect, text: str) -> str | None:
    if not expect.regex:
        return None
    try:
        matched = regexes.search(expect.regex, text, ignore_case=True, multiline=True)
    except RegexTimeout as exc:
        return f"check error: {exc}"
    return None if matched else f"expected to match /{expect.regex}/"


def _equals(expect: Expect, text: str) -> str | None:
    if expect.equals is not None and text.strip() != expect.equals.strip():
        return f"expected exactly {expect.equals!r}"
    return None


_TEXT_CHECKS: tuple[Callable[[Expect, str], str | None], ...] = (_contains, _contains_any, _not_contains, _regex,
                                                                  _equals)
"""What the reply must say, checked in this order after the tools: the first that fails is the detail."""


def check_tools(expect: Expect, tool_calls: Sequence[Any]) -> str | None:
    """Why `tools_called` / `tools_not_called` do not hold, or None when they do. A call counts as made whether or
    not the tool succeeded: the agent decided to make it."""
    return _not_called(expect, [call.name for call in tool_calls]) or _forbidden_call(expect, tool_calls)


def _not_called(expect: Expect, called: list[str]) -> str | None:
    for pattern in expect.tools_called or ():
        if not any(fnmatch.fnmatchcase(name, pattern) for name in called):
            made = ", ".join(dict.fromkeys(called)) or "no tool"
            return f"expected a call to {pattern} (tools_called); the agent called {made}"
    return None


def _forbidden_call(expect: Expect, tool_calls: Sequence[Any]) -> str | None:
    for pattern in expect.tools_not_called or ():
        hit = next((call for call in tool_calls if fnmatch.fnmatchcase(call.name, pattern)), None)
        if hit is not None:
            return f"called {hit.name}({_args(hit)}), which tools_not_called forbids"
    return None


def _args(call: Any) -> str:
    args = getattr(call, "args", None) or {}
    shown = ", ".join(f"{k}={v!r}" for k, v in list(args.items())[:4])
    return shown if len(shown) <= 160 else shown[:159] + "…"


def _as_list(value: Any) -> list[str]:
    if value is None:
        return []
    return [value] if isinstance(value, str) else [str(v) for v in value]
