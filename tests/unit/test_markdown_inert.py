"""Agent text in our Markdown renders inert on GitHub: checked with cmark-gfm, the renderer GitHub uses (tables and
the autolink extension on, raw HTML allowed so nothing is hidden by a safe mode).

GitHub's own references and mentions (`#1`, `GH-1`, `org/repo#1`, `@user`) are added after rendering, on text outside
code; `live_references` finds what would be linked there.
"""

from __future__ import annotations

import html
import re

import cmarkgfm
import pytest
from cmarkgfm.cmark import Options

from khaos_action.github.gates import GateDecision
from khaos_action.github.render import render_sections, summary_markdown
from khaos_action.report.escape import ZWJ, md_code, md_escape, md_span
from khaos_action.report.markdown import render_markdown
from tests.builders import critical_invariant_case, make_case, make_manifest

HOSTILE = [
    "[click](javascript:alert(1))",
    "[x]( javascript:alert(1) )",
    "![pixel](https://evil.example/p.png)",
    "see http://evil.example/a?b=1 now",
    "HTTPS://EVIL.EXAMPLE",
    "ftp://evil.example/file",
    "go to www.evil.example today",
    "(www.evil.example)",
    "*http://evil.example*",
    "_www.evil.example_",
    "~https://evil.example~",
    "mail a.b+c@evil.example please",
    "mailto:a@evil.example",
    "xmpp:a@evil.example",
    "<https://evil.example>",
    "<a@evil.example>",
    '<a href="https://evil.example">x</a>',
    '<img src="https://evil.example/p.png">',
    "[ref]\n\n[ref]: https://evil.example",
    "[x][ref]",
    "&#91;x&#93;(https://evil.example)",
    "\\[x](https://evil.example)",
    "fixes #1 and GH-2 and gh-3 and org/repo#4 and org/repo@abc1234",
    "cc @octocat and @org/team",
    "a|b|c",
    "`tick` `` double ``",
    "<!-- khaos-action:khaos.yaml -->",
    "::error::forged",
]

LINK_TAGS = re.compile(r"<a\b|<img\b", re.IGNORECASE)
REFERENCE = re.compile(r"(?<![\w/])#\d|\bGH-\d|(?<![\w`])@[A-Za-z0-9]|\b[\w.-]+/[\w.-]+#\d", re.IGNORECASE)
AUTOLINK_TEXT = re.compile(r"(?i)[a-z]+://|\bwww\.")


def gfm(markdown: str) -> str:
    return cmarkgfm.github_flavored_markdown_to_html(markdown, options=Options.CMARK_OPT_UNSAFE)


def live_references(rendered: str) -> list[str]:
    """References, mentions and autolink-looking text GitHub would still find outside code."""
    outside_code = re.sub(r"<code>.*?</code>|<pre>.*?</pre>", " ", rendered, flags=re.DOTALL)
    text = html.unescape(re.sub(r"<[^>]+>", " ", outside_code))
    return REFERENCE.findall(text) + AUTOLINK_TEXT.findall(text)


def visible_text(rendered: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", rendered)).replace(ZWJ, "").strip()


def assert_inert(markdown: str) -> str:
    rendered = gfm(markdown)
    assert not LINK_TAGS.search(rendered), rendered
    assert live_references(rendered) == [], rendered
    assert "<script" not in rendered.lower() and "<!-- khaos-action" not in rendered
    return rendered


@pytest.mark.parametrize("text", HOSTILE)
def test_escaped_text_renders_inert_and_reads_the_same(text: str) -> None:
    rendered = assert_inert(f"Output: {md_escape(text, None)}")
    expected = re.sub(r"[\r\n]", " ", text.replace("<!--", "").replace("-->", ""))
    assert visible_text(rendered) == f"Output: {expected}".strip()


@pytest.mark.parametrize("text", HOSTILE)
def test_escaped_text_in_a_table_cell_stays_in_its_cell(text: str) -> None:
    rendered = assert_inert(f"| a | b |\n|---|---|\n| {md_escape(text, None)} | end |\n")
    assert rendered.count("<td>") == 2 and "<td>end</td>" in rendered


@pytest.mark.parametrize("text", HOSTILE)
def test_a_code_span_shows_the_text_exactly_without_backslashes(text: str) -> None:
    one_line = re.sub(r"[\r\n]", " ", text)
    in_table = assert_inert(f"| id | b |\n|---|---|\n| {md_span(text, None)} | end |\n")
    code, = re.findall(r"<code>(.*?)</code>", in_table, flags=re.DOTALL)
    assert html.unescape(code).replace(ZWJ, "") == one_line and "<td>end</td>" in in_table
    inline = assert_inert(f"Case {md_span(text, None, table=False)} failed")
    code, = re.findall(r"<code>(.*?)</code>", inline, flags=re.DOTALL)
    assert html.unescape(code).replace(ZWJ, "") == one_line


def test_ids_with_markdown_characters_show_no_backslashes_in_code_spans() -> None:
    rendered = gfm(f"| {md_span('my_case*[1]|x')} |\n|---|\n")
    assert "<code>my_case*[1]|x</code>" in rendered and "\\" not in rendered


@pytest.mark.parametrize("text", HOSTILE)
def test_a_fenced_block_shows_the_text_and_links_nothing(text: str) -> None:
    rendered = assert_inert(md_code(text))
    assert rendered.startswith("<pre><code>")


def hostile_manifest():
    cases = []
    for i, text in enumerate(HOSTILE):
        cases.append(critical_invariant_case(f"case_{i}_{text[:12]}", output=text))
        cases.append(make_case(f"atk_{i}", passed=False, input=text, output=text, attack_id=f"attack_{text[:20]}",
                               outcome="COMPROMISED", severity="critical", owasp=["LLM01"], channel="user",
                               evidence_tags=[text[:30]], error=text, scenario=f"scn {text[:15]}"))
    return make_manifest(cases, agent={"name": "bot " + HOSTILE[0], "type": "python"})


def test_the_comment_and_the_summary_render_no_agent_link() -> None:
    manifest = hostile_manifest()
    decision = GateDecision(exit_code=1)
    sections, footer = render_sections(manifest, comparison=None, decision=decision, baseline_source="no baseline yet",
                                       fail_on=["critical"], instance="khaos.yaml", run_url=None, head_sha="abc1234")
    body = "\n\n".join([*sections, footer])
    rendered = assert_inert(body)
    assert "<table>" in rendered and "<pre>" not in body  # tables did render; nothing fell out of its cell
    summary = summary_markdown(sections, footer, report_md=render_markdown(manifest), overflow=[])
    assert_inert(summary)


def test_the_markdown_report_renders_no_agent_link() -> None:
    assert_inert(render_markdown(hostile_manifest()))


def test_ids_in_the_comment_show_exactly_inside_their_code_spans() -> None:
    cases = [critical_invariant_case("my_case*1|x"),
             make_case("atk_1", passed=False, attack_id="pi_[direct]_`v2`", outcome="COMPROMISED", severity="high",
                       owasp=["LLM01"], channel="user")]
    sections, _ = render_sections(make_manifest(cases), comparison=None, decision=GateDecision(exit_code=1),
                                  baseline_source="no baseline yet", fail_on=["critical"])
    codes = [html.unescape(c) for c in re.findall(r"<code>(.*?)</code>", gfm("\n\n".join(sections)))]
    assert "my_case*1|x" in codes and "pi_[direct]_`v2`" in codes


def every_field_hostile(text: str):
    """A manifest as a pull request's job could write it (the `manifest` input, merged shards): every string is
    hostile, not only the agent's output."""
    case = make_case(
        text, phase=text, pillar=text, input=text, scenario=text, attack_id=text, category=text, objective=text,
        channel=text, severity=text, owasp=[text], mutation=text, fault_ids=[text], output=text, outcome=text,
        evidence_tags=[text], passed=False, error=text, notes=[text],
        invariants=[{"id": text, "severity": text, "passed": False, "detail": text}])
    compromised = make_case(text + "2", phase=text, input=text, attack_id=text + "2", outcome="COMPROMISED",
                            severity="critical", owasp=[text], channel=text, category=text, evidence_tags=[text],
                            passed=False, output=text)
    return make_manifest(
        [case, compromised], run_id=text, tool_version=text, config_hash=text * 3, shard=text,
        agent={"name": text, "type": text}, score_notes={"overall": text}, flaky=[text], warnings=[text],
        verdict={"passed": False, "reasons": [text], "exit_code": 1},
        goals=[{"phase": text, "metric": text, "operator": text, "threshold": 1.0, "value": 0.5, "met": False}],
        skipped=[{"attack_id": text, "category": text, "channel": text, "owasp": [text], "reason": text}],
        metrics={text: {"invocations": 1, "error_rate": 0.0}})


@pytest.mark.parametrize("text", ["see https://evil.example/x and www.evil.example", "[x](javascript:alert(1))",
                                  "cc @octocat fixes #1 GH-2 org/repo#3", '<img src="https://evil.example/p">'])
def test_a_manifest_hostile_in_every_field_renders_inert(text: str) -> None:
    manifest = every_field_hostile(text)
    sections, footer = render_sections(manifest, comparison=None, decision=GateDecision(exit_code=1),
                                       baseline_source=text, fail_on=["critical"], instance=text)
    assert_inert("\n\n".join([*sections, footer]))
    assert_inert(render_markdown(manifest))
