"""How every process that runs the user's code is started: the python worker, `command` and `http` agents, MCP
agents and servers, and `install`.

Pull-request code is untrusted. Three things keep it away from the action's secrets and the runner:
- a clean environment: by default the user's own variables (their API keys, base URLs) without the runner's
  context (every `GITHUB_*`, `RUNNER_*`, `ACTIONS_*`, `INPUT_*` variable) and without ours (`KHAOS_*`); with
  `agent.pass_env: [names]`, only an allowlist (PATH, HOME, locale, TZ, TMPDIR, VIRTUAL_ENV) and those names. Then
  what the user configured (`agent.env`). The runner's secrets and command files are refused even when the user
  names them (`never_passed`);
- its own session (process group), so a terminate reaches everything it spawned, and no controlling terminal;
- when we run as root and `KHAOS_AGENT_USER` names an existing user, the child drops to that user's uid/gid (and
  its groups) before exec: it cannot read our /proc/<pid>/environ (root-owned, mode 0400) nor write root-owned
  files such as the runner's /github/file_commands.
Resource limits (address space, open files, file size) are set in the child before exec, from `Limits`.
"""

from __future__ import annotations

import os
import re
import resource
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

ALLOWED = ("PATH", "HOME", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "VIRTUAL_ENV", "TERM")
"""Variables of our own environment every agent process inherits (when set)."""

USER_ENV = "KHAOS_AGENT_USER"
"""Names the unprivileged user agent processes run as when the action runs as root (created in the image)."""

_NEVER = re.compile(r"^(INPUT_.*|ACTIONS_.*|GITHUB_TOKEN|GITHUB_ENV|GITHUB_OUTPUT|GITHUB_PATH|GITHUB_STATE|"
                    r"GITHUB_STEP_SUMMARY|RUNNER_.*TOKEN.*|KHAOS_STOP_TOKEN.*)$", re.IGNORECASE)


def never_passed(name: str) -> bool:
    """The runner's credentials and workflow-command files: no agent gets them, whatever the config says."""
    return bool(_NEVER.match(name))


_MIN_SECRET = 8  # shorter values ("1", "true") would drop unrelated variables that happen to be equal


def secret_values(environ: Mapping[str, str]) -> frozenset[str]:
    """The values of the runner's credentials: a copy under another name (`GH_TOKEN: ${{ github.token }}`)
    is as secret as the original."""
    return frozenset(v for k, v in environ.items() if never_passed(k) and len(v) >= _MIN_SECRET)


def hidden(name: str, value: str, secrets: frozenset[str]) -> bool:
    return never_passed(name) or value in secrets


_RUNNER_CONTEXT = re.compile(r"^(GITHUB_|RUNNER_|ACTIONS_|INPUT_|KHAOS_)", re.IGNORECASE)
INHERIT = "*"
"""`agent.pass_env`'s default: inherit the user's environment, less the runner's context and ours."""


def clean_env(*, environ: Mapping[str, str], configured: Mapping[str, str] | None = None,
              pass_env: Iterable[str] | str = INHERIT) -> dict[str, str]:
    """The environment of an agent process from `environ` (the run's `Services.environ`; never read from the process
    here): everything but the runner's context
    (`pass_env="*"`), or the allowlist and the `pass_env` names; then `configured` (agent.env, rendered; proxy
    addresses). Forbidden names are dropped from both."""
    source = environ
    secrets = secret_values(source)
    if isinstance(pass_env, str):
        names: Iterable[str] = [k for k in source if not _RUNNER_CONTEXT.match(k)] if pass_env == INHERIT \
            else (*ALLOWED, pass_env)
    else:
        names = (*ALLOWED, *pass_env)
    env = {name: source[name] for name in names if name in source and not hidden(name, source[name], secrets)}
    env.update({k: str(v) for k, v in (configured or {}).items() if not hidden(k, str(v), secrets)})
    return env


@dataclass(frozen=True, slots=True)
class Limits:
    """rlimits for an agent process; None leaves the inherited limit."""

    memory_bytes: int | None = None
    """RLIMIT_AS: the address space (a runaway allocation fails with MemoryError instead of taking the runner)."""
    open_files: int | None = 1024
    file_size_bytes: int | None = None
    """RLIMIT_FSIZE: the largest file the agent may write."""


@dataclass(frozen=True, slots=True)
class Identity:
    uid: int
    gid: int
    groups: tuple[int, ...]
    name: str
    home: str


def agent_identity(environ: Mapping[str, str]) -> Identity | None:
    """The user to drop to: only when we are root and KHAOS_AGENT_USER (in the run's environment) names an existing
    user."""
    name = environ.get(USER_ENV, "").strip()
    if not name or os.geteuid() != 0:
        return None
    import grp
    import pwd

    try:
        entry = pwd.getpwnam(name)
    except KeyError:
        from khaos_action.errors import AgentError

        raise AgentError(f"{USER_ENV}={name!r} names no user on this machine; create it (the action's image "
                         "does) or unset the variable") from None
    groups = tuple(sorted({entry.pw_gid, *(g.gr_gid for g in grp.getgrall() if name in g.gr_mem)}))
    return Identity(entry.pw_uid, entry.pw_gid, groups, name, entry.pw_dir)


def preexec(limits: Limits | None, identity: Identity | None) -> Callable[[], None] | None:
    """The function run in the child between fork and exec: limits first (as root they could be raised back),
    then the drop to the agent user (groups, gid, uid, in that order: after setuid nothing else is allowed)."""
    if limits is None and identity is None:
        return None

    def child() -> None:
        if limits is not None:
            _set_limits(limits)
        if identity is not None:
            os.setgroups(list(identity.groups))
            os.setgid(identity.gid)
            os.setuid(identity.uid)

    return child


def _set_limits(limits: Limits) -> None:
    for which, value in ((resource.RLIMIT_AS, limits.memory_bytes), (resource.RLIMIT_NOFILE, limits.open_files),
                         (resource.RLIMIT_FSIZE, limits.file_size_bytes)):
        if value is None:
            continue
        _soft, hard = resource.getrlimit(which)
        new_hard = hard if hard == resource.RLIM_INFINITY or hard >= value else hard
        resource.setrlimit(which, (min(value, new_hard) if new_hard != resource.RLIM_INFINITY else value, new_hard))


def spawn_kwargs(*, limits: Limits | None = None, identity: Identity | None = None) -> dict[str, Any]:
    """Keyword arguments for subprocess.Popen / asyncio.create_subprocess_*: a new session, the limits and the
    drop to the agent user. The caller adds the clean `env` (and HOME of the agent user, see `env_for`)."""
    kwargs: dict[str, Any] = {"start_new_session": True}
    hook = preexec(limits, identity)
    if hook is not None:
        kwargs["preexec_fn"] = hook
    return kwargs


def env_for(env: dict[str, str], identity: Identity | None) -> dict[str, str]:
    """`env` with HOME (and USER) of the user the process will run as."""
    if identity is None:
        return env
    return {**env, "HOME": identity.home or "/tmp", "USER": identity.name, "LOGNAME": identity.name}


def limits_from(config: Any) -> Limits:
    """`agent.limits` (config.agent_block.AgentLimits) -> Limits in bytes."""
    mb = 1024 * 1024
    return Limits(memory_bytes=config.memory_mb * mb if config.memory_mb else None, open_files=config.open_files,
                  file_size_bytes=config.file_size_mb * mb if config.file_size_mb else None)


SECRETS_FD = "KHAOS_RUNNER_SECRETS_FD"


def hide_runner_secrets(argv: list[str]) -> None:
    """Re-exec this process without the runner's credentials and command-file paths in its exec-time environment.

    /proc/<pid>/environ shows the environment a process was exec'd with, whatever it later removes from
    os.environ, and any process of the same uid (an agent, when no agent user is configured) can read it. So when
    such variables are present we exec ourselves again without them; their values come back through a pipe and
    live in os.environ (process memory) only. Call first thing in `main`; returns when there is nothing to hide.
    """
    fd = os.environ.pop(SECRETS_FD, None)
    if fd is not None:
        import json

        with os.fdopen(int(fd), "rb") as pipe:
            os.environ.update(json.loads(pipe.read() or b"{}"))
        return
    secrets = secret_values(os.environ)
    hidden_vars = {k: v for k, v in os.environ.items() if hidden(k, v, secrets)}
    if not hidden_vars:
        return
    import json
    import sys

    data = json.dumps(hidden_vars).encode()
    read, write = os.pipe()
    if len(data) >= 65536:  # the pipe must hold it all before exec (nobody reads until then)
        os.close(read)
        os.close(write)
        return
    os.write(write, data)
    os.close(write)
    os.set_inheritable(read, True)
    env = {k: v for k, v in os.environ.items() if k not in hidden_vars}
    env[SECRETS_FD] = str(read)
    os.execve(sys.executable, [sys.executable, *argv], env)


_LAUNCHER = """\
import json, os, resource, sys
spec = json.loads(sys.argv[1])
for name, value in spec["limits"].items():
    which = getattr(resource, name)
    hard = resource.getrlimit(which)[1]
    hard = value if hard == resource.RLIM_INFINITY or hard > value else hard
    resource.setrlimit(which, (min(value, hard), hard))
if spec["uid"] is not None:
    os.setgroups(spec["groups"]); os.setgid(spec["gid"]); os.setuid(spec["uid"])
os.execvp(sys.argv[2], sys.argv[2:])
"""


def wrap_argv(argv: list[str], *, limits: Limits | None = None,
              identity: Identity | None = None) -> list[str]:
    """`argv` behind a tiny launcher that applies the limits and the drop to the agent user, for processes a
    library starts for us (the MCP SDK's stdio client offers no preexec hook). Unchanged when there is nothing
    to apply."""
    if identity is None and limits is None:
        return list(argv)
    import json
    import sys

    names = {"RLIMIT_AS": limits.memory_bytes, "RLIMIT_NOFILE": limits.open_files,
             "RLIMIT_FSIZE": limits.file_size_bytes} if limits is not None else {}
    spec = {"limits": {k: v for k, v in names.items() if v is not None},
            "uid": identity.uid if identity else None, "gid": identity.gid if identity else None,
            "groups": list(identity.groups) if identity else []}
    return [sys.executable, "-I", "-c", _LAUNCHER, json.dumps(spec), *argv]


_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def expand_vars(text: str, environ: Mapping[str, str], *, where: str) -> str:
    """`${VAR}` -> its value (agent.env, agent.headers: `environ` is `visible_environ`'s); a missing variable is an
    AgentError naming where it was used."""

    def one(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in environ:
            from khaos_action.errors import AgentError

            raise AgentError(f"{where} uses ${{{name}}} but the environment variable {name} is not set; "
                             f"export it before the run (or remove the reference).")
        return environ[name]

    return _VAR.sub(one, text)


def visible_environ(environ: Mapping[str, str]) -> dict[str, str]:
    """The run's environment minus what no agent may get: where `${VAR}` in agent.env / agent.headers is looked up
    (the config comes from the pull request too, so `${GITHUB_TOKEN}` must find nothing)."""
    secrets = secret_values(environ)
    return {k: v for k, v in environ.items() if not hidden(k, v, secrets)}
