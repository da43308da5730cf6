"""An in-process transport from outside the package (tests/fixtures/extensions/khaos_recipe_inproc.py, `bot-class`)
runs end to end in the python worker: the run API and `khaos-action run --extension` load it, the worker imports it
from its setup frame and builds the entry from its own registry, and tool faults, tool wrapping and HTTP
interception act on it as on a `type: python` agent. A real agent, a real status API on 127.0.0.1, a real run."""

from __future__ import annotations

import importlib
import json
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import yaml

from khaos_action.errors import UsageError
from khaos_action.extensions import load_extensions
from khaos_action.main import evaluate
from khaos_action.reporters import REPORTERS
from khaos_action.run_api import EvaluateRequest
from khaos_action.transports import TRANSPORTS
from tests import shell
from tests.fixtures.cli.harness import khaos

EXTENSIONS = Path(__file__).resolve().parents[1] / "fixtures" / "extensions"
EXTENSION = EXTENSIONS / "khaos_recipe_inproc.py"

AGENT = '''
import httpx

STATUS = {base!r}


def lookup_order(order_id: str) -> str:
    """The order's record."""
    return f"Order {{order_id}}"


class SupportBot:
    def reply(self, text: str) -> str:
        try:
            order = lookup_order("1234")
        except Exception as exc:
            return f"The order system failed ({{type(exc).__name__}})."
        answer = httpx.get(STATUS + "/status/1234", timeout=5)
        if answer.status_code != 200:
            return f"The status service answered {{answer.status_code}}."
        return f"{{order}}: {{answer.json()['status']}}."
'''

CHAOS = [{"name": "no-chaos"},
         {"name": "tool-down", "tool_faults": [{"tool": "lookup_order", "mode": "error"}]},
         {"name": "status-down", "http_faults": [{"host": "127.0.0.1", "path": "^/status/", "mode": "error",
                                                  "status_code": 503}]}]
EXPECTED = {"no-chaos": "Order 1234: delivered on Monday.", "tool-down": "The order system failed (",
            "status-down": "The status service answered 503."}


class _Status(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - the http.server name
        self.server.paths.append(self.path)  # type: ignore[attr-defined]
        body = json.dumps({"status": "delivered on Monday"}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        return None


@pytest.fixture
def status_api() -> Iterator[ThreadingHTTPServer]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Status)
    server.paths = []  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def forget(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """What loading the extensions in this process registers is removed again afterwards."""
    assert "bot-class" not in TRANSPORTS  # nothing in the package knows it
    monkeypatch.setattr(sys, "path", list(sys.path))
    yield
    TRANSPORTS.pop("bot-class", None)
    REPORTERS.pop("csv", None)
    for name in ("khaos_recipe_inproc", "khaos_recipe_io", "khaos_broken_ext"):
        sys.modules.pop(name, None)


def write_project(folder: Path, base: str) -> Path:
    (folder / "agent.py").write_text(AGENT.format(base=base))
    config = {"version": 1, "seed": 3, "concurrency": 2,
              "agent": {"name": "bot", "type": "bot-class", "entry": "agent.py:SupportBot", "method": "reply",
                        "tools": ["agent.py:lookup_order"], "timeout_s": 10},
              "golden_prompts": ["Where is my order 1234?"],
              "contract": {"invariants": [{"id": "answers", "type": "output_not_empty"}]},
              "chaos_matrix": CHAOS}
    path = folder / "khaos.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


def outputs(cases: list) -> dict[str, str]:
    return {c["scenario"]: c["output"] for c in cases if c["scenario"] in EXPECTED}


def assert_faults_acted(by_scenario: dict[str, str]) -> None:
    assert set(by_scenario) == set(EXPECTED)
    for scenario, text in EXPECTED.items():
        assert by_scenario[scenario].startswith(text), (scenario, by_scenario[scenario])


@pytest.mark.parametrize("loaded_by", ["request", "caller"])
def test_an_in_process_extension_transport_runs_in_the_worker_with_faults(
        tmp_path: Path, status_api: ThreadingHTTPServer, forget: None, loaded_by: str) -> None:
    base = f"http://127.0.0.1:{status_api.server_address[1]}"
    config = write_project(tmp_path, base)
    if loaded_by == "caller":  # imported by the run API's caller, unnamed: the worker is told the entry's module
        sys.path.insert(0, str(EXTENSIONS))
        importlib.import_module("khaos_recipe_inproc")
    extensions = (str(EXTENSION),) if loaded_by == "request" else ()
    result = evaluate(EvaluateRequest(config_path=config, out_dir=tmp_path / "run", formats=("md",),
                                      extensions=extensions), services=shell.services())

    manifest = result.manifest
    assert manifest.agent.type == "bot-class" and "bot-class" in TRANSPORTS
    cases = [c.model_dump() for c in manifest.cases]
    assert_faults_acted(outputs(cases))
    fired = {c.scenario: c.faults_fired for c in manifest.cases if c.scenario in ("tool-down", "status-down")}
    assert all(fired.values()), fired
    # The http fault answered in the worker: only the calls that got the real status reached the status API
    # (no-chaos and the unscored state probe's two), none of status-down's.
    reached = [c for c in cases if (c["output"] or "").endswith("delivered on Monday.")]
    assert status_api.paths == ["/status/1234"] * len(reached) and len(reached) >= 3
    assert not any(c["scenario"] == "status-down" for c in reached)
    assert manifest.verdict.passed


def test_run_loads_extensions_named_by_the_repeatable_option(
        tmp_path: Path, status_api: ThreadingHTTPServer) -> None:
    base = f"http://127.0.0.1:{status_api.server_address[1]}"
    write_project(tmp_path, base)
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
