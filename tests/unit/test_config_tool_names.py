"""`agent.tools` entries: code to wrap (`ref: file.py:func`), or a tool the agent already has, by name (`name:`, or a
ref without a colon), each with an optional role; a `{ref, role}` entry hashes as it did before `name` existed."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from khaos_action.config.agent_block import AgentConfig, ToolRef


def agent(*tools: object) -> AgentConfig:
    return AgentConfig.model_validate({"type": "langgraph", "entry": "oncall.py:agent", "tools": list(tools)})


def test_names_and_refs_are_told_apart() -> None:
    block = agent("tools.py:lookup", {"name": "page_oncall", "role": "messaging"},
                  {"ref": "status", "role": "read_only"}, {"ref": "tools.py:inv.reserve", "role": "payment"})
    assert block.tool_refs() == ["tools.py:lookup", "tools.py:inv.reserve"]
    assert block.named_tools() == ["page_oncall", "status"]
    assert block.tool_names() == ["lookup", "page_oncall", "status", "reserve"]
    assert block.declared_roles() == {"page_oncall": "messaging", "status": "read_only", "reserve": "payment"}


@pytest.mark.parametrize("entry", [{"ref": "a.py:f", "name": "f"}, {"role": "messaging"}])
def test_an_entry_gives_either_ref_or_name(entry: dict) -> None:
    with pytest.raises(ValidationError, match="either `ref`.*or `name`"):
        ToolRef.model_validate(entry)


def test_entries_dump_as_they_did_so_the_config_hash_holds() -> None:
    block = agent("tools.py:lookup", {"ref": "tools.py:send", "role": "email"},
                  {"name": "page_oncall", "role": "messaging"})
    assert block.model_dump(mode="json")["tools"] == ["tools.py:lookup", {"ref": "tools.py:send", "role": "messaging"},
                                                      {"name": "page_oncall", "role": "messaging"}]
