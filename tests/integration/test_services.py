"""The run takes the world from the `Services` its shell built, not from the process: the agent's `${VAR}`s, the
clock and the git checkout all come from what `evaluate` is handed (a real run, python agent in its worker)."""

from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path

import pytest

from khaos_action.errors import AgentError
from khaos_action.services import Services
from tests.builders import evaluate_project, write_project

AGENT = "import os\n\ndef handle(prompt):\n    return os.environ.get('GREETING', 'unset') + ' ' + prompt\n"


def project(folder: Path) -> Path:
    config = {
        "version": 1, "seed": 3,
        "agent": {"name": "env-bot", "type": "python", "entry": "agent.py:handle", "timeout_s": 20,
                  "env": {"GREETING": "${SERVICE_GREETING}"}},
        "golden_prompts": ["hi"],
        "contract": {"name": "greets", "invariants": [
            {"id": "greets", "type": "contains", "value": "hello from services", "severity": "critical"}]},
        "chaos_matrix": [{"name": "no-chaos"}],
    }
    return write_project(folder, config, {"agent.py": AGENT})


def test_the_run_reads_the_environment_clock_and_git_it_is_handed_not_the_process(tmp_path: Path) -> None:
    assert "SERVICE_GREETING" not in os.environ  # only the Services' environment has it
    when = datetime(2031, 5, 6, 7, 8, 9, tzinfo=timezone.utc)
    services = Services(environ={"PATH": os.environ["PATH"], "SERVICE_GREETING": "hello from services"},
                        clock=lambda: when, git=lambda environ, cwd: ("c0ffee", "refs/heads/handed-in"))
    manifest = evaluate_project(project(tmp_path), tmp_path / "run", formats=(), services=services).manifest
    scored = [c for c in manifest.cases if c.invariants]  # (the stateful probe is sent but not scored)
    assert scored and all(c.output == "hello from services hi" and c.passed for c in scored)
    assert manifest.started_at == manifest.finished_at == "2031-05-06T07:08:09+00:00"
    assert (manifest.git.sha, manifest.git.ref) == ("c0ffee", "refs/heads/handed-in")


def test_a_variable_only_the_process_has_is_not_seen(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("SERVICE_GREETING", "from the process")
    services = Services(environ={"PATH": os.environ["PATH"]})
    with pytest.raises(AgentError, match=r"agent\.env\.GREETING uses \$\{SERVICE_GREETING\} but .* is not set"):
        evaluate_project(project(tmp_path), tmp_path / "run", formats=(), services=services)
