"""Framework apps written the way their frameworks' public examples are (tests/fixtures/frameworks): an OpenAI Agents
SDK triage app with handoffs, a typed run context and an agent-as-tool; pydantic-ai agents with `deps_type`,
RunContext tools and structured output; a LangGraph ReAct graph with `context_schema`, `get_runtime()` and an
aiohttp search tool. Each runs unmodified through `evaluate` with its own entry object and `agent.context`, against
a scripted OpenAI-compatible model server and the tools' HTTP APIs on 127.0.0.1."""

from __future__ import annotations

import asyncio
import random
import shutil
from pathlib import Path

import pytest

from khaos_action.engine.chaos.intercept import http_interception
from khaos_action.engine.chaos.plan import activate, bind_faults
from khaos_action.engine.context import CaseContext
from khaos_action.engine.transport.frameworks import adapter_for
from khaos_action.engine.transport.frameworks.base import FrameworkTransport, check_agent_object, discover_tools
from khaos_action.errors import ConfigError
from khaos_action.messages import AgentRequest
from tests.builders import evaluate_project
from tests.fixtures.frameworks.api_server import ToolApis
from tests.fixtures.frameworks.scripted_llm import ScriptedLlm

pytestmark = pytest.mark.slow  # a whole app, example or benchmark run: left out of the quick command

pytest.importorskip("agents")
pytest.importorskip("pydantic_ai")
pytest.importorskip("langgraph")
pytest.importorskip("langchain_openai")
pytest.importorskip("aiohttp")

APPS = Path(__file__).resolve().parents[1] / "fixtures" / "frameworks"


@pytest.fixture(scope="module")
def servers():
    # The apps read these when imported, as real apps read their configuration.
    with ScriptedLlm() as llm, ToolApis() as apis, pytest.MonkeyPatch.context() as env:
        env.setenv("SCRIPTED_LLM_URL", llm.url + "/v1")
        env.setenv("SEARCH_API_URL", apis.url)
        env.setenv("WEATHER_API_URL", apis.url)
        env.delenv("OPENAI_API_KEY", raising=False)
        yield llm, apis


@pytest.fixture(scope="module")
def run(servers, tmp_path_factory: pytest.TempPathFactory):
    manifests: dict[str, object] = {}

    def evaluated(config: str):
        if config not in manifests:
            out = tmp_path_factory.mktemp(config.split(".")[0])
            manifests[config] = evaluate_project(APPS / config, out, formats=("json", "md")).manifest
        return manifests[config]

    return evaluated


def cases(manifest, **where):
    return [c for c in manifest.cases if all(getattr(c, k) == v for k, v in where.items())]


def assert_every_fault_fired(manifest) -> None:
    configured = {f for c in manifest.cases for f in c.fault_ids}
    fired = {f for c in manifest.cases for f, n in c.fault_hits.items() if n}
    assert configured and configured <= fired, f"never fired: {configured - fired}"


def assert_clean_baseline(manifest) -> None:
    clean = cases(manifest, phase="contract", scenario="no-chaos")
    assert clean and all(c.error is None and c.output for c in clean), [(c.input, c.error) for c in clean]
    assert not [w for w in manifest.warnings if "never" in w]


# ---- openai-agents: handoffs, a typed run context, an agent as a tool ----------------------------------------------

def test_handoff_app_runs_clean_and_every_fault_fires(run) -> None:
    manifest = run("airline.khaos.yaml")
    assert_clean_baseline(manifest)
    assert_every_fault_fired(manifest)
    [seat] = cases(manifest, scenario="no-chaos", input="Can I change my seat to 14C? My confirmation is XYZ789.")
    # The handoff is a tool call too, and the tool behind it ran with the context the handoff filled in.
    assert [c["name"] for c in seat.tool_calls] == ["transfer_to_seat_booking_agent", "update_seat"]
    assert "Updated seat to 14C for confirmation number XYZ789" in seat.output
    [faq] = cases(manifest, scenario="faq-down", input="How many bags can I bring?")
    assert [(c["name"], c.get("error_source")) for c in faq.tool_calls] == [
        ("transfer_to_faq_agent", None), ("faq_lookup_tool", "fault")]  # fired as planned; each call once
    [translated] = cases(manifest, scenario="translator-down", input="Please say hello in Spanish.")
    assert translated.fault_hits == {translated.fault_ids[0]: 1}  # the agent-as-tool was wrapped too


def test_tools_behind_handoffs_and_agents_as_tools_are_found_on_their_own(servers) -> None:
    tools = {t.name: t for t in discover_tools("openai-agents", "airline.py:triage_agent", APPS)}
    assert {"faq_lookup_tool", "update_seat", "translate_to_spanish"} <= set(tools)
    assert all(tools[n].target is not None for n in ("faq_lookup_tool", "update_seat", "translate_to_spanish"))


def test_handoff_app_profile_has_multi_turn_from_the_adapter(run) -> None:
    manifest = run("airline.khaos.yaml")
    assert manifest.agent.capabilities["has_multi_turn"] is True
    assert manifest.agent.capability_sources["has_multi_turn"].startswith("framework:openai-agents")


def test_seat_agent_whose_tool_raises_on_every_call_fails_naming_the_tool(run) -> None:
    manifest = run("seat_only.khaos.yaml")
    [clean] = cases(manifest, phase="contract", scenario="no-chaos")
    # The SDK turned the AssertionError into text for the model, which apologised: the run must not pass anyway.
    assert "I'm sorry" in clean.output
    assert "tool 'update_seat' raised AssertionError: Flight number is required" in clean.error
    assert "the tool itself broke" in clean.error
    assert [(c["name"], c["error_source"]) for c in clean.tool_calls] == [("update_seat", "tool")]
    assert manifest.verdict.passed is False and manifest.verdict.exit_code != 0
    assert "update_seat" in " ".join(manifest.verdict.reasons)


def test_tracing_stays_off_during_the_run_and_the_sdk_is_left_as_it_was(servers) -> None:
    from agents import tracing
    from agents.tracing import TracingProcessor, set_trace_processors

    started: list[str] = []

    class Recorder(TracingProcessor):
        def on_trace_start(self, trace) -> None:
            started.append(trace.name)

        def on_trace_end(self, trace) -> None: ...
        def on_span_start(self, span) -> None: ...
        def on_span_end(self, span) -> None: ...
        def shutdown(self) -> None: ...
        def force_flush(self) -> None: ...

    provider = tracing.get_trace_provider()
    disabled_before = getattr(provider, "_disabled", None)
    set_trace_processors([Recorder()])  # instead of the exporter that would call api.openai.com
    try:
        transport = FrameworkTransport(adapter_for("openai-agents"), "airline.py:triage_agent", base_dir=APPS,
                                       context="airline.py:new_context")
        replies = [asyncio.run(transport.send(AgentRequest(text, session_id="s1")))
                   for text in ("How many bags can I bring?", "Please say hello in Spanish.")]  # also a nested run
    finally:
        set_trace_processors([])
    assert "carry-on" in replies[0].text and "Hola" in replies[1].text
    assert started == [] and getattr(provider, "_disabled", None) == disabled_before


def test_openai_agents_streamed_run_meets_llm_faults_mid_stream(servers) -> None:
    transport = FrameworkTransport(adapter_for("openai-agents"), "airline.py:triage_agent", base_dir=APPS,
                                   context="airline.py:new_context", stream=True)

    def one(*faults: dict) -> tuple[CaseContext, str | Exception]:
        ctx = CaseContext(case_id="c", rng=random.Random(1), faults=bind_faults(list(faults)))

        async def turn():
            with activate(ctx):
                try:
                    return (await transport.send(AgentRequest("How many bags can I bring?", session_id="s2"))).text
                except Exception as exc:  # noqa: BLE001 - the fault's error is what is checked
                    return exc
        with http_interception():
            return ctx, asyncio.run(turn())

    ctx, text = one()
    assert "carry-on" in text and all(c["stream"] for c in ctx.llm_calls)
    ctx, text = one({"id": "cut", "target": "llm", "mode": "truncated_response", "max_tokens": 2})
    assert ctx.hits["cut"] >= 1 and text.strip() == "Here is"
    ctx, error = one({"id": "429", "target": "llm", "mode": "rate_limit", "retry_after_s": 0.01})
    assert ctx.hits["429"] >= 1 and "429" in str(error)


# ---- pydantic-ai: deps_type, RunContext tools, structured output ---------------------------------------------------

def test_deps_agent_with_structured_output_runs_clean_and_every_fault_fires(run) -> None:
    manifest = run("bank.khaos.yaml")
    assert_clean_baseline(manifest)
    assert_every_fault_fired(manifest)
    [lost] = cases(manifest, scenario="no-chaos", input="I just lost my card!")
    assert '"block_card":true' in lost.output and "John" in lost.output  # the instructions read the deps
    [balance] = cases(manifest, scenario="no-chaos", input="What is my balance?")
    assert "$123.45" in balance.output and [c["name"] for c in balance.tool_calls] == ["customer_balance"]


def test_the_users_pydantic_ai_agent_keeps_its_name(run) -> None:
    from khaos_action.engine.code_ref import load_object

    run("bank.khaos.yaml")
    assert load_object("bank_support.py:support_agent", APPS).name is None  # not renamed `obj` by the adapter


def test_streamed_weather_agent_meets_tool_http_and_llm_faults(run, servers) -> None:
    manifest = run("weather.khaos.yaml")  # agent.stream: true -> run_stream
    assert_clean_baseline(manifest)
    assert_every_fault_fired(manifest)
    [cut] = cases(manifest, scenario="model-cut-short")
    assert cut.output.strip() == "Here is what"
    [down] = cases(manifest, scenario="forecast-api-down")
    assert "503" in down.error and [c["name"] for c in down.tool_calls] == ["get_lat_lng", "get_weather"]
    assert manifest.agent.capability_sources["has_network_access"] == "tool:get_lat_lng"  # its code calls HTTP


# ---- LangGraph: context_schema, get_runtime(), an aiohttp tool -------------------------------------------------------

def test_react_graph_with_an_aiohttp_tool_runs_clean_and_every_fault_fires(run, servers) -> None:
    manifest = run("react.khaos.yaml")  # agent.stream: true -> astream
    assert_clean_baseline(manifest)
    assert_every_fault_fired(manifest)
    [clean] = cases(manifest, phase="contract", scenario="no-chaos")
    assert "Argentina" in clean.output and [c["name"] for c in clean.tool_calls] == ["search"]
    [down] = cases(manifest, scenario="search-api-down")
    assert "503" in down.error  # the aiohttp session got the injected 503 and raise_for_status() raised
    # The tool raised because of the injected 503: recorded as the tool's error, after the fault fired.
    assert [(c["name"], c["error_source"]) for c in down.tool_calls] == [("search", "tool")]
    assert any("not a tool fault of ours" in n and down.fault_ids[0] in n for n in down.notes)
    assert manifest.agent.capability_sources["has_network_access"] == "tool:search"


def test_http_fault_on_a_host_never_called_says_what_was_intercepted_and_seen(run) -> None:
    manifest = run("react_wrong_host.khaos.yaml")
    [warning] = [w for w in manifest.warnings if "never fired" in w]
    assert "api.tavily.com" in warning and "aiohttp" in warning.split("Intercepted clients: ")[1]
    assert "POST 127.0.0.1/search via aiohttp" in warning[:400]  # within what the Markdown report shows


def test_tool_node_in_a_subgraph_is_found(servers) -> None:
    tools = discover_tools("langgraph", "react_agent.graph:app", APPS)
    assert [t.name for t in tools] == ["search"] and tools[0].target is not None


# ---- validate: a declared context that agent.context does not provide ------------------------------------------------

@pytest.mark.parametrize(("agent_type", "entry", "named"), [
    ("pydantic-ai", "bank_support.py:support_agent", "SupportDependencies (deps_type"),
    ("openai-agents", "airline.py:seat_booking_agent", "AirlineContext (Agent[AirlineContext]"),
    ("langgraph", "react_agent.graph:graph", "Context (context_schema"),
])
def test_missing_context_is_a_config_error_naming_the_type(servers, agent_type, entry, named) -> None:
    with pytest.raises(ConfigError, match=r"agent.context is not set") as raised:
        check_agent_object(agent_type, entry, APPS, None)
    assert named in str(raised.value)
    assert check_agent_object(agent_type, entry, APPS, "some.py:factory") is not None


def test_context_of_a_tool_typed_run_context_wrapper_is_named(servers, tmp_path: Path) -> None:
    (tmp_path / "typed_tool.py").write_text(
        "from dataclasses import dataclass\n"
        "from agents import Agent, RunContextWrapper, function_tool\n"
        "@dataclass\nclass Shop:\n    name: str\n"
        "@function_tool\ndef stock(ctx: RunContextWrapper[Shop], sku: str) -> str:\n"
        "    '''Stock of a product.'''\n    return ctx.context.name\n"
        "agent = Agent(name='shop', tools=[stock])\n")
    with pytest.raises(ConfigError, match=r"Shop \(RunContextWrapper\[Shop\] in tool 'stock'\)"):
        check_agent_object("openai-agents", "typed_tool.py:agent", tmp_path, None)


def test_validate_cli_names_the_missing_context(servers, tmp_path: Path) -> None:
    import subprocess
    import sys

    shutil.copy(APPS / "bank_support.py", tmp_path / "bank_support.py")
    (tmp_path / "khaos.yaml").write_text((APPS / "bank.khaos.yaml").read_text().replace(
        "  context: bank_support.py:support_deps\n", ""))
    done = subprocess.run([sys.executable, "-m", "khaos_action.cli", "validate", "-c", str(tmp_path / "khaos.yaml")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "SupportDependencies" in done.stdout + done.stderr and "agent.context" in done.stdout + done.stderr
    assert ": valid" not in done.stdout, done.stdout  # the error is the verdict, not a footnote under "valid"


def test_validate_cli_accepts_each_app_with_its_context(servers) -> None:
    import subprocess
    import sys

    for config in ("airline.khaos.yaml", "bank.khaos.yaml", "react.khaos.yaml"):
        done = subprocess.run([sys.executable, "-m", "khaos_action.cli", "validate", "-c", str(APPS / config)],
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "context: " in done.stdout and "made per case by agent.context" in done.stdout


def test_a_file_entry_in_the_apps_package_is_the_same_graph(servers) -> None:
    from khaos_action.engine.code_ref import load_object

    assert load_object("react_agent/graph.py:graph", APPS) is load_object("react_agent.graph:graph", APPS)


def test_tool_fault_reaches_a_tool_node_inside_a_subgraph(servers) -> None:
    from khaos_action.engine.chaos.tools import ToolPatcher

    transport = FrameworkTransport(adapter_for("langgraph"), "react_agent.graph:app", base_dir=APPS,
                                   context="react_agent.context:Context")
    asyncio.run(transport.start())
    ctx = CaseContext(case_id="c", rng=random.Random(1),
                      faults=bind_faults([{"id": "search-empty", "target": "tool", "tool": "search", "mode": "empty"}]))

    async def turn() -> str:
        with activate(ctx):
            message = AgentRequest("Who won the 2022 world cup? Search for it.", session_id="s")
            return (await transport.send(message)).text

    with ToolPatcher([], callables=transport.tool_callables):
        text = asyncio.run(turn())
    assert ctx.hits["search-empty"] == 1 and "Argentina" not in text
    assert [(c.name, c.fault) for c in ctx.tool_calls] == [("search", "search-empty")]
