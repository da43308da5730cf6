"""The http transport against a real server process it starts itself (tests/fixtures/agents/http_agent.py)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from khaos_action.config.models import AgentConfig
from khaos_action.engine.transport.base import AgentCallError, trace_id
from khaos_action.engine.transport.factory import build_transport
from khaos_action.engine.transport.http import HttpTransport, free_port
from khaos_action.errors import AgentError, ConfigError
from khaos_action.messages import AgentRequest, AgentResponse
from tests import shell

AGENTS = Path(__file__).resolve().parents[1] / "fixtures" / "agents"
SERVER = f"{sys.executable} {AGENTS / 'http_agent.py'}"


def agent(path: str = "/chat", port: int | None = None, **fields) -> AgentConfig:
    where = "{{port}}" if port is None else str(port)
    base = f"http://127.0.0.1:{where}"
    config = {"type": "http", "url": base + path, "start": f"{SERVER} {where}", "ready_url": base + "/health",
              "ready_timeout_s": 10, **fields}
    return AgentConfig(**config)


def invoke(text: str, case_id: str = "case-1") -> AgentRequest:
    return AgentRequest(text, [], f"s-{case_id}", case_id=case_id)


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


async def session(config: AgentConfig, *texts: str, **kwargs) -> list[AgentResponse]:
    transport = build_transport(config, base_dir=AGENTS, services=shell.services(), **kwargs)
    await transport.start()
    try:
        return [await transport.send(invoke(t, f"case-{i}")) for i, t in enumerate(texts)]
    finally:
        await transport.close()


def test_server_is_started_polled_until_ready_and_stopped_at_close():
    config = agent(port=free_port())
    replies = asyncio.run(session(config, "where is order 1234?"))
    assert replies[0].text == "echo: where is order 1234?"
    assert not alive(replies[0].extra["pid"])


def test_shell_start_command_has_its_whole_process_group_stopped():
    port = free_port()
    config = agent(port=port, start=f"cd {AGENTS} && {SERVER} {port}")  # shell syntax: the server is sh's child
    replies = asyncio.run(session(config, "hi"))
    assert not alive(replies[0].extra["pid"])


def test_without_ready_url_the_port_is_waited_for():
    port = free_port()
    config = agent(port=port, start=f"{SERVER} {port} --delay 0.3", ready_url=None)
    assert asyncio.run(session(config, "hi"))[0].text == "echo: hi"


def test_slow_starting_server_is_waited_for():
    port = free_port()
    config = agent(port=port, start=f"{SERVER} {port} --delay 0.4")
    assert asyncio.run(session(config, "hi"))[0].text == "echo: hi"


def test_request_template_is_deep_substituted_and_headers_expand_env_vars(monkeypatch):
    monkeypatch.setenv("KHAOS_TEST_TOKEN", "tok-123")
    config = agent(request={"input": "{{input}}", "meta": {"sid": "{{session_id}}", "ids": ["{{case_id}}", "x"]},
                            "history": "{{history}}"},
                   headers={"X-Token": "Bearer ${KHAOS_TEST_TOKEN}"})
    reply = asyncio.run(session(config, "refund please"))[0]
    assert reply.extra["body"] == {"input": "refund please", "meta": {"sid": "s-case-0", "ids": ["case-0", "x"]},
                             "history": []}
    assert reply.extra["token"] == "Bearer tok-123"
    assert reply.extra["traceparent"].startswith(f"00-{trace_id('case-0')}-")


def test_missing_header_variable_is_an_agent_error():
    config = agent(headers={"Authorization": "${KHAOS_SURELY_UNSET_VAR}"})
    with pytest.raises(AgentError, match="KHAOS_SURELY_UNSET_VAR is not set"):
        asyncio.run(session(config, "hi"))


def test_response_path_digs_through_lists():
    config = agent("/nested", request={"query": {"text": "{{input}}"}}, response_path="choices.0.message.content")
    assert asyncio.run(session(config, "status?"))[0].text == "nested: status?"


def test_response_path_that_is_missing_names_what_is_there():
    config = agent(response_path="choices.0.message.content")
    with pytest.raises(AgentCallError, match=r"no 'choices' in the response \(it has keys output, body"):
        asyncio.run(session(config, "hi"))


def test_server_error_is_a_call_error_with_status_and_body():
    with pytest.raises(AgentCallError, match="HTTP 500: internal kaboom: database unreachable"):
        asyncio.run(session(agent("/fail"), "hi"))


def test_non_json_reply_is_text_by_default_and_an_error_with_response_path():
    assert asyncio.run(session(agent("/text"), "hi"))[0].text == "plain words, not json"
    with pytest.raises(AgentCallError, match="non-JSON"):
        asyncio.run(session(agent("/text", response_path="output"), "hi"))


def test_server_that_never_becomes_ready_shows_its_stderr_fast():
    script = "import sys, time; print('listening on the wrong port 9', file=sys.stderr, flush=True); time.sleep(30)"
    config = agent(port=free_port(), start=f"{sys.executable} -c \"{script}\"", ready_timeout_s=0.6)
    with pytest.raises(AgentError, match=r"not ready within 0.6s(.|\n)*listening on the wrong port 9"):
        asyncio.run(session(config, "hi"))


def test_server_that_dies_at_start_shows_exit_code_and_stderr():
    script = "import sys; sys.stderr.write('OPENAI_API_KEY is missing'); sys.exit(4)"
    config = agent(port=free_port(), start=f"{sys.executable} -c \"{script}\"")
    with pytest.raises(AgentError, match="exited with code 4: OPENAI_API_KEY is missing"):
        asyncio.run(session(config, "hi"))


def test_reset_endpoint_is_posted():
    config = agent(reset_endpoint="http://127.0.0.1:{{port}}/reset")

    async def go() -> list[int]:
        transport = build_transport(config, base_dir=AGENTS, services=shell.services())
        assert transport.has_reset
        await transport.start()
        try:
            counts = [(await transport.send(invoke("a"))).extra["count"] for _ in range(2)]
            await transport.reset()
            counts.append((await transport.send(invoke("a"))).extra["count"])
            return counts
        finally:
            await transport.close()

    assert asyncio.run(go()) == [1, 2, 1]


def test_port_pool_starts_one_server_per_instance_and_binds_cases():
    bindings: list[tuple[int, str | None]] = []
    config = agent(instances=3, env={"KHAOS_INSTANCE": "from-config"})

    async def go() -> list[AgentResponse]:
        transport = build_transport(config, base_dir=AGENTS, services=shell.services(),
                                    bind_instance=lambda i, c: bindings.append((i, c)),
                                    env_for_instance=lambda i: {"KHAOS_INSTANCE": f"instance-{i}"})
        assert isinstance(transport, HttpTransport) and transport.exclusive and transport.instance_count == 3
        await transport.start()
        try:
            replies = await asyncio.gather(*(transport.send(invoke("x", f"case-{i}")) for i in range(6)))
        finally:
            await transport.close()
        return replies

    replies = asyncio.run(go())
    assert len({r.extra["port"] for r in replies}) == 3
    assert {r.extra["instance"] for r in replies} == {"instance-0", "instance-1", "instance-2"}
    assert not any(alive(r.extra["pid"]) for r in replies)
    assert sorted(c for _, c in bindings if c) == [f"case-{i}" for i in range(6)]
    # every case is bound then released on the instance that served it, with nothing left bound at the end
    open_cases: dict[int, str | None] = {}
    for index, case in bindings:
        assert (open_cases.get(index) is None) == (case is not None)
        open_cases[index] = case
    assert set(open_cases.values()) == {None}


def test_without_port_placeholder_there_is_one_shared_server():
    port = free_port()
    transport = build_transport(agent(port=port, instances=4), base_dir=AGENTS, services=shell.services())
    assert not transport.exclusive and transport.instance_count == 1


def test_port_placeholder_outside_start_is_a_config_error():
    with pytest.raises(ConfigError, match="put {{port}} in `start`"):
        build_transport(agent(start=f"{SERVER} 8000"), base_dir=AGENTS, services=shell.services())


def test_unrendered_env_template_is_an_agent_error():
    config = agent(env={"OPENAI_BASE_URL": "{{ llm_proxy }}"})
    with pytest.raises(AgentError, match="agent.env.OPENAI_BASE_URL.*still holds a template"):
        asyncio.run(session(config, "hi"))
