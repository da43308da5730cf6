"""`khaos-action` command line: argument parsing, the one error boundary, and terminal summaries.

Heavy modules are imported inside the commands so `khaos-action --help` stays fast.
Exit codes (khaos_action/errors.py, docs/spec.md): 0 passed · 1 gate failed · 2 config or usage error · 3 the agent
could not be run · 4 internal error.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from khaos_action import __version__
from khaos_action.errors import ExitCode, exit_now, guard
from khaos_action.reporters import REPORTERS, default_formats

FORCE_HELP = "replace the run already in --out (without it, an --out holding a run is refused)"
QUIET_HELP = ("show no progress while the run works (by default a live bar on a terminal, a line every few seconds "
              "otherwise; on stderr)")
EXTENSION_HELP = ("import this module or .py file first: its faults, invariants, transports and formats register "
                  "(repeatable; it runs in this process, so name only code you trust)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="khaos-action",
        description="Chaos and red-team evaluation of AI agents that gates pull requests.",
        epilog="Exit codes: 0 passed, 1 gate failed, 2 config or usage error, 3 the agent could not be run, "
               "4 internal error (a bug: please report it).",
    )
    parser.add_argument("--version", action="version", version=f"khaos-action {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks for errors")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    init = sub.add_parser("init", help="inspect an agent and write a starter khaos.yaml (the first command)")
    init.add_argument("path", type=Path, nargs="?", default=Path("."), help="where to look for @khaosagent")
    init.add_argument("--entry", default=None, help="the agent: path/to/agent.py:handle (or an agent object)")
    init.add_argument("-o", "--output", type=Path, default=Path("khaos.yaml"))
    init.add_argument("--force", action="store_true", help="overwrite an existing file")

    run = sub.add_parser("run", help="evaluate the agent described by khaos.yaml")
    _run_options(run)

    demo = sub.add_parser("demo", help="run the quickstart against the bundled example agent (offline, no key)")
    demo.add_argument("--out", type=Path, help="output directory (default .khaos/runs/<run_id>)")
    demo.add_argument("--force", action="store_true", help=FORCE_HELP)
    demo.add_argument("-q", "--quiet", action="store_true", help=QUIET_HELP)

    validate = sub.add_parser("validate", help="check khaos.yaml and its packs without calling the agent")
    validate.add_argument("-c", "--config", type=Path, default=Path("khaos.yaml"))
    _extension_option(validate)

    contract = sub.add_parser("contract", help="behavioral contracts over the chaos matrix only")
    contract_sub = contract.add_subparsers(dest="contract_command", metavar="ACTION", required=True)
    for name, text in (("run", "run the contract and print the matrix"), ("validate", "check the contract"),
                       ("score", "print only the contract resilience score")):
        p = contract_sub.add_parser(name, help=text)
        p.add_argument("-c", "--config", type=Path, default=Path("khaos.yaml"))
        _extension_option(p)
        if name != "validate":
            p.add_argument("--out", type=Path, help="output directory")
            p.add_argument("--force", action="store_true", help=FORCE_HELP)
            p.add_argument("-q", "--quiet", action="store_true", help=QUIET_HELP)

    compare = sub.add_parser("compare", help="compare two run manifests case by case")
    compare.add_argument("base", type=Path)
    compare.add_argument("head", type=Path)
    compare.add_argument("--format", choices=("md", "json"), default="md")

    merge = sub.add_parser("merge", help="combine shard manifests into one run")
    merge.add_argument("manifests", type=Path, nargs="+")
    merge.add_argument("--out", type=Path, required=True)
    merge.add_argument("-c", "--config", type=Path, default=None, help="khaos.yaml, to re-apply its gates")
    merge.add_argument("--format", default=",".join(default_formats()))
    merge.add_argument("--expect", type=_shard_count, default=None, metavar="N",
                       help="the run was split into N shards: every manifest must be one of them")
    merge.add_argument("--allow-partial", action="store_true",
                       help="decide on the shards given when some are missing (the verdict says so); without it "
                            "a missing shard fails the merged run")
    _extension_option(merge)

    post = sub.add_parser("post-comment", help="in a workflow_run workflow: post the comment file a pull request's "
                                               "run uploaded, on that run's own pull request (fork-safe pattern)")
    post.add_argument("file", type=Path, help="the comment file the action wrote (output `comment-file`)")

    discover = sub.add_parser("discover", help="find @khaosagent functions")
    discover.add_argument("path", type=Path, nargs="?", default=Path("."))

    replay = sub.add_parser("replay", help="replay sessions")
    replay_sub = replay.add_subparsers(dest="replay_command", metavar="ACTION", required=True)
    export = replay_sub.add_parser("export", help="turn a manifest's failing cases into replay sessions (JSONL)")
    export.add_argument("manifest", type=Path)
    export.add_argument("-o", "--output", type=Path, default=None, help="file to write (default: stdout)")
    return parser


def _run_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("-c", "--config", type=Path, default=Path("khaos.yaml"), help="config file (default khaos.yaml)")
    p.add_argument("--pack", action="append", default=[], help="run this pack instead of the config's (repeatable)")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--concurrency", type=_bounded(int, 1, 512), default=None, help="cases in flight at once (1-512)")
    p.add_argument("--out", type=Path, default=None, help="output directory (default .khaos/runs/<run_id>)")
    p.add_argument("--force", action="store_true", help=FORCE_HELP)
    p.add_argument("--shard", default=None, help="run slice I of N, e.g. 2/4")
    p.add_argument("--format", default=",".join(default_formats()), help=f"comma list of {', '.join(REPORTERS)}")
    p.add_argument("--min-score", type=_bounded(float, 0, 100), default=None,
                   help="fail below this overall score (0-100)")
    p.add_argument("-q", "--quiet", action="store_true", help=QUIET_HELP)
    _extension_option(p)


def _bounded(kind: type, low: float, high: float):
    """An argparse type: a number of `kind` within [low, high], else a usage error (exit 2) before anything runs,
    as the config and the action's inputs bound the same settings."""
    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{text} is out of range: {low:g} to {high:g}")
        return value
    return parse


def _shard_count(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of shards (1 or more)")
    return int(text)


def _extension_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--extension", action="append", default=[], metavar="MODULE_OR_FILE.py", help=EXTENSION_HELP)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)  # `--help` and usage errors exit here: no agent ever runs, nothing to hide
    if argv is None:  # a real process (not a test calling main): keep the runner's secrets out of /proc/PID/environ
        from khaos_action.engine.sandbox import hide_runner_secrets

        hide_runner_secrets(["-m", "khaos_action.cli", *sys.argv[1:]])
    if args.command is None:
        parser.print_help()
        return ExitCode.CONFIG

    def body() -> int:
        from khaos_action import commands

        return getattr(commands, f"cmd_{args.command.replace('-', '_')}")(args)

    code = guard(body, say=report_error, debug=args.debug)
    if argv is None:
        from khaos_action import gc_freeze

        # Ends the process here (errors.exit_now) unless another thread still runs and nothing is held (gc_freeze.hold:
        # what it holds is never freed object by object).
        return exit_now(code, wait_for_threads=not gc_freeze.holding())
    return code


def report_error(message: str) -> None:
    if os.environ.get("GITHUB_ACTIONS") == "true":
        from khaos_action.github.workflow import escape_data

        print(f"::error::{escape_data(message)}", file=sys.stderr)
    else:
        print(f"error: {message}", file=sys.stderr)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
