"""The command transport against a real JSON-lines agent process (tests/fixtures/agents/cmd_agent.py)."""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

import pytest

from khaos_action.config.loader import load_config
from khaos_action.config.models import AgentConfig
from khaos_action.engine.transport.base import AgentCallError
from khaos_action.engine.transport.command import CommandTransport
from khaos_action.engine.transport.factory import build_transport
from khaos_action.errors import AgentError, ConfigError
from khaos_action.messages import AgentRequest
from tests import shell

AGENTS = Path(__file__).resolve().parents[1] / "fixtures" / "agents"
COMMAND = f"{sys.executable} {AGENTS / 'cmd_agent.py'}"


def invoke(text: str, case_id: str = "case-1", history: list | None = None) -> AgentRequest:
    return AgentRequest(text, history or [], f"s-{case_id}", case_id=case_id)


def transport(command: str = COMMAND, grace: float = 0, **fields) -> CommandTransport:
    return CommandTransport(AgentConfig(type="command", command=command, **fields), base_dir=AGENTS,
                            services=shell.services(), startup_grace_s=grace)


async def texts(t: CommandTransport, *inputs: str) -> list[str]:
    return [(await t.send(invoke(i, f"case-{n}"))).text for n, i in enumerate(inputs)]


def run(t: CommandTransport, body):
    async def go():
        await t.start()
        try:
            return await body(t)
        finally:
            await t.close()

    return asyncio.run(go())


def test_echo_agent_gets_input_history_and_session():
    async def body(t):
        return await t.send(invoke("where is 1234?", "c9", history=[{"role": "user", "content": "hi"}]))

    reply = run(transport(), body)
    assert reply.text == "echo: where is 1234? (1 turns, s-c9)"
    assert reply.notes == [] and reply.tool_calls == []


def test_one_process_serves_many_inputs():
    pids = run(transport(), lambda t: texts(t, *["pid"] * 20))
    assert len(set(pids)) == 1


def test_stdout_prints_are_notes_never_the_reply():
    async def body(t):
        return [await t.send(invoke(x)) for x in ("first", "second")]

    first, second = run(transport(f"{COMMAND} --junk"), body)
    assert first.text == "echo: first (0 turns, s-case-1)"
    assert second.text == "echo: second (0 turns, s-case-1)"
    assert "agent booting" in first.notes[0] and "decoy" in first.notes[0]
    assert "thinking about second" in second.notes[0] and "agent booting" not in second.notes[0]


def test_agent_that_exits_mid_run_fails_that_call_and_is_restarted():
    async def body(t):
        before = await texts(t, "pid")
        with pytest.raises(AgentCallError, match="agent process exited with code 7: fatal: simulated crash"):
            await t.send(invoke("die"))
        after = await t.send(invoke("pid"))
        return before[0], after

    before, after = run(transport(), body)
    assert after.text != before
    assert any("restarted before this call" in note and "code 7" in note for note in after.notes)


def test_error_reply_is_a_call_error():
    with pytest.raises(AgentCallError, match="agent reported an error: cannot parse the order number"):
        run(transport(), lambda t: texts(t, "fail"))


def test_five_megabyte_reply_line():
    assert len(run(transport(), lambda t: texts(t, "big"))[0]) == 5_000_000


def test_reported_tool_calls_are_normalised():
    async def body(t):
        return await t.send(invoke("tools"))

    reply = run(transport(), body)
    assert reply.text == "refund issued"
    assert reply.tool_calls == [{"name": "refund", "args": {"order": "1234"}}]


def test_reset_line_clears_agent_state():
    async def body(t):
        counts = await texts(t, "count", "count")
        await t.reset()
        return counts + await texts(t, "count")

    t = transport(reset="line")
    assert t.has_reset and not transport().has_reset
    assert run(t, body) == ["1", "2", "1"]


def test_reset_restart_replaces_the_process():
    async def body(t):
        first = await texts(t, "pid")
        await t.reset()
        return first + await texts(t, "pid")

    first, second = run(transport(reset="restart"), body)
    assert first != second


def test_unknown_reset_mode_is_a_config_error(tmp_path: Path):
    # The command type's own `reset` key (config/agents.py CommandAgent) is checked where the config is loaded.
    config = tmp_path / "khaos.yaml"
    config.write_text(f"golden_prompts: [hi]\nagent:\n  type: command\n  command: {COMMAND}\n"
                      "  reset: agents/x.py:reset\n")
    with pytest.raises(ConfigError, match=r"khaos\.yaml:5:10: agent\.reset: expected one of 'line', 'restart', "
                                          r"found 'agents/x\.py:reset'"):
        load_config(config)


def test_agent_that_hangs_past_the_timeout_is_replaced_before_the_next_call():
    async def body(t):
        first = await texts(t, "pid")
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(t.send(invoke("hang")), 0.3)
        return first[0], await asyncio.wait_for(t.send(invoke("pid")), 5)

    first, after = run(transport(), body)
    assert after.text != first
    assert any("did not answer the previous call in time" in note for note in after.notes)


def test_pool_serves_concurrent_cases_one_at_a_time_per_instance_with_its_own_env():
    bindings: list[tuple[int, str | None]] = []

    async def go():
        t = build_transport(AgentConfig(type="command", command=COMMAND, instances=3), base_dir=AGENTS,
                            services=shell.services(),
                            bind_instance=lambda i, c: bindings.append((i, c)),
                            env_for_instance=lambda i: {"KHAOS_INSTANCE": f"instance-{i}"})
        await t.start()
        try:
            pids = await asyncio.gather(*(t.send(invoke("pid", f"case-{i}")) for i in range(9)))
            envs = await asyncio.gather(*(t.send(invoke("env", f"env-{i}")) for i in range(9)))
        finally:
            await t.close()
        return {r.text for r in pids}, {r.text for r in envs}

    pids, envs = asyncio.run(go())
    assert len(pids) == 3
    assert envs == {"instance-0", "instance-1", "instance-2"}
    open_cases: dict[int, str | None] = {}
    for index, case in bindings:
        assert (open_cases.get(index) is None) == (case is not None), "an instance served two cases at once"
        open_cases[index] = case
    assert set(open_cases.values()) == {None}
    assert len([c for _, c in bindings if c]) == 18


def test_command_that_cannot_start_is_an_agent_error():
    with pytest.raises(AgentError, match="could not be started"):
        run(transport("definitely-not-a-program-khaos --flag"), lambda t: texts(t, "x"))
    started = time.monotonic()
    with pytest.raises(AgentError, match="exited with code 3: no model configured"):
        command = f"{sys.executable} -c \"import sys; sys.exit('no model configured')\" ; exit 3"
        run(transport(command, grace=20), lambda t: texts(t, "x"))
    assert time.monotonic() - started < 10  # reported when it exits, not after the whole grace period


def test_close_stops_the_process_and_is_idempotent():
    async def go():
        t = transport()
        await t.start()
        pid = int((await t.send(invoke("pid"))).text)
        await t.close()
        await t.close()
        return pid

    pid = asyncio.run(go())
    assert not Path(f"/proc/{pid}").exists() or "Z" in Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1][:3]
