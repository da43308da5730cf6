"""The cells of tables an agent writes (Markdown, and comma- or tab-separated rows under a header), each with its
column's header: a label in the header ("Passport No.", "NI Number", "aadhaar") names every value in its column,
as a label before a value does in prose. pii reads each cell as "<header>: <cell>" with the finders that need a label.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)+\|?\s*$")
"""A Markdown table's rule under its header: "|---|:---:|"."""
_HEADER_FIELD = re.compile(r"[^\W\d_][\w .'’/#()-]{0,40}")
"""A CSV header's field: a name with no digit first ("name", "Passport No.", "date_of_birth")."""
_MAX_ROWS = 2_000
"""A table of more rows is read only so far: a log of thousands of rows is no record of persons to label."""


def table_cells(text: str) -> Iterator[tuple[str, int, int]]:
    """(header, start, end) of every non-empty cell under a header in `text`."""
    if "\n" not in text:
        return
    lines = _lines(text)
    for index, (_, line) in enumerate(lines[:-1]):
        if "|" in line and _RULE.match(lines[index + 1][1]):
            yield from _markdown(lines, index)
        elif "," in line or "\t" in line:
            yield from _separated(lines, index)


def _lines(text: str) -> list[tuple[int, str]]:
    found, start = [], 0
    for line in text.split("\n"):
        found.append((start, line))
        start += len(line) + 1
    return found


def _markdown(lines: list[tuple[int, str]], index: int) -> Iterator[tuple[str, int, int]]:
    headers = [cell for cell, _, _ in _split(lines[index][1], "|")]
    for start, line in lines[index + 2:index + 2 + _MAX_ROWS]:
        if "|" not in line:
            return
        for header, (cell, left, right) in zip(headers, _split(line, "|"), strict=False):
            if cell:
                yield header, start + left, start + right


def _separated(lines: list[tuple[int, str]], index: int) -> Iterator[tuple[str, int, int]]:
    line = lines[index][1]
    separator = "\t" if "\t" in line else ","
    headers = [cell for cell, _, _ in _split(line, separator)]
    if len(headers) < 2 or not all(_HEADER_FIELD.fullmatch(header) for header in headers):
        return
    for start, row in lines[index + 1:index + 1 + _MAX_ROWS]:
        cells = _split(row, separator)
        if len(cells) != len(headers):
            return
        for header, (cell, left, right) in zip(headers, cells, strict=True):
            if cell:
                yield header, start + left, start + right


def _split(line: str, separator: str) -> list[tuple[str, int, int]]:
    """(cell, start, end) of each cell of `line`, its spaces trimmed; a Markdown row's outer bars make no cells."""
    cells, start = [], 0
    for part in line.split(separator):
        left = start + len(part) - len(part.lstrip())
        right = start + len(part.rstrip())
        cells.append((line[left:right], left, max(left, right)))
        start += len(part) + 1
    if separator == "|":
        if cells and not cells[0][0]:
            cells = cells[1:]
        if cells and not cells[-1][0]:
            cells = cells[:-1]
    return cells
