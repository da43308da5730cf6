"""`init` imports the agent's code (its module top-level code runs) in a sandboxed worker, never in the CLI's own
process, which may hold GITHUB_TOKEN: a module whose import-time code looks for the token and at the process it
runs in finds neither, and init still writes its tools and their roles; a module that kills its process at import
fails init with a clear error and exit 3, not the module's own exit code."""

from __future__ import annotations

import json
import secrets
import subprocess
from pathlib import Path

import yaml

from tests.fixtures.cli.import_loot import IMPORT_TIME, holding_token, imported_elsewhere

AGENT = IMPORT_TIME + '''
from khaos_action.sdk import khaosagent, tool


@tool(role="payment")
def refund_order(order_id: str) -> str:
    """Refund an order."""
    return order_id


def _helper():
    return None


TOOLS = {"search_docs\\n::error::pwned": lambda q: q}


@khaosagent(name="isolated-bot")
def handle(message: str) -> str:
    return message
'''


def _init(folder: Path, token: str, mode: str, *args: str) -> tuple[subprocess.CompletedProcess, int]:
    return holding_token(folder, token, mode, "init", *args)


def test_init_imports_the_agent_in_a_sandboxed_worker_not_in_its_own_process(tmp_path: Path) -> None:
    token = f"FAKE-TOKEN-{secrets.token_hex(8)}"
    (tmp_path / "agent.py").write_text(AGENT)
    ran, pid = _init(tmp_path, token, "live")  # the agent found by discover (read, not imported), then inspected
    assert ran.returncode == 0, ran.stderr
    imported_elsewhere(tmp_path, pid)
    # What the worker found still reaches init's output and the file it writes: tools, declared and guessed roles.
    assert "wrote" in ran.stdout and "agent agent.py:handle (python)" in ran.stdout, ran.stdout
    assert "refund_order: payment (declared)" in ran.stdout
    config = yaml.safe_load((tmp_path / "khaos.yaml").read_text())
    assert config["agent"]["entry"] == "agent.py:handle"
    assert {"ref": "agent.py:refund_order", "role": "payment"} in config["agent"]["tools"]
    # A name from the agent's process is text on one line: no workflow command starts a line of our output.
    assert not any(line.startswith("::") for line in ran.stdout.splitlines()), ran.stdout
    assert token not in ran.stdout + ran.stderr


def test_an_agent_that_kills_its_process_at_import_fails_init_with_exit_3(tmp_path: Path) -> None:
    token = f"FAKE-TOKEN-{secrets.token_hex(8)}"
    (tmp_path / "agent.py").write_text(AGENT)
    ran, pid = _init(tmp_path, token, "die", "--entry", "agent.py:handle")
    assert ran.returncode == 3, (ran.stdout, ran.stderr)  # the worker died, not init (that would be 7)
    assert "importing the python agent to inspect it failed: its worker exited with code 7" in ran.stderr
    assert json.loads((tmp_path / "import-loot.json").read_text())["pid"] != pid
    assert not (tmp_path / "khaos.yaml").exists()
    assert token not in ran.stderr + ran.stdout


def test_an_entry_that_is_neither_a_function_nor_an_agent_object_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "agent.py").write_text(AGENT)
    ran, _ = _init(tmp_path, f"FAKE-TOKEN-{secrets.token_hex(8)}", "live", "--entry", "agent.py:TOOLS")
    assert ran.returncode == 2, (ran.stdout, ran.stderr)
    assert "agent.py:TOOLS: TOOLS is a dict, neither a function nor a supported framework agent object" in ran.stderr
