"""An agent slower than agent.timeout_s: the run names the setting, the latency it saw and a value to try, in the
failure message and in a warning (an on-call bot whose slow answers stand in for a CPU-served model)."""

from __future__ import annotations

from pathlib import Path

from tests.builders import write_project
from tests.fixtures.cli.harness import khaos, manifest

AGENT = '''
import time


def handle(message: str) -> str:
    time.sleep(0.2 if "disk" in message else 4)
    return f"Runbook for '{message}': drain the node, then page the storage on-call."
'''

PACK = """\
name: oncall-baseline
version: "1"
description: the agent's everyday alerts
phases:
  - type: baseline
    goals: [{metric: task_completion, operator: gte, threshold: 0.8}]
"""


def _project(tmp_path: Path, prompts: str) -> Path:
    config = (f"version: 1\nagent: {{name: oncall-bot, entry: oncall.py:handle, timeout_s: 1}}\npacks: [pack.yaml]\n"
              f"golden_prompts: {prompts}\n")
    return write_project(tmp_path, config, {"oncall.py": AGENT, "pack.yaml": PACK}).parent


def test_calls_cut_off_by_the_time_limit_name_the_setting_and_the_latency_seen(tmp_path: Path) -> None:
    ws = _project(tmp_path, '["disk full on db-3", "replication lag on db-1", "cert expiry on api"]')
    ran = khaos("run", "--out", "out", cwd=ws, timeout=120)
    assert ran.code == 1, ran
    [advice] = [w for w in manifest(ws / "out")["warnings"] if "timed out" in w]
    assert advice.startswith("2 of 3 calls timed out at agent.timeout_s (1s) (baseline 2); the baseline's p95 was ")
    assert "raise agent.timeout_s to about 2," in advice
    assert f"warning: {advice}" in ran.stdout


def test_a_run_where_every_call_timed_out_names_the_setting_in_its_verdict(tmp_path: Path) -> None:
    ws = _project(tmp_path, '["replication lag on db-1", "cert expiry on api"]')
    ran = khaos("run", "--out", "out", cwd=ws, timeout=120)
    assert ran.code == 3, ran
    assert ran.stdout.startswith("FAILED: every one of 2 invocations failed; first error: timed out after 1s "
                                 "(agent.timeout_s)"), ran
    assert "no call answered within it: raise agent.timeout_s to about 2," in ran.stdout
