"""Hints that name the fix when the agent's code cannot be imported or its entry is not something we can run: the
environment variable its import read, or the agent types that run its framework's object (read from the transport
registry, so a newly registered adapter is offered at once) and the `handle()` + `agent.tools` recipe for others.
"""

from __future__ import annotations

import re
from typing import Any

from khaos_action.transports import framework_types

_ENV_NAME = re.compile(r"^[A-Z][A-Z0-9_]{2,}$")
# "... by setting the OPENAI_API_KEY environment variable", "environment variable ANTHROPIC_API_KEY is not set",
# "Missing env var GROQ_API_KEY", "please set TAVILY_API_KEY": a name in capitals next to the words that say so.
_ENV_IN_TEXT = re.compile(r"\b(?:env(?:ironment)?(?:\s+var(?:iable)?)?|set(?:ting)?|export)\s+(?:the\s+)?"
                          r"`?'?\"?([A-Z][A-Z0-9_]{2,})\b|\b([A-Z][A-Z0-9_]{2,})`?'?\"?\s+(?:env(?:ironment)?\s+"
                          r"var(?:iable)?|is\s+not\s+set|not\s+set|is\s+missing|missing)")
# CrewAI's LLM: "OPENAI_API_KEY is required": a key, token or endpoint's name said to be required.
_REQUIRED = re.compile(r"\b([A-Z][A-Z0-9]*_[A-Z0-9_]*(?:KEY|TOKEN|SECRET|URL|BASE))\s+is\s+required\b")

RECIPE = ("wrap it in a function and list the plain functions behind its tools:\n"
          "      # agent.py\n"
          "      def handle(text: str, history=None) -> str:\n"
          "          return str(agent.run(text))  # however your framework runs one turn\n"
          "      # khaos.yaml\n"
          "      agent: {type: python, entry: agent.py:handle, tools: [agent.py:lookup_order]}")


def missing_variable(exc: BaseException) -> str | None:
    """The environment variable a failed import was looking for, if the error says which."""
    if isinstance(exc, KeyError) and exc.args and isinstance(exc.args[0], str) and _ENV_NAME.match(exc.args[0]):
        return exc.args[0]
    match = _ENV_IN_TEXT.search(str(exc))
    if match and re.search(r"env|set|export|missing", str(exc), re.I):
        return match.group(1) or match.group(2)
    required = _REQUIRED.search(str(exc))
    return required.group(1) if required else None


def variable_hint(name: str) -> str:
    return (f"the module reads the environment variable {name} when it is imported, and the agent's process does "
            f"not have it: export {name} where khaos-action runs (in a workflow, the step's `env:` from a secret; "
            f"the agent gets it unless `agent.pass_env` leaves it out: add it to that list), or set it for the "
            f"agent with `agent.env: {{{name}: ...}}` (a placeholder does, if the import only needs it to exist)")


def import_hint(exc: BaseException) -> str | None:
    """A hint for an import that raised `exc`, when it names a fix; None for the generic hint."""
    name = missing_variable(exc)
    return variable_hint(name) if name is not None else None


def object_hint(obj: Any) -> str:
    """For an entry that is an object we cannot call as a function: the agent type that runs it, when an adapter
    accepts it, else the types there are and the recipe."""
    from khaos_action.engine.transport.frameworks import adapter_for

    module = type(obj).__module__
    kind = type(obj).__qualname__ if module.startswith("_khaos_") else f"{module}.{type(obj).__qualname__}"
    for agent_type in framework_types():
        try:
            if adapter_for(agent_type).accepts(obj):
                return f"it is a {agent_type} agent ({kind}): set `type: {agent_type}` and keep this entry"
        except Exception:  # noqa: BLE001 - the framework is not installed, or its check failed: not that one
            continue
    shown = ", ".join(f"`type: {name}`" for name in framework_types())
    return (f"a {kind} is no agent object khaos-action runs itself (those are {shown}); for any other "
            f"framework, {RECIPE}")


__all__ = ["RECIPE", "import_hint", "missing_variable", "object_hint", "variable_hint"]
