"""report/escape.py: untrusted agent and attack text stays inert in Markdown."""

from __future__ import annotations

import re

import pytest

from khaos_action.report.escape import ZWJ, md_code, md_escape


def _visible(text: str) -> str:
    return text.replace(ZWJ, "")


def test_pipes_and_newlines_cannot_break_a_table_row():
    out = md_escape("a | b\nc\r\nd\re\u2028f", limit=None)
    assert "\n" not in out and "\r" not in out and "\u2028" not in out
    assert re.search(r"(?<!\\)\|", out) is None  # every pipe escaped
    assert out == "a \\| b c d e f"


@pytest.mark.parametrize("char", list("`*_[]#~\\"))
def test_markdown_punctuation_is_backslash_escaped(char):
    assert md_escape(f"x{char}y") in (f"x\\{char}y", f"x\\{char}{ZWJ}y")


def test_links_and_images_cannot_be_formed():
    out = md_escape("![img](https://evil.example/x.png) [click](javascript:alert(1))")
    assert "](" not in out.replace("\\]", "")
    assert "\\[" in out and "\\]" in out


def test_html_is_shown_as_text():
    out = md_escape('<img src=x onerror=alert(1)><script>alert("x")</script><details open>')
    assert "<" not in out and ">" not in out
    assert "&lt;script&gt;" in out


def test_ampersand_is_escaped_so_entities_show_literally():
    assert md_escape("&lt; & &amp;") == "&amp;lt; &amp; &amp;amp;"


def test_hidden_comments_and_our_marker_are_stripped():
    out = md_escape("before <!-- khaos-action sticky --> after")
    assert "<!--" not in out and "-->" not in out and "khaos-action" in out


@pytest.mark.parametrize("text", ["@octocat", "ping @github/security-team now", "cc @Org-Admins"])
def test_mentions_are_neutralised(text):
    out = md_escape(text)
    assert re.search(r"@[A-Za-z0-9]", out) is None
    assert _visible(out) == text.replace("_", "\\_")


def test_issue_references_are_neutralised():
    out = md_escape("fixes #123 and GH#4")
    assert re.search(r"#\d", out.replace("\\", "")) is None


@pytest.mark.parametrize(
    "text",
    [
        "::error::pwned",
        "::stop-commands::token",
        "  ::set-output name=x::1",
        "::add-mask::x",
        ":::warning:::x",
        "a::::b",
    ],
)
def test_workflow_commands_cannot_start(text):
    out = md_escape(text)
    assert "::" not in out
    assert _visible(out) == text


def test_truncation_cuts_raw_text_and_adds_an_ellipsis():
    out = md_escape("a|" * 100, limit=11)
    assert out.endswith("…")
    assert len(out.replace("\\", "")) == 11  # 10 raw characters + the ellipsis, escapes not cut in half
    assert not out[:-1].endswith("\\")
    assert md_escape("short", limit=10) == "short"


def test_controls_and_bidi_overrides_are_removed():
    out = md_escape("safe\u202eevil\x1b[31mred\x00\tend")
    assert "\u202e" not in out and "\x1b" not in out and "\x00" not in out
    assert out == "safeevil\\[31mred end"


def test_none_and_non_strings_are_rendered():
    assert md_escape(None) == ""
    assert md_escape(42) == "42"


def test_md_code_fence_is_longer_than_any_backtick_run_inside():
    text = "look: ```` not the end\n```\n`"
    out = md_code(text)
    fence = out.split("\n", 1)[0]
    assert set(fence) == {"`"} and len(fence) == 5
    assert out.endswith("\n" + fence)
    body = out[len(fence) + 1 : -len(fence) - 1]
    assert body == text
    assert md_code("plain").startswith("```\n")


def test_md_code_breaks_the_sticky_marker_and_workflow_commands():
    out = md_code("<!-- khaos-action -->\n::error::x\n@octocat")
    assert "<!--" not in out and "::" not in out
    assert _visible(out) == "```\n<!-- khaos-action -->\n::error::x\n@octocat\n```"


def test_md_code_language_cannot_inject():
    assert md_code("x", lang="python\n# hi").split("\n", 1)[0] == "```pythonhi"


def test_legacy_workflow_command_syntax_is_broken():
    out = md_escape("##[error]pwned ##[set-output name=x;]1")
    assert "##[" not in out and "#[" not in out


def test_md_code_breaks_runs_of_colons():
    assert "::" not in md_code(":::x::::")
    assert "##[" not in md_code("##[error]x")
