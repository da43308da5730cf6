"""Workflow commands: escaping, multi-line outputs, the 1 MiB summary, annotation caps, inert untrusted text."""

from __future__ import annotations

import io
import itertools

import pytest

from khaos_action.github.workflow import (
    SUMMARY_LIMIT,
    Annotation,
    WorkflowLog,
    append_summary,
    cap_annotations,
    escape_data,
    escape_property,
    fit_summary,
    format_command,
    output_block,
    set_outputs,
)


@pytest.mark.parametrize("raw,data,prop", [
    ("50%", "50%25", "50%25"),
    ("a\nb\r", "a%0Ab%0D", "a%0Ab%0D"),
    ("k: v, w", "k: v, w", "k%3A v%2C w"),
    ("%0A", "%250A", "%250A"),
])
def test_escaping_follows_the_runner_rules(raw: str, data: str, prop: str) -> None:
    assert escape_data(raw) == data
    assert escape_property(raw) == prop


def test_annotation_command_escapes_properties_and_message() -> None:
    cmd = Annotation("error", "line1\nline2 ::error::x", title="a: b, c", file="khaos.yaml", line=12).command()
    assert cmd == "::error file=khaos.yaml,line=12,title=a%3A b%2C c::line1%0Aline2 ::error::x"
    assert "\n" not in cmd


def test_format_command_skips_missing_properties() -> None:
    assert format_command("warning", "w", file=None) == "::warning::w"


def test_output_block_picks_a_delimiter_absent_from_the_value() -> None:
    delims = iter(["EOF", "EOF", "D2"])
    block = output_block("report", "line\nEOF\nmore", lambda: next(delims))
    assert block == "report<<D2\nline\nEOF\nmore\nD2\n"


def test_outputs_file_is_appended_in_delimiter_syntax(tmp_path) -> None:
    out = tmp_path / "out"
    out.write_text("earlier<<X\n1\nX\n")
    set_outputs(out, {"passed": "true", "multi": "a\nb"})
    lines = out.read_text().splitlines()
    assert lines[:3] == ["earlier<<X", "1", "X"]
    assert lines[3].startswith("passed<<ghadelimiter_") and lines[4] == "true" and lines[5] == lines[3][8:]
    assert lines[7:9] == ["a", "b"]


def test_summary_under_the_limit_is_unchanged() -> None:
    assert fit_summary("hello\n", already=10) == "hello\n"


def test_summary_over_the_limit_is_cut_at_a_line_with_a_note_and_link() -> None:
    text = "".join(f"line {i} é\n" for i in range(200_000))
    fitted = fit_summary(text, already=1000, link="https://gh/run/1")
    assert len(fitted.encode()) + 1000 <= SUMMARY_LIMIT
    assert "Summary truncated" in fitted and "https://gh/run/1" in fitted
    body = fitted.split("\n\n> **Summary truncated")[0]
    assert body.endswith(" é")  # a whole line, and no broken UTF-8


def test_append_summary_counts_what_the_file_already_holds(tmp_path) -> None:
    path = tmp_path / "summary.md"
    path.write_text("x" * (SUMMARY_LIMIT - 100))
    append_summary(path, "y\n" * 1000)
    assert path.stat().st_size <= SUMMARY_LIMIT


def test_annotations_are_capped_per_level_and_the_rest_overflow() -> None:
    found = [Annotation("error", f"e{i}") for i in range(13)] + [Annotation("warning", f"w{i}") for i in range(3)]
    shown, overflow = cap_annotations(found)
    assert [a.message for a in shown if a.level == "error"] == [f"e{i}" for i in range(10)]
    assert len([a for a in shown if a.level == "warning"]) == 3
    assert [a.message for a in overflow] == ["e10", "e11", "e12"]


def test_untrusted_text_is_wrapped_in_stop_commands_with_a_random_token() -> None:
    stream = io.StringIO()
    tokens = itertools.count()
    log = WorkflowLog(stream, make_token=lambda: f"tok{next(tokens)}")
    log.untrusted("::error::pwned\n::add-mask::x\n@octocat")
    lines = stream.getvalue().splitlines()
    assert lines[0] == "::stop-commands::tok0"
    assert lines[-1] == "::tok0::"
    assert "::error::pwned" in lines[1:-1]


def test_default_stop_token_is_unpredictable() -> None:
    a, b = io.StringIO(), io.StringIO()
    WorkflowLog(a).untrusted("x")
    WorkflowLog(b).untrusted("x")
    assert a.getvalue().splitlines()[0] != b.getvalue().splitlines()[0]
    assert len(a.getvalue().splitlines()[0]) >= len("::stop-commands::") + 32


def test_mask_and_warning_commands() -> None:
    stream = io.StringIO()
    log = WorkflowLog(stream)
    log.mask("ghs_secret")
    log.mask(None)
    log.warning("two\nlines")
    assert stream.getvalue() == "::add-mask::ghs_secret\n::warning::two%0Alines\n"
    assert log.warnings == ["two\nlines"]
