"""The entry's signature is evidence of multi-turn state, and the history reaches the parameter that names it."""

from __future__ import annotations

from khaos_action.attacks.capabilities import describe_source, infer_capabilities, signature_evidence
from khaos_action.config.agents import PythonAgent
from khaos_action.engine.agent_tools import with_signature
from khaos_action.engine.transport.python import call_style, entry_signature


def handle(text, history=None):
    return text


def chat(message: str, messages: list | None = None, session_id: str | None = None) -> str:
    return message


def plain(text: str) -> str:
    return text


def test_the_signature_names_its_history_parameter():
    assert entry_signature(handle) == ("handle(text, history=None)", "history")
    assert entry_signature(chat) == ("chat(message, messages=None, session_id=None)", "messages")
    assert entry_signature(plain) == ("plain(text)", None)


def test_a_history_parameter_is_multi_turn_evidence_with_its_signature_as_source():
    agent = PythonAgent(type="python", name="a", entry="a.py:handle")
    profile, sources = infer_capabilities(agent=agent, tools=[], metadata=with_signature(None, handle))
    assert profile.has_multi_turn and sources["has_multi_turn"] == "signature:handle(text, history=None)"
    assert describe_source(sources["has_multi_turn"]) == "signature of handle(text, history=None)"
    assert with_signature(None, plain) is None and signature_evidence(None) == []


def test_the_decorators_record_keeps_its_word_over_the_signature():
    record = {"name": "a", "capabilities": {"multi_turn": False}, "description": ""}
    agent = PythonAgent(type="python", name="a", entry="a.py:handle")
    profile, sources = infer_capabilities(agent=agent, tools=[], metadata=with_signature(record, handle))
    assert not profile.has_multi_turn and sources["has_multi_turn"] == "metadata"


def test_the_history_reaches_a_messages_parameter():
    build = call_style(chat, "agent.py:chat")
    turns = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    assert build({"text": "and now?", "history": turns, "session_id": "s"}) == (
        ("and now?",), {"messages": turns, "session_id": "s"})
    assert build({"text": "first"}) == (("first",), {"messages": [], "session_id": None})
