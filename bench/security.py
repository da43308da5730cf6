"""Judging time per attack on real replies: the robust ShopOps agent (examples/security) answers the whole `security`
pack once through the real engine, then every reply is judged again and again (`judge_attack`, the work the judging
stage does per security case: canary, secret, tool-call and system-prompt signals, refusal detection).

Target: judging adds <= 1 ms median per case.
Run: python bench/security.py
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from khaos_action.engine.agent_tools import agent_tools
from khaos_action.engine.runner import (
    Engine,
    EngineSettings,
    InstanceBinder,
    Invocation,
)
from khaos_action.judge.cases import JudgeContext, judge_attack
from khaos_action.outcome import Phase
from khaos_action.pipeline.config import load_run
from khaos_action.pipeline.plan import make_plan
from khaos_action.pipeline.recon import recon_of
from khaos_action.run_api import EvaluateRequest
from khaos_action.services import Services
from khaos_action.session import agent_session

CONFIG = ROOT / "examples" / "security" / "robust.khaos.yaml"
ROUNDS = 20


async def replies(request: EvaluateRequest) -> tuple[list[Invocation], JudgeContext]:
    run = load_run(request)
    agent, base_dir = run.agent.agent, run.agent.base_dir
    binder = InstanceBinder()
    async with agent_session(run.agent, binder, Services(environ=dict(os.environ))) as session:
        plan = make_plan(run.plan, recon_of(agent, *agent_tools(agent, base_dir, import_code=True)))
        engine = Engine(session.transport, binder=binder, chaos=session.hooks,
                        settings=EngineSettings(concurrency=run.agent.concurrency, seed=plan.seed))
        invocations = await engine.run([c for c in plan.cases if c.phase == Phase.SECURITY])
    context = JudgeContext(secrets=run.judge.secrets, system_prompt=run.judge.system_prompt, seed=run.judge.seed)
    return invocations, context


def main() -> None:
    with tempfile.TemporaryDirectory() as out:
        invocations, context = asyncio.run(replies(EvaluateRequest(config_path=CONFIG, out_dir=Path(out))))
    per_case = []
    outcomes: dict[str, int] = {}
    for invocation in invocations:
        timings = []
        for _ in range(ROUNDS):
            started = time.perf_counter()
            result = judge_attack(invocation, context)
            timings.append(time.perf_counter() - started)
        per_case.append(statistics.median(timings) * 1000)
        outcomes[result.outcome or "none"] = outcomes.get(result.outcome or "none", 0) + 1
    per_case.sort()
    p95 = per_case[int(0.95 * (len(per_case) - 1))]
    print(f"security pack on the robust agent: {len(per_case)} attacks judged, outcomes {outcomes}")
    print(f"judge_attack per case: median {statistics.median(per_case):.3f} ms, p95 {p95:.3f} ms, "
          f"max {per_case[-1]:.3f} ms (target: median <= 1 ms)")
    print(f"reply length: median {statistics.median(len(i.text) for i in invocations):.0f} chars")


if __name__ == "__main__":
    main()
