"""The cells of tables an agent writes (Markdown, and comma- or tab-separated rows under a header), each with its
column's header: a label in the header ("Passport No.", "NI Number", "aadhaar") names every value in its column,
as a label before a value does in prose. And the values of keys written as code writes names ("passport_number":
"548320917", driversLicense=S530-4417-1234), each with its key in words. pii reads each as "<header>: <cell>" with
the finders that need a label.
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
    """(header, start, end) of every non-empty cell under a header in `text`. A line read as a table's row is no
    header of another table, so each line is read once."""
    if "\n" not in text:
        return
    lines = _lines(text)
    index = 0
    while index < len(lines) - 1:
        line = lines[index][1]
        first, separator, width = index + 1, "", 0
        if "|" in line and _RULE.match(lines[index + 1][1]):
            first, separator = index + 2, "|"
        elif ("," in line or "\t" in line) and _same_count(line, lines[index + 1][1]):
            separator = "\t" if "\t" in line else ","
            width = len(_split(line, separator))
            if width < 2 or not all(_HEADER_FIELD.fullmatch(cell) for cell, _, _ in _split(line, separator)):
                separator = ""
        end = _rows_end(lines, first, separator, width) if separator else first
        headers = [cell for cell, _, _ in _split(line, separator)] if separator else []
        for start, row in lines[first:min(end, first + _MAX_ROWS)]:
            for header, (cell, left, right) in zip(headers, _split(row, separator), strict=False):
                if cell:
                    yield header, start + left, start + right
        index = max(end, index + 1)


def _same_count(line: str, after: str) -> bool:
    """A header and its first row have as many separators: looked at before the header's fields are."""
    separator = "\t" if "\t" in line else ","
    return line.count(separator) == after.count(separator)


def _rows_end(lines: list[tuple[int, str]], first: int, separator: str, width: int) -> int:
    """Where the rows from `first` on end: at a line without the separator (Markdown's bar), or, when `width` is
    given, with another number of cells than the header."""
    end = first
    while end < len(lines):
        row = lines[end][1]
        if separator not in row or width and len(_split(row, separator)) != width:
            break
        end += 1
    return end


def _lines(text: str) -> list[tuple[int, str]]:
    found, start = [], 0
    for line in text.split("\n"):
        found.append((start, line))
        start += len(line) + 1
    return found


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


_KEY_BEFORE = re.compile(r"\b([A-Za-z][a-z]*(?:(?:[_-][A-Za-z]|[A-Z])[a-z]*)+)\b[\"']?\s*$|\"([A-Za-z]{2,24})\"\s*$")
"""A key joined as code joins words (snake_case, kebab-case, camelCase), or a quoted key of one word ("nin"), right
before its colon or equals sign."""
_VALUE_AFTER = re.compile(r"\s*[\"']?([A-Za-z0-9][A-Za-z0-9 ./-]{2,30}[A-Za-z0-9])(?![\w/-])")
_ASSIGN = re.compile(r"[:=]")
_WORD_START = re.compile(r"[_-]|(?<=[a-z])(?=[A-Z])")


def key_values(text: str) -> Iterator[tuple[str, int, int]]:
    """(key in words, start, end) of every value after a key joined as code joins words ("passport_number":
    "548320917", "date_of_birth": "1990-07-02", driversLicense=S530-4417-1234). The colons and equals signs are
    found first, the key before each only then."""
    if ":" not in text and "=" not in text:
        return
    for sign in _ASSIGN.finditer(text):
        if not sign.start() or not (text[sign.start() - 1].isalpha() or text[sign.start() - 1] in "\"'"):
            continue  # "12:30", " = ": no key's end before the sign
        key = _KEY_BEFORE.search(text, max(0, sign.start() - 45), sign.start())
        value = key and _VALUE_AFTER.match(text, sign.end())
        if value:
            words = _WORD_START.sub(" ", key.group(1) or key.group(2)).lower()
            # a short key of one word is an abbreviation, which some labels are only in capitals ("NIN", "INN")
            yield (words.upper() if len(words) <= 5 else words), value.start(1), value.end(1)
