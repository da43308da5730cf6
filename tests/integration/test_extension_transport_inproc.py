"""An in-process transport from outside the package (tests/fixtures/extensions/khaos_recipe_inproc.py, `bot-class`)
runs end to end in the python worker: the run API loads it, the worker imports it from its setup frame and builds the
entry from its own registry, and tool faults, tool wrapping and HTTP interception act on it as on a `type: python`
agent. A real agent, a real status API on 127.0.0.1, a real run (`khaos-action run --extension`:
tests/end_to_end/test_cli_extensions.py)."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from khaos_action.transports import TRANSPORTS
from tests.builders import evaluate_project
from tests.fixtures.extensions.bot_project import (
    EXTENSION,
    EXTENSIONS,
    Status,
    assert_faults_acted,
    bot_project,
    forgotten,
    outputs,
)
from tests.local_http import Served, serving


@pytest.fixture
def status_api() -> Iterator[Served]:
    with serving(Status) as served:
        served.server.paths = []  # type: ignore[attr-defined]
        yield served


@pytest.fixture
def forget() -> Iterator[None]:
    with forgotten():
        yield


@pytest.mark.parametrize("loaded_by", ["request", "caller"])
def test_an_in_process_extension_transport_runs_in_the_worker_with_faults(
        tmp_path: Path, status_api: Served, forget: None, loaded_by: str) -> None:
    base = status_api.url
    config = bot_project(tmp_path, base)
    if loaded_by == "caller":  # imported by the run API's caller, unnamed: the worker is told the entry's module
        sys.path.insert(0, str(EXTENSIONS))
        importlib.import_module("khaos_recipe_inproc")
    extensions = (str(EXTENSION),) if loaded_by == "request" else ()
    result = evaluate_project(config, tmp_path / "run", formats=("md",), extensions=extensions)

    manifest = result.manifest
    assert manifest.agent.type == "bot-class" and "bot-class" in TRANSPORTS
    cases = [c.model_dump() for c in manifest.cases]
    assert_faults_acted(outputs(cases))
    fired = {c.scenario: c.faults_fired for c in manifest.cases if c.scenario in ("tool-down", "status-down")}
    assert all(fired.values()), fired
    # The http fault answered in the worker: only the calls that got the real status reached the status API
    # (no-chaos and the unscored state probe's two), none of status-down's.
    reached = [c for c in cases if (c["output"] or "").endswith("delivered on Monday.")]
    assert status_api.server.paths == ["/status/1234"] * len(reached) and len(reached) >= 3
    assert not any(c["scenario"] == "status-down" for c in reached)
    assert manifest.verdict.passed
