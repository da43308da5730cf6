"""The repository stands on its own: no text in it points at a tracker's issue numbers or at design notes kept
outside it, and every relative link in its Markdown pages (README.md, docs/, examples/) reaches a file and, with a
`#fragment`, a heading of that file.

A newcomer has the repository and nothing else: a tracker's issue number, or a section of a document they cannot
open, says nothing to them. The reason goes into the comment itself, or into a page under docs/ it names."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

SEARCHED = ("khaos_action", "tests", "bench", "docs", "examples", "packs", ".github", ".ci", "README.md",
            "entrypoint.py", "Dockerfile", "action.yml", "pyproject.toml", "requirements-build.in")
SKIPPED_DIRS = {"__pycache__", ".khaos", ".pytest_cache", "node_modules", ".ruff_cache", "build", "dist"}

# Written so that this file does not match itself ("[ ]" and "[/]" are one character each).
OUTSIDE = re.compile("|".join((
    r"(?<![A-Za-z])(?:[Ii]ssues?|ISSUES?)[ ]#?[0-9]+",  # a tracker's issue number, with or without "#"
    r"SPEC[ ]§", r"SPEC\.md", r"DESIGN\.md", r"DESIGN[ ]decision", r"STYLE\.md",
    r"shared[/]",  # the design notes' folder outside the repository
)))


def _files() -> list[Path]:
    found: list[Path] = []
    for name in SEARCHED:
        top = ROOT / name
        if top.is_file():
            found.append(top)
            continue
        for path in sorted(top.rglob("*")):
            if path.is_file() and not SKIPPED_DIRS.intersection(path.relative_to(ROOT).parts) \
                    and not path.name.endswith((".pyc", ".egg-info")):
                found.append(path)
    return found


def _text(path: Path) -> str | None:
    data = path.read_bytes()
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def test_nothing_refers_to_an_issue_number_or_a_document_outside_the_repository() -> None:
    hits = []
    for path in _files():
        text = _text(path)
        if text is None or not OUTSIDE.search(text):
            continue
        for number, line in enumerate(text.splitlines(), 1):
            match = OUTSIDE.search(line)
            if match:
                hits.append(f"{path.relative_to(ROOT)}:{number}: {match.group(0)!r} in {line.strip()[:100]!r}")
    assert not hits, ("say the reason itself, or point at a page under docs/:\n" + "\n".join(hits))


def test_the_pattern_finds_what_it_is_for() -> None:
    issue, spec, design = "issue", "SPEC", "DESIGN"  # apart, so that this file does not match itself
    for text in (f"see {issue} 19", f"{issue.title()} 16's cases", f"({issue}s 12 and 13)", f"{issue} #4",
                 f"{spec} §5", f"see {spec}.md", f"{design} decision 3", f"in {design}.md", "STYLE" ".md says",
                 "/work/" "shared" "/x"):
        assert OUTSIDE.search(text), text
    for text in ("an issue/PR reference", f"t{issue} 5", "the issue of 0.5 s", "a shared worker", "docs/spec.md"):
        assert not OUTSIDE.search(text), text


# ---- links in Markdown ----------------------------------------------------------------------------------------

PAGES = sorted({ROOT / "README.md", *(ROOT / "docs").rglob("*.md"), *(ROOT / "examples").rglob("*.md")})
FENCE = re.compile(r"^\s*(```|~~~)")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
LINK = re.compile(r"(?<!!)\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
IMAGE = re.compile(r"!\[[^\]]*\]\(\s*<?([^)\s>]+)>?")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, markup and punctuation dropped (letters, digits, `_` and `-`
    kept, in any script), each space a hyphen."""
    text = re.sub(r"<[^>]+>", "", heading)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link in a heading keeps its text
    text = text.lower()
    kept = "".join(ch for ch in text if ch in " -_" or unicodedata.category(ch)[0] in "LN")
    return kept.replace(" ", "-")


def _prose_lines(text: str) -> list[tuple[int, str]]:
    """Lines outside fenced code blocks, code spans blanked (a link inside backticks is an example, not a link)."""
    lines, fenced = [], False
    for number, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            lines.append((number, CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line)))
    return lines


def anchors(path: Path) -> set[str]:
    """The anchors of a page's headings (outside code blocks), a repeated one numbered as GitHub does."""
    seen: dict[str, int] = {}
    fenced = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        match = None if fenced else HEADING.match(line)
        if match:
            base = slug(match.group(2).replace("`", ""))
            count = seen.get(base, 0)
            seen[base] = count + 1
            seen.setdefault(base if count == 0 else f"{base}-{count}", 1)
    return set(seen)


def links(path: Path) -> list[tuple[int, str]]:
    found = []
    for number, line in _prose_lines(path.read_text(encoding="utf-8")):
        found += [(number, m.group(1)) for m in LINK.finditer(line)]
        found += [(number, m.group(1)) for m in IMAGE.finditer(line)]
    return found


def broken(page: Path) -> list[str]:
    problems = []
    for number, target in links(page):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.IGNORECASE):  # http:, https:, mailto:
            continue
        file_part, _, fragment = target.partition("#")
        dest = (page.parent / file_part).resolve() if file_part else page
        where = f"{page.relative_to(ROOT)}:{number}: {target}"
        if not dest.exists():
            problems.append(f"{where}: no such file")
        elif fragment and dest.suffix == ".md" and fragment not in anchors(dest):
            problems.append(f"{where}: no heading with that anchor in {dest.relative_to(ROOT)}")
        elif ROOT not in dest.parents and dest != ROOT:
            problems.append(f"{where}: outside the repository")
    return problems


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_and_anchor_resolves(page: Path) -> None:
    assert broken(page) == []


def test_the_link_checker_sees_a_broken_link_and_anchor(tmp_path) -> None:
    page = tmp_path / "docs" / "page.md"
    page.parent.mkdir()
    (tmp_path / "docs" / "other.md").write_text("# Other page\n## The judge's rules: calls, state\n")
    page.write_text("# Page\n[ok](other.md#the-judges-rules-calls-state) [gone](missing.md) "
                    "[bad](other.md#nope) [web](https://example.com) `[code](nowhere.md)`\n"
                    "```\n[fenced](nowhere.md)\n```\n[self](#page)\n")
    assert [t for _, t in links(page)] == ["other.md#the-judges-rules-calls-state", "missing.md",
                                           "other.md#nope", "https://example.com", "#page"]
    assert slug("Attack outcomes: objectives, calls as evidence") == "attack-outcomes-objectives-calls-as-evidence"
    assert slug("`agent.tools` and roles") == "agenttools-and-roles"
