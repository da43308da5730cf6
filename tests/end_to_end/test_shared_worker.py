"""An async python agent's cases share worker processes (engine/worker/pool.py, LANES cases each). A case that
crashes or blocks the worker it shares fails alone: the cases in flight with it are run again on workers of their
own and pass; a call that awaits forever is cancelled without touching the others; every case keeps its own tool
calls. Through the real CLI, like tests/end_to_end/test_agent_isolation.py for one case per worker."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.fixtures.cli.harness import khaos, manifest

SHARED = Path(__file__).resolve().parent.parent / "fixtures" / "hostile" / "shared.py"


def _config(prompts: list[str], concurrency: int) -> str:
    return f"""\
version: 1
agent: {{name: shared, entry: shared.py:handle, timeout_s: 6}}
concurrency: {concurrency}
golden_prompts: {json.dumps(prompts)}
contract:
  invariants:
    - {{id: answers, type: output_not_empty, severity: critical}}
chaos_matrix: [{{name: no-chaos}}]
"""


def _run(tmp_path: Path, prompts: list[str], concurrency: int) -> dict[str, dict]:
    shutil.copy(SHARED, tmp_path / "shared.py")
    (tmp_path / "khaos.yaml").write_text(_config(prompts, concurrency), encoding="utf-8")
    ran = khaos("run", "--out", "out", cwd=tmp_path, timeout=120)
    assert ran.code in (0, 1), ran
    return {c["input"]: c for c in manifest(tmp_path / "out")["cases"] if c["pillar"] == "contract"}


def test_a_case_that_crashes_its_shared_worker_fails_alone_and_the_cases_in_flight_with_it_pass(tmp_path: Path) -> None:
    hostile = ["os_exit", "segfault", "exit", "hang"]
    fine = [f"ok-{i}" for i in range(10)]
    cases = _run(tmp_path, hostile + fine, concurrency=16)

    errors = {text: cases[text].get("error") or "" for text in hostile}
    assert "exited with code 42" in errors["os_exit"], errors
    assert "SIGSEGV" in errors["segfault"], errors
    assert "SystemExit" in errors["exit"], errors
    assert "timed out" in errors["hang"], errors
    _all_fine(cases, fine)


def test_a_case_that_blocks_its_shared_workers_loop_times_out_alone_and_the_others_pass(tmp_path: Path) -> None:
    # The worker stops beating; after half the timeout its cases run again on workers of their own, so the others
    # still have the time to answer, and the blocking case times out on its own worker.
    fine = [f"ok-{i}" for i in range(6)]
    cases = _run(tmp_path, ["block", *fine], concurrency=8)

    assert "timed out" in (cases["block"].get("error") or ""), cases["block"]
    _all_fine(cases, fine)


def _all_fine(cases: dict[str, dict], fine: list[str]) -> None:
    for text in fine:  # in flight when their worker died or stalled, run again, and judged on their own answer
        case = cases[text]
        assert not case.get("error") and case["passed"] is True, case
        assert case["output"].startswith(f"fine: {text} from "), case
        assert [(c["name"], c["args"]) for c in case["tool_calls"]] == [("lookup", {"text": text})], case


def test_concurrent_async_cases_share_a_worker_and_each_keeps_its_own_tool_calls(tmp_path: Path) -> None:
    fine = [f"ok-{i}" for i in range(12)]
    cases = _run(tmp_path, fine, concurrency=12)

    pids = {cases[text]["output"].split(" from ")[1].split()[0] for text in fine}
    assert len(pids) == 1, pids  # 12 cases at once, one worker process (LANES ≥ 12)
    for text in fine:
        case = cases[text]
        assert case["passed"] is True and not case.get("error"), case
        assert [(c["name"], c["args"]) for c in case["tool_calls"]] == [("lookup", {"text": text})], case
