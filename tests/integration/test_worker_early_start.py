"""The python worker's zygote started from khaos.yaml before the config is validated (engine/transport/early.py):
the session adopts it when its validated command is the same, and forks its workers from it; a zygote
started for another command is killed, never used; agents it cannot be guessed for start as they always did. Real
processes: the agent reports its parent, the zygote."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest

from khaos_action.config.loader import load_config, read_config
from khaos_action.engine.runner import InstanceBinder
from khaos_action.engine.transport.early import LIMIT_DEFAULTS, early_zygote
from khaos_action.engine.worker.start import WorkerStarter, python_worker
from khaos_action.messages import AgentRequest
from khaos_action.pipeline.config import agent_setup
from khaos_action.services import Services
from khaos_action.session import agent_session
from tests.builders import write_project

AGENT = """
import os


def handle(text: str) -> str:
    return f"{os.getppid()} {os.environ.get('KHAOS_EARLY_SEEN', '-')}"
"""

CONTRACT = """
golden_prompts: ["hello"]
contract:
  name: c
  invariants: [{id: answers, type: output_not_empty, severity: critical}]
chaos_matrix: [{name: no-chaos}]
"""

AGENTS = {
    "default": "agent: {name: a, entry: agent.py:handle}",
    "env, pass_env and limits": """agent:
  name: a
  type: python
  entry: agent.py:handle
  env: {KHAOS_EARLY_SEEN: "${EARLY_VALUE}-x"}
  pass_env: [EARLY_VALUE]
  limits: {memory_mb: 2048, open_files: 512, file_size_mb: null}""",
    "our interpreter named": f"agent: {{name: a, entry: agent.py:handle, python: {sys.executable!r}}}",
}


def _workspace(tmp_path: Path, agent: str) -> Path:
    return write_project(tmp_path, f"version: 1\n{agent}\n{CONTRACT}", {"agent.py": AGENT})


def _children() -> set[int]:
    """Our live child processes (zombies included: a child not reaped is a leak too)."""
    found = set()
    for entry in Path("/proc").iterdir():
        try:
            fields = (entry / "stat").read_text().rpartition(")")[2].split()
        except (OSError, ValueError):
            continue
        if entry.name.isdigit() and int(fields[1]) == os.getpid():
            found.add(int(entry.name))
    return found


def _ask(config_path: Path, environ: dict[str, str], early) -> str:
    """One call through the session the run builds, with `early` handed over."""
    loaded = load_config(config_path)

    async def go() -> str:
        async with agent_session(agent_setup(loaded.config, loaded.base_dir), InstanceBinder(),
                                 Services(environ=environ), early=early) as session:
            reply = await session.transport.send(AgentRequest("hi"))
            return reply.text

    return asyncio.run(go())


@pytest.mark.parametrize("agent", AGENTS.values(), ids=AGENTS.keys())
def test_the_session_forks_its_workers_from_the_zygote_started_before_the_config_was_validated(tmp_path, agent):
    environ = {**os.environ, "EARLY_VALUE": "v"}
    before = _children()
    early = early_zygote(read_config(_workspace(tmp_path, agent)), environ)
    assert early is not None
    try:
        parent, seen = _ask(tmp_path / "khaos.yaml", environ, early).split()
        assert int(parent) == early.popen.pid  # the worker's parent: the zygote started first
        assert early.popen.poll() is not None  # ended with the session
        if "KHAOS_EARLY_SEEN" in agent:
            assert seen == "v-x"  # agent.env, expanded as the session expands it
    finally:
        early.discard()
    assert _children() == before  # nothing left, not even a zombie


def test_the_command_guessed_from_the_yaml_is_the_one_the_validated_config_starts(tmp_path):
    # What adoption compares: argv (the HTTP preload included), clean environment, cwd, limits, identity.
    environ = {**os.environ, "EARLY_VALUE": "v", "GITHUB_TOKEN": "ghp_" + "x" * 36}
    for agent in AGENTS.values():
        config_path = _workspace(tmp_path, agent)
        early = early_zygote(read_config(config_path), environ)
        assert early is not None
        early.discard()
        validated = load_config(config_path).config.agent
        starter = WorkerStarter(validated, base_dir=tmp_path, environ=environ, zygote=True,
                                **python_worker(validated, environ))
        assert starter.zygote_command()[3] == early.key
        assert "GITHUB_TOKEN" not in starter.zygote_command()[1]


def test_the_limits_a_guess_assumes_are_the_models_defaults():
    from khaos_action.config.agent_block import AgentLimits

    assert AgentLimits().model_dump() == LIMIT_DEFAULTS


def test_a_zygote_started_for_another_command_is_killed_and_the_session_starts_its_own(tmp_path):
    config_path = _workspace(tmp_path, AGENTS["default"])
    before = _children()
    early = early_zygote(read_config(config_path), {**os.environ, "EARLY_OTHER_VAR": "1"})  # another environment
    assert early is not None
    parent, _ = _ask(config_path, dict(os.environ), early).split()
    assert int(parent) != early.popen.pid
    assert early.popen.returncode is not None  # killed and reaped when the session chose its own
    assert _children() == before


NOT_GUESSED = {
    "MCP servers": "agent: {entry: agent.py:handle, mcp_servers: [{name: s, command: [x], env_var: S}]}",
    "another interpreter": "agent: {entry: agent.py:handle, python: /usr/bin/python3-not-ours}",
    "an http agent": "agent: {type: http, url: 'http://127.0.0.1:9/'}",
    "an unknown type": "agent: {type: registered-by-an-extension, entry: agent.py:handle}",
    "an unset variable": "agent: {entry: agent.py:handle, env: {K: '${KHAOS_SURELY_UNSET_VAR}'}}",
    "a number where text goes": "agent: {entry: agent.py:handle, env: {K: 1}}",
    "a limit of another type": "agent: {entry: agent.py:handle, limits: {memory_mb: '1'}}",
    "a key the models do not know in limits": "agent: {entry: agent.py:handle, limits: {cpu: 1}}",
    "no entry": "agent: {name: a}",
    "no agent": "# no agent block",
}


@pytest.mark.parametrize("agent", NOT_GUESSED.values(), ids=NOT_GUESSED.keys())
def test_agents_it_cannot_be_guessed_for_start_no_process_early(tmp_path, agent):
    before = _children()
    assert early_zygote(read_config(_workspace(tmp_path, agent)), dict(os.environ)) is None
    assert _children() == before


@pytest.mark.parametrize("text", ["agent: {entry: [", "agent: {entry: agent.py:handle}\nx: " + "[" * 200 + "]" * 200],
                         ids=["broken YAML", "nesting too deep"])
def test_a_config_that_does_not_parse_is_its_error_before_any_process_starts(tmp_path, text):
    from khaos_action.config.errors import ConfigFileError

    (tmp_path / "khaos.yaml").write_text(text, encoding="utf-8")
    before = _children()
    with pytest.raises(ConfigFileError):
        read_config(tmp_path / "khaos.yaml")  # the run reads it once, then guesses from what it parsed
    assert _children() == before


def test_a_large_config_is_read_once_and_still_gets_its_early_zygote(tmp_path):
    early = early_zygote(read_config(_workspace(tmp_path, AGENTS["default"] + "\n#" + "x" * 70_000)),
                         dict(os.environ))
    assert early is not None
    early.discard()
