"""Fixtures for the container tests: the engine, the built image(s), the GitHub stand-in and a runner job."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.container import engine as engine_mod
from tests.container.runner import RunnerJob
from tests.github_api import serve


def pytest_terminal_summary(terminalreporter) -> None:
    if engine_mod.NOTES:
        terminalreporter.section("container image")
        for note in engine_mod.NOTES:
            terminalreporter.write_line(note)


@pytest.fixture(scope="session")
def engine() -> Iterator[engine_mod.Engine]:
    if os.environ.get("KHAOS_SKIP_CONTAINER"):
        pytest.skip("KHAOS_SKIP_CONTAINER is set")
    try:
        found = engine_mod.find_engine()
    except engine_mod.EngineUnavailable as exc:
        print(f"[container] SKIPPED: {exc}")
        pytest.skip(f"no container engine: {exc}")
    yield found
    found.close()


@pytest.fixture(scope="session")
def base(engine) -> tuple[str, bool]:
    try:
        return engine_mod.ensure_base(engine)
    except engine_mod.EngineUnavailable as exc:
        pytest.skip(str(exc))


@pytest.fixture(scope="session")
def image(engine, base) -> str:
    tag = f"khaos-action:test-{os.getpid()}"
    engine_mod.build(engine, base[0], tag)
    return tag


@pytest.fixture(scope="session")
def node_image(engine, base, image) -> str:
    tag = f"khaos-action:test-{os.getpid()}-node"
    engine_mod.build(engine, base[0], tag, "WITH_NODE=true")
    return tag


@pytest.fixture
def api() -> Iterator:
    with serve() as state:
        yield state


@pytest.fixture
def job(tmp_path, engine, api) -> RunnerJob:
    return RunnerJob(tmp_path, engine, api)
