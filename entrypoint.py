"""The Docker action's entrypoint: read settings, hide the token from pull-request code, install, run the action.

Thin on purpose (the flow lives in khaos_action.github.action, the set-up in khaos_action.github.prepare). Order
matters: settings are read and every secret-bearing variable is removed from os.environ, and the workspace's
credentials are hidden and the caps set, BEFORE the `install` command runs or the evaluation imports the agent,
because both execute code from the pull request. This is a shell: it reads os.environ and builds the run's
`Services` (khaos_action/services.py) and the GitHub HTTP client; nothing below it does.

Which function evaluates is `main(evaluate=...)`'s parameter (default `khaos_action.evaluate.evaluate`), never the
environment's choice; tests run the entrypoint with another one through tests/action_launcher.py.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys

SCRUBBED = (
    "GITHUB_TOKEN", "ACTIONS_RUNTIME_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_URL",
    "ACTIONS_RUNTIME_URL", "ACTIONS_CACHE_URL", "ACTIONS_RESULTS_URL",
    # Workflow command files: code from the PR must not set outputs, env or PATH for later steps.
    "GITHUB_OUTPUT", "GITHUB_ENV", "GITHUB_PATH", "GITHUB_STATE", "GITHUB_STEP_SUMMARY",
)


def scrub_environment(environ: dict[str, str] | os._Environ[str], token: str | None) -> list[str]:
    """Remove inputs, runner tokens, command files and anything holding the token's value. Returns what went."""
    removed = [k for k in list(environ) if k.startswith("INPUT_") or k in SCRUBBED
               or (token and token in environ.get(k, ""))]
    for key in removed:
        environ.pop(key, None)
    return removed


def _interrupt(_signum: int, _frame: object) -> None:
    raise KeyboardInterrupt


def main(evaluate=None) -> int:  # type: ignore[no-untyped-def]
    """The action. `evaluate(request, *, services)` runs the evaluation (default: khaos_action.evaluate.evaluate)."""
    from khaos_action.github.action import boundary
    from khaos_action.github.finish import Finish
    from khaos_action.github.workflow import WorkflowLog

    log = WorkflowLog()
    # Read before set-up removes them from os.environ: where the summary, the outputs and the workspace are.
    environ, cwd = dict(os.environ), os.getcwd()
    finishing = Finish.of_environ(environ, cwd)
    # A cancelled job's container is stopped with SIGTERM; as PID 1 without a handler we would not even notice, and
    # the kill that follows leaves root-owned files and no summary. As an interrupt it goes through the boundary.
    signal.signal(signal.SIGTERM, _interrupt)
    # The one boundary, around set-up and the whole flow: a bug is exit 4 with a traceback, where workflow commands
    # are stopped; settings and install errors get a summary and outputs like any other exit.
    return boundary(lambda: _main(log, environ, cwd, finishing, evaluate), log=log, on_exit=finishing)


def _main(log, environ: dict[str, str], cwd: str, finishing, evaluate) -> int:  # type: ignore[no-untyped-def]
    from khaos_action.engine.sandbox import agent_identity
    from khaos_action.errors import KhaosError
    from khaos_action.github import prepare
    from khaos_action.github.settings import ActionSettings

    try:
        settings = ActionSettings.from_environ(environ)
    except KhaosError:
        scrub_environment(os.environ, environ.get("INPUT_GITHUB-TOKEN") or environ.get("GITHUB_TOKEN"))
        raise
    token = settings.token
    log.mask(token)  # the one place the token is masked: before anything else is printed
    tokens = prepare.job_tokens(environ, token)
    scrub_environment(os.environ, token)
    if not token:
        log.warning("no `github-token`: the PR comment and the baseline artifact are unavailable "
                    "(the evaluation and its verdict are unaffected)")

    places = settings.places(cwd)  # the workspace and the working directory, for set-up and the flow alike
    finishing.settle(settings, places)
    workspace, workdir = str(places.workspace), str(places.workdir)
    prepare.enter(workspace, workdir)  # relative paths in khaos.yaml resolve as in a local run
    # The run's environment: ours once the secrets are gone (the agent's processes get a clean copy of it).
    run_environ = dict(os.environ)
    identity = agent_identity(run_environ)
    with contextlib.ExitStack() as cleanup:
        # Before any pull-request code: credentials hidden from it, caps on all it runs (undone by `cleanup`).
        prepare.hide_credentials(workspace, environ, tokens, identity, log, cleanup)
        watchdog = prepare.contain(settings, identity, workspace, cleanup)
        if settings.install:
            python = prepare.install(settings, workdir, log, run_environ, watchdog, cleanup)
            if python:
                from khaos_action.engine.worker.start import PYTHON_ENV

                run_environ[PYTHON_ENV] = python  # the python agent worker runs with the user's packages
        if watchdog is not None:
            watchdog.phase = "run"

        from khaos_action.github.action import run_action
        from khaos_action.github.client import GitHubClient, make_http_client
        from khaos_action.progress import progress_for
        from khaos_action.services import Services

        # The log is no terminal: a plain progress line every few seconds on stderr (counts only, no agent text).
        services = Services(environ=run_environ, progress=progress_for(sys.stderr))
        if evaluate is None:
            from khaos_action.evaluate import evaluate

        github = None
        if token:
            http = make_http_client(settings.GITHUB_API_URL, token, factory=services.http)
            cleanup.callback(http.close)
            github = GitHubClient(http, max_wait_s=settings.github_max_wait)
        try:
            return run_action(settings, places=places, github=github, evaluate=evaluate, services=services, log=log)
        finally:  # a cap the agent went over explains a failed run too
            for breach in watchdog.breaches if watchdog is not None else ():
                log.warning(breach.describe())


def launch(argv: list[str], evaluate=None) -> int:  # type: ignore[no-untyped-def]
    """What `python entrypoint.py` does: exec `argv` again without the runner's secrets, then `main`."""
    from khaos_action.engine.sandbox import hide_runner_secrets

    # The token must not stay in our exec-time environment (/proc/1/environ in the container): exec again without it.
    hide_runner_secrets(argv)
    return main(evaluate)


if __name__ == "__main__":
    sys.exit(launch([os.path.abspath(__file__)]))
