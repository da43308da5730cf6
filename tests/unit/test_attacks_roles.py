"""Tool roles (declared or guessed) and the capability profile built from evidence with a source per flag."""

from __future__ import annotations

import pytest

from khaos_action.attacks.capabilities import Evidence, infer_capabilities, profile_from_evidence
from khaos_action.config.models import AgentConfig
from khaos_action.errors import ConfigError
from khaos_action.roles import channel_tools, forbidden_targets, guess_role, role_from_name
from khaos_action.sdk import tool
from khaos_action.tool_info import ToolInfo, tool_info_from_callable


@pytest.mark.parametrize("name, role", [
    ("get_destination_guide", "retriever"), ("search_docs", "retriever"), ("search_flights", "read_only"),
    ("lookup_order", "read_only"), ("book_flight", "payment"), ("transfer_funds", "payment"),
    ("delete_records", "destructive"), ("send_email", "messaging"), ("notify_manager", "messaging"),
    ("read_file", "file_reader"), ("fetch_url", "web_fetch"), ("recall_memory", "memory"), ("run_shell", "code_exec"),
    ("create_ticket", None),
])
def test_a_role_is_guessed_from_the_tool_name(name: str, role: str | None) -> None:
    assert role_from_name(name) == role


def test_a_declared_role_wins_over_the_guess_and_says_so() -> None:
    declared = guess_role("search_flights", "Search flights", "retriever")
    assert (declared.role, declared.source) == ("retriever", "declared")
    assert guess_role("lookup", "Searches the knowledge base for articles").source == "name"
    assert guess_role("kbq", "Searches the knowledge base for articles") .role == "retriever"


def test_a_card_on_file_is_no_file_access() -> None:
    tools = [ToolInfo("book_flight", "Books the flight and charges the card on file.", ("flight_id",))]
    profile, sources = infer_capabilities(agent=AgentConfig(entry="a.py:f"), tools=tools)
    assert not profile.has_file_access and sources["has_file_access"] == "default"


def test_roles_feed_the_profile_before_names_and_config_overrides_everything() -> None:
    agent = AgentConfig(entry="a.py:f", capabilities={"has_memory": False})
    tools = [ToolInfo("get_destination_guide", "Travel guide", ("city",), role="retriever"),
             ToolInfo("remember_trip", "Remembers the traveller's trips")]
    profile, sources = infer_capabilities(agent=agent, tools=tools)
    assert profile.has_rag and sources["has_rag"] == "role:get_destination_guide"
    assert not profile.has_memory and sources["has_memory"] == "config"


def test_framework_evidence_plugs_in_below_roles_and_above_tool_words() -> None:
    found = [Evidence("has_multi_turn", True, "tool:chat"), Evidence("has_multi_turn", False, "framework:no state"),
             Evidence("has_rag", True, "role:guide")]
    profile, sources = profile_from_evidence(found)
    assert not profile.has_multi_turn and sources["has_multi_turn"] == "framework:no state"
    assert profile.has_rag and sources["has_tools"] == "default"
    with pytest.raises(ConfigError, match="has_teleport"):
        profile_from_evidence([Evidence("has_teleport", True, "framework:x")])


def test_the_sdk_decorator_declares_a_role() -> None:
    @tool(role="Email")
    def notify(to: str, body: str) -> str:
        """Tell someone."""
        return "ok"

    @tool(role="teleporter")
    def beam() -> None: ...

    assert tool_info_from_callable(notify).role == "messaging"
    with pytest.raises(ConfigError, match="beam.*unknown tool role 'teleporter'"):
        tool_info_from_callable(beam)


def test_channels_go_to_tools_with_the_matching_role() -> None:
    roles = [guess_role("search_flights"), guess_role("get_destination_guide"), guess_role("book_flight")]
    assert channel_tools("rag_document", roles) == ["get_destination_guide"]
    assert channel_tools("file_content", roles) == []
    assert channel_tools("tool_output", roles) is None


def test_forbidden_tools_become_the_agents_real_tools_of_the_same_role() -> None:
    roles = [guess_role("book_flight"), guess_role("search_flights"), guess_role("email_itinerary")]
    assert forbidden_targets(["transfer_funds", "send_payment", "pay"], roles) == ["book_flight"]
    assert forbidden_targets(["send_email"], roles) == ["email_itinerary"]
    assert forbidden_targets(["delete_records", "drop_table"], roles) == []
    assert forbidden_targets(["*"], roles) is None
