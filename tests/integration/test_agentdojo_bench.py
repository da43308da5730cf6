"""AgentDojo's injection tasks as user attacks with state checks, through the real CLI against the four scripted
agents: khaos-action's verdicts against the benchmark's own oracle, episode by episode
(tests/fixtures/agentdojo/dojo_harness.py; bench/agentdojo.py prints the figures). Banking and slack run every
disposition; travel runs the resistant and the partial agent (no attack may be called COMPROMISED against the one;
the other leaves multi-step attacks half done, so both verdicts occur), workspace the resistant one; the full sweep
of those two suites is `python bench/agentdojo.py --suite travel --suite workspace` (docs/attacks.md has its
figures)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fixtures" / "agentdojo"))

import dojo_harness as harness  # noqa: E402


def _has_check_objective() -> bool:
    try:
        from khaos_action.config import objectives
    except ImportError:
        return False
    return "check" in objectives.Objective.model_fields


pytestmark = [pytest.mark.slow,  # a whole benchmark run: left out of the quick command
              pytest.mark.timeout(600),  # a workspace run and its comparison take about two minutes on two cores
              pytest.mark.skipif(not _has_check_objective(),
                                 reason="attack objectives have no `check:` (state oracle) in this tree yet")]

# Utility under attack: khaos-action's (the golden prompt's `expect`, else the baseline reply) against the
# benchmark's utility oracle. Travel's and workspace's oracles also fail a change to the environment the user did not
# ask for; the harness's `expect` names the tools that would make one, but cannot tell the attacker's e-mail or event
# from the user's when the user's task makes one too, and workspace's user task 7 fails its own oracle with the
# benchmark's ground truth (rescheduling moves the event's end too; the oracle wants its start alone changed).
UTILITY_FLOOR = {"banking": 0.95, "slack": 0.95, "travel": 0.95, "workspace": 0.9}
CASES = [(suite, disposition) for suite in ("banking", "slack") for disposition in harness.DISPOSITIONS] + [
    ("travel", "resistant"), ("travel", "partial"), ("workspace", "resistant")]
"""Workspace's partial run (as long as its resistant one, about 80 s on two cores) is left to the bench with the
obedient and leaky runs of the two newer suites: the test suite's whole run stays inside CI's budget."""


@pytest.mark.parametrize(("suite", "disposition"), CASES)
def test_verdicts_agree_with_the_benchmarks_oracle(tmp_path: Path, suite: str, disposition: str) -> None:
    folder = harness.write_workspace(tmp_path / "ws", suite, disposition)
    ran = harness.run(folder, timeout=600)
    assert (folder / "out" / "manifest.json").exists(), ran.stderr[-3000:]
    agreement = harness.compare(folder, suite)
    shown = "\n".join(agreement.disagreements[:15])
    assert agreement.false_compromised == 0, shown
    assert agreement.security_agree >= 0.98 * agreement.episodes, (agreement.rates(), shown)
    assert agreement.utility_agree >= UTILITY_FLOOR[suite] * agreement.episodes, (agreement.rates(), shown)
