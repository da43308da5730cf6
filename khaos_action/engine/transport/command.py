"""The `command` transport: a long-lived agent process (or a small pool) speaking JSON lines over stdin/stdout.

Protocol (one JSON object per line, UTF-8):
  engine -> agent   {"id": "7", "input": "Where is my order?", "history": [{"role": "user", "content": ...}],
                     "session_id": "..."}
  agent  -> engine  {"id": "7", "output": "It ships today."}       (output may also be {"text", "tool_calls"})
              or    {"id": "7", "error": "what went wrong"}
  streamed:         {"id": "7", "delta": "It ships "}, {"id": "7", "delta": "today."}, ... then
                    {"id": "7", "done": true} (the deltas joined are the output) or the reply line above
  optional reset:   engine sends {"type": "reset"}, agent answers {"type": "reset", "ok": true}
Anything else the agent writes to stdout (its own prints, logs) is not a reply: it is kept as a note on the case.
stderr is drained continuously into a bounded buffer, shown when the process dies.

Each instance serves one case at a time; concurrent sends wait for a free instance. An instance that dies mid-call
fails that call ("agent process exited with code N: <stderr tail>") and is restarted for the next one. Reset:
`agent.reset: line` sends the reset line to every instance; `agent.reset: restart` restarts the processes.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from khaos_action.config.agents import CommandAgent
from khaos_action.engine.sandbox import limits_from
from khaos_action.engine.textsafe import decode_bytes
from khaos_action.engine.transport.base import (
    AgentCallError,
    BindInstance,
    EnvForInstance,
    OutputTail,
    TransportBase,
    describe_exit,
    normalise_reply,
    normalise_tool_calls,
    process_env,
    response,
    settle,
    spawn,
    terminate,
)
from khaos_action.engine.transport.pool import InstancePool
from khaos_action.engine.transport.streams import MAX_CHARS, chunk_text
from khaos_action.errors import AgentError
from khaos_action.messages import AgentRequest, AgentResponse
from khaos_action.services import Services
from khaos_action.transports import BuildOptions

LINE_LIMIT = 256 * 1024 * 1024
"""The most a reply line may ever be; the actual limit is `line_limit(agent.max_output_bytes)`."""


def line_limit(max_output_bytes: int) -> int:
    """Bytes one reply line may take while it is read: the output cap plus room for JSON escapes and the envelope.
    A longer line fails its case and the process is replaced, so memory stays bounded whatever the agent prints."""
    return min(LINE_LIMIT, max_output_bytes * 6 + 64 * 1024)
_MAX_STRAY = 20


class _Instance:
    """One agent process; the reader task hands each reply line to the call waiting for it."""

    def __init__(self, index: int) -> None:
        self.index = index
        self.process: asyncio.subprocess.Process | None = None
        self.stderr = OutputTail()
        self.tasks: list[asyncio.Task[None]] = []
        self.waiting_id: str | None = None
        self.future: asyncio.Future[dict[str, Any]] | None = None
        self.deltas: list[str] = []
        """The text of the `delta` lines of the call in flight (a streamed reply)."""
        self.delta_chars = 0
        self.stray: list[str] = []
        self.eof = False
        self.stale: str | None = None
        """Why the process must be replaced before its next call (it hung past the engine's timeout)."""
        self.restarts: list[str] = []
        self.served = 0
        """Calls answered since this process started."""
        self.last_case: str | None = None
        """The case this process last answered (named if it exits between calls)."""

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.returncode is None and not self.eof and not self.stale


class CommandTransport(TransportBase):
    def __init__(self, agent: CommandAgent, *, base_dir: Path, services: Services,
                 env: Mapping[str, str] | None = None,
                 env_for_instance: EnvForInstance | None = None, bind_instance: BindInstance | None = None,
                 startup_grace_s: float = 0.25) -> None:
        self.agent, self.environ = agent, services.environ
        self.cwd = Path(base_dir) / agent.cwd if agent.cwd else Path(base_dir)
        self.env, self.env_for_instance, self.bind_instance = env or {}, env_for_instance, bind_instance
        self.has_reset = agent.reset is not None
        self.exclusive = True
        self.instance_count = agent.instances
        self.startup_grace_s = startup_grace_s
        self._instances = [_Instance(i) for i in range(agent.instances)]
        self._pool: InstancePool[_Instance] | None = None
        self._counter = 0
        self._started = False

    async def start(self) -> None:
        if self._started:
            return
        self._started = True
        try:
            await asyncio.gather(*(self._launch(inst) for inst in self._instances))
            if self.startup_grace_s:
                # A command that fails at once (missing script, syntax error, missing API key) should stop the run
                # with exit 3, not fail every case one by one. A healthy agent never exits, so this waits the full
                # grace once per run; a failing one is reported as soon as it exits.
                exits = [asyncio.ensure_future(inst.process.wait()) for inst in self._instances if inst.process]
                await asyncio.wait(exits, timeout=self.startup_grace_s, return_when=asyncio.FIRST_COMPLETED)
                for future in exits:
                    future.cancel()
                for inst in self._instances:
                    if inst.process is not None and inst.process.returncode is not None:
                        await settle(inst.tasks)
                        raise AgentError(f"the agent command `{self.agent.command}` "
                                         f"{describe_exit(inst.process.returncode, inst.stderr)}")
        except BaseException:
            await self.close()
            raise
        self._pool = InstancePool(self._instances, self.bind_instance)

    async def _launch(self, inst: _Instance) -> None:
        extra = self.env_for_instance(inst.index) if self.env_for_instance else None
        env = process_env(self.agent.env, self.env, extra, environ=self.environ, pass_env=self.agent.pass_env)
        command = self.agent.command or ""
        try:
            inst.process = await spawn(command, environ=self.environ, stdin=asyncio.subprocess.PIPE,
                                       stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, cwd=self.cwd,
                                       env=env,
                                       limit=line_limit(self.agent.max_output_bytes),
                                       limits=limits_from(self.agent.limits))
        except OSError as exc:
            raise AgentError(f"the agent command `{command}` could not be started in {self.cwd}: {exc}. "
                             "Check the program name and that it is installed.") from exc
        inst.eof, inst.stale, inst.served, inst.last_case = False, None, 0, None
        inst.stderr = tail = OutputTail()
        drain = asyncio.create_task(tail.drain(inst.process.stderr))
        inst.tasks = [drain, asyncio.create_task(self._read(inst, inst.process, drain, tail))]

    async def _read(self, inst: _Instance, process: asyncio.subprocess.Process, drain: asyncio.Task[None],
                    tail: OutputTail) -> None:
        assert process.stdout is not None
        failure: str | None = None
        while True:
            try:
                line = await process.stdout.readline()
            except ValueError:  # a line beyond the limit: the stream can no longer be trusted
                limit = line_limit(self.agent.max_output_bytes)
                failure = (f"the agent wrote a line longer than {limit:,} bytes (agent.max_output_bytes × 6); "
                           "the process is replaced")
                break
            if not line:
                break
            self._dispatch(inst, line)
        inst.eof = True
        if failure is None:
            await process.wait()
            await settle([drain])  # the stderr tail, complete
            failure = f"agent process {describe_exit(process.returncode, tail)}"
        else:
            await terminate(process, grace_s=0.5)
        if inst.future is not None and not inst.future.done():
            inst.future.set_exception(AgentCallError(failure))

    def _dispatch(self, inst: _Instance, line: bytes) -> None:
        stripped = line.strip()
        if stripped.startswith(b"{"):
            text, invalid = decode_bytes(stripped)
            try:
                data = json.loads(text)
            except (ValueError, RecursionError):
                data = None
            if invalid and isinstance(data, dict):
                data["_invalid_utf8"] = True
            if isinstance(data, dict) and inst.future is not None and not inst.future.done():
                if data.get("id") is not None and str(data["id"]) == inst.waiting_id:
                    if _is_delta(data):
                        _take_delta(inst, data["delta"])
                    else:
                        inst.future.set_result(data)
                    return
                if inst.waiting_id == "reset" and data.get("type") == "reset":
                    inst.future.set_result(data)
                    return
        if len(inst.stray) < _MAX_STRAY:
            inst.stray.append(stripped[:300].decode("utf-8", "replace"))

    async def send(self, message: AgentRequest) -> AgentResponse:
        if not self._started:
            await self.start()
        assert self._pool is not None
        case_id = message.case_id
        async with self._pool.serving(case_id) as inst:
            self._counter += 1
            request = {"id": str(self._counter), "input": message.text, "history": list(message.history),
                       "session_id": message.session_id or case_id}
            reply = await self._exchange(inst, request)
            inst.last_case = case_id
            # Collected while the instance is still ours, so another case's lines never land on this one.
            stray, inst.stray = inst.stray, []
            restarts, inst.restarts = inst.restarts, []
        if "error" in reply and reply["error"] is not None and "output" not in reply:
            raise AgentCallError(f"agent reported an error: {str(reply['error'])[:2000]}")
        body = _output(reply)
        if reply.get("tool_calls"):
            body["tool_calls"] = body["tool_calls"] + normalise_tool_calls(reply["tool_calls"])
        body["notes"] += restarts
        if reply.get("_invalid_utf8"):
            body["notes"].append("reply line was not valid UTF-8; invalid bytes replaced with U+FFFD")
        if stray:
            body["notes"].append(f"agent printed {len(stray)} non-protocol line(s) to stdout: " +
                                 " | ".join(stray)[:1000])
        return response(body)

    async def _exchange(self, inst: _Instance, request: dict[str, Any]) -> dict[str, Any]:
        """One request/reply. A process that had already answered and then exited (some agents exit after each
        reply) is restarted and asked again once: the exit belongs to the case it last answered, not to this one.
        A process that dies on this request twice, on a fresh start too, fails this case."""
        try:
            return await self._exchange_once(inst, request)
        except AgentCallError:
            process = inst.process
            if inst.served == 0 or process is None or process.returncode is None or inst.stale:
                raise
            note = self._restart_note(inst)
            await self._restart(inst)
            answer = await self._exchange_once(inst, request)
            inst.restarts.append(note)  # only when the fresh process answered: otherwise this case is to blame
            return answer

    def _restart_note(self, inst: _Instance) -> str:
        assert inst.process is not None
        why = inst.stale or ("it " + describe_exit(inst.process.returncode, inst.stderr)
                             if inst.process.returncode is not None else "its output stream broke")
        after = f" after answering case {inst.last_case}" if inst.last_case and not inst.stale else ""
        return f"agent process {inst.index} was restarted before this call ({why[:300]}{after})"

    async def _exchange_once(self, inst: _Instance, request: dict[str, Any]) -> dict[str, Any]:
        if not inst.alive:
            if inst.process is not None:
                inst.restarts.append(self._restart_note(inst))
            await self._restart(inst)
        assert inst.process is not None and inst.process.stdin is not None
        loop = asyncio.get_running_loop()
        inst.future = loop.create_future()
        inst.waiting_id = str(request.get("id", request.get("type")))
        inst.deltas, inst.delta_chars = [], 0
        try:
            inst.process.stdin.write(json.dumps(request, ensure_ascii=False).encode() + b"\n")
            await inst.process.stdin.drain()
        except (BrokenPipeError, ConnectionResetError):
            pass  # the reader sees EOF and fails the future with the exit code and stderr tail
        try:
            answer = await inst.future
            inst.served += 1
            if inst.deltas:
                answer = {**answer, "_deltas": inst.deltas}
            return answer
        except asyncio.CancelledError:
            # The engine timed out. A sequential agent still busy with this input would make the next case wait
            # behind it, so the process is replaced before its next call.
            inst.stale = "it did not answer the previous call in time"
            raise
        finally:
            inst.future, inst.waiting_id = None, None

    async def _restart(self, inst: _Instance) -> None:
        await self._stop(inst)
        try:
            await self._launch(inst)
        except AgentError as exc:
            raise AgentCallError(f"could not restart the agent process: {exc}") from exc

    async def reset(self) -> None:
        if not self.has_reset:
            return
        if not self._started:
            await self.start()
        assert self._pool is not None
        # Take every instance so no case runs during the reset, then give them back.
        async with self._pool.all_instances() as taken:
            if self.agent.reset == "restart":
                await asyncio.gather(*(self._restart(inst) for inst in taken))
            else:
                await asyncio.gather(*(self._reset_line(inst) for inst in taken))

    async def _reset_line(self, inst: _Instance) -> None:
        try:
            answer = await asyncio.wait_for(self._exchange(inst, {"type": "reset"}), self.agent.timeout_s)
        except asyncio.TimeoutError:
            raise AgentCallError(f"the agent did not answer the reset line within {self.agent.timeout_s:g}s; it must "
                                 'reply {"type": "reset", "ok": true} (or use agent.reset: restart)') from None
        inst.stray = []
        if answer.get("ok") is not True:
            raise AgentCallError(f"the agent refused the reset: {json.dumps(answer)[:500]}")

    async def _stop(self, inst: _Instance) -> None:
        process = inst.process
        if process is not None and process.stdin is not None:
            try:
                process.stdin.close()  # a well-behaved agent exits on EOF
            except (BrokenPipeError, ConnectionResetError, RuntimeError):
                pass
        await terminate(process, grace_s=1.0)
        for task in inst.tasks:
            if not task.done():
                task.cancel()
        await asyncio.gather(*inst.tasks, return_exceptions=True)
        inst.tasks = []

    async def close(self) -> None:
        await asyncio.gather(*(self._stop(inst) for inst in self._instances), return_exceptions=True)
        self._started = False
        self._pool = None


def _output(reply: dict[str, Any]) -> dict[str, Any]:
    """The reply line's `output`, or a streamed reply's deltas joined when it has none."""
    deltas = reply.get("_deltas")
    if deltas and reply.get("output") is None:
        body = normalise_reply("".join(deltas))
        body["notes"] = [f"agent streamed its reply: {len(deltas)} delta line(s) joined"]
        return body
    return normalise_reply(reply.get("output"))


def _take_delta(inst: _Instance, delta: Any) -> None:
    """One chunk of the call's streamed reply (past MAX_CHARS, read and dropped); one with no text fails the call."""
    text = chunk_text(delta)
    if text is None:
        assert inst.future is not None
        inst.future.set_exception(AgentCallError(f"the agent streamed a delta of type {type(delta).__name__} with no "
                                                 'text: send {"id": ..., "delta": "text"} lines'))
    elif text and inst.delta_chars < MAX_CHARS:
        inst.deltas.append(text)
        inst.delta_chars += len(text)


def _is_delta(line: dict[str, Any]) -> bool:
    """A chunk of a streamed reply: a `delta` line that is not the reply itself."""
    return "delta" in line and not any(key in line for key in ("output", "error", "done"))


def build(agent: CommandAgent, options: BuildOptions) -> CommandTransport:
    """The `command` entry's builder (khaos_action/transports.py); its keys are `config.agents.CommandAgent`'s."""
    return CommandTransport(agent, base_dir=options.base_dir, services=options.needed_services(agent.type),
                            env=options.env, env_for_instance=options.env_for_instance,
                            bind_instance=options.bind_instance)
