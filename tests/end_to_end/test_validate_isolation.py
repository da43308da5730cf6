"""`validate` imports the agent's code (its module top-level code runs) in a sandboxed worker, never in the CLI's
own process, which in CI may hold GITHUB_TOKEN: a module whose import-time code looks for the token and at the
process it runs in finds neither, and still gets its tools and metadata read; a module that kills its process at
import fails `validate` with exit 3, not the CLI itself."""

from __future__ import annotations

import json
import secrets
import subprocess
import time
from pathlib import Path

from tests.fixtures.cli.import_loot import IMPORT_TIME, holding_token, imported_elsewhere

AGENT = IMPORT_TIME + '''
from khaos_action.sdk import khaosagent


def lookup_order(order_id: str) -> str:
    """Look an order up by its id."""
    return order_id


@khaosagent(name="isolated-bot", capabilities={"has_memory": True})
def handle(message: str) -> str:
    return message
'''

CONFIG = """\
version: 1
agent:
  name: isolated
  entry: agent.py:handle
  tools: [agent.py:lookup_order]
  env: {AGENT_MODE: "${AGENT_MODE}"}
golden_prompts: ["hello"]
contract:
  name: c
  invariants: [{id: answers, type: output_not_empty, severity: critical}]
chaos_matrix: [{name: no-chaos}]
"""


def _validate(folder: Path, token: str, mode: str) -> tuple[subprocess.CompletedProcess, int]:
    return holding_token(folder, token, mode, "validate")


def test_validate_imports_the_agent_in_a_sandboxed_worker_not_in_its_own_process(tmp_path: Path) -> None:
    token = f"FAKE-TOKEN-{secrets.token_hex(8)}"
    (tmp_path / "agent.py").write_text(AGENT)
    (tmp_path / "khaos.yaml").write_text(CONFIG)
    ran, pid = _validate(tmp_path, token, "live")
    assert ran.returncode == 0, ran.stderr
    imported_elsewhere(tmp_path, pid)
    # What the worker read still reaches validate's report: the tools and the @khaosagent metadata.
    assert "khaos.yaml: valid" in ran.stdout and "tools: lookup_order" in ran.stdout, ran.stdout
    assert [line.split() for line in ran.stdout.splitlines() if "has_memory" in line] == [
        ["has_memory", "yes", "from", "@khaosagent(capabilities=...)"]]


def test_an_agent_that_kills_its_process_at_import_fails_validate_with_exit_3(tmp_path: Path) -> None:
    token = f"FAKE-TOKEN-{secrets.token_hex(8)}"
    (tmp_path / "agent.py").write_text(AGENT)
    (tmp_path / "khaos.yaml").write_text(CONFIG)
    ran, pid = _validate(tmp_path, token, "die")
    assert ran.returncode == 3, (ran.stdout, ran.stderr)  # the worker died, not validate (that would be 7)
    assert "importing the python agent to check it failed: its worker exited with code 7" in ran.stderr
    assert json.loads((tmp_path / "import-loot.json").read_text())["pid"] != pid
    assert token not in ran.stderr + ran.stdout


def test_a_thread_the_agent_starts_at_import_does_not_hold_validate(tmp_path: Path) -> None:
    (tmp_path / "agent.py").write_text(AGENT)
    (tmp_path / "khaos.yaml").write_text(CONFIG)
    started = time.monotonic()
    ran, _ = _validate(tmp_path, f"FAKE-TOKEN-{secrets.token_hex(8)}", "thread")
    assert ran.returncode == 0, ran.stderr
    assert time.monotonic() - started < 60  # the worker ends once it has answered; its thread sleeps 120 s


def test_what_the_worker_sends_is_read_as_data_and_printed_on_one_line(tmp_path: Path) -> None:
    """The answer comes from the agent's process, which can forge it: names validate prints cannot hold a line
    break (a `::error::` workflow command on our stdout); issues get their place in khaos.yaml here."""
    from khaos_action.config.loader import load_config
    from khaos_action.engine.agent_check import _read_answer

    (tmp_path / "khaos.yaml").write_text(CONFIG)
    loaded = load_config(tmp_path / "khaos.yaml")
    forged = {"op": "checked", "issues": [], "broken_tools": [], "context": "Deps\n::error::pwned",
              "tools": [{"name": "lookup\r\n::set-env name=X::1", "description": "two\nlines kept"}], "metadata": None}
    check = _read_answer(loaded, forged)
    assert check.context == "Deps ::error::pwned"
    assert check.seen is not None and check.seen[0][0].name == "lookup  ::set-env name=X::1"
    assert check.seen[0][0].description == "two\nlines kept"
    issue = _read_answer(loaded, {"issues": [[["agent", "entry"], "cannot import", None]]}).code.issues[0]
    assert str(issue).startswith(f"{tmp_path / 'khaos.yaml'}:4:3: agent.entry: cannot import")
