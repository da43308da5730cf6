"""`discover` reads @khaosagent functions from source without importing it."""

from __future__ import annotations

import textwrap
from pathlib import Path

import yaml

from khaos_action.config.models import AgentConfig
from khaos_action.discover import capability_overrides, discover, format_discovered


def write(root: Path, relative: str, source: str) -> None:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(source))


def test_finds_every_decorator_form_without_running_the_code(tmp_path: Path):
    write(tmp_path, "agents/support.py", '''
        raise SystemExit("importing this file would fail")
        from khaos_action.sdk import khaosagent

        @khaosagent(name="support-bot", capabilities={"has_tools": True}, description="Support")
        def handle(text: str) -> str:
            return text

        def not_an_agent(text):
            return text
    ''')
    write(tmp_path, "agents/other.py", '''
        import khaos_action.sdk as k
        from khaos_action import sdk
        from khaos_action.sdk import khaosagent as agent_marker

        @sdk.khaosagent
        async def first(text):
            """First agent."""

        @khaos_action.sdk.khaosagent(NAME_FROM_CODE, capabilities=["rag", "memory"])
        def second(text): ...

        @agent_marker()
        def third(text): ...

        @k.khaosagent
        def fourth(text): ...

        @other.khaosagent
        def not_ours(text): ...

        class Bot:
            @khaosagent
            def method(self, text): ...
    ''')
    write(tmp_path, ".venv/lib/site.py", "@khaosagent\ndef venv_agent(t): ...\n")
    write(tmp_path, "env/pyvenv.cfg", "")
    write(tmp_path, "env/lib/x.py", "@khaosagent\ndef env_agent(t): ...\n")
    write(tmp_path, "node_modules/pkg/x.py", "@khaosagent\ndef node_agent(t): ...\n")
    write(tmp_path, "broken.py", "def (:\n")

    found = discover(tmp_path)
    assert [(d.entry, d.name) for d in found] == [
        ("agents/other.py:first", "first"),
        ("agents/other.py:second", "second"),
        ("agents/other.py:third", "third"),
        ("agents/other.py:fourth", "fourth"),
        ("agents/support.py:handle", "support-bot"),
    ]
    assert found[0].metadata == {"line": 7, "is_async": True, "description": "First agent."}
    assert found[1].metadata["capabilities"] == ["rag", "memory"]
    assert found[4].metadata["capabilities"] == {"has_tools": True}


def test_single_file_path_is_relative_to_its_folder(tmp_path: Path):
    write(tmp_path, "bot.py", "@khaosagent\ndef handle(t): ...\n")
    assert [d.entry for d in discover(tmp_path / "bot.py")] == ["bot.py:handle"]


def test_format_gives_a_valid_agent_block_first_and_alternatives_commented(tmp_path: Path):
    write(tmp_path, "a.py", '@khaosagent("bot-a", capabilities=["tools", "bogus"])\ndef handle(t):\n    """Helps."""\n')
    write(tmp_path, "b.py", "@khaosagent\ndef other(t): ...\n")
    text = format_discovered(discover(tmp_path))
    parsed = yaml.safe_load(text)
    assert parsed == {"agent": {"name": "bot-a", "type": "python", "entry": "a.py:handle",
                                "capabilities": {"has_tools": True}}}
    AgentConfig(**parsed["agent"])  # what we print is what the config accepts
    assert "# a.py:handle — Helps." in text and "# agent:" in text and "#   entry: b.py:other" in text


def test_format_with_nothing_found_says_how_to_mark_an_agent():
    assert "from khaos_action.sdk import khaosagent" in format_discovered([])


def test_capability_overrides():
    assert capability_overrides(["tools", "has_rag", "multi-turn", "nonsense"]) == {
        "has_tools": True, "has_rag": True, "has_multi_turn": True}
    assert capability_overrides({"has_memory": False, "mcp": True}) == {"has_memory": False, "has_mcp": True}
    assert capability_overrides(None) == {}
