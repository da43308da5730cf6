"""What the action does before any pull-request code runs, and undoes when it ends: it enters the working directory
without following a link, makes the credentials a workflow left in the workspace unreadable to the agent user, caps
everything that user runs, and runs `install` within its time limit.

Called by entrypoint.py (the shell) in this order, each undoing step registered on the shell's ExitStack.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path

from khaos_action.engine import watchdog as watchdog_mod
from khaos_action.engine.install import Installed, run_install, stop_group
from khaos_action.engine.sandbox import Identity, limits_from
from khaos_action.errors import AgentError, ConfigError, Interrupted
from khaos_action.github import credentials
from khaos_action.github.settings import ActionSettings
from khaos_action.github.workflow import WorkflowLog
from khaos_action.nofollow import confine, open_dir

TOKEN_VARIABLES = ("GITHUB_TOKEN", "ACTIONS_RUNTIME_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_TOKEN")


def enter(workspace: str, workdir: str) -> None:
    """chdir into the working directory, reached from the workspace without following a link (a committed link is
    an error naming it, exit 3); a missing one is left to the action's own check (exit 2)."""
    with confine(workspace):
        try:
            with open_dir(workdir) as fd:
                os.fchdir(fd)
        except (FileNotFoundError, NotADirectoryError):
            pass


def job_tokens(environ: Mapping[str, str], token: str | None) -> set[str]:
    """The job's credentials whose value a workspace file must not hold (the input's token, the runner's)."""
    return {value for value in (token, *(environ.get(name) for name in TOKEN_VARIABLES)) if value}


def hide_credentials(workspace: str, environ: Mapping[str, str], tokens: set[str], identity: Identity | None,
                     log: WorkflowLog, cleanup: contextlib.ExitStack) -> None:
    """Credentials left in the workspace (the checkout's persisted token) and the runner's own folders become
    unreadable to the agent user until the action ends (khaos_action/github/credentials.py)."""
    found = credentials.find_credentials(Path(workspace), tokens=tokens, home=environ.get("HOME"))
    shown = ", ".join(sorted(os.path.relpath(p, workspace) if p.startswith(workspace + os.sep) else p
                             for p in found))
    if identity is None:
        if found:
            log.warning(f"the workspace holds credentials ({shown}) and pull-request code runs as this process's "
                        "user, so it can read them: set `persist-credentials: false` on actions/checkout")
        return
    hidden = credentials.hide(found, agent_uid=identity.uid,
                              directories=credentials.runner_directories(environ, Path(workspace)))
    cleanup.callback(credentials.restore, hidden)
    if found:
        log.warning(f"the workspace held credentials pull-request code could read ({shown}): unreadable to it "
                    "while the action runs, restored afterwards. Set `persist-credentials: false` on "
                    "actions/checkout so the token is never left there (docs/github-action.md)")


def contain(settings: ActionSettings, identity: Identity | None, workspace: str,
            cleanup: contextlib.ExitStack) -> watchdog_mod.Watchdog | None:
    """The caps on all pull-request processes together (the agent user's): a process count every child inherits,
    and a watchdog for memory and disk until the action ends, when every process of that user is killed. None
    without an agent user (nothing tells its processes from ours)."""
    if identity is None:
        return None
    caps = watchdog_mod.Caps(memory_mb=settings.max_memory_mb, processes=settings.max_processes,
                             disk_mb=settings.max_disk_mb)
    watchdog_mod.limit_processes(caps.processes)
    roots = watchdog_mod.writable_roots(tempfile.gettempdir(), "/var/tmp", "/dev/shm", identity.home, workspace)
    cleanup.callback(watchdog_mod.kill_user, identity)  # runs after the watchdog stops: nothing outlives the action
    return cleanup.enter_context(watchdog_mod.Watchdog(identity, caps, roots))


def install(settings: ActionSettings, workdir: str, log: WorkflowLog, environ: Mapping[str, str],
            watchdog: watchdog_mod.Watchdog | None, cleanup: contextlib.ExitStack) -> str | None:
    """The `install` command in a venv of its own (the python agent's worker then uses its interpreter, returned),
    with the agent's default rlimits and `install-timeout`. Any way it fails is an AgentError (exit 3) saying how:
    its exit code, the time limit, or the cap it went over."""
    from khaos_action.config.agent_block import AgentLimits

    if not os.path.isdir(workdir):
        raise ConfigError(f"working-directory {settings.working_directory!r} does not exist; fix the input")
    venv = _venv_for_this_run(cleanup)
    log.info(f"khaos-action: running the `install` command in {workdir} (in a venv of its own; at most "
             f"{settings.install_timeout:g} s)")
    assert settings.install is not None
    try:
        with log.group("install"), log.commands_stopped():
            done = run_install(settings.install, workdir, venv=venv, echo=print, environ=environ,
                               limits=limits_from(AgentLimits()), timeout_s=settings.install_timeout)
    except KeyboardInterrupt:  # its processes were killed; no run has started: no events.jsonl to speak of
        raise Interrupted("interrupted during the `install` command; the agent was not run") from None
    cleanup.callback(stop_group, done.pgid)  # what it left running (`server &`) ends with the action
    _check(settings, done, watchdog)
    return done.python


def _check(settings: ActionSettings, done: Installed, watchdog: watchdog_mod.Watchdog | None) -> None:
    last = "\n".join(done.tail[-10:]) or "(none)"
    breach = next((b for b in (watchdog.breaches if watchdog is not None else []) if b.phase == "install"), None)
    if breach is not None:
        raise AgentError(f"the `install` command was stopped: {breach.describe()}. The agent was not run; raise "
                         f"the input if the install really needs more. Its last lines:\n{last}")
    if done.timed_out:
        raise AgentError(f"the `install` command did not finish within {settings.install_timeout:g} s (input "
                         "`install-timeout`) and was stopped with everything it started; the agent was not run. "
                         f"Raise `install-timeout` if it needs longer. Its last lines:\n{last}")
    if done.code != 0:
        raise AgentError(f"the `install` command exited with {done.code}; the agent was not run. Fix the "
                         f"command or remove the `install` input. Its last lines:\n{last}")


def _venv_for_this_run(cleanup: contextlib.ExitStack) -> Path:
    """Where the install venv goes: a fresh directory (not a guessable /tmp name another user could plant first),
    removed when the run ends, so runs outside a throwaway container leave nothing behind."""
    home = cleanup.enter_context(tempfile.TemporaryDirectory(prefix="khaos-agent-venv-", ignore_cleanup_errors=True))
    os.chmod(home, 0o755)  # the directory's 0700 would shut the agent user out of its own venv below it
    return Path(home) / "venv"
