"""State checks: an attack's `check: file.py:function`, run where the agent runs, after the case, on its state.

The engine asks the agent's own transport (the python worker, in the agent's process) once the case's last turn is
answered, through the same pipe and the same case: a request whose payload carries CHECK_KEY is not a turn, and the
transport answers it by calling each check with the case's `agent.context` object (the state the agent changed),
the reply, the tool calls and the case. A check returns whether the agent held: `True` / `False`, `(held,
evidence)`, or `{"passed": held, "evidence": ...}`. A check that raises, returns anything else or runs past the
case's timeout has no verdict: its error is recorded, and the judge calls the attack UNCERTAIN, never BLOCKED.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

from khaos_action.messages import CHECK_KEY  # the payload key that makes a request a state check, not a turn


def is_check(payload: Mapping[str, Any]) -> bool:
    return CHECK_KEY in payload


def verdict(value: Any) -> dict[str, Any]:
    """A check's return value as {passed, evidence} or {error}."""
    if isinstance(value, bool):
        return {"passed": value}
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], bool):
        return {"passed": value[0], "evidence": str(value[1])[:1000]}
    if isinstance(value, dict) and isinstance(value.get("passed"), bool):
        evidence = value.get("evidence")
        return {"passed": value["passed"], **({"evidence": str(evidence)[:1000]} if evidence is not None else {})}
    return {"error": f"returned {type(value).__name__} {str(value)[:80]!r}; return True when the agent held, False "
                     "when the attacker's state was reached, or (held, evidence)"}


async def run_checks(payload: Mapping[str, Any], *, base_dir: Path,
                     context: Callable[[str], Awaitable[Any]] | None) -> dict[str, Any]:
    """The transport's answer to a check request: {CHECK_KEY: {ref: verdict}} (in the agent's process)."""
    request = payload.get(CHECK_KEY) or {}
    session = str(payload.get("session_id") or "")
    state = await context(session) if context is not None else None
    arguments = {"context": state, "case": request.get("case") or {}, "reply": request.get("reply") or "",
                 "tool_calls": request.get("tool_calls") or []}
    return {CHECK_KEY: {str(ref): await _one(str(ref), base_dir, arguments) for ref in request.get("refs") or ()},
            "text": ""}


async def _one(ref: str, base_dir: Path, arguments: dict[str, Any]) -> dict[str, Any]:
    from khaos_action.engine.code_ref import load_callable

    try:
        return verdict(await _call(load_callable(ref, base_dir, what="check"), arguments))
    except asyncio.CancelledError:
        raise
    except BaseException as exc:  # noqa: BLE001 - a check is user code: whatever it raises is its verdict's error
        return {"error": f"{type(exc).__name__}: {exc}"[:1000]}


async def _call(fn: Callable[..., Any], arguments: dict[str, Any]) -> Any:
    kwargs = _accepted(fn, arguments)
    if inspect.iscoroutinefunction(fn):
        return await fn(**kwargs)
    value = await asyncio.to_thread(fn, **kwargs)  # a thread: the case's time limit still holds for a slow check
    return await value if inspect.isawaitable(value) else value


def _accepted(fn: Callable[..., Any], arguments: dict[str, Any]) -> dict[str, Any]:
    """The arguments `fn` takes by name (all of them when it takes **kwargs)."""
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return arguments
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return arguments
    return {k: v for k, v in arguments.items() if k in params}


def check_request(refs: list[str], *, case: Mapping[str, Any], reply: str,
                  tool_calls: list[dict[str, Any]]) -> dict[str, Any]:
    """What the engine asks after a case's last turn (`AgentRequest.checks`, sent under CHECK_KEY)."""
    return {"refs": refs, "case": dict(case), "reply": reply, "tool_calls": tool_calls}


def outcomes(found: Any, refs: list[str]) -> dict[str, dict[str, Any]]:
    """Each ref's verdict from the transport's answer (`AgentResponse.checks`); a ref it did not answer is an
    error."""
    found = found if isinstance(found, dict) else {}
    return {ref: found[ref] if isinstance(found.get(ref), dict) else
            {"error": "the agent's transport did not run the check (state checks run only in a python agent's "
                      "worker: agent.type python or a framework type)"} for ref in refs}
