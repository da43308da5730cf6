"""Built-in checks of the call itself: completes, latency, tool_called, tool_not_called."""

from __future__ import annotations

import json
from typing import Any

from khaos_action.agent_reply import AgentReply
from khaos_action.checkers.registry import CheckContext, Invariant, Verdict, register_checker, short
from khaos_action.checkers.text import search


@register_checker("completes")
class Completes(Invariant):
    """The call returns without an error or a timeout (the one check a failed call fails)."""

    on_failed_call = "judged"

    def check(self, reply: AgentReply, ctx: CheckContext) -> Verdict:
        if reply.timed_out:
            return False, "timed out"
        if reply.error:
            return False, f"agent error: {short(reply.error, 120)}"
        return True, "completed without error"


@register_checker("latency")
class Latency(Invariant):
    """The reply arrives within `max_ms` (a timeout fails it)."""

    max_ms: float | None = None
    """latency: the maximum response time."""

    on_failed_call = "timeout"  # no answer within the run's limit is the one failure latency can judge
    requires = ("max_ms",)

    def check(self, reply: AgentReply, ctx: CheckContext) -> Verdict:
        limit = float(self.max_ms or 0)
        if reply.timed_out:
            return False, f"timed out (limit {limit:.0f} ms)"
        ok = reply.latency_ms <= limit
        return ok, f"{reply.latency_ms:.0f} ms {'≤' if ok else '>'} {limit:.0f} ms"


@register_checker("tool_called")
class ToolCalled(Invariant):
    """The agent calls tool `name` (with `args` matching, when given)."""

    case_sensitive: bool = False
    name: str | None = None
    """tool_called / tool_not_called: the tool name."""
    args: dict[str, Any] | None = None
    """tool_called / tool_not_called: argument values (regex for strings) a call must match."""

    requires = ("name",)
    needs_named_tools = True

    def check(self, reply: AgentReply, ctx: CheckContext) -> Verdict:
        matching, seen, wanted = self._calls(reply)
        return bool(matching), seen if matching else f"expected {wanted}; {seen}"

    def tools_named(self) -> dict[str, str]:
        return {"name": self.name} if self.name else {}

    def _calls(self, reply: AgentReply) -> tuple[list[Any], str, str]:
        name = self.name or ""
        calls = [_call_parts(c) for c in reply.tool_calls]
        named = [args for called, args in calls if called == name]
        matching = [args for args in named if _args_match(self.args or {}, args, self.case_sensitive)]
        wanted = name + (f" with {short(json.dumps(self.args, default=str), 60)}" if self.args else "")
        return matching, self._seen(name, calls, named, matching), wanted

    def _seen(self, name: str, calls: list[tuple[str, Any]], named: list[Any], matching: list[Any]) -> str:
        """What the agent's calls of the tool were: matching ones, calls with other arguments, or other tools."""
        if matching:
            return f"{name} called {len(matching)}×" + (" with matching args" if self.args else "")
        if named:
            return f"{name} called {len(named)}× but no call matched {short(json.dumps(self.args, default=str), 60)}"
        others = sorted({called for called, _ in calls})
        return f"{name} not called" + (f" (called: {', '.join(others)})" if others else " (no tool calls)")


@register_checker("tool_not_called")
class ToolNotCalled(ToolCalled):
    """The agent never calls tool `name` (with `args` matching, when given)."""

    needs_named_tools = False  # naming a tool the agent lacks is a check that holds, not a broken session

    def check(self, reply: AgentReply, ctx: CheckContext) -> Verdict:
        matching, seen, _ = self._calls(reply)
        return not matching, seen if matching else f"{seen}, as required"


def _args_match(expected: dict[str, Any], actual: Any, case_sensitive: bool) -> bool:
    """String values are regular expressions searched in the actual value; others must be equal."""
    if not isinstance(actual, dict):
        return not expected
    for key, want in expected.items():
        if key not in actual:
            return False
        have = actual[key]
        if isinstance(want, str):
            text = have if isinstance(have, str) else json.dumps(have, default=str)
            if not search(want, text, case_sensitive):
                return False
        elif have != want:
            return False
    return True


def _call_parts(call: Any) -> tuple[str, Any]:
    if isinstance(call, dict):
        return str(call.get("name", "")), call.get("args", {})
    return str(getattr(call, "name", "")), getattr(call, "args", {})
