"""Agents that misbehave while running, through the real CLI: each failure is recorded on its own case, the run goes
on, every finished case is kept (events.jsonl and the manifest), and the exit code follows the gates."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time

import pytest

from tests.fixtures.cli.agents import HUGE
from tests.fixtures.cli.harness import Ran, events, khaos, manifest, workspace

CONTRACT = """\
contract:
  invariants:
    - {{id: answers, type: output_not_empty, severity: {severity}}}
chaos_matrix: [{{name: calm}}]
"""

UNRULY = """\
version: 1
agent:
  entry: agents.py:unruly
  timeout_s: 0.5
  max_output_bytes: 200000
concurrency: 4
golden_prompts: ["hello", "boom please", "hang forever", "none at all", "bytes back", "huge reply", "goodbye"]
""" + CONTRACT.format(severity="medium")


@pytest.fixture(scope="module")
def unruly(tmp_path_factory) -> tuple[Ran, dict, list[dict]]:
    ws = workspace(tmp_path_factory.mktemp("unruly"), UNRULY)
    ran = khaos("run", "--out", "out", cwd=ws)
    return ran, manifest(ws / "out"), events(ws / "out")


def _case(m: dict, text: str) -> dict:
    """The contract cell for a prompt (the first golden prompt is also sent twice more by the state probe)."""
    return next(c for c in m["cases"] if c["input"] == text and c["pillar"] == "contract")


def _kept_every_case(m: dict, lines: list[dict], cells: int) -> None:
    """Each cell plus the two state-probe calls is in the manifest and has its events.jsonl line."""
    assert sum(c["pillar"] == "contract" for c in m["cases"]) == cells
    assert len(m["cases"]) == cells + 2 and len(lines) == cells + 2
    assert {line["case_id"] for line in lines} == {c["id"] for c in m["cases"]}


def test_a_python_agent_that_misbehaves_on_some_inputs_does_not_stop_the_run(unruly) -> None:
    ran, m, lines = unruly
    # Gates: nothing critical failed and no min score, so the run passes with its errors on record.
    assert ran.code == 0, ran
    # stderr holds at most the run's progress lines (counts only: no agent text, no traceback).
    assert all(line.startswith("khaos-action: ") for line in ran.stderr.splitlines()), ran
    _kept_every_case(m, lines, 7)
    assert _case(m, "hello")["passed"] is True and _case(m, "goodbye")["passed"] is True
    assert "2 errors" in ran.stdout


def test_an_agent_that_raises_is_an_error_on_that_case(unruly) -> None:
    _, m, _ = unruly
    case = _case(m, "boom please")
    assert case["passed"] is False
    assert case["error"] == "AgentCallError: agent raised ValueError: agent blew up on 'boom please'"


def test_an_agent_that_hangs_is_a_timeout_and_does_not_hold_the_run(unruly) -> None:
    ran, m, lines = unruly
    case = _case(m, "hang forever")
    assert case["error"] == "timed out after 0.5s (agent.timeout_s)" and case["passed"] is False
    assert next(line for line in lines if line["case_id"] == case["id"])["timed_out"] is True
    # The agent sleeps 60 s; its worker process is killed at the timeout, so the run ends long before that (the
    # bound leaves room for starting workers on a loaded machine, not for the sleep).
    assert ran.seconds < 30, ran


def test_none_bytes_and_huge_replies_are_recorded_with_a_note(unruly) -> None:
    _, m, _ = unruly
    none = _case(m, "none at all")
    assert none["output"] == "" and none["passed"] is False and "agent returned None" in none["notes"]
    raw = _case(m, "bytes back")
    assert raw["output"] == "raw bytes reply" and raw["passed"] is True
    assert "agent returned bytes; decoded as UTF-8" in raw["notes"]
    huge = _case(m, "huge reply")
    assert f"output of {HUGE:,} bytes cut to 200,000 (agent.max_output_bytes)" in huge["notes"]
    assert huge["output_truncated"] is True and len(huge["output"]) < 200_000


COMMAND = """\
version: 1
agent:
  type: command
  command: python cmd_agent.py
  timeout_s: 5
concurrency: 1
golden_prompts: ["first question", "please die now", "after the crash", "last one"]
""" + CONTRACT.format(severity="medium")


def test_a_command_agent_that_prints_and_crashes_is_restarted_and_later_cases_are_fine(tmp_path) -> None:
    ws = workspace(tmp_path, COMMAND)
    ran = khaos("run", "--out", "out", cwd=ws)
    assert ran.code == 0, ran
    assert "Traceback" not in ran.stderr
    m = manifest(ws / "out")
    _kept_every_case(m, events(ws / "out"), 4)
    first, dead, after, last = (_case(m, t) for t in ("first question", "please die now", "after the crash",
                                                      "last one"))
    assert first["output"] == "handled: first question" and first["passed"] is True
    # Its own prints are not replies: they are kept as a note.
    assert any("booting the agent" in note and "non-protocol" in note for note in first["notes"])
    assert dead["passed"] is False
    assert dead["error"] == "AgentCallError: agent process exited with code 9: fatal: out of memory (simulated)"
    assert after["output"] == "handled: after the crash" and after["passed"] is True
    assert any("restarted" in note for note in after["notes"])
    assert last["passed"] is True


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_an_http_agent_that_never_becomes_ready_exits_3_showing_its_stderr(tmp_path) -> None:
    port = _free_port()
    ws = workspace(tmp_path, f"""\
version: 1
agent:
  type: http
  url: http://127.0.0.1:{port}/chat
  start: python never_ready.py
  ready_url: http://127.0.0.1:{port}/health
  ready_timeout_s: 1
golden_prompts: ["hi"]
""" + CONTRACT.format(severity="medium"))
    ran = khaos("run", "--out", "out", cwd=ws)
    assert ran.code == 3, ran
    assert "Traceback" not in ran.stderr
    assert f"error: the agent at http://127.0.0.1:{port}/health was not ready within 1s" in ran.stderr
    assert "CUDA error: no GPU found" in ran.stderr  # the process's own explanation
    assert "raise agent.ready_timeout_s" in ran.stderr
    assert ran.seconds < 10


def test_an_http_agent_answering_500_or_non_json_has_those_cases_recorded_as_errors(tmp_path) -> None:
    port = _free_port()
    ws = workspace(tmp_path, f"""\
version: 1
agent:
  type: http
  url: http://127.0.0.1:{port}/chat
  start: python http_agent.py {port}
  ready_url: http://127.0.0.1:{port}/health
  request: {{input: "{{{{input}}}}"}}
  response_path: output
golden_prompts: ["hello", "crash now", "plain please", "bye"]
""" + CONTRACT.format(severity="critical"))
    ran = khaos("run", "--out", "out", cwd=ws)
    # The two failing cases leave a critical invariant unevaluated (errors are not content): the gate fails (1),
    # it is not an agent-cannot-run (3).
    assert ran.code == 1, ran
    assert "errored, so their critical checks were not evaluated" in ran.stdout
    assert "Traceback" not in ran.stderr
    m = manifest(ws / "out")
    _kept_every_case(m, events(ws / "out"), 4)
    crash, plain = _case(m, "crash now"), _case(m, "plain please")
    assert crash["error"] == (f"AgentCallError: POST http://127.0.0.1:{port}/chat answered HTTP 500: internal error: "
                              "database unreachable")
    assert plain["error"].startswith("AgentCallError: response_path 'output' is set but the agent answered non-JSON "
                                     "(text/plain): plain words")
    assert _case(m, "hello")["output"] == "handled: hello" and _case(m, "bye")["passed"] is True
    assert any("critical checks were not evaluated" in reason for reason in m["verdict"]["reasons"])
    assert crash["invariants"][0]["passed"] is None and crash["invariants"][0]["detail"].startswith("not evaluated")


def test_an_interrupted_run_keeps_the_cases_that_finished(tmp_path) -> None:
    ws = workspace(tmp_path, "version: 1\nagent: {entry: agents.py:slow}\nconcurrency: 1\n"
                             f"golden_prompts: {[f'question {n}' for n in range(40)]}\n"
                             + CONTRACT.format(severity="medium"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    process = subprocess.Popen([sys.executable, "-m", "khaos_action.cli", "run", "--out", "out"], cwd=ws, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    log = ws / "out" / "events.jsonl"
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and (not log.exists() or log.read_text().count("\n") < 3):
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)  # what Ctrl-C (or a CI job being cancelled) sends
    _, stderr = process.communicate(timeout=20)
    assert process.returncode == 130, stderr
    kept = events(ws / "out")
    assert f"interrupted; the {len(kept)} cases that finished are in out/events.jsonl" in stderr, stderr
    assert "Traceback" not in stderr
    assert 3 <= len(kept) < 40
    assert all(line["output"].startswith("slowly: question") and line["error"] is None for line in kept)
