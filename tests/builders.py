"""One builder per kind of thing the tests make, so a change to a model or a config is made here once:

- `make_case`, `contract_case`, `critical_invariant_case`, `make_manifest`, `make_shard`: results, as the judge
  and the scorer leave them;
- `make_ctx` and `in_case`: a case's context with its faults bound, and code run inside it (faults active);
- `write_project`: a project folder (the agent's files, khaos.yaml), and `evaluate_project` to run it through the
  run API as the CLI would, in this process.

Each builder takes the fields a test cares about as keyword arguments; what a test does not name is a small valid
default. A test module that builds many results alike names its own defaults once with `functools.partial`.
"""

from __future__ import annotations

import asyncio
import random
import shutil
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from khaos_action.manifest import AgentInfo, CaseResult, InvariantResult, Manifest, Scores, Verdict

if TYPE_CHECKING:
    from khaos_action.engine.context import CaseContext
    from khaos_action.run_api import EvaluateResult

# The engine and the run API are imported by the builders that need them: a process that builds results alone
# (tests/action_launcher.py's evaluate function, run as the action's entrypoint) stays as light as the action's.

# ---- results --------------------------------------------------------------------------------------------------------


def make_case(case_id: str = "c1", *, passed: bool | None = True, **fields: Any) -> CaseResult:
    """A contract case that passed without chaos, unless `fields` say otherwise (`phase`, `pillar`, `input`, ...)."""
    data: dict[str, Any] = {"id": case_id, "phase": "contract", "pillar": "contract", "input": f"input {case_id}",
                            "scenario": "no-chaos", "output": "fine", "passed": passed}
    data.update(fields)
    return CaseResult.model_validate(data)


def make_manifest(cases: list[CaseResult] | None = None, **fields: Any) -> Manifest:
    """A run of `cases` (four passing contract cases by default) that passed with 90 overall, unless `fields` say
    otherwise (`run_id`, `seed`, `config_hash`, `verdict`, `scores`, `shard`, ...)."""
    cases = cases if cases is not None else [make_case(f"c{i}") for i in range(4)]
    data: dict[str, Any] = {
        "run_id": "run-1", "tool_version": "0.1.0", "seed": 42, "config_hash": "cfg" + "0" * 61,
        "started_at": "2026-11-22T00:00:00Z", "agent": AgentInfo(name="support-bot", type="python"),
        "scores": Scores(overall=90.0, contract=90.0), "verdict": Verdict(passed=True), "cases": cases,
    }
    data.update(fields)
    return Manifest.model_validate(data)


def make_shard(run_id: str, cases: list[CaseResult], **fields: Any) -> Manifest:
    """A shard of one run (config h1, seed 42) with no scores yet, as `merge` takes them: merge scores the union of
    its shards."""
    shard = {"run_id": run_id, "tool_version": "0", "config_hash": "h1", "started_at": "t0",
             "agent": AgentInfo(name="a", type="python"), "scores": Scores()}
    return make_manifest(cases, **{**shard, **fields})


def contract_case(case_id: str, passed: bool | None, *, invariant: str = "i", severity: str = "critical",
                  **fields: Any) -> CaseResult:
    """A contract case judged by one invariant of `severity`, which it passed or failed with."""
    judged = InvariantResult(id=invariant, severity=severity, passed=passed)
    return make_case(case_id, passed=passed, invariants=[judged], **fields)


def critical_invariant_case(case_id: str, invariant: str = "no-pii", output: str = "leaked") -> CaseResult:
    """A contract case failed by a critical invariant (an email address in the reply)."""
    return make_case(case_id, passed=False, output=output, invariants=[
        InvariantResult(id=invariant, severity="critical", passed=False, detail="found an email address")])


# ---- a case's context -----------------------------------------------------------------------------------------------


def make_ctx(*faults: Mapping[str, Any], case_id: str = "case", seed: int = 7, numbered: bool = False,
             injections: list[dict[str, Any]] | None = None, llm: Any = None, **context: Any) -> CaseContext:
    """A CaseContext with `faults` bound (an rng seeded with `seed`). A fault without an id gets the engine's
    (`target:mode`), or with `numbered` the test's own `f0`, `f1`, ... by position. `llm`: the run's LLM services;
    `context`: other CaseContext fields (`contain`, ...)."""
    from khaos_action.engine.chaos.plan import bind_faults
    from khaos_action.engine.context import CaseContext

    rng = random.Random(seed)
    specs = [{"id": f"f{i}", **fault} if numbered else dict(fault) for i, fault in enumerate(faults)]
    ctx = CaseContext(case_id=case_id, rng=rng, faults=bind_faults(specs, rng), injections=injections or [],
                      **context)
    ctx.llm = llm
    return ctx


def in_case(ctx: CaseContext, fn: Callable[..., Any], *args: Any) -> Any:
    """`fn(*args)` run in a fresh event loop with `ctx` the current case; a coroutine it returns is awaited."""
    from khaos_action.engine.chaos.plan import activate

    async def inside() -> Any:
        with activate(ctx):
            result = fn(*args)
            return await result if asyncio.iscoroutine(result) else result

    return asyncio.run(inside())


# ---- projects -------------------------------------------------------------------------------------------------------


def write_project(folder: Path, config: Mapping[str, Any] | str, files: Mapping[str, str] | None = None, *,
                  copy: Iterable[Path] = (), name: str = "khaos.yaml") -> Path:
    """`folder` with `files` written (name -> text), `copy` copied in (by their names) and `config` as `name`
    (a mapping is written as YAML in its own order, a string as it is); the config file's path."""
    folder.mkdir(parents=True, exist_ok=True)
    for source in copy:
        shutil.copy(source, folder / Path(source).name)
    for relative, text in (files or {}).items():
        target = folder / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    text = config if isinstance(config, str) else yaml.safe_dump(dict(config), sort_keys=False)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def evaluate_project(config: Path, out: Path, *, services: Any = None, **request: Any) -> EvaluateResult:
    """The run of `config` into `out` through the run API (`evaluate`) in this process, as the CLI would run it:
    `request`, more EvaluateRequest fields (`formats`, `packs`, `contract_only`, ...); `services`, the test
    process's environment and real clients unless given. The EvaluateResult (`.manifest`, `.reports`, ...)."""
    from khaos_action.evaluate import evaluate
    from khaos_action.run_api import EvaluateRequest
    from tests import shell

    return evaluate(EvaluateRequest(config_path=config, out_dir=out, **request),
                    services=services if services is not None else shell.services())
