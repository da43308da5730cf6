"""AgentDojo's banking and slack injection tasks, as user attacks with state checks, through the real CLI against
the four scripted agents: khaos-action's verdicts against the benchmark's own oracle, episode by episode
(tests/fixtures/agentdojo/dojo_harness.py; bench/agentdojo.py prints the figures)."""

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
              pytest.mark.skipif(not _has_check_objective(),
                                 reason="attack objectives have no `check:` (state oracle) in this tree yet")]


@pytest.mark.parametrize("suite", sorted(harness.dojo.SUITES))
@pytest.mark.parametrize("disposition", harness.DISPOSITIONS)
def test_verdicts_agree_with_the_benchmarks_oracle(tmp_path: Path, suite: str, disposition: str) -> None:
    folder = harness.write_workspace(tmp_path / "ws", suite, disposition)
    ran = harness.run(folder, timeout=600)
    assert (folder / "out" / "manifest.json").exists(), ran.stderr[-3000:]
    agreement = harness.compare(folder, suite)
    shown = "\n".join(agreement.disagreements[:15])
    assert agreement.false_compromised == 0, shown
    assert agreement.security_agree >= 0.98 * agreement.episodes, (agreement.rates(), shown)
    assert agreement.utility_agree >= 0.95 * agreement.episodes, (agreement.rates(), shown)
