"""Every Markdown output (report.md, the PR comment, the job summary, the failure summary, `compare`'s report) shows
agent and attack text inert, whichever field holds it, and its tables keep their shape.

The manifest is filled generically: every string field of every model (a case, an invariant result, a finding,
the telemetry, ... and any field added later) holds the hostile text, and the run's statistics are computed from
those cases by the real scoring, so tables keyed by a case's category, channel or OWASP id get hostile keys too.
Rendered with cmark-gfm, the renderer GitHub uses, nothing may come out as a link, an image, raw HTML, a mention or
reference, and no table row may gain or lose a cell.
"""

from __future__ import annotations

import html
import re
import types
import typing
from typing import Any

import cmarkgfm
import pytest
from cmarkgfm.cmark import Options
from pydantic import BaseModel

from khaos_action.gates_and_weights import Gates, Weights
from khaos_action.github import annotations as annotations_mod
from khaos_action.github import comment as comment_mod
from khaos_action.github import gates
from khaos_action.github.finish import failure_summary
from khaos_action.github.render import render_sections, summary_markdown
from khaos_action.github.workflow import cap_annotations
from khaos_action.manifest import CaseResult, Manifest
from khaos_action.report.comparison import render_comparison_markdown
from khaos_action.report.escape import ZWJ
from khaos_action.report.markdown import render_markdown
from khaos_action.score.compare import compare_manifests
from khaos_action.score.summary import GoalSpec, summarise

HOSTILE = {
    "mention": "cc @octocat and @org/team, fixes #1 GH-2 org/repo#3",
    "html": '<img src=x onerror=alert(1)><script>alert(2)</script><b onclick="x()">b</b>',
    "link": "[click](https://evil.example/a) and [ref][r] and ![pixel](https://evil.example/p.png)",
    "autolink": "see https://evil.example/x, www.evil.example, a.b@evil.example and <https://evil.example>",
    "workflow": "::error file=a.py::forged\n::stop-commands::tok\n##[error]legacy",
    "pipes": "a | b || c \\| d |",
    "backticks": "```\n@octocat in a fence\n``` and `tick` and ``double``",
    "newlines": "line one\nline two\r\n\n| x | y |\n|---|---|\n| @octocat | <img src=x onerror=y> |",
    "image": '![x](javascript:alert(1)) <img src="https://evil.example/p.png">',
    "marker": "<!-- khaos-action:khaos.yaml --> hidden",
    "everything": ("@octocat <img src=x onerror=alert(1)> [l](https://evil.example) https://evil.example "
                   "::error::x | `t` ```\nnew line ![i](https://evil.example/i.png) #1"),
}

KINDS = {"phase", "pillar", "outcome", "severity", "gate", "kind", "operator", "type", "mode"}
"""String fields whose value selects which table a case or finding lands in: filled with real values in the
`kinds kept` variant (so every table renders, with hostile text in all the rest), hostile in the other."""

_SKIP = object()


def fill(model: type[BaseModel], text: str) -> dict[str, Any]:
    """Data for `model` with `text` in every string field, nested models and containers included."""
    data = {}
    for name, info in model.model_fields.items():
        value = _value(info.annotation, text, required=info.is_required())
        if value is not _SKIP:
            data[name] = value
    return data


def _value(annotation: Any, text: str, *, required: bool = False) -> Any:
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if annotation is str:
        return text
    if origin is typing.Annotated:
        return _value(args[0], text, required=required)
    if origin in (typing.Union, types.UnionType):
        choices = [_value(a, text) for a in args if a is not type(None)]
        return next((c for c in choices if c is not _SKIP), _SKIP)
    if origin is typing.Literal:
        return args[0]
    if origin is list:
        inner = _value(args[0], text)
        return [inner] if inner is not _SKIP else _SKIP
    if origin is dict:
        inner = _value(args[1], text, required=True)
        return {text: inner} if args[0] is str and inner is not _SKIP else _SKIP
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return fill(annotation, text)
    if required and annotation in (int, float, bool):
        return annotation(1)
    return _SKIP  # numbers keep their defaults; Any is filled by the real scoring below


def hostile_case(text: str, kinds: bool, **real: Any) -> CaseResult:
    data = fill(CaseResult, text)
    data["invariants"] = [{**data["invariants"][0], "passed": False,
                           **({"severity": "critical"} if kinds else {})}]
    data.update(passed=real.pop("passed", False), fault_hits={text: 0}, faults_fired=[], spec=None)
    if kinds:
        data.update(real)
    return CaseResult.model_validate(data)


def hostile_cases(text: str, kinds: bool, *, broken: bool) -> list[CaseResult]:
    """A case of every kind a report shows: a contract check, a resilience case whose fault never fired, an error,
    one not exercised, and attacks COMPROMISED, UNCERTAIN and BLOCKED (`broken`: the head run; else the base run,
    where everything held)."""
    passed = not broken
    return [
        hostile_case(text + " 1", kinds, phase="contract", pillar="contract", outcome=None, passed=passed),
        hostile_case(text + " 2", kinds, phase="resilience", pillar="chaos", outcome=None, passed=passed),
        hostile_case(text + " 3", kinds, phase="baseline", pillar=None, outcome=None, passed=passed),
        hostile_case(text + " 4", kinds, phase="security", outcome="COMPROMISED" if broken else "BLOCKED",
                     severity="critical", passed=passed),
        hostile_case(text + " 5", kinds, phase="security", outcome="UNCERTAIN", severity="high", passed=None),
        hostile_case(text + " 6", kinds, phase="security", outcome="BLOCKED", severity="low", passed=True),
    ]


def hostile_manifest(text: str, *, kinds: bool, broken: bool = True) -> Manifest:
    """Every field of the run hostile; its scores, metrics, statistics and verdict computed from the hostile cases."""
    cases = hostile_cases(text, kinds, broken=broken)
    goal = GoalSpec("security" if kinds else text, "block_rate", "gte", 0.9)
    summary = summarise(cases, goals=[goal], gates=Gates(), weights=Weights(), security_planned=True)
    data = fill(Manifest, text)
    data.update(seed=1, cases=cases, scores=summary.scores.model_dump(), counts=summary.counts.model_dump(),
                metrics=summary.metrics, stats=summary.stats, flaky=[*summary.flaky, text],
                goals=[g.model_dump() for g in summary.goals] + data["goals"],
                score_notes={**dict.fromkeys(summary.score_notes, text), text: text},
                coverage=_coverage(text), config_lines={"agent": 2}, gates={}, weights={})
    verdict = summary.verdict.model_dump()
    verdict["reasons"] += [text]
    verdict["findings"] += [fill(type(summary.verdict).model_fields["findings"].annotation.__args__[0], text)]
    data["verdict"] = verdict
    if kinds:
        data["verdict"]["findings"][-1].update(gate="threshold", kind="other", severity="high")
    return Manifest.model_validate(data)


def _coverage(text: str) -> dict[str, Any]:
    row = {"selected": 3, "executed": 2, "not_applicable": 1, "not_executed": 0}
    return {"totals": row, "categories": {text: row}, "owasp": {text: row}, "uncovered_owasp": [text]}


# ---- what GitHub would show -----------------------------------------------------------------------------------

ALLOWED_TAGS = {"p", "h1", "h2", "h3", "h4", "table", "thead", "tbody", "tr", "th", "td", "code", "pre", "strong",
                "em", "ul", "ol", "li", "blockquote", "details", "summary", "sub", "hr", "br", "del"}
"""What our templates write; anything else (img, a, script, b, ...) came from hostile text."""
ALLOWED_ATTRIBUTES = re.compile(r'^(align="(left|right|center)"|lang="[\w+-]+"|class="language-[\w+-]+")?$')
TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9-]*)([^>]*)>")
REFERENCE = re.compile(r"(?<![\w/])#\d|\bGH-\d|(?<![\w`])@[A-Za-z0-9]|\b[\w.-]+/[\w.-]+#\d", re.IGNORECASE)
AUTOLINK_TEXT = re.compile(r"(?i)[a-z]+://|\bwww\.|[\w.+-]@[\w-]+\.[\w.]+")


def gfm(markdown: str) -> str:
    # Raw HTML allowed (GitHub keeps a safe subset of it; a tag that comes out here is a tag we let through).
    return cmarkgfm.github_flavored_markdown_to_html(markdown, options=Options.CMARK_OPT_UNSAFE)


RUN_URL = "https://github.com/o/r/actions/runs/1"
OUR_LINK = f'<a href="{RUN_URL}">'
"""The one link our templates write: the run's page (from the runner's environment, not from the run)."""


def live(rendered: str) -> list[str]:
    """Tags, attributes, mentions, references and autolink text GitHub would make live."""
    found = []
    rendered = rendered.replace(OUR_LINK + "Run</a>", "Run")
    for closing, name, attributes in TAG.findall(rendered):
        if name.lower() not in ALLOWED_TAGS or (not closing and not ALLOWED_ATTRIBUTES.match(attributes.strip())):
            found.append(f"<{closing}{name}{attributes}>")
    outside_code = re.sub(r"<code[^>]*>.*?</code>|<pre[^>]*>.*?</pre>", " ", rendered, flags=re.DOTALL)
    text = html.unescape(TAG.sub(" ", outside_code))
    return found + REFERENCE.findall(text) + AUTOLINK_TEXT.findall(text)


def cells(row: str) -> int:
    """Cells of a GFM table row as cmark-gfm splits it: at each pipe not right after a backslash (even in a code
    span, and even when that backslash is itself escaped)."""
    inner = row.strip()
    inner = inner[1:] if inner.startswith("|") else inner
    inner = inner[:-1] if inner.endswith("|") and not inner.endswith("\\|") else inner
    return len(re.findall(r"(?<!\\)\|", inner)) + 1


def outside_fences(lines: list[str]) -> list[str]:
    """The lines, with those inside fenced code blocks blanked (a table there is text, not a table)."""
    out, fence = [], None
    for line in lines:
        opening = re.match(r" {0,3}(`{3,}|~{3,})", line)
        if fence is None and opening:
            fence = opening[1]
            out.append("")
        elif fence is not None:
            if re.fullmatch(rf" {{0,3}}{fence[0]}{{{len(fence)},}}\s*", line):
                fence = None
            out.append("")
        else:
            out.append(line)
    return out


def broken_tables(markdown: str) -> list[str]:
    """Rows that do not have their header's cells, or table lines that are not rows (text that fell out of a cell)."""
    lines = outside_fences(markdown.split("\n"))
    problems = []
    for at, line in enumerate(lines[:-1]):
        if not re.fullmatch(r"\|(\s*:?-+:?\s*\|)+", lines[at + 1].strip()) or "|" not in line:
            continue
        width = cells(line)
        if cells(lines[at + 1]) != width:
            problems.append(f"delimiter row of {line!r}")
        for row in lines[at + 2:]:
            if not row.strip():
                break
            if not (row.startswith("|") and row.rstrip().endswith("|")) or cells(row) != width:
                problems.append(row)
    return problems


def assert_inert(markdown: str, what: str, *, marker: str | None = None) -> str:
    body = markdown.removeprefix(marker + "\n") if marker else markdown
    rendered = gfm(body)
    assert live(rendered) == [], f"{what}: live markup {live(rendered)[:5]}"
    assert broken_tables(body) == [], f"{what}: table rows out of shape {broken_tables(body)[:3]}"
    assert "<!-- khaos-action" not in body, f"{what}: a hidden marker that is not ours"
    for command in ("::error", "::stop-commands", "##[error"):
        assert command not in body, f"{what}: a workflow command {command!r} in the raw Markdown"
    return rendered


# ---- the outputs ----------------------------------------------------------------------------------------------


def outputs(text: str, *, kinds: bool) -> dict[str, tuple[str, str | None]]:
    head = hostile_manifest(text, kinds=kinds)
    base = hostile_manifest(text, kinds=kinds, broken=False)
    comparison = compare_manifests(base, head)
    decision = gates.decide(head, comparison, fail_on=["critical", "regression", "threshold"], min_score=99.0)
    instance = comment_mod.instance_id(text)
    marker = comment_mod.marker(instance)
    shown = {}
    for name, cmp, source in (("with a baseline", comparison, text), ("without a baseline", None, text)):
        sections, footer = render_sections(
            head, comparison=cmp, decision=decision, baseline_source=source, fail_on=["critical", text],
            instance=instance, run_url=RUN_URL, head_sha=text, base=base)
        shown[f"comment {name}"] = (comment_mod.fit_body(sections, footer=footer, marker_line=marker), marker)
        found = annotations_mod.build_annotations(head, config_file=text, lines=annotations_mod.config_lines(""))
        overflow = cap_annotations(found, cap=0)[1]
        shown[f"job summary {name}"] = (
            summary_markdown(sections, footer, report_md=render_markdown(head), overflow=overflow), None)
    shown["report.md"] = (render_markdown(head), None)
    shown["compare"] = (render_comparison_markdown(comparison), None)
    for code in (2, 3, 4, 130):
        shown[f"failure summary (exit {code})"] = (failure_summary(code, text), None)
    return shown


@pytest.mark.parametrize("kinds", [True, False], ids=["kinds kept", "all hostile"])
@pytest.mark.parametrize("name", list(HOSTILE))
def test_every_markdown_output_shows_hostile_text_in_every_field_inert(name: str, kinds: bool) -> None:
    for what, (markdown, marker) in outputs(HOSTILE[name], kinds=kinds).items():
        assert_inert(markdown, what, marker=marker)


def test_the_hostile_text_is_shown_and_the_tables_did_render() -> None:
    """The test above proves something only if the hostile text reached the tables it means to test."""
    shown = outputs(HOSTILE["mention"], kinds=True)
    for what in ("comment with a baseline", "job summary without a baseline", "report.md", "compare"):
        rendered = gfm(shown[what][0].removeprefix((shown[what][1] or "") + "\n"))
        assert "<table>" in rendered, what
        assert f"@{ZWJ}octocat" in html.unescape(rendered), what
    summary = gfm(shown["job summary with a baseline"][0])
    for table in ("Newly failing", "COMPROMISED attacks", "Faults that never fired", "OWASP coverage",
                  "Full report", "more finding"):
        assert table in summary, table


def test_the_generic_fill_reaches_every_string_field() -> None:
    """A string field added to a case or the manifest later is filled too (nothing here names them)."""
    manifest = hostile_manifest("HOSTILE", kinds=False)
    case = manifest.cases[0]
    for name, info in CaseResult.model_fields.items():
        if _value(info.annotation, "HOSTILE") == "HOSTILE":
            assert getattr(case, name).startswith("HOSTILE"), name
    for name in ("run_id", "tool_version", "config_hash", "shard", "config_path"):
        assert getattr(manifest, name) == "HOSTILE", name
    assert manifest.agent.name == "HOSTILE" and manifest.warnings == ["HOSTILE"]


@pytest.mark.parametrize("row, expected", [("| a | b |", 2), ("| `a\\|b` | c |", 2), ("| a \\\\| b |", 1),
                                           ("| a | b | c |", 3)])
def test_cells_are_counted_as_gfm_reads_them(row: str, expected: int) -> None:
    header = "| " + " | ".join("h" * (i + 1) for i in range(expected)) + " |"
    rendered = gfm(f"{header}\n|{'---|' * expected}\n{row}\n")
    assert rendered.count("<td>") == expected == cells(row)


def test_a_table_broken_by_a_newline_is_caught() -> None:
    assert broken_tables("| a | b |\n|---|---|\n| x\ny | z |\n") == ["| x", "y | z |"]
