"""`khaos-action run`, `merge` and `validate` load the extensions named by the repeatable `--extension` option (an
in-process transport and a report format from outside the package, tests/fixtures/extensions/), and one that cannot
be imported is named with the fix."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from khaos_action.errors import UsageError
from khaos_action.extensions import load_extensions
from tests.fixtures.cli.harness import khaos
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


def test_run_loads_extensions_named_by_the_repeatable_option(
        tmp_path: Path, status_api: Served) -> None:
    base = status_api.url
    bot_project(tmp_path, base)
    ran = khaos("run", "--extension", str(EXTENSION), "--extension", str(EXTENSIONS / "khaos_recipe_io.py"),
                "--format", "md,csv", "--out", "out", cwd=tmp_path, timeout=120)
    assert ran.code == 0, ran
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["agent"]["type"] == "bot-class"
    assert_faults_acted(outputs(manifest["cases"]))
    assert (tmp_path / "out" / "cases.csv").read_text().startswith("id,phase,scenario,passed,outcome\n")

    merged = khaos("merge", "out/manifest.json", "--out", "merged", "--format", "json,csv",
                   "--extension", str(EXTENSIONS / "khaos_recipe_io.py"), cwd=tmp_path)
    assert merged.code == 0, merged
    assert (tmp_path / "merged" / "cases.csv").read_text() == (tmp_path / "out" / "cases.csv").read_text()
    unknown = khaos("merge", "out/manifest.json", "--out", "merged2", "--format", "json,csv", cwd=tmp_path)
    assert unknown.code == 2 and "csv" in unknown.stderr and not (tmp_path / "merged2").exists(), unknown

    checked = khaos("validate", "--extension", str(EXTENSION), cwd=tmp_path)
    assert checked.code == 0 and "agent bot (bot-class)" in checked.stdout, checked
    refused = khaos("validate", cwd=tmp_path)  # without it, the type is unknown to the config
    assert refused.code == 2 and "agent.type: expected one of 'python'" in refused.stderr, refused


def test_an_extension_that_cannot_be_imported_is_named_with_the_fix(tmp_path: Path, forget: None) -> None:
    with pytest.raises(UsageError, match=r"extension 'khaos_not_installed' was not found: install it .* or give "
                                         r"the path of its \.py file"):
        load_extensions(["khaos_not_installed"], base_dir=tmp_path)
    with pytest.raises(UsageError, match=r"extension 'missing\.py': .*missing\.py is not a file"):
        load_extensions(["missing.py"], base_dir=tmp_path)
    (tmp_path / "khaos_broken_ext.py").write_text("import json\n\nraise RuntimeError('no API key')\n")
    with pytest.raises(UsageError, match=r"extension 'khaos_broken_ext\.py' failed to import: RuntimeError: no API "
                                         r"key \(at .*khaos_broken_ext\.py:3\)\. Fix the module"):
        load_extensions(["khaos_broken_ext.py"], base_dir=tmp_path)
    ran = khaos("run", "--extension", "khaos_not_installed", cwd=tmp_path)
    assert ran.code == 2 and "error: extension 'khaos_not_installed' was not found" in ran.stderr, ran


def test_a_transport_written_for_the_untyped_seam_is_refused_at_import_with_the_way_to_move_it(
        tmp_path: Path, forget: None) -> None:
    (tmp_path / "khaos_old_transport.py").write_text(
        "from khaos_action.plugins import TransportBase, TransportMessage, normalise_reply, response\n")
    with pytest.raises(UsageError, match=r"extension 'khaos_old_transport\.py' failed to import: ImportError: "
                                         r"khaos_action\.plugins\.TransportMessage is gone: a transport's "
                                         r"`send\(request\)` is given an `AgentRequest` and returns an "
                                         r"`AgentResponse`: `return response\(normalise_reply\(value\)\)` .*"
                                         r"\(at .*khaos_old_transport\.py:1\)\. Fix the module"):
        load_extensions(["khaos_old_transport.py"], base_dir=tmp_path)
    checked = khaos("validate", "--extension", "khaos_old_transport.py", cwd=tmp_path)
    assert checked.code == 2 and "khaos_action.plugins.TransportMessage is gone" in checked.stderr, checked
