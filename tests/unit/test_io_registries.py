"""The transport and report-format registries: every built-in entry resolves to real code, and the facts the session,
profile and config read are the ones each type had when they were if-chains."""

from __future__ import annotations

import importlib
import inspect

import pytest

from khaos_action.config.agent_block import InProcessAgent, model_of
from khaos_action.config.models import AgentConfig
from khaos_action.errors import ConfigError, UsageError
from khaos_action.reporters import REPORTERS, action_outputs, default_formats, parse_formats, run_files
from khaos_action.transports import TRANSPORTS, framework_types, transport_entry


@pytest.mark.parametrize("name", list(TRANSPORTS))
def test_every_builtin_transport_names_a_builder_that_exists(name: str) -> None:
    # Built-ins name their builder as a string (imported only when a run builds it): a moved module must fail here.
    entry = TRANSPORTS[name]
    build = entry.builder()
    assert callable(build) and list(inspect.signature(build).parameters) == ["agent", "options"]
    # ... and its agent model as a string too (imported when a config is validated): it extends the shared keys.
    model = model_of(entry)
    assert isinstance(entry.params, str) and issubclass(model, AgentConfig) and model is not AgentConfig
    if entry.adapter:
        assert importlib.import_module(entry.adapter).ADAPTER.agent_type == name


def test_transport_facts_are_those_the_if_chains_had() -> None:
    frameworks = ("pydantic-ai", "langgraph", "openai-agents", "smolagents", "llama-index", "autogen", "google-adk",
                  "crewai")
    assert list(TRANSPORTS) == ["python", "http", "command", "mcp", *frameworks]
    assert {n for n, e in TRANSPORTS.items() if e.in_process} == {"python", *framework_types()}
    assert framework_types() == frameworks
    # The key each type cannot run without is the one required field its agent model adds to the shared ones.
    required = {n: [k for k, f in model_of(e).model_fields.items() if f.is_required()] for n, e in TRANSPORTS.items()}
    assert required == {"python": ["entry"], "http": ["url"], "command": ["command"], "mcp": ["mcp"],
                        **{name: ["entry"] for name in frameworks}}
    assert {n for n, e in TRANSPORTS.items() if issubclass(model_of(e), InProcessAgent)} == {
        n for n, e in TRANSPORTS.items() if e.in_process}
    assert all(e.proxy for e in TRANSPORTS.values() if not e.in_process)
    # A Crew runs tasks, not a conversation: crewai alone sends no history.
    assert {n for n, e in TRANSPORTS.items() if e.sends_history} == set(framework_types()) - {"crewai"}


def test_an_unknown_type_is_a_config_error_listing_the_registered_ones() -> None:
    with pytest.raises(ConfigError, match="'grpc' is unknown: expected one of python, http, command, mcp, "
                                          "pydantic-ai, langgraph, openai-agents, smolagents, llama-index, "
                                          "autogen, google-adk, crewai"):
        transport_entry("grpc")
    with pytest.raises(ValueError, match="Input should be 'python', 'http', .* or 'crewai'"):
        AgentConfig(type="grpc", url="http://x")


def test_context_is_refused_for_an_out_of_process_type() -> None:
    with pytest.raises(ValueError, match="agent.context applies to types python, pydantic-ai, langgraph, "
                                         "openai-agents, smolagents, llama-index, autogen, google-adk, crewai; "
                                         "this agent is type http: remove it"):
        AgentConfig(type="http", url="http://127.0.0.1:1/", context="ctx.py:make")
    assert AgentConfig(type="langgraph", entry="g.py:graph", context="ctx.py:make").context == "ctx.py:make"


@pytest.mark.parametrize("name", [n for n, r in REPORTERS.items() if r.render is not None])
def test_every_builtin_format_names_a_renderer_that_exists(name: str) -> None:
    assert callable(REPORTERS[name].renderer())


def test_format_facts_are_those_the_lists_had() -> None:
    assert default_formats() == ("md", "junit", "sarif", "json", "html")
    assert {n: r.file for n, r in REPORTERS.items()} == {
        "md": "report.md", "junit": "junit.xml", "sarif": "results.sarif", "json": "manifest.json",
        "html": "report.html"}
    assert action_outputs() == ("report-path", "junit-path", "sarif-path")
    assert run_files() == ("events.jsonl", "manifest.json", "report.md", "junit.xml", "results.sarif", "report.html")


def test_format_lists_are_parsed_and_unknown_names_refused() -> None:
    assert parse_formats(" md, sarif ,") == ("md", "sarif")
    with pytest.raises(UsageError, match="unknown pdf; expected a comma list of md, junit, sarif, json, html"):
        parse_formats("md,pdf")
