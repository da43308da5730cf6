"""Make untrusted text (agent output, attack payloads, prompts) inert inside Markdown.

`md_escape` is for inline text and table cells; `md_span` for an inline code span (ids, names) and `md_code` for
showing text verbatim in a fenced block. None of them can end a table cell, open a link or an image, become an
autolink (GFM's `http://…`, `www.…`, `user@host` and `<…>`), emit HTML, hide text in an HTML comment, @-mention a
user, reference an issue or pull request (`#1`, `GH-1`, `org/repo#1`), or start a GitHub workflow command
(`::error::`, `::stop-commands::`, legacy `##[error]`) if the Markdown is ever printed to a job log. Invisible
zero-width joiners are what break the autolinks, mentions, references and commands: they render as nothing, so the
text still reads the same. Inside code spans and fences GitHub links nothing, so there the text stays as it is and
no backslash escapes are needed (they would show).
tests/unit/test_markdown_inert.py checks all of this against cmark-gfm, the renderer GitHub uses, and
tests/unit/test_markdown_every_field.py renders every Markdown output with hostile text in every field.
"""

from __future__ import annotations

import re

ZWJ = "\u200d"

DEFAULT_LIMIT = 200
"""Characters of untrusted text shown in one table cell unless a caller asks otherwise."""

# Bidirectional overrides and isolates ("Trojan Source") can make a cell read differently from what it contains.
_BIDI = re.compile("[\u202a-\u202e\u2066-\u2069]")
# Line breaks in all their Unicode forms: any of them would end a table row.
_NEWLINES = re.compile("\r\n|[\r\n\x0b\x0c\x85\u2028\u2029]")
# Remaining C0/C1 controls (terminal escapes and the like); tab is turned into a space before this runs.
_CONTROLS = re.compile("[\x00-\x08\x0e-\x1f\x7f-\x84\x86-\x9f]")
_ESCAPED = {c: "\\" + c for c in "\\`*_[]|#~"}
_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
# GitHub mentions: @user, @org/team. Issue references: #12, GH-12 need a digit or letter right after the marker.
_MENTION = re.compile(r"@(?=[A-Za-z0-9])")
_ISSUE_REF = re.compile(r"#(?=[0-9A-Za-z])")
_COLONS = re.compile(":(?=:)")  # lookahead, so ":::" is broken everywhere too
# GFM extended autolinks: `scheme://` and `www.`; e-mail autolinks are already broken by the joiner after `@`.
_SCHEME = re.compile(":(?=/)")
_WWW = re.compile(r"(?i)(?<![A-Za-z0-9])(www)(?=\.)")
# GitHub's `GH-12` issue references.
_GH_REF = re.compile(r"(?i)(?<![A-Za-z0-9])(gh)(?=-[0-9])")


def md_escape(text: object, limit: int | None = DEFAULT_LIMIT) -> str:
    """One line of inert Markdown showing `text`, cut to `limit` characters (with "…") when longer.

    Safe in table cells (newlines collapse to spaces, `|` is escaped) and in running text.
    """
    raw = "" if text is None else str(text)
    raw = raw.replace("<!--", "").replace("-->", "")
    raw = _BIDI.sub("", raw)
    raw = _NEWLINES.sub(" ", raw).replace("\t", " ")
    raw = _CONTROLS.sub("", raw)
    if limit is not None and len(raw) > limit:
        # Cut the raw text, not the escaped one, so an escape sequence is never split in half.
        raw = raw[: max(0, limit - 1)].rstrip() + "…"
    out: list[str] = []
    for char in raw:
        if char in _ENTITIES:
            out.append(_ENTITIES[char])
        elif char in _ESCAPED:
            out.append(_ESCAPED[char])
        else:
            out.append(char)
    escaped = "".join(out)
    escaped = _MENTION.sub("@" + ZWJ, escaped)
    escaped = _ISSUE_REF.sub("#" + ZWJ, escaped)
    escaped = _SCHEME.sub(":" + ZWJ, escaped)
    escaped = _WWW.sub(r"\1" + ZWJ, escaped)
    escaped = _GH_REF.sub(r"\1" + ZWJ, escaped)
    return _COLONS.sub(":" + ZWJ, escaped)


def md_span(text: object, limit: int | None = DEFAULT_LIMIT, *, table: bool = True) -> str:
    """An inline code span showing `text` on one line, exactly (no backslashes appear), cut to `limit` characters.

    GitHub links, mentions and references nothing inside a code span, so only the span itself must hold: the fence
    is longer than any backtick run inside, and in a table (`table=True`) `|` is written `\\|`, which GFM turns back
    into `|` inside the cell, code spans included. Empty text gives an empty string.
    """
    raw = "" if text is None else str(text)
    raw = _BIDI.sub("", raw)
    raw = _NEWLINES.sub(" ", raw).replace("\t", " ")
    raw = _CONTROLS.sub("", raw)
    if limit is not None and len(raw) > limit:
        raw = raw[: max(0, limit - 1)].rstrip() + "…"
    if not raw.strip():
        return ""
    raw = raw.replace("<!--", "<!" + ZWJ + "--")
    raw = _COLONS.sub(":" + ZWJ, raw).replace("##[", "#" + ZWJ + "#[")
    if table:
        raw = raw.replace("|", "\\|")
    longest = max((len(run) for run in re.findall("`+", raw)), default=0)
    fence = "`" * (longest + 1)
    # CommonMark strips one space from each end when both are there: pad when the text starts or ends with a
    # backtick (it would merge with the fence) or a space (it would be stripped).
    pad = " " if raw[0] in "` " or raw[-1] in "` " else ""
    return f"{fence}{pad}{raw}{pad}{fence}"


def md_code(text: object, lang: str = "", limit: int | None = None) -> str:
    """A fenced code block showing `text` verbatim; the fence is longer than any backtick run inside.

    Inside a fence GitHub renders no HTML, links or mentions, but the raw comment body still contains the text:
    `<!--` is broken so it can never be mistaken for our hidden sticky-comment marker, and `::` / `##[` are broken
    so the block is harmless if printed to a job log.
    """
    body = "" if text is None else str(text)
    if limit is not None and len(body) > limit:
        body = body[: max(0, limit - 1)] + "…"
    body = _BIDI.sub("", body).replace("<!--", "<!" + ZWJ + "--")
    body = _COLONS.sub(":" + ZWJ, body).replace("##[", "#" + ZWJ + "#[")
    longest = max((len(run) for run in re.findall("`+", body)), default=0)
    fence = "`" * max(3, longest + 1)
    info = re.sub(r"[^A-Za-z0-9_+-]", "", lang)
    return f"{fence}{info}\n{body}\n{fence}"
