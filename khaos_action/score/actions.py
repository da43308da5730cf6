"""What the agent *did* in the baseline that matters beyond words: every call to a tool that sends, pays, deletes,
runs code or fetches from the web, per golden prompt.

A refund nobody asked for passes a text check ("Your order has shipped"), so the reports list these calls where a
reader sees them (console, report.md and so the job summary); `expect.tools_not_called` turns one into a failing
case. Roles come from the manifest's `tool_roles` (declared, else guessed), else from the tool's name.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from khaos_action.outcome import Phase

CONSEQUENTIAL_ROLES = ("messaging", "payment", "destructive", "code_exec", "web_fetch")
ARGS_SHOWN = 160


@dataclass(frozen=True, slots=True)
class ConsequentialCall:
    prompt: str
    tool: str
    role: str
    args: str
    """The arguments as `name='value', ...` on one line, cut to ARGS_SHOWN characters (untrusted: escape)."""
    case_id: str
    failed: bool
    """The call raised (the agent still decided to make it)."""


def consequential_calls(cases: Sequence[Any], tool_roles: dict[str, str]) -> list[ConsequentialCall]:
    """Baseline calls to tools of a consequential role, in case order (each case's first run only)."""
    found = []
    for case in cases:
        if case.phase != Phase.BASELINE or case.repeat or case.fault_ids:
            continue
        for call in case.tool_calls:
            name = _field(call, "name")
            role = _role(name or "", tool_roles)
            if role in CONSEQUENTIAL_ROLES:
                found.append(ConsequentialCall(prompt=case.input, tool=str(name), role=role,
                                               args=one_line(_field(call, "args")), case_id=case.id,
                                               failed=bool(_field(call, "error"))))
    return found


def _role(name: str, tool_roles: dict[str, str]) -> str | None:
    return tool_roles.get(name) or _guessed(name)


def _field(call: Any, key: str) -> Any:
    """A recorded call's field, whether the call is a dict (a manifest's) or a ToolCall."""
    return call.get(key) if isinstance(call, dict) else getattr(call, key, None)


@lru_cache(maxsize=256)
def _guessed(name: str) -> str | None:
    """A tool the run met only while it ran (an SDK-decorated tool, a registry entry) has no recorded role: guessed
    from its name, as the run guesses it."""
    from khaos_action.roles import guess_role

    return guess_role(name).role if name else None


def one_line(args: Any) -> str:
    """`a='x', b=2` with every control character (newlines included) replaced: safe on one console line."""
    if not isinstance(args, dict):
        text = "" if args is None else repr(args)
    else:
        text = ", ".join(f"{key}={value!r}" for key, value in args.items())
    return printable(text, ARGS_SHOWN)


def printable(text: str, limit: int) -> str:
    """`text` with every control character (newlines included) made a space, cut to `limit` characters."""
    text = "".join(ch if ch.isprintable() else " " for ch in text)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def console_lines(calls: Sequence[ConsequentialCall], limit: int = 20) -> list[str]:
    """The console's section: one line per call, grouped by prompt."""
    if not calls:
        return []
    lines = [f"  consequential calls in the baseline ({len(calls)}; tools of role "
             f"{', '.join(CONSEQUENTIAL_ROLES)}):"]
    for call in calls[:limit]:
        prompt = printable(call.prompt, 60)
        failed = " (raised)" if call.failed else ""
        lines.append(f"    {prompt!r}: {call.tool} [{call.role}]({call.args}){failed}")
    if len(calls) > limit:
        lines.append(f"    … and {len(calls) - limit} more (report.md lists them all)")
    return lines
