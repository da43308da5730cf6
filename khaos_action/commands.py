"""The CLI's commands: each turns parsed arguments into calls of the library and prints what a person needs."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from khaos_action.atomic import stamp
from khaos_action.errors import ExitCode, Interrupted
from khaos_action.outcome import Phase
from khaos_action.reporters import parse_formats
from khaos_action.run_api import EvaluateRequest, EvaluateResult

if TYPE_CHECKING:
    from khaos_action.services import Services

RUNS_DIR = Path(".khaos") / "runs"


def services(*, quiet: bool = True) -> Services:
    """The run's view of this process (the CLI is a shell: the one place that reads os.environ for a run); its
    progress on stderr unless `quiet`."""
    from khaos_action.progress import progress_for
    from khaos_action.services import Services

    return Services(environ=dict(os.environ), progress=progress_for(sys.stderr, quiet=quiet))


Command = Callable[[argparse.Namespace], int]


def on_interrupt(message: Callable[[argparse.Namespace], str | None]) -> Callable[[Command], Command]:
    """Ctrl-C in the command is exit 130 with `message(args)`: what it left behind (errors.Interrupted). None
    leaves it to the command itself (a run's `keeping_cases`) or the boundary's own message."""
    def wrap(command: Command) -> Command:
        def guarded(args: argparse.Namespace) -> int:
            try:
                return command(args)
            except KeyboardInterrupt:
                said = message(args)
                if said is None:
                    raise
                raise Interrupted(said) from None
        return guarded
    return wrap


def writes_nothing(name: str) -> str:
    return f"{name} interrupted; it writes no files: run it again"


@contextmanager
def writing(path: Path, name: str) -> Iterator[None]:
    """Ctrl-C in the block says whether `name` wrote `path` (written whole or not at all: atomic.py), and that a
    file already there is as it was."""
    before = stamp(path)
    try:
        yield
    except KeyboardInterrupt:
        after = stamp(path)
        if after is not None and after != before:
            raise Interrupted(f"{name} interrupted after it wrote {path}") from None
        kept = " (the file already there is as it was)" if before is not None else ""
        raise Interrupted(f"{name} interrupted: {path} was not written{kept}; run it again") from None


def cmd_run(args: argparse.Namespace) -> int:
    from khaos_action.engine.events import keeping_cases
    from khaos_action.evaluate import evaluate, new_run_id
    from khaos_action.extensions import load_extensions
    from khaos_action.gc_freeze import hold
    from khaos_action.plan.scheduler import parse_shard

    load_extensions(args.extension, base_dir=Path.cwd())  # before --format is read: an extension may add one
    formats = parse_formats(args.format)
    run = services(quiet=args.quiet)
    request = EvaluateRequest(
        config_path=args.config, out_dir=args.out or RUNS_DIR / new_run_id(run.clock()), packs=tuple(args.pack),
        seed=args.seed, concurrency=args.concurrency, shard=parse_shard(args.shard) if args.shard else None,
        min_score=args.min_score, formats=formats, force=args.force, extensions=tuple(args.extension),
    )
    with keeping_cases(request.out_dir):
        result = hold(evaluate(request, services=run))  # a 50k-case run's results are not freed one by one at exit
    link_latest(result.out_dir)
    print(summary(result))
    return result.manifest.verdict.exit_code


def cmd_init(args: argparse.Namespace) -> int:
    with writing(args.output, "init"):
        return _init(args)


def _init(args: argparse.Namespace) -> int:
    from khaos_action.init import init_config
    from khaos_action.judge.role_meaning import role_meaning

    # The agent's code is imported in a sandboxed worker, never here: this process may hold the runner's token.
    with role_meaning():
        path, found = init_config(args.output, entry=args.entry, search=args.path, environ=services().environ,
                                  force=args.force)
    print(f"wrote {path}: agent {found.entry} ({found.agent_type}), {len(found.tools)} tools")
    for _, role in found.tools:
        print(f"  tool {role.label()}")
    for note in found.notes:
        print(f"  note: {note}")
    print(f"next: replace the TODO golden prompts in {path}, check the roles, then `khaos-action validate -c {path}`")
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from khaos_action.demo import demo_config_path
    from khaos_action.engine.events import keeping_cases
    from khaos_action.evaluate import evaluate, new_run_id

    run = services(quiet=args.quiet)
    out = args.out or RUNS_DIR / new_run_id(run.clock())
    print("khaos-action demo: the quickstart pack and a behavioral contract against the bundled support agent\n"
          f"(agent and config: {demo_config_path().parent})\n")
    with keeping_cases(out):
        result = evaluate(EvaluateRequest(config_path=demo_config_path(), out_dir=out, force=args.force),
                          services=run)
    link_latest(result.out_dir)
    print(summary(result))
    return result.manifest.verdict.exit_code


@on_interrupt(lambda args: writes_nothing("validate"))
def cmd_validate(args: argparse.Namespace) -> int:
    from khaos_action.judge.role_meaning import role_meaning

    with role_meaning():  # tool roles from meaning too, when the `semantic` extra is installed
        return _validate(args)


def _validate(args: argparse.Namespace) -> int:
    from khaos_action.attacks.capabilities import describe_source
    from khaos_action.engine.agent_check import AgentCheck, check_agent
    from khaos_action.engine.agent_tools import agent_tools
    from khaos_action.pipeline.config import load_run
    from khaos_action.pipeline.plan import make_plan
    from khaos_action.pipeline.recon import recon_of

    # The agent's code is imported in a sandboxed worker, never here: this process may hold the runner's token.
    checked: list[AgentCheck] = []

    def agent_code(code, extensions):
        from khaos_action.engine.worker.start import python_agent_env
        from khaos_action.session import worker_extensions
        from khaos_action.transports import transport_entry

        environ, agent = services().environ, code.agent
        checked.append(check_agent(code, environ=environ, env=python_agent_env(agent, environ),
                                   extensions=worker_extensions(extensions, transport_entry(agent.type))))
        return checked[0].code

    run = load_run(EvaluateRequest(config_path=args.config, out_dir=Path("."), extensions=tuple(args.extension)),
                   agent_code=agent_code)
    agent = run.agent.agent
    # The recon `run` will make: the entry and tools imported (never called), declared roles first.
    check = checked[0]
    check.raise_for("tools")
    check.raise_for("context")  # a framework agent object's declared context, checked against agent.context
    tools, metadata = check.seen or agent_tools(agent, run.agent.base_dir, import_code=False)
    found = recon_of(agent, tools, metadata)
    plan = make_plan(run.plan, found)
    print(f"{args.config}: valid")
    print(f"  agent {agent.name} ({agent.type}); packs: {', '.join(run.manifest.packs) or 'none'}")
    by_phase: dict[Phase, int] = {}
    for case in plan.cases:
        by_phase[case.phase] = by_phase.get(case.phase, 0) + 1
    print(f"  {len(plan.cases)} cases planned: " + ", ".join(f"{n} {p}" for p, n in by_phase.items()))
    indirect = sum(1 for case in plan.cases if case.phase == Phase.SECURITY and case.injections)
    if by_phase.get(Phase.SECURITY):
        print(f"  attacks: {by_phase[Phase.SECURITY]} selected ({indirect} indirect: each rides on a golden prompt the "
              f"baseline shows reaching its channel, else it is listed as not exercised), "
              f"{len(plan.skipped)} not applicable")
    print(f"  config_hash {plan.config_hash}, seed {plan.seed}")
    if check.context:
        print(f"  context: {check.context}, made per case by agent.context {agent.context}")
    if found.roles:
        print("  tools: " + "; ".join(role.label() for role in found.roles))
    print("  capabilities:")
    for flag, value in found.profile.as_dict().items():
        print(f"    {flag:<20}{'yes' if value else 'no':<5}from {describe_source(found.sources[flag])}")
    for note in [*run.warnings, *plan.notes]:
        print(f"  warning: {note}")
    return 0


@on_interrupt(lambda args: writes_nothing("contract validate") if args.contract_command == "validate" else None)
def cmd_contract(args: argparse.Namespace) -> int:
    from khaos_action.engine.events import keeping_cases
    from khaos_action.evaluate import evaluate, new_run_id

    if args.contract_command == "validate":  # `run` and `score`: `evaluate` loads (and checks) the contract
        from khaos_action.pipeline.config import load_run
        from khaos_action.pipeline.plan import make_plan

        run = load_run(EvaluateRequest(config_path=args.config, out_dir=Path("."), contract_only=True,
                                       extensions=tuple(args.extension)))
        contract = run.contract
        assert contract is not None  # the config stage checked it (contract_only)
        plan = make_plan(run.plan)
        print(f"{args.config}: contract {contract.name!r} valid: {contract.invariants} invariants × "
              f"{contract.scenarios} scenarios → {len(plan.cases)} calls")
        for note in run.warnings:
            print(f"  warning: {note}")
        return 0
    run = services(quiet=args.quiet)
    out = args.out or RUNS_DIR / new_run_id(run.clock())
    with keeping_cases(out):
        result = evaluate(EvaluateRequest(config_path=args.config, out_dir=out, contract_only=True,
                                          force=args.force, extensions=tuple(args.extension)), services=run)
    link_latest(result.out_dir)
    contract = result.manifest.scores.contract
    critical = [f for f in result.manifest.verdict.findings if f.is_critical]
    passed = contract is not None and not critical
    if args.contract_command == "score":
        print("not run" if contract is None else f"{contract:.1f}")
    else:
        print(summary(result))
    return ExitCode.PASSED if passed else ExitCode.GATE_FAILED


@on_interrupt(lambda args: writes_nothing("compare"))
def cmd_compare(args: argparse.Namespace) -> int:
    from khaos_action.gc_freeze import bulk, hold
    from khaos_action.manifest_read import Outcomes, load_manifest
    from khaos_action.report.comparison import render_comparison_markdown
    from khaos_action.score.compare import compare_manifests

    base, head = hold(load_manifest(args.base, Outcomes)), hold(load_manifest(args.head, Outcomes))
    with bulk():  # aggregates and their lists, two per case: not worth the collector's scans
        comparison = compare_manifests(base, head)
    if args.format == "json":
        print(comparison.model_dump_json(indent=2))
    else:
        print(render_comparison_markdown(comparison))
    # Bad input raised ManifestError above (exit 2).
    return ExitCode.GATE_FAILED if comparison.regression else ExitCode.PASSED


def cmd_merge(args: argparse.Namespace) -> int:
    from khaos_action.extensions import load_extensions
    from khaos_action.gc_freeze import hold
    from khaos_action.report.merge import merge_manifests

    try:
        load_extensions(args.extension, base_dir=Path.cwd())  # before --format is read: an extension may add one
        formats = parse_formats(args.format)
    except KeyboardInterrupt:
        raise Interrupted(f"merge interrupted: nothing was written to {args.out}; run merge again") from None
    result = hold(merge_manifests(args.manifests, out_dir=args.out, config_path=args.config, formats=formats,
                                  expect=args.expect, allow_partial=args.allow_partial))
    try:
        print(summary(result))
    except KeyboardInterrupt:
        raise Interrupted(f"merge interrupted after it wrote every file (in {args.out})") from None
    return result.manifest.verdict.exit_code


def cmd_post_comment(args: argparse.Namespace) -> int:
    from khaos_action.github.relay import post_from_environ

    world = services()
    for line in post_from_environ(args.file, environ=world.environ, http=world.http):
        print(f"post-comment: {line}")  # never at a line's start: no workflow command
    return ExitCode.PASSED


@on_interrupt(lambda args: writes_nothing("discover"))
def cmd_discover(args: argparse.Namespace) -> int:
    from khaos_action.discover import discover, format_discovered

    found = discover(args.path)
    print(format_discovered(found))
    return 0 if found else 1


@on_interrupt(lambda args: "replay export interrupted: the sessions it printed (if any) are incomplete; run it again")
def cmd_replay(args: argparse.Namespace) -> int:
    if args.output:
        with writing(args.output, "replay export"):
            return _replay(args)
    return _replay(args)


def _replay(args: argparse.Namespace) -> int:
    from khaos_action.manifest_read import load_manifest
    from khaos_action.replay.export import export_report

    exported = export_report(load_manifest(args.manifest))
    lines = "".join(json.dumps(s, ensure_ascii=False) + "\n" for s in exported.sessions)
    if args.output:
        from khaos_action.atomic import write_atomic

        write_atomic(args.output, lines)
        print(f"wrote {len(exported.sessions)} sessions to {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(lines)
    for case_id, reason in exported.skipped:
        print(f"not exported: case {case_id}: {reason}", file=sys.stderr)
    return 0


def link_latest(out_dir: Path) -> None:
    """`.khaos/latest` → the last run's directory (a symlink; a text file where symlinks are not allowed)."""
    from khaos_action.atomic import symlink, write_atomic

    latest = Path(".khaos") / "latest"
    try:
        symlink(os.path.relpath(out_dir.resolve(), latest.parent.resolve()), latest)
    except OSError:
        write_atomic(latest, str(out_dir.resolve()) + "\n")


def summary(result: EvaluateResult, colour: bool | None = None) -> str:
    """The run as the console shows it. `colour` (default: stdout is a terminal and NO_COLOR is unset): the headline
    in the verdict's colour, green only when the run passed."""
    from khaos_action.report.headline import headline

    m = result.manifest
    if colour is None:
        colour = sys.stdout.isatty() and "NO_COLOR" not in os.environ
    lines = [f"WARNING: {alert}" for alert in m.alerts]
    line = headline(m)
    lines.append(f"\033[{'32' if m.verdict.passed else '31'};1m{line}\033[0m" if colour else line)
    lines.append(f"  {m.agent.name}  (run {m.run_id}, seed {m.seed}, config {m.config_hash})")
    for reason in m.verdict.reasons:
        lines.append(f"  - {reason}")
    lines.append("")
    for name in ("overall", "baseline", "resilience", "security", "contract", "chaos", "mutation", "replay"):
        value = getattr(m.scores, name)
        shown = "not run" if value is None else f"{value:5.1f}"
        note = m.score_notes.get(name, "")
        lines.append(f"  {name:<11}{shown:>8}   {note}")
    c = m.counts
    lines.append("")
    lines.append(f"  {c.invocations} invocations, {c.errors} errors, {c.not_exercised} not exercised; faults fired "
                 f"{c.faults_fired}/"
                 f"{c.faults_configured}; attacks: {c.attacks_executed} executed ({c.blocked} blocked, "
                 f"{c.compromised} compromised, {c.uncertain} uncertain), {c.attacks_skipped} not applicable")
    from khaos_action.report.breakdown import console_lines
    from khaos_action.score.actions import consequential_calls
    from khaos_action.score.actions import console_lines as action_lines

    lines += console_lines(m)
    lines += action_lines(consequential_calls(m.cases, m.tool_roles))
    for warning in m.warnings:
        lines.append(f"  warning: {warning}")
    lines.append("")
    for kind, path in sorted(result.reports.items()):
        lines.append(f"  {kind:<6} {path}")
    return "\n".join(lines)
