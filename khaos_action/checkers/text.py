"""Built-in checks of the reply's text: contains, contains_any, regex, excludes_pattern, output_not_empty,
valid_json."""

from __future__ import annotations

import json
import re
from typing import Any

from khaos_action import regexes
from khaos_action.agent_reply import AgentReply
from khaos_action.checkers.registry import CheckContext, Invariant, Verdict, register_checker, short
from khaos_action.fields import RegexPattern


@register_checker("contains")
class Contains(Invariant):
    """The reply contains `value` (case-insensitive unless `case_sensitive`)."""

    value: str | None = None
    """contains: the text that must appear."""
    case_sensitive: bool = False

    requires = ("value",)

    def check(self, reply: AgentReply, ctx: CheckContext) -> Verdict:
        found = find(self.value or "", reply.text, self.case_sensitive)
        return found, f"{'contains' if found else 'does not contain'} {short(self.value or '')!r}"


@register_checker("contains_any")
class ContainsAny(Invariant):
    """The reply contains at least one of `values`."""

    values: list[str] | None = None
    """contains_any: any of these must appear."""
    case_sensitive: bool = False

    requires = ("values",)

    def check(self, reply: AgentReply, ctx: CheckContext) -> Verdict:
        hits = [v for v in self.values or [] if find(v, reply.text, self.case_sensitive)]
        if hits:
            return True, f"contains {short(hits[0])!r}"
        return False, f"contains none of {short(', '.join(self.values or []), 80)!r}"


@register_checker("regex")
class Regex(Invariant):
    """The reply matches the regular expression `pattern`."""

    pattern: RegexPattern | None = None
    """regex: a regular expression."""
    case_sensitive: bool = False

    requires = ("pattern",)

    def check(self, reply: AgentReply, ctx: CheckContext) -> Verdict:
        match = search(self.pattern or "", reply.text, self.case_sensitive)
        if match:
            return True, f"matches /{short(self.pattern or '', 40)}/ at {short(match.group(0))!r}"
        return False, f"does not match /{short(self.pattern or '', 40)}/"


@register_checker("excludes_pattern")
class ExcludesPattern(Invariant):
    """None of `pattern` / `patterns` matches the reply."""

    pattern: RegexPattern | None = None
    """excludes_pattern: a regular expression."""
    patterns: list[RegexPattern] | None = None
    """excludes_pattern: several regular expressions."""
    case_sensitive: bool = False

    requires = ("pattern|patterns",)

    def check(self, reply: AgentReply, ctx: CheckContext) -> Verdict:
        patterns = patterns_of(self)
        for pattern in patterns:
            match = search(pattern, reply.text, self.case_sensitive)
            if match:
                return False, f"found /{short(pattern, 40)}/: {short(match.group(0))!r}"
        return True, f"none of {len(patterns)} excluded pattern(s) found"


@register_checker("output_not_empty")
class OutputNotEmpty(Invariant):
    """The reply has non-blank text."""

    def check(self, reply: AgentReply, ctx: CheckContext) -> Verdict:
        size = len(reply.text.strip())
        return (size > 0), (f"{size} characters of output" if size else "empty output")


@register_checker("valid_json")
class ValidJson(Invariant):
    """The reply, or a ```json block in it, parses as JSON."""

    def check(self, reply: AgentReply, ctx: CheckContext) -> Verdict:
        text = reply.text.strip()
        candidates = [("reply", text)] + [("```json block", m.group(1)) for m in _FENCE.finditer(text)]
        error = "empty output"
        for where, candidate in candidates:
            if not candidate.strip():
                continue
            try:
                value = json.loads(candidate)
            except ValueError as exc:
                error = f"not JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"  # type: ignore[attr-defined]
                continue
            return True, f"{where} is valid JSON ({type(value).__name__})"
        return False, error


_FENCE = re.compile(r"```(?:json|JSON)?[ \t]*\n(.*?)\n?```", re.DOTALL)


# ---- shared by the entries that match text ----------------------------------------------------------------------

def patterns_of(inv: Any) -> list[str]:
    """An entry's `pattern` and `patterns`, in that order."""
    return ([inv.pattern] if inv.pattern else []) + list(inv.patterns or [])


def search(pattern: str, text: str, case_sensitive: bool) -> Any:
    """Config patterns run with a time limit (regexes.py); a timeout raises RegexTimeout."""
    return regexes.search(pattern, text, ignore_case=not case_sensitive)


def find(needle: str, haystack: str, case_sensitive: bool) -> bool:
    return needle in haystack if case_sensitive else needle.casefold() in haystack.casefold()
