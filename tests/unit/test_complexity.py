"""The package's cyclomatic complexity, as radon measures it (`radon cc khaos_action entrypoint.py`): no function
at 20 or more, and at most 5% of functions at 10 or more. A function over either line is split, or its long
if-chain becomes a table, rather than the line moved."""

from __future__ import annotations

import functools
from pathlib import Path

from radon.complexity import cc_visit
from radon.visitors import Function

ROOT = Path(__file__).resolve().parents[2]
CEILING = 20
"""No function at or above this."""
HIGH = 10
MAX_HIGH_SHARE = 0.05
"""The share of functions allowed at or above HIGH."""
Row = tuple[str, int, str, int]


@functools.cache
def _functions() -> tuple[Row, ...]:
    """(file, line, name, complexity) of every function and method; a closure counts in its own, as radon cc
    lists functions."""
    sources = sorted((ROOT / "khaos_action").rglob("*.py")) + [ROOT / "entrypoint.py"]
    found = []
    for path in sources:
        for block in cc_visit(path.read_text(encoding="utf-8")):
            if isinstance(block, Function):
                found.append((path.relative_to(ROOT).as_posix(), block.lineno, block.fullname, block.complexity))
    return tuple(found)


def _named(rows: list[Row]) -> str:
    return "\n".join(f"  {file}:{line} {name}: {cc}" for file, line, name, cc in sorted(rows, key=lambda r: -r[3]))


def test_the_measure_sees_the_package() -> None:
    functions = _functions()
    assert len(functions) > 1000
    assert {"entrypoint.py", "khaos_action/cli.py"} <= {file for file, _, _, _ in functions}
    assert all(cc >= 1 for _, _, _, cc in functions)


def test_no_function_reaches_the_ceiling() -> None:
    over = [row for row in _functions() if row[3] >= CEILING]
    assert not over, f"{len(over)} functions have cyclomatic complexity >= {CEILING}:\n{_named(over)}"


def test_few_functions_are_complex() -> None:
    functions = _functions()
    high = [row for row in functions if row[3] >= HIGH]
    allowed = int(len(functions) * MAX_HIGH_SHARE)
    assert len(high) <= allowed, (
        f"{len(high)} of {len(functions)} functions ({len(high) / len(functions):.1%}) have cyclomatic complexity "
        f">= {HIGH}; at most {MAX_HIGH_SHARE:.0%} ({allowed}) may:\n{_named(high)}")
