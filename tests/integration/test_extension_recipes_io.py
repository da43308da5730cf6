"""The recipes of docs/architecture.md hold: a transport and a report format added from a module outside the package
(tests/fixtures/extensions/khaos_recipe_io.py) by one registry entry each, then used by a real run and by merge."""

from __future__ import annotations

import csv
import json
import socketserver
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from khaos_action.config.loader import ConfigFileError, load_config
from khaos_action.report.merge import merge_manifests
from khaos_action.reporters import REPORTERS, default_formats, parse_formats
from khaos_action.transports import TRANSPORTS
from tests.builders import evaluate_project, write_project

EXTENSIONS = Path(__file__).resolve().parents[1] / "fixtures" / "extensions"
ANSWERS = {"Where is my order 1234?": "Order 1234: delivered on Monday.",
           "What is your refund policy?": "Refunds within 30 days, no questions asked."}


@pytest.fixture
def extension(monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    """The extension module, imported as a user's would be; its entries are removed again afterwards."""
    assert "tcp-lines" not in TRANSPORTS and "csv" not in REPORTERS  # nothing in the package knows them
    monkeypatch.syspath_prepend(str(EXTENSIONS))
    import khaos_recipe_io

    try:
        yield khaos_recipe_io
    finally:
        TRANSPORTS.pop("tcp-lines", None)
        REPORTERS.pop("csv", None)
        sys.modules.pop("khaos_recipe_io", None)


class _Agent(socketserver.StreamRequestHandler):
    def handle(self) -> None:
        line = self.rfile.readline()
        if not line:  # the transport's start() checks the agent can be reached
            return
        request = json.loads(line)
        self.server.seen.append(request)  # type: ignore[attr-defined]
        answer = ANSWERS.get(request["question"], "I can only help with orders and refunds.")
        self.wfile.write(json.dumps({"output": answer}).encode() + b"\n")


@pytest.fixture
def tcp_agent() -> Iterator[socketserver.ThreadingTCPServer]:
    """A real agent on 127.0.0.1 speaking the tcp-lines protocol."""
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), _Agent)
    server.daemon_threads = True
    server.seen = []  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def write_config(folder: Path, agent_type: str, port: int) -> Path:
    # `input_field` is a key of the tcp-lines type alone (its TcpLinesAgent model): the agent reads `question`.
    config = {"agent": {"name": "tcp-shop", "type": agent_type, "url": f"tcp://127.0.0.1:{port}",
                        "input_field": "question", "timeout_s": 10},
              "golden_prompts": list(ANSWERS),
              "contract": {"invariants": [{"id": "answers", "type": "output_not_empty"},
                                          {"id": "no-password", "type": "excludes_pattern", "pattern": "password"}]},
              "chaos_matrix": [{"name": "no-chaos"}]}
    return write_project(folder, config)


def csv_rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as handle:
        return list(csv.DictReader(handle))


def test_a_transport_and_a_report_format_from_outside_the_package_serve_a_run_and_merge(
        tmp_path: Path, extension: ModuleType, tcp_agent: socketserver.ThreadingTCPServer) -> None:
    config = write_config(tmp_path, "tcp-lines", tcp_agent.server_address[1])
    result = evaluate_project(config, tmp_path / "run", formats=("md", "csv"))

    manifest = result.manifest
    assert manifest.agent.type == "tcp-lines"
    scored = [c for c in manifest.cases if c.scenario == "no-chaos"]  # (beside them: the unscored state probe)
    assert {c.input: c.output for c in scored} == ANSWERS and len(scored) == len(ANSWERS)
    assert all(c.passed and not c.error for c in scored) and manifest.verdict.passed
    # Every invocation reached the real agent, with the case's session.
    assert len(tcp_agent.seen) == manifest.counts.invocations >= len(manifest.cases)
    assert {r["question"] for r in tcp_agent.seen} == set(ANSWERS) and all(r["session_id"] for r in tcp_agent.seen)
    assert manifest.config_hash and "input" not in tcp_agent.seen[0]
    assert set(result.reports) == {"json", "md", "csv"}
    assert result.reports["csv"] == tmp_path / "run" / "cases.csv"
    rows = csv_rows(result.reports["csv"])
    assert [(r["id"], r["scenario"], r["passed"]) for r in rows] == [
        (c.id, c.scenario, "" if c.passed is None else str(c.passed)) for c in manifest.cases]
    assert {r["passed"] for r in rows if r["scenario"] == "no-chaos"} == {"True"}
    assert "tcp-shop" in (tmp_path / "run" / "report.md").read_text()
    assert not (tmp_path / "run" / "junit.xml").exists()  # only what was asked for

    merged = merge_manifests([result.manifest_path], out_dir=tmp_path / "merged", formats=("json", "csv"))
    assert merged.reports["csv"] == tmp_path / "merged" / "cases.csv"
    assert [r["id"] for r in csv_rows(merged.reports["csv"])] == [r["id"] for r in rows]


def test_a_registered_transport_and_format_are_among_the_choices_errors_list(
        tmp_path: Path, extension: ModuleType) -> None:
    config = write_config(tmp_path, "tcp-line", 9)
    error = pytest.raises(ConfigFileError, load_config, config).value
    text = str(error)
    assert "agent.type: expected one of 'python', 'http', 'command', 'mcp'" in text and "'tcp-lines'" in text
    assert "Did you mean 'tcp-lines'?" in text
    assert parse_formats("md,csv") == ("md", "csv")
    assert "csv" not in default_formats()  # an extension's format is written when asked for, unless it says default
    with pytest.raises(Exception, match="expected a comma list of md, junit, sarif, json, html, csv"):
        parse_formats("xlsx")


def test_a_transport_needs_its_required_key(tmp_path: Path, extension: ModuleType) -> None:
    path = tmp_path / "khaos.yaml"
    path.write_text("agent:\n  type: tcp-lines\ngolden_prompts: [hi]\n")
    with pytest.raises(ConfigFileError, match=r"khaos\.yaml:1:1: agent\.url: missing required key `url`\. Add `url:` "
                                              r"\(tcp-lines: where the agent listens"):
        load_config(path)


def test_a_transport_validates_its_own_keys_where_they_are_written(tmp_path: Path, extension: ModuleType) -> None:
    path = tmp_path / "khaos.yaml"
    path.write_text("golden_prompts: [hi]\nagent:\n  type: tcp-lines\n  url: http://127.0.0.1:9\n")
    with pytest.raises(ConfigFileError, match=r"khaos\.yaml:4:3: agent\.url: 'http://127\.0\.0\.1:9' is not "
                                              r"tcp://HOST:PORT, where a tcp-lines agent is reached"):
        load_config(path)


def test_a_key_of_another_type_names_the_type_it_belongs_to(tmp_path: Path, extension: ModuleType) -> None:
    path = tmp_path / "khaos.yaml"
    path.write_text("golden_prompts: [hi]\nagent:\n  type: http\n  url: http://127.0.0.1:9/chat\n"
                    "  input_field: question\n")
    error = pytest.raises(ConfigFileError, load_config, path).value
    (issue,) = error.issues
    assert (issue.line, issue.column, issue.key_path) == (5, 3, "agent.input_field")
    assert issue.message == ("agent.input_field applies to type tcp-lines; this agent is type http: remove it, or "
                             "set `type: tcp-lines`")
