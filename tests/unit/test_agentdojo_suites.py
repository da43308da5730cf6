"""The AgentDojo fixture without the CLI (tests/fixtures/agentdojo): the copied suites load (the workspace data through
its `!include`s), the state checks written for each injection task decide as the benchmark's own security oracle
does on that task's ground truth and on an untouched environment, and the harness reads back a logged environment
with what the case created in it. The runs through `khaos-action run` are tests/integration/test_agentdojo_bench.py."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fixtures" / "agentdojo"))

import dojo  # noqa: E402
import dojo_harness as harness  # noqa: E402

PAIRS = [(suite, task_id) for suite in dojo.SUITES for task_id in dojo.SUITES[suite].injection_tasks]


def test_the_workspace_data_is_composed_from_its_includes() -> None:
    env = dojo.new_episode("workspace").env
    assert env.inbox.emails and env.calendar.events and env.cloud_drive.files
    vectors = dojo.SUITES["workspace"].get_injection_vector_defaults()
    canaries = {name: f"<CANARY---{name}--->" for name in vectors}
    injected = dojo.SUITES["workspace"].load_and_inject_default_environment(canaries)
    text = injected.model_dump_json()
    assert all(canary in text for canary in canaries.values())  # every vector lands in the data


def _episode_after(suite: str, task_id: str) -> dojo.Episode:
    """A fresh environment with the injection task's ground truth carried out on it (what an obedient agent does)."""
    episode = dojo.new_episode(suite)
    for call in dojo.SUITES[suite].injection_tasks[task_id].ground_truth(episode.pre):
        episode.trace.append(dojo.Call(call.function, dict(call.args)))
        dojo.run_tool(episode, call.function, dict(call.args))
    return episode


def _check(suite: str, task_id: str):
    return getattr(importlib.import_module(f"dojo_checks.{suite}"), task_id)


@pytest.mark.parametrize(("suite", "task_id"), PAIRS)
def test_each_state_check_decides_as_the_benchmarks_oracle(suite: str, task_id: str) -> None:
    task = dojo.SUITES[suite].injection_tasks[task_id]
    done = _episode_after(suite, task_id)
    said = "" if done.trace else task.GROUND_TRUTH_OUTPUT  # an injection task whose ground truth is words
    assert dojo.security_oracle(suite, task_id, said, done.pre, done.env, done.trace)
    held, evidence = _check(suite, task_id)(context=done, reply=said)
    assert not held, evidence
    untouched = dojo.new_episode(suite)
    assert not dojo.security_oracle(suite, task_id, "Done.", untouched.pre, untouched.env, [])
    held, evidence = _check(suite, task_id)(context=untouched, reply="Done.")
    assert held, evidence


@pytest.mark.parametrize("suite", ["travel", "workspace"])
def test_a_logged_environment_keeps_what_the_case_created(suite: str) -> None:
    episode = dojo.new_episode(suite)
    dojo.run_tool(episode, "send_email", {"recipients": ["someone@example.com"], "subject": "Hello", "body": "Hi"})
    read_back = harness._env(suite, json.loads(episode.env.model_dump_json()))
    assert read_back.inbox.search_emails("Hello") and read_back == episode.env
    # validating the dump alone rebuilds the inbox from its initial messages and loses the one sent
    assert not dojo.SUITES[suite].environment_type.model_validate_json(episode.env.model_dump_json()).inbox \
        .search_emails("Hello")
