"""`validate`'s look into the agent's code, done in a sandboxed worker, never in our process.

`validate` imports the agent's entry and tools (engine/agent_code.py: their module top-level code runs; the
agent is never called), reads the tools and `@khaosagent` metadata the capability profile needs (engine/
agent_tools.py) and, for a framework agent, checks the context its object declares. Importing is running: in CI
our process may hold GITHUB_TOKEN and the runner's other secrets, and pull-request code must never run beside
them (docs/sandbox.md). So these checks run where a run imports the agent: a python worker started through
engine/sandbox.py (clean environment, own session, the agent user, rlimits; the agent's interpreter; the config's
folder as cwd), here a one-shot one: `worker/boot.py check WRITE_FD PATHS`, the setup on its stdin, one answer
frame back. The answer is plain data (key paths, messages, fixes, tool descriptions): the config's file and line
are added here, from the config this process loaded, so every message reads as it did when the checks ran here.
`init` asks the same worker what the entry is (inspect_entry: engine/agent_inspect.py on the worker's side).
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, NoReturn

# What the worker's side needs, imported at module level: worker/boot.py imports this module while our packages
# still come first on sys.path (for an agent interpreter that is not ours).
from khaos_action.config.agent_block import InProcessAgent
from khaos_action.config.models import AgentConfig
from khaos_action.engine.agent_code import AgentCode, CodeToCheck, check_agent_code
from khaos_action.engine.agent_tools import UnknownToolNames, agent_tools, unknown_fix
from khaos_action.errors import AgentError, ConfigError, ExitCode, KhaosError
from khaos_action.extensions import Extension, import_extension
from khaos_action.tool_info import ToolInfo
from khaos_action.transports import transport_entry

IMPORT_TIMEOUT_S = 300.0
"""How long importing the agent may take (heavy frameworks take seconds, not minutes)."""
_OUTPUT_TAIL = 4000


@dataclass(slots=True)
class AgentCheck:
    """What the worker found in the agent's code."""

    code: AgentCode
    seen: tuple[list[ToolInfo], dict | None] | None = None
    """Its tools and `@khaosagent` metadata (None: not read, the code has issues or is not in-process)."""
    context: str | None = None
    """The context type a framework agent object declares (None: none, or not a framework agent)."""
    errors: dict[str, KhaosError] = field(default_factory=dict)
    """"tools" / "context": what reading the tools or checking the context raised, raised where validate used to
    meet it (so what it printed before still prints)."""

    def raise_for(self, step: str) -> None:
        error = self.errors.get(step)
        if error is not None:
            raise error


def check_agent(code: CodeToCheck, *, environ: Mapping[str, str], env: Mapping[str, str],
                extensions: Sequence[Extension] = ()) -> AgentCheck:
    """Run the agent-code checks of `code` in a sandboxed worker, started as a run starts one: `environ` is the
    run's environment (the worker's clean one is made from it), `env` the agent's own (agent.env, expanded:
    worker/start.python_agent_env), `extensions` what the worker imports first (session.worker_extensions)."""
    agent = code.agent
    if not isinstance(agent, InProcessAgent):  # nothing of the agent's is imported for other types
        return AgentCheck(code=AgentCode())
    answer = _ask_worker(agent, code.base_dir, {}, environ=environ, env=env, extensions=extensions)
    try:  # the answer comes from the agent's process: read as data, and what validate prints kept to one line
        return _read_answer(code, answer)
    except (TypeError, ValueError, KeyError, AttributeError) as exc:
        raise AgentError(f"the python agent's worker sent a malformed answer ({type(exc).__name__}: {exc})") from None


def inspect_entry(entry: str, base_dir: Path, *, environ: Mapping[str, str]) -> Inspection:
    """`init`'s look at `entry` (imported, never called) in a sandboxed worker started as a python agent's with
    no config of its own yet: `environ` is our environment (the worker's clean one is made from it)."""
    agent = AgentConfig.model_validate({"type": "python", "entry": entry})
    answer = _ask_worker(agent, base_dir, {"inspect": entry}, environ=environ, env={}, extensions=(),
                         doing="inspect it")
    try:  # from the agent's process: read as data; what init prints and writes kept to one line
        return _inspection(answer["inspected"])
    except (TypeError, ValueError, KeyError, AttributeError) as exc:
        raise AgentError(f"the python agent's worker sent a malformed answer ({type(exc).__name__}: {exc})") from None


def _inspection(found: dict[str, Any]) -> Inspection:
    kind = found.get("agent_type")
    tools = found.get("tools") or ()
    return Inspection(agent_type=None if kind is None else _one_line(str(kind)),
                      type_name=_one_line(str(found.get("type_name") or "")),
                      tools=[_inspected_tool(t) for t in tools],
                      unwrapped=[_one_line(str(t.get("name"))) for t in tools if t.get("wrapped") is False])


def _inspected_tool(tool: dict[str, Any]) -> tuple[str, str, str, str | None]:
    role = tool.get("role")
    return (_one_line(str(tool.get("ref") or "")), _one_line(str(tool.get("name"))),
            str(tool.get("description") or ""), role if isinstance(role, str) else None)


@dataclass(slots=True)
class Inspection:
    """What the worker found at an entry, for `init`."""

    agent_type: str | None
    """A framework's agent type, "python" for a callable, None for neither (`type_name` says what it is)."""
    type_name: str = ""
    tools: list[tuple[str, str, str, str | None]] = field(default_factory=list)
    """(`file.py:function`, or "" for a framework's own tool; name; description; declared role)."""
    unwrapped: list[str] = field(default_factory=list)
    """Tools found on a framework object that run out of the engine's reach (built-in, hosted, MCP tools): capability
    evidence, never a tool fault's target."""


def _read_answer(code: CodeToCheck, answer: dict[str, Any]) -> AgentCheck:
    context = answer.get("context")
    check = AgentCheck(code=_code(code, answer), context=None if context is None else _one_line(str(context)))
    if "tools" in answer:
        check.seen = _seen(answer)
    for step in ("tools", "context"):
        failed = answer.get(f"{step}_error")
        if failed:
            check.errors[step] = _error(int(failed[0]), str(failed[1]))
    return check


def _code(checked: CodeToCheck, answer: dict[str, Any]) -> AgentCode:
    """The agent-code issues at their lines, the broken tools and the wrapped ones."""
    code = AgentCode(issues=[checked.issue(tuple(path), str(message), None if hint is None else str(hint))
                             for path, message, hint in answer.get("issues") or ()],
                     broken_tools={str(name) for name in answer.get("broken_tools") or ()})
    if isinstance(answer.get("wrapped"), list):
        code.wrapped_tools = [_one_line(str(name)) for name in answer["wrapped"]]
    return code


def _seen(answer: dict[str, Any]) -> tuple[list[ToolInfo], dict[str, Any] | None]:
    """The tools the worker saw (names on one line, roles only as text) and the agent's metadata."""
    tools = [ToolInfo(name=_one_line(str(t.get("name"))), description=str(t.get("description") or ""),
                      parameters=tuple(t.get("parameters") or ()),
                      role=t.get("role") if isinstance(t.get("role"), str) else None)
             for t in answer["tools"]]
    metadata = answer.get("metadata")
    return tools, metadata if isinstance(metadata, dict) else None


def _one_line(text: str) -> str:
    """No line break or control character: a name printed on our stdout cannot start a workflow command."""
    return "".join(" " if ord(ch) < 32 or ord(ch) == 127 else ch for ch in text)


def _error(exit_code: int, message: str) -> KhaosError:
    return ConfigError(message) if exit_code == ExitCode.CONFIG else AgentError(message)


def _ask_worker(agent: Any, base_dir: Path, ask: Mapping[str, Any], *, environ: Mapping[str, str],
                env: Mapping[str, str], extensions: Sequence[Extension], doing: str = "check it") -> dict[str, Any]:
    """The worker's answer to `ask` (added to its setup; {}: the agent-code checks), `doing` what the messages say
    the import was for."""
    from khaos_action.engine import sandbox
    from khaos_action.engine.transport.base import exit_status
    from khaos_action.engine.wire import read_frame
    from khaos_action.engine.worker.start import WorkerStarter, worker_python

    (python, boot, paths), child_env, spawn = WorkerStarter(  # started as a run's python worker is
        agent, base_dir=base_dir, environ=environ, python=worker_python(agent, environ), env=env,
        limits=sandbox.limits_from(agent.limits), identity=sandbox.agent_identity(environ), zygote=False).command()
    setup = {"extensions": [[e.module, e.root] for e in extensions], "agent": agent.model_dump(mode="json"),
             "base_dir": str(base_dir), **ask}
    read_fd, write_fd = os.pipe()
    with tempfile.TemporaryFile() as output:
        try:
            try:
                process = subprocess.Popen(
                    [python, boot, "check", str(write_fd), paths], stdin=subprocess.PIPE, stdout=output,
                    stderr=subprocess.STDOUT, pass_fds=(write_fd,), env=child_env, cwd=str(base_dir), **spawn)
            except OSError as exc:
                raise AgentError(f"cannot start the python agent worker with {python!r}: {exc}. Set agent.python "
                                 "to an existing interpreter") from None
            finally:
                os.close(write_fd)
            answer = _answer(process, read_fd, json.dumps(setup).encode(), read_frame, doing)
        finally:
            os.close(read_fd)
        if answer is None or answer.get("op") not in ("checked", "failed"):
            output.seek(max(0, output.seek(0, os.SEEK_END) - _OUTPUT_TAIL))
            tail = output.read().decode("utf-8", "replace").strip()
            said = f": {_quoted(tail)}" if tail else " (no output)"
            raise AgentError(f"importing the python agent to {doing} failed: its worker "
                             f"{exit_status(process.returncode)}{said}")
    if answer["op"] == "failed":
        error = _error(int(answer.get("exit_code") or ExitCode.AGENT), str(answer.get("error")))
        if answer.get("traceback"):  # `--debug` shows where it failed (quoted: it may be the agent's text)
            raise error from WorkerTraceback(_quoted("the worker's traceback:\n" + str(answer["traceback"])))
        raise error
    return answer


class WorkerTraceback(Exception):
    """The traceback of what stopped the check in the worker, chained to the error we raise."""


def _quoted(text: str) -> str:
    """The worker's text quoted, so no line of it can start a workflow command (`::error ...`) where shown."""
    head, *rest = text.splitlines() or [""]
    return "\n".join([head, *(f"> {line}" for line in rest)])


def _answer(process: subprocess.Popen, read_fd: int, setup: bytes, read_frame: Any,
            doing: str) -> dict[str, Any] | None:
    """The worker's one answer frame (None if it died first); its process ended and reaped either way."""
    try:
        assert process.stdin is not None
        try:
            process.stdin.write(setup)
            process.stdin.close()
        except BrokenPipeError:
            pass  # it died before reading: its exit says why
        deadline = time.monotonic() + IMPORT_TIMEOUT_S
        ready, _, _ = select.select([read_fd], [], [], IMPORT_TIMEOUT_S)
        if not ready:
            raise AgentError(f"importing the python agent to {doing} took longer than {IMPORT_TIMEOUT_S:.0f} s; "
                             "does its module do real work at import time?")
        from khaos_action.engine.wire import WireError

        try:
            answer = read_frame(read_fd)
        except WireError:
            answer = None
        try:  # it ends once it has answered (os._exit: a thread the agent started at import is no reason to stay)
            process.wait(timeout=max(1.0, min(5.0, deadline - time.monotonic())))
        except subprocess.TimeoutExpired:
            pass
        return answer
    finally:
        _end(process)


def _end(process: subprocess.Popen) -> None:
    """Its whole session killed (whatever the agent's import started goes too), the worker reaped."""
    import signal

    try:
        os.killpg(process.pid, signal.SIGKILL)
    except OSError:
        pass
    process.wait()


# ---- the worker's side (worker/boot.py `check`) ----------------------------------------------------------------------


def _unlocated(path: Sequence[Any], message: str, hint: str | None) -> list[Any]:
    """An issue as the worker sends it back: (key path, message, fix), located by the engine, which holds the
    config's lines."""
    return [list(path), message, hint]


def main(write_fd: int) -> NoReturn:
    """Read the setup from stdin, check the agent's code, write one answer frame to `write_fd`."""
    from khaos_action.engine.wire import write_frame

    setup = json.loads(sys.stdin.buffer.read() or b"{}")
    devnull = os.open(os.devnull, os.O_RDONLY)  # the agent's code reads no more of our pipe
    os.dup2(devnull, 0)
    os.close(devnull)
    try:
        answer = _check(setup)
    except BaseException as exc:  # noqa: BLE001 - what stops the check is reported, whatever it was
        import traceback

        code = exc.exit_code if isinstance(exc, KhaosError) else ExitCode.AGENT
        message = str(exc) if isinstance(exc, KhaosError) else (
            f"importing the python agent to {'inspect' if 'inspect' in setup else 'check'} it raised "
            f"{type(exc).__name__}: {exc}")
        answer = {"op": "failed", "exit_code": int(code), "error": message,
                  "traceback": traceback.format_exc()[-20000:]}
    sys.stdout.flush()
    sys.stderr.flush()
    write_frame(write_fd, answer)  # wire.encode makes whatever the agent declared JSON-safe
    os._exit(0)  # no wait for threads the agent's import started, no teardown of its modules


def _check(setup: dict[str, Any]) -> dict[str, Any]:
    for module, root in setup.get("extensions") or ():  # they register types: before the agent block is read
        import_extension(Extension(module, root))
    agent = AgentConfig.model_validate(setup["agent"])
    base_dir = Path(setup["base_dir"])
    if "inspect" in setup:  # `init`: what the entry is and its tools
        from khaos_action.engine.agent_inspect import inspect_entry as inspect_here

        return {"op": "checked", "inspected": inspect_here(str(setup["inspect"]), base_dir)}
    found = check_agent_code(CodeToCheck(agent, base_dir, _unlocated))
    answer: dict[str, Any] = {"op": "checked", "issues": found.issues, "broken_tools": sorted(found.broken_tools)}
    if found.issues:
        return answer
    tools = _tools_answer(agent, base_dir)
    answer.update(tools)
    if "tools" in tools and transport_entry(agent.type).adapter is not None:
        answer.update(_framework_answer(agent, base_dir))
    return answer


def _tools_answer(agent: AgentConfig, base_dir: Path) -> dict[str, Any]:
    """The agent's tools and metadata, or the issues of tool entries naming tools it lacks, or why they could not
    be read."""
    try:
        tools, metadata = agent_tools(agent, base_dir, import_code=True)
    except UnknownToolNames as exc:  # at the line of each entry naming a tool the agent does not have
        return {"issues": [[["agent", "tools", index], f"agent.tools[{index}] names tool {spec.tool!r}, which the "
                            f"agent does not have", unknown_fix(exc.found)]
                           for index, spec in enumerate(agent.tools) if spec.tool in exc.unknown and not spec.code]}
    except KhaosError as exc:
        return {"tools_error": [int(exc.exit_code), str(exc)]}
    return {"tools": [asdict(tool) for tool in tools], "metadata": metadata if isinstance(metadata, dict) else None}


def _framework_answer(agent: AgentConfig, base_dir: Path) -> dict[str, Any]:
    """A framework agent's wrapped tools, and its agent object checked against agent.context."""
    from khaos_action.engine.transport.frameworks import adapter_for
    from khaos_action.engine.transport.frameworks.base import agent_settings, check_agent_object, discover_tools

    answer: dict[str, Any] = {
        "wrapped": [t.name for t in discover_tools(agent.type, agent.entry, base_dir) if t.target is not None]
        + [spec.tool for spec in agent.tools if spec.code]}
    try:
        answer["context"] = check_agent_object(agent.type, agent.entry, base_dir, agent.context,
                                               agent_settings(adapter_for(agent.type), agent))
    except KhaosError as exc:
        answer["context_error"] = [int(exc.exit_code), str(exc)]
    return answer
