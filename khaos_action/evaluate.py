"""One evaluation, start to finish, read top to bottom as the stages of docs/design.md's pipeline:

    load config → start the agent → recon → plan → execute → judge → score and manifest → reports

Each stage is a function of khaos_action/pipeline/ (or of the package it wires in) with typed input and output;
each takes the settings the config stage made for it, never the whole config, and none writes into an earlier
stage's output. The CLI and entrypoint.py are thin shells over `evaluate`: they build the run's `Services`
(environment, HTTP clients, clock, git) and this module hands them down. Nothing here reads os.environ or builds an
HTTP client itself.
"""

from __future__ import annotations

import contextlib
import secrets as pysecrets
from collections.abc import Coroutine, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from khaos_action import gc_freeze
from khaos_action.errors import UsageError, output_error
from khaos_action.reporters import run_files
from khaos_action.run_api import EvaluateRequest, EvaluateResult
from khaos_action.services import Services

# The models, the engine and every stage's packages are imported where they are used: `evaluate` starts the python
# worker's zygote before them, and it boots on the other core meanwhile (engine/transport/early.py).
if TYPE_CHECKING:
    from khaos_action.engine.worker.zygote_process import ZygoteProcess
    from khaos_action.manifest import GitInfo, Manifest
    from khaos_action.pipeline.config import RunConfig
    from khaos_action.pipeline.manifest import RunRecord
    from khaos_action.progress import Progress

T = TypeVar("T")


def evaluate(request: EvaluateRequest, *, services: Services) -> EvaluateResult:
    """One run of `request`; `services` is what it takes from the world (built by the shell that calls it)."""
    from khaos_action.config.yaml_file import read_config
    from khaos_action.engine.transport.early import early_zygote

    source = read_config(request.config_path)  # khaos.yaml, read and parsed once (no models yet)
    # Started first, from the parsed YAML alone, to boot while the config is validated; adopted by the session
    # only if it is the zygote the validated config starts.
    early = early_zygote(source, services.environ)
    try:
        from khaos_action.pipeline.config import load_run

        with gc_freeze.bulk():
            run = load_run(request, source)                                              # 1. load config
        claim_out_dir(request.out_dir, force=request.force)
        started = _timestamp(services.clock())
        progress = services.progress()  # on stderr while the cases run; cleared before the shell prints the summary
        try:
            with _judging_models(run.similarity_backend):
                record = run_async(run_agent(run, request, services, early=early, progress=progress))  # 2.–6.
        finally:
            progress.close()
    finally:
        if early is not None:  # the session's, ended with it; or not adopted (an error, Ctrl-C, another command)
            early.discard()
    from khaos_action.pipeline.manifest import build_manifest, mask

    with gc_freeze.bulk():
        manifest = build_manifest(run.manifest, record, run_id=request.out_dir.name, started_at=started,  # 7.
                                  finished_at=_timestamp(services.clock()), git=_git_info(services),
                                  shard=request.shard, warnings=run.warnings)
        del record  # the manifest holds the results; the plan and the rest can go
        manifest = mask(manifest, run.manifest)
        reports = write_reports(manifest, request.out_dir, request.formats)              # 8. reports
    return EvaluateResult(manifest=manifest, out_dir=request.out_dir, reports=reports)


async def run_agent(run: RunConfig, request: EvaluateRequest, services: Services, *,
                    early: ZygoteProcess | None = None, progress: Progress | None = None) -> RunRecord:
    """The stages that need the agent: start it, see what it exposes, plan for it, run the plan, judge the run."""
    from khaos_action.engine.events import EventLog
    from khaos_action.engine.runner import InstanceBinder
    from khaos_action.pipeline import preimport
    from khaos_action.redact import Redactor
    from khaos_action.session import agent_session

    setup, binder = run.agent, InstanceBinder()
    redactor = Redactor(list(setup.llm.secrets))
    events = EventLog(request.out_dir / "events.jsonl", redact=redactor.data if redactor else None)
    try:
        async with agent_session(setup, binder, services, meanwhile=preimport.import_planning,       # 2. start
                                 early=early) as session, contextlib.AsyncExitStack() as stack:
            from khaos_action.engine.llm_runtime import build_runtime, outcome, telemetry_section
            from khaos_action.pipeline.execute import Attack, engine_for, execute
            from khaos_action.pipeline.plan import plan_run
            from khaos_action.pipeline.recon import recon
            from khaos_action.transports import transport_entry

            found = recon(session, setup.agent, setup.base_dir)                                     # 3. recon
            llm = build_runtime(setup.llm, setup.base_dir, services.environ)  # cassette, prices, budget meter
            attack = Attack()
            if run.attacker is not None:
                from khaos_action.attacker.stage import attacker_session

                client = await stack.enter_async_context(attacker_session(run.attacker, llm, services))
                attack = Attack(client, run.attacker.strategies, run.attacker.max_turns, found.profile.as_dict())
            plan = await plan_run(run.plan, found, agent=setup.agent, services=services,            # 4. plan
                                  attacker=attack.client, shard=request.shard)
            engine, serial = engine_for(session, plan, agent=setup.agent, concurrency=setup.concurrency, llm=llm,
                                        events=events, binder=binder, judge=run.judge, progress=progress,
                                        run_id=request.out_dir.name)
            executed = await execute(                                                                # 5. execute
                engine, plan, run.judge, found, golden=run.plan.prompt_texts(),
                in_process=transport_entry(setup.agent.type).in_process, attack=attack,
                probe_prompt=run.probe_prompt, shard=request.shard,
                meanwhile=lambda: preimport.import_later_stages(request.formats))
            from khaos_action.judge.stage import judge_run

            judged = await judge_run(executed.results, executed.cases, run.judge,                   # 6. judge
                                     baseline_replies=executed.baseline_replies, services=services)
            faults = [f.as_dict() for case in plan.cases for f in case.faults]
            unreached = session.unreached(faults, judged.results)
            from khaos_action.pipeline.manifest import RunRecord
            from khaos_action.plan.cases import invocation_key

            stopped = outcome(llm, [invocation_key(c) for c in executed.cases],
                              {invocation_key(r) for r in judged.results})
            pace = engine.pace.advice()  # calls cut off by agent.timeout_s: which setting, the latency seen
            return RunRecord(
                plan=plan, results=judged.results,
                skipped=[*plan.skipped, *executed.not_exercised, *judged.undelivered],
                profile=found.profile, profile_sources=found.sources, attack_surface=executed.attack_surface,
                warnings=run_warnings(pace=pace, serial=serial, notes=executed.notes, crashes=judged.crashes,
                                      state=executed.state_warnings, llm_judge=judged.llm_judge,
                                      unreached=unreached, engine=engine.warnings, budget=stopped.warnings),
                telemetry=telemetry_section(llm), not_run=stopped.not_run, extra_reasons=stopped.reasons,
                tool_roles=found.tool_roles)
    finally:
        events.close()


def run_warnings(*, pace: str | None, serial: str | None, notes: Sequence[str], crashes: Sequence[str],
                 state: Sequence[str], llm_judge: Sequence[str], unreached: Sequence[str], engine: Sequence[str],
                 budget: Sequence[str]) -> list[str]:
    """The run's own warnings (after the config's and the plan's), in the order a reader meets their causes."""
    return [*([pace] if pace else []), *([serial] if serial else []), *notes, *crashes, *state, *llm_judge,
            *unreached, *engine, *budget]


def run_async(coroutine: Coroutine[Any, Any, T]) -> T:
    """`asyncio.run`, with the result handed back outside the main task: CPython 3.10–3.12 format that task, result
    included, when they restore the SIGINT handler (seconds of CPU at scale)."""
    import asyncio

    box: list[T] = []

    async def main() -> None:
        box.append(await coroutine)

    asyncio.run(main())
    return box[0]


@contextlib.contextmanager
def _judging_models(similarity_backend: str) -> Any:
    """The run's optional models for the judge: the similarity backend (lexical needs no import of the semantic
    extra), and tool roles by meaning when that extra is installed."""
    from khaos_action.judge.role_meaning import role_meaning

    if similarity_backend == "lexical":
        with role_meaning():
            yield
        return
    from khaos_action.judge.embeddings import similarity_backend as backend

    with backend(similarity_backend), role_meaning():
        yield


def write_reports(manifest: Manifest, out_dir: Path, formats: Sequence[str]) -> dict[str, Path]:
    from khaos_action.report import writers

    return writers.write_all(manifest, out_dir, formats)


def claim_out_dir(out_dir: Path, *, force: bool) -> None:
    """A run directory holds one run: refuse one that already has a run's files unless `force`, which removes
    them first (only them: `--out .` must never delete anything else). Two runs never share an events.jsonl."""
    if out_dir.exists() and not out_dir.is_dir():
        raise UsageError(f"--out {out_dir} is a file, not a directory; choose a directory")
    present = [name for name in run_files() if (out_dir / name).exists()]
    if present and not force:
        raise UsageError(f"--out {out_dir} already holds a run ({', '.join(present)}); choose a new directory, "
                         "or pass --force to replace that run")
    from khaos_action.atomic import make_dirs, remove

    make_dirs(out_dir)  # through no link in the action's workspace: a committed one is refused, naming it
    try:
        for name in present:
            remove(out_dir / name)
    except OSError as exc:
        raise output_error(out_dir, exc) from None


def new_run_id(now: datetime) -> str:
    """A run directory's name: the UTC time the shell started it, and 6 random hex digits."""
    return now.astimezone(timezone.utc).strftime("%Y%m%dT%H%M%SZ") + "-" + pysecrets.token_hex(3)


def _git_info(services: Services) -> GitInfo:
    from khaos_action.manifest import GitInfo

    sha, ref = services.git_head()
    return GitInfo(sha=sha, ref=ref)


def _timestamp(now: datetime) -> str:
    return now.astimezone(timezone.utc).isoformat(timespec="seconds")
